"""The producer matrix: docs/producer-matrix.yaml, its reports and findings, the section it writes
into docs/matrix.md and the page; a run of a producer of the tests' own (the fault proxy as a
relaying gateway); and, slow, litellm's proxy started as its docs say."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest
from fault_proxy import FAULTS
from streamroute.conformance.cli import main
from streamroute.conformance.suite import UsageError
from streamroute.matrix.producers import (
    MARK,
    html,
    load_producer_matrix,
    load_reports,
    markdown,
    run_producers,
    with_section,
)
from streamroute.producer.probe_report import scenarios_of
from streamroute.producer.scenarios import BUNDLED_SCENARIOS, load_scenarios

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
CONFIG = DOCS / "producer-matrix.yaml"
REPORTS = DOCS / "reports" / "producers"
SCENARIO_IDS = sorted(s.id for s in load_scenarios([BUNDLED_SCENARIOS])[0])


def test_every_finding_has_an_upstream_report_naming_its_version_and_source_lines() -> None:
    matrix = load_producer_matrix(CONFIG)
    assert len(matrix.producers) >= 3
    for finding in matrix.findings:
        report = (DOCS / finding.report).read_text(encoding="utf-8")
        assert f"**Finding:** {finding.id} " in report, finding.id
        for heading in (
            "## Minimal scenario",
            "## What happens",
            "## What should happen",
            "## The source lines",
        ):
            assert heading in report, (finding.id, heading)
        for line in finding.source:
            path, _, lines = line.rpartition(":")
            assert f"`{path}`" in report, (finding.id, path)
            assert lines.split("-")[0] in report, (finding.id, line)


def test_every_committed_producer_finding_is_explained_and_every_finding_explains_one() -> None:
    matrix = load_producer_matrix(CONFIG)
    shown = load_reports(matrix, REPORTS)
    used = set()
    for probed in shown:
        assert probed.records, f"{probed.producer.id}: no report in {REPORTS}"
        assert [r["id"] for r in scenarios_of(probed.records)] == SCENARIO_IDS, probed.producer.id
        for record in scenarios_of(probed.records):
            assert record["status"] != "errored", (probed.producer.id, record["id"], record["message"])
            for finding in record["findings"]:
                explained = matrix.explain(probed.producer.id, record["id"], finding)
                assert explained is not None, (probed.producer.id, record["id"], finding)
                used.add(explained.id)
            # Every capture that states a final response became client vectors the reference passes.
            for made in record["vectors"]:
                refused = ("no terminal event", "expectations by hand", "holds no event")  # no ground truth
                assert made["status"] == "passed" or any(why in made["message"] for why in refused), (
                    probed.producer.id,
                    record["id"],
                    made,
                )
    assert used == {f.id for f in matrix.findings}


def test_the_published_matrix_shows_the_producer_section_of_the_committed_reports() -> None:
    matrix = load_producer_matrix(CONFIG)
    shown = load_reports(matrix, REPORTS)
    assert markdown(matrix, shown, "reports/producers") in (DOCS / "matrix.md").read_text(encoding="utf-8")
    assert html(matrix, shown) in (DOCS / "matrix.html").read_text(encoding="utf-8")


def test_the_section_is_replaced_where_it_stands() -> None:
    document = "# Clients\n\ntable\n"
    once = with_section(document, f"{MARK}\n## Producers\none")
    assert once == f"# Clients\n\ntable\n{MARK}\n## Producers\none\n"
    assert (
        with_section(once, f"{MARK}\n## Producers\ntwo") == f"# Clients\n\ntable\n{MARK}\n## Producers\ntwo\n"
    )
    page = "<body><p>x</p></body>"
    assert with_section(page, f"{MARK}<h2>P</h2>", "</body>") == f"<body><p>x</p>{MARK}<h2>P</h2>\n</body>"


def _config(tmp_path: Path, fault: str) -> Path:
    proxy = Path(__file__).parent / "fault_proxy.py"
    config = tmp_path / "producer-matrix.yaml"
    config.write_text(
        json.dumps(
            {
                "timeout": 5,
                "producers": [
                    {
                        "id": "relay",
                        "label": "a relaying gateway",
                        "kind": "gateway",
                        "start": f"{shlex.quote(sys.executable)} {shlex.quote(str(proxy))} "
                        f"{{port}} {{upstream}} {fault}",
                        "models": {"chat-completions": "m", "responses": "m"},
                    }
                ],
                "findings": [
                    {
                        "id": "T1",
                        "title": "content parts dropped",
                        "class": "bug",
                        "checks": ["PROD-PART-2"],
                        "match": ".",
                        "report": "upstream/t1.md",
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    (tmp_path / "matrix.md").write_text("# Clients\n", encoding="utf-8")
    return config


@pytest.mark.parametrize("fault", ["none", "drop-content-part-added"])
def test_the_matrix_starts_a_producer_probes_it_and_writes_its_section(
    fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fault in FAULTS
    config = _config(tmp_path, fault)
    argv = [
        "matrix",
        "--producers",
        "--config",
        str(tmp_path / "matrix.yaml"),
        "--output",
        str(tmp_path / "matrix.md"),
    ]
    assert main([*argv, "--reports", str(tmp_path / "reports"), "--workdir", str(tmp_path / "work")]) == 0
    shown = load_reports(load_producer_matrix(config), tmp_path / "reports" / "producers")
    statuses = {r["id"]: r["status"] for r in scenarios_of(shown[0].records)}
    assert all(statuses[i] == "not applicable" for i in SCENARIO_IDS if i.startswith("bridge/"))
    section = (tmp_path / "matrix.md").read_text(encoding="utf-8")
    assert section.startswith(f"# Clients\n{MARK}\n## Producers")
    if fault == "none":  # a relaying gateway passes on the broken upstream of relay/disconnect as it is
        assert {i for i, s in statuses.items() if s == "failed"} == {"relay/disconnect"}
        assert "Producer findings no finding explains: 2." in section
    else:
        assert statuses["relay/text"] == "failed"
        assert "[T1](upstream/t1.md)" in section
        assert "**unexplained**" in section
    assert json.loads((tmp_path / "reports" / "producers" / "relay.run.json").read_text("utf-8"))["python"]
    capsys.readouterr()


def test_a_producer_that_does_not_start_is_one_line(tmp_path: Path) -> None:
    config = _config(tmp_path, "none")
    data = json.loads(config.read_text(encoding="utf-8"))
    data["producers"][0]["start"] = f"{shlex.quote(sys.executable)} -c 'print(\"no port here\")'"
    config.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(
        UsageError, match=r"^relay did not start listening on \d+; its log ends: no port here$"
    ):
        run_producers(config, tmp_path / "work", tmp_path / "reports")


def test_a_producer_that_needs_a_checkout_not_there_is_skipped_and_says_so(tmp_path: Path) -> None:
    config = _config(tmp_path, "none")
    data = json.loads(config.read_text(encoding="utf-8"))
    data["producers"][0]["needs"] = "somewhere"
    config.write_text(json.dumps(data), encoding="utf-8")
    shown = run_producers(config, tmp_path / "work", tmp_path / "reports")
    assert shown[0].records == []
    assert shown[0].why == "needs somewhere, not there when the matrix ran"


@pytest.mark.slow
def test_litellms_proxy_started_as_its_docs_say_runs_every_scenario(tmp_path: Path) -> None:
    """The command litellm's docs give (`litellm --config ...`, `litellm[proxy]`), installed from the
    pinned lockfiles into .matrix/ (or STREAMROUTE_MATRIX_WORKDIR; reused while the pins stay), in
    front of the fake upstream."""
    reports = tmp_path / "reports"
    workdir = Path(os.environ.get("STREAMROUTE_MATRIX_WORKDIR", ROOT / ".matrix"))
    shown = run_producers(CONFIG, workdir, reports, ["litellm-proxy-1.110.2"])
    probed = next(p for p in shown if p.producer.id == "litellm-proxy-1.110.2")
    records = scenarios_of(probed.records)
    assert [r["id"] for r in records] == SCENARIO_IDS
    matrix = load_producer_matrix(CONFIG)
    for record in records:
        assert record["status"] in ("passed", "failed"), (record["id"], record["message"])
        assert all(matrix.explain(probed.producer.id, record["id"], f) for f in record["findings"]), record[
            "id"
        ]
        assert all(v["status"] in ("passed", "not made") for v in record["vectors"]), record["id"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("producers: 3\n", "expected a mapping with a list of `producers`"),
        ("producers: [7]\n", "producers[0]: expected a mapping"),
        (
            "producers: [{id: a, label: a, kind: k, start: s, transport: carrier-pigeon}]\n",
            "producers[0]: `transport` must be sse or websocket",
        ),
        (
            "producers: []\nfindings: [{id: P, title: t, class: bug, checks: [x], match: '(', report: r}]\n",
            "findings[0]: bad `match`",
        ),
    ],
)
def test_a_bad_producer_matrix_file_is_refused_in_one_line(tmp_path: Path, text: str, problem: str) -> None:
    config = tmp_path / "producer-matrix.yaml"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=re.escape(problem)):
        load_producer_matrix(config)
