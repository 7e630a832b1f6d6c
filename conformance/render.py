"""What a report becomes: what `streamroute run` prints of each vector, a summary (text or
Markdown), JUnit XML, a badge. Everything here reads report lines (spec/report.schema.json), never
a run's objects, so what is printed is what is recorded."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from . import triage
from .implementation import non_canonical
from .limits import Shown, printable
from .report import Record, Report
from .results import Status

# Vectors a summary lists one by one: everything but passed and not applicable.
_LISTED = [Status.FAILED, Status.ERRORED, Status.SKIPPED, Status.EXPECTED_FAILURE]


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]


def _implementation(report: Report) -> str:
    """The implementation as it names itself, not yet escaped for where it is shown."""
    info = report.header["implementation"]
    return f"{info['name']} {info['version']} ({info['language']})"


def _claims(report: Report) -> tuple[str, str]:
    info = report.header["implementation"]
    return ", ".join(info["profiles"]) or "none", non_canonical(info.get("options", {}))


def claim_lines(report: Report) -> list[str]:
    """Each class's claims in one line, the routing class first: `routing: core conforms (...)`."""
    by_class: dict[str, list[str]] = {}
    for claim in report.claims:
        by_class.setdefault(claim["class"], []).append(f"{claim['profile']} {_claim_words(claim)}")
    return [f"{name}: {'; '.join(claims)}" for name, claims in by_class.items()]


def _claim_words(claim: dict[str, Any]) -> str:
    """A claim's verdict in words (conformance/claims.py `Claim.describe`, from its report record)."""
    failed = claim["failed"]
    if claim["verdict"] == "partial":
        return f"partial ({claim['must_passed']} of {claim['must']} MUST requirements observed and passed)"
    if claim["verdict"].startswith("fails"):
        named = f": {', '.join(failed[:5])}{', ...' if len(failed) > 5 else ''}" if failed else ""
        return f"{claim['verdict']} ({len(failed)} requirement{'s' * (len(failed) != 1)} failed{named})"
    return f"conforms ({claim['must']} MUST requirements observed and passed)"


def _vector_set(report: Report) -> str:
    vectors = report.header.get("vectors")
    if vectors is None:
        return "not recorded"
    roots = "the bundled vectors" if vectors["bundled"] else ", ".join(vectors["roots"])
    return f"{vectors['count']} from {roots} ({vectors['digest'][:19]})"


def _listed(report: Report) -> list[dict[str, Any]]:
    """The vectors a summary lists: those that failed or errored as triage sorts them
    (conformance/triage.py), then those skipped and those expected to fail, by id."""
    failing = [dict(line) for group in triage.groups(report.vectors) for line in group.vectors]
    rank = {status.value: index for index, status in enumerate(_LISTED) if not status.is_failure}
    others = [line for line in report.vectors if line["status"] in rank]
    return failing + sorted(others, key=lambda line: (rank[line["status"]], line["id"]))


def _charges(line: Record) -> str:
    """What a failing vector charges, in a few words (` (charges CORE-ARGS-2)`), else nothing."""
    charged = line.get("charged") if Status(line["status"]).is_failure else None
    return f" (charges {', '.join(charged)})" if charged else ""


def triage_lines(lines: Sequence[Record]) -> list[str]:
    """The failures of these vector lines grouped for triage, counts first: per class and profile,
    how many failed or errored, then the requirements charged at each level, each with how many of
    them charge it."""
    found = triage.groups(lines)
    shown = ["failures by class, profile and requirement (worst first):"] if found else []
    for group in found:
        count = len(group.vectors)
        shown.append(f"  {group.name}: {count} vector{'s' * (count != 1)} failed or errored")
        for level in ("MUST", "SHOULD", "MAY"):
            charged = [f"{c.requirement} ({c.vectors})" for c in group.charged if c.level == level]
            shown += _wrapped(f"    {level:<6} ", charged, ", ")
    return [_line(line) for line in shown]


