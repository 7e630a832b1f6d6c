"""`streamroute matrix`: the matrix file, the reports, docs/matrix.md and its findings; and the
protocol loop the Python library adapters share, proved on the reference router."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from streamroute.conformance.cli import main
from streamroute.conformance.report import Report
from streamroute.conformance.suite import UsageError
from streamroute.matrix.run import Entry, Requirements, install, load_matrix, render

ROOT = Path(__file__).parent.parent
NODE_EXAMPLE = ROOT / "adapters" / "node-example" / "adapter.js"
CRASH_ON_THIRD = Path(__file__).parent / "protocol_adapters" / "crash_on_third.py"

# The reference read as a library is: each vector's stream as an HTTP response body.
LOOP_ADAPTER = f"""
import sys
sys.path.insert(0, {str(ROOT / "adapters")!r})
from protocol_loop import body, serve_streams
from streamroute.reference import Router
from streamroute.reference.sse import ByteRouter


def run(vector, tally):
    router = ByteRouter(Router())
    for read in body(vector, tally):
        for outcomes in router.feed_bytes(read):
            tally.add(outcomes)
    tally.add(router.close())


serve_streams({{"name": "loop", "version": "1", "language": "python", "profiles": ["core"]}}, run)
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


@pytest.mark.slow
def test_the_shared_protocol_loop_serves_the_reference_and_it_passes_every_core_vector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "loop_adapter.py"
    script.write_text(LOOP_ADAPTER, encoding="utf-8")
    command = shlex.join([sys.executable, str(script)])
    assert main(["run", "--profile", "core", "--adapter-command", command]) == 0
    assert " 0 failed, 0 errored" in capsys.readouterr().out


@pytest.mark.slow
def test_a_matrix_runs_each_implementation_and_explains_each_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        ("reference", shlex.join([sys.executable, "-m", "streamroute.reference.serve"])),
        ("crashy", shlex.join([sys.executable, str(CRASH_ON_THIRD)])),
    ]
    if shutil.which("node"):
        entries.append(("node-example", shlex.join(["node", str(NODE_EXAMPLE)])))
    listed = "".join(
        f"  - {{id: {name}, entry_point: serve, command: {command!r}}}\n" for name, command in entries
    )
    config = _write(
        tmp_path,
        "profiles: [core]\nimplementations:\n" + listed + "findings:\n"
        "  - {id: F1, title: crashes, class: defect, implementations: [crashy],"
        " match: 'exited with code 3'}\n",
    )
    assert _run(tmp_path, config) == 0
    out = capsys.readouterr().out
    assert "unexplained failure" not in out
    matrix = (tmp_path / "out" / "matrix.md").read_text(encoding="utf-8")
    assert "Failures no finding explains: 0." in matrix
    assert "| [F1](findings.md#f1) crashes | defect |" in matrix
    reference = Report.load(tmp_path / "out" / "reports" / "reference.jsonl")
    assert not reference.failed
    crashy = Report.load(tmp_path / "out" / "reports" / "crashy.jsonl")
    errored = [v["id"] for v in crashy.vectors if v["status"] == "errored"]
    assert errored
    # Each row: vector, status, the requirements it charges, finding, reason.
    rows = [rf"\| `{re.escape(vector_id)}` \| errored \| [^|]* \| \[F1\]" for vector_id in errored]
    assert all(re.search(row, matrix) for row in rows)


