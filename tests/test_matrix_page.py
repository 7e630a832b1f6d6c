"""The matrix page (docs/matrix.html): what its cells state, read back from its HTML, and the published
page as headless Chromium renders it, checked against the JSON Lines reports it was made from.

The browser test is slow and needs Chromium (Debian's `chromium`); with STREAMROUTE_MATRIX_PNG=write
(`tox -e matrix` sets it) it also writes the screenshot docs/the-matrix.md shows, docs/matrix.png."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from streamroute.conformance.observation import observes_of
from streamroute.conformance.report import Report
from streamroute.conformance.schemas import BUNDLED_VECTORS
from streamroute.conformance.vectors import load_vectors
from streamroute.matrix.page import render_page
from streamroute.matrix.run import Entry, Matrix, Requirements, load_matrix

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FAILING = {"failed", "errored"}


class Page(HTMLParser):
    """The verdict cells by (implementation, requirement), the links in each, the summary, every id."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.verdicts: dict[tuple[str, str], str] = {}
        self.links: dict[tuple[str, str], list[str]] = {}
        self.summary: dict[str, tuple[int, int]] = {}
        self.ids: set[str] = set()
        self._cell: tuple[str, str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        data = {name: value or "" for name, value in attrs}
        if "id" in data:
            self.ids.add(data["id"])
        if tag == "td" and "data-verdict" in data:
            self._cell = (data["data-implementation"], data["data-requirement"])
            self.verdicts[self._cell] = data["data-verdict"]
            self.links[self._cell] = []
        elif tag == "td" and "data-passed" in data:
            self.summary[data["data-implementation"]] = (int(data["data-passed"]), int(data["data-failed"]))
        elif tag == "a" and self._cell is not None:
            self.links[self._cell].append(data["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._cell = None


def _cited() -> dict[str, list[str]]:
    vectors, _ = load_vectors([BUNDLED_VECTORS])
    return {v.id: list(v.data.get("spec", ())) for v in vectors}


def _expected_verdicts(report: Path, cited: dict[str, list[str]]) -> dict[str, str]:
    """Read straight from the JSON Lines: a requirement fails when a failing vector charges it (its
    `charged`, else what it cites: spec/vectors.md section 5); otherwise one a vector that ran or
    was skipped cites is not observable when the implementation's API does not show it
    (spec/observation.md), and passes when a vector citing it ran."""
    failed: set[str] = set()
    ran: set[str] = set()
    applicable: set[str] = set()
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    observes = observes_of(lines[0]["implementation"])
    for record in lines:
        if record["line"] != "vector" or record["status"] == "not applicable":
            continue
        requirements = cited.get(record["id"], [])
        applicable.update(requirements)
        if record["status"] in FAILING:
            failed.update(record.get("charged") or requirements)
        if record["status"] in FAILING | {"passed"}:
            ran.update(requirements)
    unseen = set() if observes is None else {r for r in applicable if not observes.observable([r])}
    return (
        dict.fromkeys(ran, "pass") | dict.fromkeys(unseen, "not observable") | dict.fromkeys(failed, "fail")
    )


def _report(path: Path, name: str, statuses: dict[str, str]) -> Report:
    lines = [
        {
            "line": "header",
            "suite": {"name": "streamroute", "version": "9.9.9"},
            "protocol": 1,
            "implementation": {"name": name, "version": "1", "language": "python", "profiles": ["core"]},
            "started": "2026-01-01T00:00:00+00:00",
        },
        *(
            {
                "line": "vector",
                "id": vector,
                "profile": "core",
                "level": "MUST",
                "status": status,
                "message": "" if status == "passed" else "outcome 2: expected kind tool.call, got end",
                "details": "",
                "listed": False,
            }
            for vector, status in statuses.items()
        ),
        {
            "line": "footer",
            "totals": {s: list(statuses.values()).count(s) for s in set(statuses.values())},
            "bad_files": 0,
            "deselected": 0,
            "seconds": 0.1,
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return Report.load(path)


def test_each_cell_states_the_verdict_and_links_its_failing_vectors_and_their_finding(tmp_path: Path) -> None:
    matrix_file = tmp_path / "matrix.yaml"
    matrix_file.write_text(
        "implementations:\n"
        "  - {id: good, command: x, entry_point: e}\n"
        "  - {id: bad, command: x, entry_point: e}\n"
        "findings:\n"
        "  - {id: F9, title: calls are lost at the end, class: defect, match: 'got end'}\n",
        encoding="utf-8",
    )
    matrix: Matrix = load_matrix(matrix_file)
    passing, failing = "core/text/plain-answer", "core/args/parallel-interleaved"
    statuses = [{passing: "passed", failing: "passed"}, {passing: "passed", failing: "failed"}]
    reports: list[tuple[Entry, Report]] = [
        (entry, _report(tmp_path / f"{entry.id}.jsonl", entry.id, status))
        for entry, status in zip(matrix.entries, statuses, strict=True)
    ]
    requirements = Requirements.bundled()
    page = Page(render_page(matrix, reports, "reports", requirements))

    only_failing = set(requirements.cited[failing]) - set(requirements.cited[passing])
    assert only_failing
    for requirement in only_failing:
        assert page.verdicts[("good", requirement)] == "pass"
        assert page.verdicts[("bad", requirement)] == "fail"
        assert page.links[("bad", requirement)] == [f"#v-bad-{failing}", "findings.md#f9"]
    for requirement in set(requirements.cited[passing]) - set(requirements.cited[failing]):
        assert page.verdicts[("bad", requirement)] == "pass"
    assert f"v-bad-{failing}" in page.ids  # the row of the failure table the cell links to
    both = set(requirements.cited[failing]) | set(requirements.cited[passing])
    assert {requirement for _, requirement in page.verdicts} == both  # no row for a requirement no vector ran
    broken = set(requirements.cited[failing])
    assert page.summary == {"good": (len(both), 0), "bad": (len(both - broken), len(broken))}


def _chromium(*arguments: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *arguments],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (Debian: apt-get install chromium)")
def test_the_published_page_renders_in_chromium_and_matches_the_reports(tmp_path: Path) -> None:
    page_path = DOCS / "matrix.html"
    assert page_path.exists(), f"{page_path} is missing: `streamroute matrix` writes it"
    matrix = load_matrix(DOCS / "matrix.yaml")
    dom = Page(_chromium("--dump-dom", page_path.resolve().as_uri()).stdout)

    cited = _cited()
    for entry in matrix.entries:
        expected = _expected_verdicts(DOCS / "reports" / f"{entry.id}.jsonl", cited)
        shown = {requirement: verdict for (e, requirement), verdict in dom.verdicts.items() if e == entry.id}
        assert {r: v for r, v in shown.items() if v != "n/a"} == expected, entry.id
        passed = sum(v == "pass" for v in expected.values())
        assert dom.summary[entry.id] == (passed, sum(v == "fail" for v in expected.values())), entry.id
    anchors = [link[1:] for links in dom.links.values() for link in links if link.startswith("#")]
    assert anchors
    assert all(anchor in dom.ids for anchor in anchors)

    screenshot = tmp_path / "matrix.png"
    _chromium(f"--screenshot={screenshot}", "--window-size=2000,1300", page_path.resolve().as_uri())
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(screenshot.read_bytes()[16:20], "big") == 2000  # the IHDR width
    if os.environ.get("STREAMROUTE_MATRIX_PNG") == "write":
        shutil.copyfile(screenshot, DOCS / "matrix.png")