def triage_markdown(report: Report) -> list[str]:
    """The failures grouped for triage, as a Markdown table: a row per class and profile."""
    found = triage.groups(report.vectors)
    if not found:
        return []
    lines = [
        "",
        "| class | profile | failed or errored | requirements charged (vectors) |",
        "|---|---|--:|---|",
    ]
    for group in found:
        charged = ", ".join(f"{c.requirement} ({c.level}) {c.vectors}" for c in group.charged)
        lines.append(
            f"| {group.conformance_class} | {group.profile} | {len(group.vectors)} | {_cell(charged)} |"
        )
    return lines


def summary_text(report: Report) -> str:
    header, totals = report.header, report.totals
    profiles, options = _claims(report)
    lines = [
        f"implementation: {_line(_implementation(report))}",
        f"claims: profiles {_line(profiles)}; options {_line(options)}; {_shown_kinds(report)}",
        f"vectors: {_line(_vector_set(report))}",
        f"suite: streamroute {header['suite']['version']}, adapter protocol {header['protocol']}; "
        f"run started {header['started']}, {report.footer['seconds']:g} s",
        "",
        *claim_lines(report),
        "",
    ]
    grouped = triage_lines(report.vectors)
    lines += [*grouped, ""] if grouped else []
    for line in _listed(report):
        lines += [f"{line['status'].upper()} {_line(line['id'])}{_charges(line)}", f"  {_line(_why(line))}"]
    lines += [
        f"BAD VECTOR FILE {_line(error['path'])}: {_reason(error['message'])}" for error in report.file_errors
    ]
    lines.append(f"streamroute: {totals.describe()}")
    lines += [f"streamroute: {problem}" for problem in report.problems]
    lines.append(f"result: {'FAILED' if report.failed else 'PASSED'}")
    return printable("\n".join(lines) + "\n")


def _shown_kinds(report: Report) -> str:
    """What the implementation's API shows (spec/observation.md), in a few words."""
    observes = report.header["implementation"].get("observes")
    if observes is None:
        return "shows every outcome"
    return "shows " + (", ".join(sorted(observes)) or "nothing")


def _line(text: str) -> str:
    """A text in one line of a terminal, a log or a file read by lines."""
    return printable(text, Shown.LINE)


def _reason(message: str) -> str:
    """A message's first line, in one line."""
    return _line(_first_line(message))


def _cell(text: str) -> str:
    """A text as written in Markdown (a heading, a table cell): a job summary renders Markdown and
    HTML, and none of it may be read as either."""
    return printable(text, Shown.MARKDOWN)


def summary_markdown(report: Report) -> str:
    header, totals = report.header, report.totals
    profiles, options = _claims(report)
    lines = [
        f"## streamroute: {_cell(_implementation(report))} {'fails' if report.failed else 'passes'}",
        "",
        "| | |",
        "|---|---|",
        f"| implementation | {_cell(_implementation(report))} |",
        # Profile and option names and values are those the report's schema allows, shown as they are.
        f"| profiles | {profiles} |",
        f"| options | {options} |",
        f"| observes | {_cell(_shown_kinds(report))} |",
        f"| vectors | {_cell(_vector_set(report))} |",
        *(
            f"| {_cell(line.partition(': ')[0])} | {_cell(line.partition(': ')[2])} |"
            for line in claim_lines(report)
        ),
        f"| suite | streamroute {header['suite']['version']}, adapter protocol {header['protocol']} |",
        f"| run | started {header['started']}, {report.footer['seconds']:g} s |",
        f"| result | **{'failed' if report.failed else 'passed'}**: {_cell(totals.describe())} |",
        *(f"| why | {_cell(problem)} |" for problem in report.problems),
    ]
    lines += triage_markdown(report)
    listed = _listed(report)
    if listed or report.file_errors:
        lines += ["", "| vector | status | charges | message |", "|---|---|---|---|"]
        lines += [
            f"| `{v['id']}` | {v['status']} | {_cell(', '.join(v.get('charged', [])))} | {_cell(_why(v))} |"
            for v in listed
        ]
        lines += [
            f"| {_cell(error['path'])} | bad vector file | | {_cell(_first_line(error['message']))} |"
            for error in report.file_errors
        ]
    return printable("\n".join(lines) + "\n")


