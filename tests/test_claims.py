"""A run's verdict says what was judged: claims per class, partial when little is shown, the vector
set and the gate recorded, and no green run from a declaration, a skip or a moved call."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.conformance.cli import main
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.report import Report
from streamroute.conformance.results import Status, run_vector
from streamroute.conformance.vectors import Vector

SHOWS_LITTLE = """
class Adapter:
    profiles = ("core", "custom-tools")
    observes = {"end": []}

    def __init__(self, tools):
        pass

    def feed(self, event):
        return []

    def close(self):
        return [{"kind": "end"}]
"""


def _run(tmp_path: Path, *arguments: str) -> tuple[int, Report]:
    report = tmp_path / "report.jsonl"
    code = main(["run", "-q", "--report", str(report), *arguments])
    return code, Report.load(report)


def test_a_router_that_routes_nothing_fails_though_it_declares_it_shows_only_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "shows_little.py").write_text(SHOWS_LITTLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, report = _run(tmp_path, "--adapter", "shows_little:Adapter")
    assert code == 1
    err = capsys.readouterr().err
    assert "core (routing) is partial: 1 of" in err
    assert {claim["verdict"] for claim in report.claims} == {"partial"}
    assert main(["summary", str(tmp_path / "report.jsonl")]) == 1
    summary = capsys.readouterr().out
    assert "shows end" in summary
    assert "result: FAILED" in summary
    assert main(["badge", str(tmp_path / "report.jsonl")]) == 0
    badge = json.loads(capsys.readouterr().out)
    assert (badge["color"], "partial" in badge["message"]) == ("red", True)
    assert main(["summary", str(tmp_path / "report.jsonl"), "--format", "junit"]) == 1
    properties = {
        p.attrib["name"]: p.attrib["value"] for p in ET.fromstring(capsys.readouterr().out).iter("property")
    }
    assert properties["observes"] == "shows end"
    assert properties["routing"].startswith("core partial")
    allowed, _ = _run(
        tmp_path,
        "--adapter",
        "shows_little:Adapter",
        "--allow-partial",
        "core",
        "--allow-partial",
        "custom-tools",
    )
    assert allowed == 0  # said in so many words: the badge stays yellow, the claims partial
    capsys.readouterr()
    assert main(["badge", str(tmp_path / "report.jsonl")]) == 0
    assert json.loads(capsys.readouterr().out)["color"] == "yellow"


def test_an_adapter_that_skips_all_but_one_vector_fails_under_a_bound_on_skips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "skips.py"
    script.write_text(
        "from streamroute.reference.adapter import router\n"
        "from streamroute.reference.serve import reference_replies, serve\n"
        "answer = reference_replies(router)\n"
        "KEPT = 'core/args/parallel-interleaved'\n"
        "def reply_to(message):\n"
        "    if message['cmd'] == 'run' and message['vector']['id'] != KEPT:\n"
        "        return {'seq': message['seq'], 'skipped': True, 'reason': 'not yet'}\n"
        "    return answer(message)\n"
        "serve(reply_to)\n",
        encoding="utf-8",
    )
    command = f"{sys.executable} {script}"
    run = ["--adapter-command", command, "--profile", "core"]
    assert main(["run", "-q", *run]) == 1  # what it skipped is not observed: its claims are partial
    assert "core (routing) is partial" in capsys.readouterr().err
    assert main(["run", "-q", *run, "--allow-partial", "core"]) == 0  # named, a skip is no failure
    capsys.readouterr()
    code, report = _run(tmp_path, *run, "--allow-partial", "core", "--max-skipped", "0")
    assert code == 1
    assert "vectors skipped, more than --max-skipped 0" in capsys.readouterr().err
    assert report.header["gate"]["max_skipped"] == 0
    assert report.totals.counts[Status.SKIPPED] > 100


def test_a_run_over_other_vectors_says_so_in_the_report_and_on_the_badge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_vector(tmp_path / "one", hello())
    _, one = _run(tmp_path, "--vectors", str(tmp_path / "one"))
    _, bundled = _run(tmp_path, "--profile", "sse")
    assert (one.header["vectors"]["bundled"], one.header["vectors"]["count"]) == (False, 1)
    assert bundled.header["vectors"]["bundled"] is True
    assert one.header["vectors"]["digest"] != bundled.header["vectors"]["digest"]
    write_vector(tmp_path / "one", hello(title="Another title"))
    _, changed = _run(tmp_path, "--vectors", str(tmp_path / "one"))
    assert changed.header["vectors"]["digest"] != one.header["vectors"]["digest"]
    capsys.readouterr()
    main(["run", "-q", "--vectors", str(tmp_path / "one"), "--report", str(tmp_path / "one.jsonl")])
    capsys.readouterr()
    main(["badge", str(tmp_path / "one.jsonl")])
    assert json.loads(capsys.readouterr().out)["label"] == "streamroute (other vectors)"


def test_summary_of_a_report_fails_exactly_when_its_run_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    for allowed in ([], ["--allow-empty"]):
        code, _ = _run(tmp_path, "--vectors", str(tmp_path / "empty"), *allowed)
        assert main(["summary", str(tmp_path / "report.jsonl")]) == code == (0 if allowed else 1)
        capsys.readouterr()


def test_a_call_fired_at_its_siblings_done_fails_a_bundled_vector(bundled: list[Vector]) -> None:
    """spec/vectors.md 3.1: an outcome moves only from its own item's `.done`; one made at another
    call's `.done` is compared where it was made."""
    implementation = PythonImplementation.load("broken_routers:FiresSiblingsEarly")
    vector = next(v for v in bundled if v.id == "core/bugs/litellm-21331-parallel-interleaved-calls")
    result = run_vector(implementation, vector)
    assert result.status is Status.FAILED
    assert "tool.call expected from event" in result.message