@pytest.mark.slow
def test_a_failure_no_finding_explains_is_shown_as_unexplained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = shlex.join([sys.executable, str(CRASH_ON_THIRD)])
    config = _write(tmp_path, f"implementations:\n  - {{id: crashy, entry_point: e, command: {command!r}}}\n")
    assert _run(tmp_path, config) == 0
    assert "unexplained failure: crashy: " in capsys.readouterr().out
    assert "**unexplained**" in (tmp_path / "out" / "matrix.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_only_reruns_one_implementation_and_reuses_the_other_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve = shlex.join([sys.executable, "-m", "streamroute.reference.serve"])
    config = _write(
        tmp_path,
        f"implementations:\n  - {{id: a, entry_point: e, command: {serve!r}}}\n"
        f"  - {{id: b, entry_point: e, command: {serve!r}}}\n",
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
        (
            "implementations:\n  - {id: a, entry_point: e, command: x}\n"
            "  - {id: a, entry_point: e, command: y}\n",
            "must be unique",
        ),
        ("implementations:\n  - {id: a, entry_point: e}\n", "`command` must be"),
        ("implementations:\n  - {id: a, command: x}\n", "`entry_point` must be"),
        ("implementations:\n  - {id: a, entry_point: e, command: x, constraints: 3}\n", "`constraints`"),
        ("implementations:\n  - {id: a, entry_point: e, command: x, npm: [x]}\n", "`npm` must be"),
        ("implementations: []\nimplementations: []\n", "duplicate key"),
        ("implementations: []\nfindings:\n  - {id: F, title: t, class: defect, match: '('}\n", "bad `match`"),
        ("implementations: []\nfindings:\n  - {id: F, title: t, class: choice, match: x}\n", "`class`"),
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
    assert all(entry.entry_point for entry in matrix.entries)
    documented = set(re.findall(r"^#{2,3} (F\d+)$", findings, flags=re.MULTILINE))
    assert documented == {finding.id for finding in matrix.findings}


def test_a_changed_constraints_file_reinstalls_and_an_unchanged_one_does_not(tmp_path: Path) -> None:
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("", encoding="utf-8")
    entry = Entry("pinned", "pinned", "{python} -V", "e", (), str(constraints))
    install(entry, tmp_path / "work")
    stamp = tmp_path / "work" / "pinned" / ".streamroute-installed"
    log = tmp_path / "work" / "pinned" / "install.log"
    assert not log.exists()  # nothing to pip install: only the stamp, which holds the lockfile
    constraints.write_text("six==1.16.0\n", encoding="utf-8")
    install(entry, tmp_path / "work")
    assert "six==1.16.0" in stamp.read_text(encoding="utf-8")
    assert not log.exists()  # still nothing to install; the stamp followed the lockfile
    with pytest.raises(UsageError, match="cannot read the lockfile"):
        install(Entry("gone", "gone", "x", "e", (), str(tmp_path / "nope.txt")), tmp_path / "work")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
def test_an_npm_folder_with_a_package_lock_is_installed_with_npm_ci(tmp_path: Path) -> None:
    folder = tmp_path / "adapter"
    folder.mkdir()
    (folder / "package.json").write_text('{"name": "a", "version": "1.0.0"}', encoding="utf-8")
    (folder / "package-lock.json").write_text(
        '{"name": "a", "version": "1.0.0", "lockfileVersion": 3, "requires": true,'
        ' "packages": {"": {"name": "a", "version": "1.0.0"}}}',
        encoding="utf-8",
    )
    install(Entry("node", "node", "node {dir}/x.js", "e", npm=str(folder)), tmp_path / "work")
    log = (tmp_path / "work" / "node" / "install.log").read_text(encoding="utf-8")
    assert " ci --prefix " in log
    assert "lockfileVersion" in (tmp_path / "work" / "node" / ".streamroute-installed").read_text()


@pytest.mark.slow
def test_the_matrix_shows_entry_points_and_what_each_run_ran_on(tmp_path: Path) -> None:
    serve = shlex.join([sys.executable, "-m", "streamroute.reference.serve"])
    config = _write(
        tmp_path,
        f"implementations:\n  - {{id: ref, entry_point: '`Router.feed()`', command: {serve!r}}}\n",
    )
    assert _run(tmp_path, config) == 0
    matrix = (tmp_path / "out" / "matrix.md").read_text(encoding="utf-8")
    assert "| `Router.feed()` |" in matrix
    about = (tmp_path / "out" / "reports" / "ref.run.json").read_text(encoding="utf-8")
    assert f'"python": "{sys.version.split()[0]}"' in about
    started = Report.load(tmp_path / "out" / "reports" / "ref.jsonl").header["started"]
    assert f"| ref | {started} | " in matrix
    # a rerun of nothing keeps each run's description
    assert _run(tmp_path, config, "--only", "ref") == 0
    assert (tmp_path / "out" / "reports" / "ref.run.json").exists()


def test_the_packages_an_entry_names_are_shown_with_their_installed_versions(tmp_path: Path) -> None:
    reference = tmp_path / "r.jsonl"
    reference.write_text(
        '{"line": "header", "suite": {"name": "streamroute", "version": "1"}, "protocol": 1,'
        ' "implementation": {"name": "x", "version": "2", "language": "python", "profiles": ["core"]},'
        ' "started": "2026-01-01T00:00:00+00:00"}\n'
        '{"line": "footer", "totals": {}, "bad_files": 0, "deselected": 0, "seconds": 0}\n',
        encoding="utf-8",
    )
    entry = Entry("x", "x", "c", "e", ("Typing_Extensions==4.0", "--no-deps"))
    runs = {"x": {"platform": "P", "python": "3.x", "node": None, "packages": {"typing-extensions": "4.0"}}}
    text = render(
        load_matrix(_write(tmp_path, "implementations: []\n")), [(entry, Report.load(reference))], "r", runs
    )
    assert "| x | 2026-01-01T00:00:00+00:00 | P | 3.x | - | Typing_Extensions 4.0 |" in text


def _report(tmp_path: Path, options: dict[str, str], vectors: Sequence[tuple[Any, ...]]) -> Report:
    """A report of one implementation declaring `options`, with (id, status, spec) vector lines."""
    header = {
        "line": "header",
        "suite": {"name": "streamroute", "version": "1"},
        "protocol": 1,
        "implementation": {
            "name": "x",
            "version": "2",
            "language": "python",
            "profiles": ["core"],
            "options": options,
        },
        "started": "2026-01-01T00:00:00+00:00",
    }
    lines = [header]
    for vector_id, status, spec, *charged in vectors:
        lines.append(
            {
                "line": "vector",
                "id": vector_id,
                "profile": "core",
                "level": "MUST",
                "status": status,
                "message": "" if status == "passed" else "why",
                "details": "",
                "listed": False,
                "spec": spec,
                **({"charged": charged[0]} if charged else {}),
            }
        )
    lines.append({"line": "footer", "totals": {}, "bad_files": 0, "deselected": 0, "seconds": 0})
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return Report.load(path)


def test_each_requirement_fails_when_a_failure_charges_it_and_is_counted_by_level(tmp_path: Path) -> None:
    """A failure charges what its line says it charges (spec/vectors.md section 5); a line of a
    report that states no charges charges what the vector cites."""
    report = _report(
        tmp_path,
        {},
        [
            ("core/a", "passed", ["A-1", "B-1"]),
            ("core/b", "failed", ["A-1"]),
            ("core/c", "errored", ["C-1"]),
            ("core/d", "not applicable", ["D-1"]),
            ("core/e", "skipped", ["E-1"]),
            ("core/f", "passed", ["A-10"]),
            ("core/g", "failed", ["A-10", "A-1"], ["A-1"]),
        ],
    )
    levels = {"A-1": "MUST", "A-10": "MUST", "B-1": "SHOULD", "C-1": "MAY", "D-1": "MUST", "E-1": "MUST"}
    requirements = Requirements({}, levels)
    matrix = load_matrix(_write(tmp_path, "implementations: []\n"))
    text = render(matrix, [(Entry("x", "x", "c", "e"), report)], "r", {}, requirements)
    assert "| x | 1 / 1 (0) | 1 / 0 (0) | 0 / 1 (0) |" in text  # core/g charges A-1, not A-10
    rows = [line for line in text.splitlines() if line.startswith("| A-") or line.startswith("| B-")]
    assert rows == ["| A-1 | MUST | **fail** |", "| A-10 | MUST | pass |", "| B-1 | SHOULD | pass |"]
    assert "| C-1 | MAY | **fail** |" in text
    assert "| D-1 |" not in text  # no vector citing it ran
    assert "| E-1 |" not in text


def test_a_requirement_one_implementation_did_not_run_is_not_applicable_there(tmp_path: Path) -> None:
    ran = _report(tmp_path, {}, [("core/a", "passed", ["A-1"])])
    (tmp_path / "other").mkdir()
    other = _report(tmp_path / "other", {}, [("core/a", "not applicable", ["A-1"])])
    text = render(
        load_matrix(_write(tmp_path, "implementations: []\n")),
        [(Entry("x", "x", "c", "e"), ran), (Entry("y", "y", "c", "e"), other)],
        "r",
        {},
        Requirements({}, {"A-1": "MUST"}),
    )
    assert "| A-1 | MUST | pass | n/a |" in text
    assert "| y | 0 / 0 (1) | 0 / 0 (0) | 0 / 0 (0) |" in text


def test_the_matrix_shows_the_options_each_implementation_declares_that_are_not_canonical(
    tmp_path: Path,
) -> None:
    report = _report(tmp_path, {"call_arguments": "json_text", "tool_call_point": "output_item_done"}, [])
    text = render(
        load_matrix(_write(tmp_path, "implementations: []\n")),
        [(Entry("x", "x", "c", "e"), report)],
        "r",
        {},
        Requirements({}, {}),
    )
    assert "| e | `call_arguments: json_text` |" in text
    assert "tool_call_point" not in text


def test_the_requirements_vectors_cite_are_read_from_the_bundled_vectors_and_the_spec() -> None:
    requirements = Requirements.bundled()
    assert requirements.cited["core/options/json-text-refused-texts"][0] == "CORE-JSON-1"
    assert requirements.levels["CORE-JSON-1"] == "MUST"