def badge(report: Report) -> dict[str, Any]:
    """A shields.io endpoint badge: per class, the share of applicable vectors passed, `partial`
    when a claim of it has MUST requirements not observed; the label says when the vectors were
    not the bundled ones."""
    shares: dict[str, list[bool]] = {}
    for line in report.vectors:
        if line["status"] != Status.NOT_APPLICABLE.value:
            shares.setdefault(line.get("class", "routing"), []).append(line["status"] == Status.PASSED.value)
    partial = {claim["class"] for claim in report.claims if claim["verdict"] == "partial"}
    shown = [
        f"{name} {100 * sum(passed) // len(passed)}%" + (" partial" if name in partial else "")
        for name, passed in sorted(shares.items(), key=lambda item: item[0] != "routing")
    ]
    if report.failed:
        color = "red"
    elif report.claims and all(claim["verdict"] == "conforms" for claim in report.claims):
        color = "brightgreen"
    else:
        color = "yellow"  # passes, with partial claims, expected failures or skips
    vectors = report.header.get("vectors")
    label = "streamroute" if vectors is None or vectors["bundled"] else "streamroute (other vectors)"
    return {"schemaVersion": 1, "label": label, "message": ", ".join(shown) or "no vectors", "color": color}


# -- a vector, as `streamroute run` prints it -------------------------------------------------------

_MARKS = {"equal": "", "differs": "!=", "missing": "-", "unexpected": "+"}
_LEFT_WIDTH = 72  # the expected column at most, for equal rows; the actual one runs on
_WIDEST_LEFT = 110  # how wide it grows to hold a pair that differs on one line


def _shown(cell: Mapping[str, Any]) -> str:
    return f"@{cell['at']} {cell['kind']} {cell['fields']}".rstrip()


def _fit(cell: Mapping[str, Any], width: int) -> str:
    """A cell of an equal row in `width` characters, its `@at kind` always, its fields cut."""
    text = _shown(cell)
    if len(text) <= width:
        return text
    fields: str = cell["fields"]
    head = text[: len(text) - len(fields)]
    room = max(width - len(head), 8)
    return head + (fields if len(fields) <= room else fields[: room - 1] + "…")


def _spans(indexes: Sequence[int]) -> str:
    """Event indexes as runs: `@3-5, @9`."""
    runs: list[list[int]] = []
    for index in indexes:
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return ", ".join(f"@{run[0]}" + (f"-{run[-1]}" if len(run) > 1 else "") for run in runs)


