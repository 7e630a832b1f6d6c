"""docs/matrix.html: the matrix as one self-contained page, to read at a glance.

Rendered by `streamroute matrix` beside docs/matrix.md, from the same JSON
Lines reports and the vectors they ran: implementations are the columns,
requirements the rows, grouped by profile and level, each cell the
requirement's verdict for that implementation (a requirement fails when a
failing vector charges it, spec/vectors.md section 5). A failing cell
opens to its failing vectors, each linked to its row in the implementation's
failure table and to the finding that explains it. The page holds its style
and needs nothing else: no script, font or image.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html import escape
from typing import Any

from streamroute.conformance.claims import requirement_key
from streamroute.conformance.report import Report
from streamroute.conformance.results import Status

from .run import Entry, Matrix, Requirements, _options

_LEVELS = ("MUST", "SHOULD", "MAY")
_FAILING = (Status.FAILED.value, Status.ERRORED.value)
_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1f24; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: 3px 6px; vertical-align: top; text-align: left; }
thead th { background: #f6f8fa; font-weight: 600; position: sticky; top: 0; }
thead small { font-weight: 400; }
tbody td:first-child { white-space: nowrap; }
th.group { background: #eaeef2; text-align: left; }
td.pass { background: #dafbe1; }
td.fail { background: #ffebe9; }
td.na { color: #6e7781; }
tr.summary td { background: #f6f8fa; font-weight: 600; }
details summary { cursor: pointer; }
ul { margin: 0.2em 0 0 1.1em; padding: 0; }
code, .vector { font-family: ui-monospace, monospace; font-size: 12px; }
.unexplained { color: #cf222e; font-weight: 600; }
"""


def _vector_anchor(entry: Entry, vector: str) -> str:
    return f"v-{entry.id}-{vector}"


def _finding_link(matrix: Matrix, entry: Entry, record: dict[str, Any]) -> str:
    finding = matrix.explain(entry.id, record["id"], record["message"])
    if finding is None:
        return '<span class="unexplained">unexplained</span>'
    title = escape(f"{finding.title} ({finding.classification})")
    return f'<a href="findings.md#{finding.id.lower()}" title="{title}">{escape(finding.id)}</a>'


def _profiles(
    matrix: Matrix, requirements: Requirements, reports: Sequence[tuple[Entry, Report]]
) -> dict[str, str]:
    """Each cited requirement's profile: that of the vectors citing it (the matrix's order decides a tie)."""
    seen: dict[str, set[str]] = {}
    for _, report in reports:
        for v in report.vectors:
            for requirement in requirements.cited.get(v["id"], ()):
                seen.setdefault(requirement, set()).add(v["profile"])
    order = {profile: rank for rank, profile in enumerate(matrix.profiles)}
    return {r: min(p, key=lambda name: (order.get(name, len(order)), name)) for r, p in seen.items()}


def _summary_cells(
    reports: Sequence[tuple[Entry, Report]], verdicts: Sequence[dict[str, bool]], unseen: Sequence[set[str]]
) -> list[str]:
    cells = []
    for (entry, report), verdict, hidden in zip(reports, verdicts, unseen, strict=True):
        counts = Counter(v["status"] for v in report.vectors)
        vectors = " · ".join(
            f"{counts[s.value]} {s.value}"
            for s in (Status.PASSED, Status.FAILED, Status.ERRORED, Status.SKIPPED)
            if counts[s.value]
        )
        passed = sum(verdict.values())
        failed = len(verdict) - passed
        not_observable = f" · {len(hidden)} not observable" if hidden else ""
        claims = "<br>".join(
            f"{escape(claim['class'])} {escape(claim['profile'])}: {escape(claim['verdict'])}"
            for claim in report.claims
        )
        cells.append(
            f'<td data-implementation="{escape(entry.id)}" data-passed="{passed}" '
            f'data-failed="{failed}" data-not-observable="{len(hidden)}">requirements: '
            f"{passed} pass · {failed} fail{not_observable}<br>vectors: {vectors or 'none'}"
            f"<br>{claims}</td>"
        )
    return cells


def _cell(
    matrix: Matrix,
    entry: Entry,
    failing: list[dict[str, Any]],
    verdict: bool | None,
    requirement: str,
    observable: bool,
) -> str:
    data = f'data-implementation="{escape(entry.id)}" data-requirement="{requirement}"'
    if not observable:  # spec/observation.md: the API shows none of its vectors
        return f'<td class="na" {data} data-verdict="not observable">not observable</td>'
    if verdict is None:
        return f'<td class="na" {data} data-verdict="n/a">n/a</td>'
    if verdict:
        return f'<td class="pass" {data} data-verdict="pass">pass</td>'
    items = "".join(
        f'<li><a class="vector" href="#{escape(_vector_anchor(entry, v["id"]))}">{escape(v["id"])}</a> '
        f"{_finding_link(matrix, entry, v)}</li>"
        for v in failing
    )
    return (
        f'<td class="fail" {data} data-verdict="fail"><details><summary>fail · {len(failing)}</summary>'
        f"<ul>{items}</ul></details></td>"
    )


