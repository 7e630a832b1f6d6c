"""docs/upstream/: the reports for the libraries' trackers, and the vector each one rests on.

Each library's folder is named by its implementation id in docs/matrix.yaml and holds a report
per defect (`F<n>-<slug>.md`) and its vectors, a vectors root of its own (`--vectors
docs/upstream/<id>`). Every vector must be one the reference router passes, each report must name
a finding classed a defect and link the vectors it rests on, and every defect must have a report
unless docs/upstream/README.md says it is fixed in a newer release. The slow test runs each folder
against its pinned library, installed as `streamroute matrix --workdir DIR` installs it: every
vector must fail there, since each shows a defect of that release.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from streamroute.conformance.cli import main
from streamroute.conformance.vectors import load_vectors
from streamroute.matrix.run import adapter_command, installed, load_matrix

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT / "docs" / "upstream"
MATRIX = load_matrix(ROOT / "docs" / "matrix.yaml")
LIBRARIES = sorted(path for path in UPSTREAM.iterdir() if path.is_dir())
REPORTS = sorted(UPSTREAM.glob("*/F*.md"))
# The reference at the canonical call point, and at the one an agent framework's vector may state.
REFERENCE_ROUTERS = [
    "streamroute.reference.adapter:router",
    "streamroute.reference.adapter:response_done_router",
]
# Where `streamroute matrix` installed the libraries (its --workdir).
INSTALLS = Path(os.environ.get("STREAMROUTE_UPSTREAM_INSTALLS", ROOT / ".matrix"))


def test_each_folder_is_named_for_an_implementation_of_the_matrix() -> None:
    assert LIBRARIES, "docs/upstream/ has no library folder"
    assert {path.name for path in LIBRARIES} <= {entry.id for entry in MATRIX.entries}


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda path: path.name)
def test_every_vector_is_valid_and_the_reference_passes_it(library: Path, tmp_path: Path) -> None:
    vectors, errors = load_vectors([library])
    assert not errors, errors
    assert vectors, f"{library.name} has no vector"
    assert main(["lint", "--vectors", str(library)]) == 0
    report = tmp_path / "report.jsonl"
    statuses: dict[str, set[str]] = {}
    for router in REFERENCE_ROUTERS:  # each vector at every call point it applies to
        main(
            [
                "run",
                "--adapter",
                router,
                "--vectors",
                str(library),
                "-q",
                "--allow-empty",
                "--report",
                str(report),
            ]
        )
        for vector_id, status in _statuses(report).items():
            if status != "not applicable":
                statuses.setdefault(vector_id, set()).add(status)
    assert statuses == {vector.id: {"passed"} for vector in vectors}


@pytest.mark.parametrize("report", REPORTS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_each_report_names_a_defect_and_links_the_vectors_it_rests_on(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    finding = report.stem.split("-", 1)[0]
    classes = {f.id: f.classification for f in MATRIX.findings}
    assert classes.get(finding) == "defect", f"{finding} is no defect of docs/matrix.yaml"
    assert f"finding [{finding}](../../findings.md#{finding.lower()})" in text
    linked = re.findall(r"\]\((upstream/[^)]+\.yaml)\)", text)
    assert linked, f"{report.name} links no vector"
    assert all((report.parent / path).is_file() for path in linked)
    assert f"--vectors docs/upstream/{report.parent.name}" in text


def test_every_defect_has_a_report_or_is_fixed_in_a_newer_release() -> None:
    reported = {report.stem.split("-", 1)[0] for report in REPORTS}
    fixed = re.search(r"^A defect already fixed .*$", (UPSTREAM / "README.md").read_text(), re.MULTILINE)
    assert fixed is not None
    missing = {f.id for f in MATRIX.findings if f.classification == "defect"} - reported
    assert missing == set(re.findall(r"\bF\d+\b", fixed.group())) & missing


@pytest.mark.slow
@pytest.mark.parametrize("library", LIBRARIES, ids=lambda path: path.name)
def test_every_vector_fails_on_the_pinned_release(library: Path, tmp_path: Path) -> None:
    entry = next(entry for entry in MATRIX.entries if entry.id == library.name)
    if not installed(entry, INSTALLS):
        pytest.skip(
            f"{entry.id} is not installed under {INSTALLS} "
            "(`streamroute matrix --workdir DIR --only ID`, then STREAMROUTE_UPSTREAM_INSTALLS=DIR)"
        )
    report = tmp_path / "report.jsonl"
    command = ["run", "--adapter-command", adapter_command(entry, INSTALLS), "--timeout", str(MATRIX.timeout)]
    main([*command, "--vectors", str(library), "-q", "--report", str(report)])
    statuses = _statuses(report)
    assert statuses
    assert all(status in ("failed", "errored") for status in statuses.values()), statuses


def _statuses(report: Path) -> dict[str, str]:
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return {line["id"]: line["status"] for line in lines if line.get("line") == "vector"}