def _table(rows: Sequence[Mapping[str, Any]], kinds: Sequence[str] | None) -> list[str]:
    """Expected and actual side by side, aligned: `!=` a pair that differs, `-` an expected
    outcome not produced, `+` one produced but not expected; then the event of each `@at`."""
    shown = [row for row in rows if row["op"] != "omitted"]
    width = min(
        max((len(_shown(row["expected"])) for row in shown if "expected" in row), default=8), _LEFT_WIDTH
    )
    differing = [len(_shown(row["expected"])) for row in shown if row["op"] == "differs"]
    width = max([width, *(length for length in differing if length <= _WIDEST_LEFT)])
    header = f"{'':4}{'#':>3}  {'expected':<{width}}  {'#':>3}  actual"
    lines = [header + (f"   (comparing {', '.join(kinds)})" if kinds else "")]
    events: dict[str, set[Any]] = {}
    for row in rows:
        if row["op"] == "omitted":
            lines.append(
                f"{'':4}{'':>3}  … {row['count']} {'row' if row['count'] == 1 else 'rows'} not shown"
            )
            continue
        expected: Any = row.get("expected")  # a row has one of its cells at least
        actual: Any = row.get("actual")
        for cell in (expected, actual):
            if cell is not None and cell.get("event"):
                events.setdefault(cell["event"], set()).add(cell["at"])
        mark = f"{_MARKS[row['op']]:4}"
        if expected is None:
            lines.append(f"{mark}{'':>3}  {'':<{width}}  {actual['index']:>3}  {_shown(actual)}")
        elif actual is None:  # nothing to its right: the expected outcome in full
            lines.append(f"{mark}{expected['index']:>3}  {_shown(expected)}")
        elif row["op"] == "differs" and len(_shown(expected)) > width:  # nothing of a difference is cut:
            lines.append(f"{mark}{expected['index']:>3}  {_shown(expected)}")  # its cells one above the other
            lines.append(f"{'':4}{'':>3}  {'':<{width}}  {actual['index']:>3}  {_shown(actual)}")
        else:
            left = _shown(expected) if row["op"] == "differs" else _fit(expected, width)
            lines.append(
                f"{mark}{expected['index']:>3}  {left:<{width}}  {actual['index']:>3}  {_shown(actual)}"
            )
    ordered = sorted(events.items(), key=lambda pair: min(pair[1]))
    named = [f"{_spans(sorted(ats))} {event}" for event, ats in ordered]
    return lines + _wrapped("    events: ", named, "; ")


def _wrapped(first: str, items: Sequence[str], separator: str) -> list[str]:
    """`items` after `first`, joined, in lines of about 110 characters broken only between items."""
    lines: list[str] = []
    line = first
    for index, item in enumerate(items):
        piece = item + (separator if index < len(items) - 1 else "")
        if len(line) + len(piece) > 110 and line.strip() and line != first:
            lines.append(line.rstrip())
            line = " " * len(first)
        line += piece
    return [*lines, line] if items else lines


