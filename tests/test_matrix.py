"""`streamroute matrix`: the matrix file, the reports, docs/matrix.md and its findings; and the
protocol loop the Python library adapters share, proved on the reference router."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest
from streamroute.conformance.cli import main
from streamroute.conformance.matrix import load_matrix
from streamroute.conformance.report import Report
from streamroute.conformance.suite import UsageError

ROOT = Path(__file__).parent.parent
NODE_EXAMPLE = ROOT / "adapters" / "node-example" / "adapter.js"
CRASH_ON_THIRD = Path(__file__).parent / "protocol_adapters" / "crash_on_third.py"

LOOP_ADAPTER = f"""
import sys
sys.path.insert(0, {str(ROOT / "adapters")!r})
from protocol_loop import serve
from streamroute.reference import Router


class Adapter:
    def __init__(self, tools):
        self.router = Router()

    def feed(self, event):
        return [dict(o) for o in self.router.feed(event)]

    def close(self):
        return [dict(o) for o in self.router.close()]


serve({{"name": "loop", "version": "1", "language": "python", "profiles": ["core"]}}, Adapter)
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "matrix.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _run(tmp_path: Path, config: Path, *extra: str) -> int:
    return main(
        [
            "matrix",
            "--config",
            str(config),
            "--output",
            str(tmp_path / "out" / "matrix.md"),
            "--reports",
            str(tmp_path / "out" / "reports"),
            "--workdir",
            str(tmp_path / "work"),
            *extra,
        ]
    )


def test_the_shared_protocol_loop_serves_the_reference_and_it_passes_every_core_vector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "loop_adapter.py"
    script.write_text(LOOP_ADAPTER, encoding="utf-8")
    command = shlex.join([sys.executable, str(script)])
    assert main(["run", "--profile", "core", "--adapter-command", command]) == 0
    assert " 0 failed, 0 errored" in capsys.readouterr().out


def test_a_matrix_runs_each_implementation_and_explains_each_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        ("reference", shlex.join([sys.executable, "-m", "streamroute.reference.serve"])),
        ("crashy", shlex.join([sys.executable, str(CRASH_ON_THIRD)])),
    ]
    if shutil.which("node"):
        entries.append(("node-example", shlex.join(["node", str(NODE_EXAMPLE)])))
    listed = "".join(f"  - {{id: {name}, command: {command!r}}}\n" for name, command in entries)
    config = _write(
        tmp_path,
        "profiles: [core]\nimplementations:\n" + listed + "findings:\n"
        "  - {id: F1, title: crashes, class: bug, implementations: [crashy], match: 'exited with code 3'}\n",
    )
    assert _run(tmp_path, config) == 0
    out = capsys.readouterr().out
    assert "unexplained failure" not in out
    matrix = (tmp_path / "out" / "matrix.md").read_text(encoding="utf-8")
    assert "Failures no finding explains: 0." in matrix
    assert "| [F1](findings.md#f1) crashes | bug |" in matrix
    reference = Report.load(tmp_path / "out" / "reports" / "reference.jsonl")
    assert not reference.totals.failed
    crashy = Report.load(tmp_path / "out" / "reports" / "crashy.jsonl")
    errored = [v["id"] for v in crashy.vectors if v["status"] == "errored"]
    assert errored
    assert all(f"| `{vector_id}` | errored | [F1]" in matrix for vector_id in errored)


def test_a_failure_no_finding_explains_is_shown_as_unexplained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = shlex.join([sys.executable, str(CRASH_ON_THIRD)])
    config = _write(tmp_path, f"implementations:\n  - {{id: crashy, command: {command!r}}}\n")
    assert _run(tmp_path, config) == 0
    assert "unexplained failure: crashy: " in capsys.readouterr().out
    assert "**unexplained**" in (tmp_path / "out" / "matrix.md").read_text(encoding="utf-8")


def test_only_reruns_one_implementation_and_reuses_the_other_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve = shlex.join([sys.executable, "-m", "streamroute.reference.serve"])
    config = _write(
        tmp_path,
        f"implementations:\n  - {{id: a, command: {serve!r}}}\n  - {{id: b, command: {serve!r}}}\n",
    )
    assert _run(tmp_path, config) == 0
    first = (tmp_path / "out" / "reports" / "a.jsonl").read_text(encoding="utf-8")
    assert _run(tmp_path, config, "--only", "b") == 0
    assert (tmp_path / "out" / "reports" / "a.jsonl").read_text(encoding="utf-8") == first
    assert _run(tmp_path, config, "--only", "nope") == 2
    assert "no implementation nope" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("implementations: 3\n", "a list of `implementations`"),
        ("implementations:\n  - {id: 'a b', command: x}\n", "must be letters"),
        ("implementations:\n  - {id: a, command: x}\n  - {id: a, command: y}\n", "must be unique"),
        ("implementations:\n  - {id: a}\n", "`command` must be"),
        ("implementations: []\nfindings:\n  - {id: F, title: t, class: bug, match: '('}\n", "bad `match`"),
        ("implementations: []\ntimeout: 0\n", "`timeout` must be"),
    ],
)
def test_a_bad_matrix_file_is_refused_in_one_line(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        load_matrix(_write(tmp_path, text))


def test_the_published_matrix_file_is_valid_and_every_finding_is_documented() -> None:
    matrix = load_matrix(ROOT / "docs" / "matrix.yaml")
    findings = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    assert len(matrix.entries) >= 5
    assert {f.classification for f in matrix.findings} <= {"bug", "choice", "option", "spec"}
    for finding in matrix.findings:
        assert f"\n## {finding.id}\n" in findings, finding.id