def _failure_sections(matrix: Matrix, reports: Sequence[tuple[Entry, Report]]) -> list[str]:
    out = []
    for entry, report in reports:
        failing = sorted((v for v in report.vectors if v["status"] in _FAILING), key=lambda v: v["id"])
        if not failing:
            continue
        out += [
            f'<h2 id="impl-{escape(entry.id)}">{escape(entry.label)}: failing vectors</h2>',
            "<table><thead><tr><th>vector</th><th>status</th><th>finding</th><th>reason</th></tr></thead><tbody>",
        ]
        for v in failing:
            reason = escape((v["message"] or "").split("\n", 1)[0])
            out.append(
                f'<tr id="{escape(_vector_anchor(entry, v["id"]))}"><td class="vector">{escape(v["id"])}</td>'
                f"<td>{v['status']}</td><td>{_finding_link(matrix, entry, v)}</td><td>{reason}</td></tr>"
            )
        out.append("</tbody></table>")
    return out


def render_page(
    matrix: Matrix, reports: Sequence[tuple[Entry, Report]], reports_dir: str, requirements: Requirements
) -> str:
    """The page for these reports, in the matrix's order of implementations; it links to the reports
    in `reports_dir` and to matrix.yaml, matrix.md and findings.md as files beside it."""
    verdicts = [requirements.verdicts(report) for _, report in reports]
    unseen = [requirements.unobservable(report) for _, report in reports]
    # A requirement no implementation ran a vector for has no row, unless an API could not show it.
    ran = set().union(*verdicts, *unseen)
    profiles = {r: p for r, p in _profiles(matrix, requirements, reports).items() if r in ran}
    failing: list[dict[str, list[dict[str, Any]]]] = []
    for _, report in reports:
        by_requirement: dict[str, list[dict[str, Any]]] = {}
        for v in report.vectors:
            if v["status"] in _FAILING:
                for requirement in requirements.counted(v):
                    by_requirement.setdefault(requirement, []).append(v)
        failing.append(by_requirement)
    suite = reports[0][1].header["suite"]["version"] if reports else "?"
    columns = "".join(
        f'<th data-implementation="{escape(entry.id)}">{escape(entry.label)}<br>'
        f"<small>{escape(report.header['implementation']['language'])} · "
        f"{escape(entry.entry_point.strip('`'))} · options: {escape(_options(report).replace('`', ''))}"
        "</small></th>"
        for entry, report in reports
    )
    width = 2 + len(reports)
    summary = "".join(_summary_cells(reports, verdicts, unseen))
    rows = [f'<tr class="summary"><td colspan="2">summary</td>{summary}</tr>']
    order = {profile: rank for rank, profile in enumerate(matrix.profiles)}
    groups = sorted(
        {(profiles[r], requirements.levels.get(r, "?")) for r in profiles},
        key=lambda g: (order.get(g[0], len(order)), g[0], _LEVELS.index(g[1]) if g[1] in _LEVELS else 3),
    )
    for profile, level in groups:
        rows.append(f'<tr><th class="group" colspan="{width}">{escape(profile)} · {level}</th></tr>')
        members = sorted(
            (r for r in profiles if profiles[r] == profile and requirements.levels.get(r, "?") == level),
            key=requirement_key,
        )
        for requirement in members:
            cells = "".join(
                _cell(
                    matrix,
                    entry,
                    failing[i].get(requirement, []),
                    verdicts[i].get(requirement),
                    requirement,
                    requirement not in unseen[i],
                )
                for i, (entry, _) in enumerate(reports)
            )
            rows.append(
                f'<tr data-requirement="{requirement}"><td>{requirement}</td><td>{level}</td>{cells}</tr>'
            )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            "<title>streamroute conformance matrix</title>",
            f"<style>{_STYLE}</style></head><body>",
            "<h1>Conformance matrix of real implementations</h1>",
            f"<p>streamroute {escape(suite)}, profiles {escape(', '.join(matrix.profiles))}. Generated by "
            '<code>streamroute matrix</code> from <a href="matrix.yaml">matrix.yaml</a> and the reports in '
            f'<a href="{escape(reports_dir)}/">{escape(reports_dir)}/</a>; the same run as '
            '<a href="matrix.md">matrix.md</a>. A requirement '
            "fails when a failing vector charges it (the requirement whose outcome differs, not every one "
            "the vector cites), passes when vectors citing it ran and none charges it, and is n/a when none "
            "ran; it is not observable when the implementation's API shows none of what it is observed "
            'through. Findings: <a href="findings.md">findings.md</a>.</p>',
            f'<table id="matrix"><thead><tr><th>requirement</th><th>level</th>{columns}</tr></thead><tbody>',
            *rows,
            "</tbody></table>",
            *_failure_sections(matrix, reports),
            "</body></html>",
            "",
        ]
    )