def comparison_lines(comparisons: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each failing comparison: its cuts (sse vectors), the first difference, the aligned table."""
    lines: list[str] = []
    for comparison in comparisons:
        cuts = comparison.get("cuts")
        lines.append(f"{' / '.join(cuts)}: {comparison['reason']}" if cuts else comparison["reason"])
        if comparison["rows"]:
            lines += _table(comparison["rows"], comparison.get("compare"))
    return lines


def otherwise(record: Record) -> str | None:
    """For a listed vector failing otherwise than its expected-failures file says, both ways."""
    listed, signature = record.get("listed_signature"), record.get("signature")
    if listed is None or signature is None or listed == signature or not Status(record["status"]).is_failure:
        return None
    return f"fails otherwise than its expected failure: listed `{listed}`, now `{signature}`"


def _why(record: Record) -> str:
    """Why a vector did not pass, in a line not yet escaped for where it is shown."""
    changed = otherwise(record)
    first = _first_line(record["message"])
    return first if changed is None else f"{changed}; {first}"


def vector_line(record: Record) -> str:
    """A vector in one line: `-q`, and what a summary lists."""
    return f"{record['status'].upper()} {_line(record['id'])}: {_line(_why(record))}"


def vector_text(record: Record) -> str:
    """A vector that did not pass, in full: what it checks, where its file is, and what went wrong."""
    where = record.get("file") or record.get("path")
    lines = [f"{record['status'].upper()} {record['id']}" + (f" ({where})" if where else "")]
    if "title" in record:
        lines.append(f"  {record['title']}")
    if "spec" in record:
        lines.append(f"  checks {', '.join(record['spec'])} ({record['level']})")
    changed = otherwise(record)
    if changed is not None:
        lines.append(f"  {changed}")
    body = comparison_lines(record.get("comparisons", [])) or record["message"].split("\n")
    body += record["details"].splitlines()
    return printable("\n".join(lines + ["  " + line for line in body]) + "\n")


class Folding:
    """Vectors as `run` prints them: a failure in full the first time; a later one identical to it
    (same status, message, details and comparisons: an adapter that always raises) only counted,
    and listed at the end."""

    def __init__(self) -> None:
        self.groups: dict[str, list[Record]] = {}

    def text(self, record: Record) -> str | None:
        key = json.dumps(
            [record[name] for name in ("status", "message", "details")] + [record.get("comparisons")],
            sort_keys=True,
        )
        group = self.groups.setdefault(key, [])
        group.append(record)
        return vector_text(record) if len(group) == 1 else None

    def summary(self) -> list[str]:
        lines = []
        for group in self.groups.values():
            if len(group) > 1:
                first = group[0]
                what = "error" if first["status"] == Status.ERRORED.value else "failure"
                lines.append(f"the same {what} in {len(group)} vectors (shown above for {first['id']}):")
                lines += _wrapped("  ", [record["id"] for record in group], ", ")
        return lines


# -- JUnit XML (the element names of Ant's and Jenkins's junit.xsd) ---------------------------------


def _xml_text(text: str) -> str:
    return printable(text, Shown.XML)


def junit_names(vector_id: str, profile: str) -> tuple[str, str]:
    """A vector's JUnit `classname` and `name`: its profile and folder (`core.args`), and its file's
    name; a vector stored outside a folder named for its profile gets the profile in front."""
    folder, _, name = vector_id.rpartition("/")
    parts = folder.split("/") if folder else []
    if not parts or parts[0] != profile:
        parts.insert(0, profile)
    return ".".join(parts), name


# What each status becomes: the child element of its <testcase>, if any.
_JUNIT_ELEMENT = {
    Status.FAILED.value: "failure",
    Status.ERRORED.value: "error",
    Status.SKIPPED.value: "skipped",
    Status.NOT_APPLICABLE.value: "skipped",
    Status.EXPECTED_FAILURE.value: "skipped",
}


def _element(parent: ET.Element, tag: str, attributes: Mapping[str, str]) -> ET.Element:
    return ET.SubElement(parent, tag, {name: _xml_text(value) for name, value in attributes.items()})


def junit_xml(report: Report) -> str:
    """The run as one JUnit test suite: a test case per vector run and per bad vector file."""
    totals = {"failure": 0, "error": 0, "skipped": 0}
    root = ET.Element("testsuites")
    suite = _element(root, "testsuite", {"name": "streamroute"})
    properties = _element(suite, "properties", {})
    profiles, options = _claims(report)
    for name, value in [
        ("implementation", _line(_implementation(report))),
        ("profiles", profiles),
        ("options", options),
        ("observes", _shown_kinds(report)),
        ("vectors", _vector_set(report)),
        *((line.partition(": ")[0], line.partition(": ")[2]) for line in claim_lines(report)),
        ("suite", f"streamroute {report.header['suite']['version']}"),
        ("protocol", str(report.header["protocol"])),
    ]:
        _element(properties, "property", {"name": name, "value": value})
    for record in report.vectors:
        classname, name = junit_names(record["id"], record["profile"])
        seconds = record.get("seconds", 0)
        case = _element(suite, "testcase", {"classname": classname, "name": name, "time": f"{seconds:.3f}"})
        tag = _JUNIT_ELEMENT.get(record["status"])
        if tag is not None:
            totals[tag] += 1
            outcome = _element(case, tag, {"type": record["status"], "message": _reason(record["message"])})
            if tag != "skipped":
                outcome.text = _xml_text(vector_text(record))
    for error in report.file_errors:
        totals["error"] += 1
        case = _element(suite, "testcase", {"classname": "vector files", "name": error["path"]})
        _element(case, "error", {"type": "bad vector file", "message": _reason(error["message"])})
    counts = {
        "tests": str(len(report.vectors) + len(report.file_errors)),
        "failures": str(totals["failure"]),
        "errors": str(totals["error"]),
    }
    seconds = f"{report.footer['seconds']:.3f}"
    suite.attrib.update(
        counts, skipped=str(totals["skipped"]), time=seconds, timestamp=report.header["started"]
    )
    root.attrib.update(name="streamroute", time=seconds, **counts)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
