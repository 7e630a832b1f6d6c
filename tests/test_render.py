"""What a run's report lines become: the text `streamroute run` prints, and JUnit XML."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamroute.conformance.implementation import Produced
from streamroute.conformance.render import Folding, comparison_lines, junit_names, junit_xml, vector_text
from streamroute.conformance.report import Record, Report
from streamroute.conformance.results import aligned
from streamroute.conformance.schemas import REPORT, first_error

EVENTS = [
    {"type": "response.created"},
    {"type": "response.output_text.delta"},
    {"type": "response.output_text.delta"},
    {"type": "response.output_text.delta"},
    {"type": "response.completed"},
]


def _delta(at: int, text: str) -> dict[str, Any]:
    return {"at": at, "kind": "text.delta", "delta": text}


def _comparison() -> dict[str, Any]:
    expected = [
        _delta(1, "a"),
        _delta(2, "b"),
        _delta(3, "c"),
        {"at": "close", "kind": "end", "status": "completed"},
    ]
    produced = [
        Produced(1, {"kind": "text.delta", "delta": "a"}),
        Produced(1, {"kind": "error", "code": "malformed_event", "message": "event 1: a second delta"}),
        Produced(2, {"kind": "text.delta", "delta": "b"}),
        Produced("close", {"kind": "end", "status": "completed"}),
    ]
    return {
        "reason": "outcome 1: expected kind text.delta, got error",
        "rows": aligned(expected, produced, EVENTS),
    }


def _record(status: str = "failed", **changes: Any) -> Record:
    record = {
        "line": "vector",
        "id": "core/text/three-deltas",
        "profile": "core",
        "level": "MUST",
        "status": status,
        "message": "outcome 1: expected kind text.delta, got error",
        "details": "",
        "listed": False,
        "title": "Three deltas in order",
        "spec": ["CORE-TEXT-1", "CORE-TEXT-2"],
        "path": "core/text/three-deltas.yaml",
        "seconds": 0.012,
        "comparisons": [_comparison()] if status == "failed" else [],
        **changes,
    }
    assert first_error(REPORT, record) is None
    return record


def test_the_table_aligns_and_marks_each_row_and_names_the_events() -> None:
    lines = comparison_lines([_comparison()])
    assert lines[0] == "outcome 1: expected kind text.delta, got error"
    header, *rows, events = lines[1:]
    assert re.fullmatch(r" +# +expected +# +actual", header)
    assert [row[:4].strip() for row in rows] == ["", "+", "", "-", ""]
    unexpected, missing = rows[1], rows[3]
    assert unexpected.index("@1 error") == header.index("actual")  # under the actual column
    assert unexpected.endswith('code="malformed_event" message="event 1: a second delta"')
    assert missing.endswith('2  @3 text.delta delta="c"')  # nothing to its right
    assert events == "    events: @1-3 response.output_text.delta"


def test_a_failed_vector_says_what_it_checks_and_where_it_is() -> None:
    lines = vector_text(_record()).splitlines()
    assert lines[:4] == [
        "FAILED core/text/three-deltas (core/text/three-deltas.yaml)",
        "  Three deltas in order",
        "  checks CORE-TEXT-1, CORE-TEXT-2 (MUST)",
        "  outcome 1: expected kind text.delta, got error",
    ]
    errored = _record(
        "errored", message="feed(event 1) raised KeyError: 'delta'", details="Traceback\n  line"
    )
    assert vector_text(errored).splitlines()[3:] == [
        "  feed(event 1) raised KeyError: 'delta'",
        "  Traceback",
        "    line",
    ]


def test_identical_failures_are_shown_once_and_listed_at_the_end() -> None:
    folding = Folding()
    same = {"message": "building the router raised RuntimeError: no key", "details": "Traceback ..."}
    shown = [folding.text(_record("errored", id=f"core/v{n}", **same)) for n in range(3)]
    other = folding.text(_record("errored", id="core/other", message="feed(event 0) raised"))
    assert shown[0] is not None
    assert shown[0].startswith("ERRORED core/v0 ")
    assert shown[1:] == [None, None]
    assert other is not None
    assert folding.summary() == [
        "the same error in 3 vectors (shown above for core/v0):",
        "  core/v0, core/v1, core/v2",
    ]


@pytest.mark.parametrize(
    ("vector_id", "profile", "names"),
    [
        ("core/args/parallel", "core", ("core.args", "parallel")),
        ("custom-tools/slot/one", "custom-tools", ("custom-tools.slot", "one")),
        ("mine/parallel", "core", ("core.mine", "parallel")),
        ("core/parallel", "core", ("core", "parallel")),
    ],
)
def test_junit_names_are_profile_and_folder_then_file(
    vector_id: str, profile: str, names: tuple[str, str]
) -> None:
    assert junit_names(vector_id, profile) == names


# The elements and attributes of Jenkins's junit.xsd (xunit-plugin junit-10.xsd, which accepts what
# Ant's writes): each element's allowed attributes, required ones, and allowed children.
JUNIT_XSD: dict[str, tuple[set[str], set[str], set[str]]] = {
    "testsuites": ({"name", "time", "tests", "failures", "errors"}, set(), {"testsuite"}),
    "testsuite": (
        {"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id"}
        | {"package", "file", "log", "url"},
        {"name", "tests", "failures", "errors"},
        {"testsuite", "properties", "testcase", "system-out", "system-err"},
    ),
    "properties": (set(), set(), {"property"}),
    "property": ({"name", "value"}, {"name", "value"}, set()),
    "testcase": (
        {"name", "time", "classname", "group"},
        {"name"},
        {"skipped", "error", "failure", "system-out", "system-err"},
    ),
    "failure": ({"type", "message"}, set(), set()),
    "error": ({"type", "message"}, set(), set()),
    "skipped": ({"type", "message"}, set(), set()),
}
SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?")


def _check_junit(element: ET.Element) -> None:
    allowed, required, children = JUNIT_XSD[element.tag]
    assert required <= set(element.attrib) <= allowed, (element.tag, element.attrib)
    if "time" in element.attrib and element.tag != "testcase":
        assert SUREFIRE_TIME.fullmatch(element.attrib["time"])
    for child in element:
        assert child.tag in children, (element.tag, child.tag)
        _check_junit(child)


def _report(records: list[Record]) -> Report:
    header = {
        "line": "header",
        "suite": {"name": "streamroute", "version": "1.2.0"},
        "protocol": 1,
        "implementation": {"name": "mine", "version": "0.1", "language": "python", "profiles": ["core"]},
        "started": "2026-01-02T03:04:05+00:00",
    }
    error = {"line": "file_error", "path": "mine/core/bad.yaml", "message": "not valid YAML"}
    totals = {
        "passed": 1,
        "failed": 1,
        "errored": 1,
        "skipped": 0,
        "not applicable": 1,
        "expected failure": 1,
    }
    footer = {"line": "footer", "totals": totals, "bad_files": 1, "deselected": 0, "seconds": 1.5}
    for line in (header, error, footer):
        assert first_error(REPORT, line) is None
    return Report(header, records, [error], footer)


def test_junit_xml_has_a_test_case_per_vector_and_bad_file_in_junit_xsd_terms() -> None:
    records = [
        _record("passed", id="core/text/ok", message=""),
        _record(),
        _record("errored", id="core/text/raises", message="feed(event 1) raised \x1b[31mKeyError\x00"),
        _record("not applicable", id="core/text/other-option", message="needs option x=y"),
        _record("expected failure", id="core/text/known", message="outcome 2: field 'delta'"),
    ]
    text = junit_xml(_report(records))
    root = ET.fromstring(text.encode("utf-8"))
    _check_junit(root)
    (suite,) = root
    assert {name: suite.attrib[name] for name in ("tests", "failures", "errors", "skipped")} == {
        "tests": "6",
        "failures": "1",
        "errors": "2",
        "skipped": "2",
    }
    cases = {case.attrib["name"]: case for case in suite.iter("testcase")}
    assert cases["three-deltas"].attrib["classname"] == "core.text"
    assert [child.tag for child in cases["ok"]] == []
    (failure,) = cases["three-deltas"]
    assert failure.tag == "failure"
    assert failure.attrib["message"] == "outcome 1: expected kind text.delta, got error"
    assert failure.text == vector_text(records[1])  # the same text `streamroute run` prints
    (error,) = cases["raises"]
    assert (error.tag, error.attrib["message"]) == (
        "error",
        "feed(event 1) raised \\u001b[31mKeyError\\u0000",
    )
    assert [cases[name][0].attrib["type"] for name in ("other-option", "known")] == [
        "not applicable",
        "expected failure",
    ]
    (bad,) = cases["mine/core/bad.yaml"]
    assert (bad.tag, bad.attrib["message"]) == ("error", "not valid YAML")


@pytest.mark.parametrize("length", [40, 200, 5000])
def test_a_field_that_differs_is_never_cut_whatever_its_length(length: int) -> None:
    long = "x" * length
    want = {**_delta(1, long + "a"), "item_id": "msg_" + "y" * 400}  # the other field is cut, in the cells
    got = {"kind": "text.delta", "item_id": want["item_id"], "delta": long + "b"}
    rows = aligned([want], [Produced(1, got)], EVENTS)
    assert rows[0]["fields"] == ["delta"]
    lines = comparison_lines([{"reason": "r", "rows": rows}])
    shown = "\n".join(lines)
    assert f'delta="{long}a"' in shown
    assert f'delta="{long}b"' in shown
    differs = [line for line in lines if f'delta="{long}a"' in line]
    assert differs[0].startswith("!=    0  @1 text.delta ")


# -- any comparison a report can hold renders ----------------------------------------------------

_AT = st.one_of(st.integers(min_value=0, max_value=10**12), st.just("close"))


@st.composite
def _cells(draw: st.DrawFn) -> dict[str, Any]:
    at = draw(_AT)
    event = None if at == "close" else draw(st.one_of(st.none(), st.text(max_size=300)))
    return {
        "index": draw(st.integers(min_value=0, max_value=10**6)),
        "at": at,
        "kind": draw(st.text(max_size=40)),
        "fields": draw(st.text(max_size=300)),
        "event": event,
    }


@st.composite
def _rows(draw: st.DrawFn) -> dict[str, Any]:
    op = draw(st.sampled_from(["equal", "differs", "missing", "unexpected", "omitted"]))
    if op == "omitted":
        return {"op": op, "count": draw(st.integers(min_value=1, max_value=10**6))}
    row: dict[str, Any] = {"op": op}
    if op != "unexpected":
        row["expected"] = draw(_cells())
    if op != "missing":
        row["actual"] = draw(_cells())
    return row


@st.composite
def _comparisons(draw: st.DrawFn) -> dict[str, Any]:
    comparison: dict[str, Any] = {"reason": draw(st.text()), "rows": draw(st.lists(_rows(), max_size=8))}
    if draw(st.booleans()):
        comparison["compare"] = draw(st.one_of(st.none(), st.lists(st.text(max_size=20), max_size=3)))
    if draw(st.booleans()):
        comparison["cuts"] = draw(st.lists(st.text(max_size=20), max_size=3))
    return comparison


@given(st.lists(_comparisons(), max_size=3))
def test_any_comparison_a_report_can_hold_renders(comparisons: list[dict[str, Any]]) -> None:
    """Rendering never raises: a report's comparisons may mix events and `close`, cells of any text,
    rows of every kind; what the schema allows, `summary` and `run` print."""
    for comparison in comparisons:
        assert first_error(REPORT + "#/$defs/comparison", comparison) is None
    lines = comparison_lines(comparisons)
    assert all(isinstance(line, str) for line in lines)
    text = vector_text(_record(comparisons=comparisons))
    assert "\x1b" not in text


@pytest.mark.parametrize(
    ("row", "where"),
    [
        ({"op": "omitted"}, "'count' is a required property"),
        (
            {"op": "differs", "expected": {"index": 0, "at": 0, "kind": "end", "fields": "", "event": None}},
            "'actual'",
        ),
        ({"op": "missing"}, "'expected' is a required property"),
        ({"op": "unexpected"}, "'actual' is a required property"),
        (
            {
                "op": "missing",
                "expected": {"index": 0, "at": "close", "kind": "end", "fields": "", "event": "x"},
            },
            "'x' is not of type 'null'",
        ),
    ],
)
def test_a_comparison_row_without_what_its_op_shows_is_not_a_report_line(
    row: dict[str, Any], where: str
) -> None:
    problem = first_error(REPORT + "#/$defs/comparison", {"reason": "r", "rows": [row]})
    assert problem is not None
    assert where in problem
