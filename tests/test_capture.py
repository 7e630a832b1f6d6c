"""`streamroute check-capture`: well-formed captures pass; each planted fault is reported where it is.

Each broken capture under tests/captures/broken has a `.expect` file beside it:
`#` lines say what was planted, every other line is `INDEX REQUIREMENT` (or
`end REQUIREMENT` for the end of the stream), and the checker must report
exactly those, in that order.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamroute.conformance.cli import main
from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.schemas import EVENT, SPEC_DIR, schema
from streamroute.producer import checker
from streamroute.producer.checker import EVENTS, Format, check_capture, check_events, read_jsonl, read_sse
from streamroute.reference import EVENT_TYPES
from streamroute.wire.event_stream import MAX_EVENT_BYTES, Decoder

CAPTURES = Path(__file__).parent / "captures"
WELL_FORMED = sorted((CAPTURES / "well-formed").iterdir())
BROKEN = sorted(p for p in (CAPTURES / "broken").iterdir() if p.suffix != ".expect")


def _reported(path: Path) -> list[tuple[str, str]]:
    report = check_capture(path.read_bytes())
    return [("end" if v.at is None else str(v.at), v.requirement) for v in report.violations]


def _expected(path: Path) -> list[tuple[str, str]]:
    lines = path.with_suffix(".expect").read_text(encoding="utf-8").splitlines()
    return [
        (at, requirement) for at, requirement in (line.split() for line in lines if not line.startswith("#"))
    ]


def test_there_are_captures_of_both_kinds_in_both_formats() -> None:
    assert len(WELL_FORMED) + len(BROKEN) >= 10
    for captures in (WELL_FORMED, BROKEN):
        assert {p.suffix for p in captures} == {".sse", ".jsonl"}


@pytest.mark.parametrize("path", WELL_FORMED, ids=lambda p: p.name)
def test_a_well_formed_capture_has_no_violation(path: Path) -> None:
    report = check_capture(path.read_bytes())
    assert report.events > 0
    assert report.violations == []


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.name)
def test_a_broken_capture_reports_exactly_its_planted_faults(path: Path) -> None:
    assert _reported(path) == _expected(path)


def test_every_producer_requirement_is_reported_by_a_broken_capture() -> None:
    requirements, _ = read_requirements(SPEC_DIR)
    producer = {r for r in requirements if r.startswith("PROD-")}
    reported = {requirement for path in BROKEN for _, requirement in _reported(path)}
    assert reported <= producer, "the checker reports a requirement spec/producer.md does not define"
    assert producer - reported == set()


def test_the_event_schema_has_an_entry_for_every_routed_event_type_and_dispatches_on_each() -> None:
    defined = set(schema(EVENT)["$defs"])
    dispatched = {entry["if"]["properties"]["type"]["const"] for entry in schema(EVENT)["allOf"]}
    assert set(EVENT_TYPES) <= dispatched <= defined


def test_the_format_is_guessed_and_can_be_given(tmp_path: Path) -> None:
    jsonl = CAPTURES / "well-formed" / "parallel-calls.jsonl"
    assert check_capture(jsonl.read_bytes()).format == "jsonl"
    assert check_capture(b"event: x\n").format == "sse"
    as_sse = check_capture(jsonl.read_bytes(), "sse")
    assert as_sse.events == 0
    assert [v.requirement for v in as_sse.violations] == ["PROD-LIFE-2"]  # no event: no data lines


def test_the_command_prints_each_violation_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    path = CAPTURES / "broken" / "sequence-gap.jsonl"
    assert main(["check-capture", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{path}: event 5: PROD-SEQ-2 (SHOULD) sequence_number 6 follows 4: 1 missing",
        f"{path}: 11 events (jsonl), 1 violation",
    ]


def test_the_command_passes_a_well_formed_capture(capsys: pytest.CaptureFixture[str]) -> None:
    path = CAPTURES / "well-formed" / "open-responses-crlf-done.sse"
    assert main(["check-capture", "--format", "sse", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: 16 events (sse), 0 violations\n"


def test_an_unreadable_capture_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-capture", str(tmp_path / "missing.sse")]) == 2
    assert "cannot read the capture" in capsys.readouterr().err


# -- no input ends in a traceback ----------------------------------------------------


def _events(path: Path) -> list[Any]:
    captured, _ = (read_sse if path.suffix == ".sse" else read_jsonl)(path.read_bytes())
    return [json.loads(event.data) for event in captured if not event.done]


SOURCES = [_events(path) for path in WELL_FORMED]
KNOWN_TYPES = sorted(EVENTS)
# Values that a field of another type, another item type or a truncated event might hold.
ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 3),
    st.sampled_from(["", "x", "msg_1", "fc_1", "call_a", "resp_2", "message", "function_call", "refusal"]),
    st.sampled_from([*KNOWN_TYPES, "response.content_part.delta", "response.output_text.x"]),
    st.just([]),
    st.just({}),
)


@st.composite
def _mutated(draw: st.DrawFn) -> list[Any]:
    """A well-formed capture, its events dropped, repeated, swapped, retyped or given odd fields."""
    events = copy.deepcopy(draw(st.sampled_from(SOURCES)))
    for _ in range(draw(st.integers(1, 6))):
        index = draw(st.integers(0, len(events) - 1))
        event, change = events[index], draw(st.integers(0, 4))
        if change == 0 and len(events) > 1:
            del events[index]
        elif change == 1:
            events.insert(draw(st.integers(0, len(events))), copy.deepcopy(event))
        elif change == 2:
            other = draw(st.integers(0, len(events) - 1))
            events[index], events[other] = events[other], event
        else:  # a field of the event, or of its item, part or response
            inner = [
                value for value in (event.get("item"), event.get("part"), event.get("response")) if value
            ]
            target = draw(st.sampled_from([event, *inner]))
            target[draw(st.sampled_from([*target, "type", "content", "call_id", "arguments", "text"]))] = (
                draw(ODD)
            )
    return events


@given(_mutated(), st.sampled_from(["sse", "jsonl"]))
def test_a_capture_changed_in_any_way_gives_violations_never_an_exception(
    events: list[Any], format: Format
) -> None:
    lines = (json.dumps(event) for event in events)
    data = "".join(f"data: {line}\n\n" if format == "sse" else line + "\n" for line in lines).encode()
    check_capture(data, format)


@given(st.binary(max_size=300), st.sampled_from(["sse", "jsonl", None]))
def test_any_bytes_give_violations_never_an_exception(data: bytes, format: Format | None) -> None:
    check_capture(data, format)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, max_size=4) | st.dictionaries(st.sampled_from(["type", "item", "x"]), children)


@pytest.mark.slow
@given(st.lists(st.recursive(st.none() | st.booleans() | st.floats() | st.text(max_size=4), _containers)))
def test_any_json_values_give_violations_never_an_exception(values: list[Any]) -> None:
    check_capture("".join(json.dumps(value) + "\n" for value in values).encode(), "jsonl")


def test_events_whose_type_is_an_array_or_an_object_give_violations_never_an_exception() -> None:
    """A vector's events are checked as they are (`streamroute lint`), before any decoding that
    would have made them strings."""
    events = [{"type": ["response.created"], "sequence_number": 0}, {"type": {"name": "error"}}]
    assert "PROD-EVT-2" in {violation.requirement for violation in check_events(events)}


def test_an_event_past_the_sse_limit_is_reported_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    """SSE-LIMIT-1's 64 MiB, which no capture here holds, as 64 bytes."""
    monkeypatch.setattr(checker, "Decoder", functools.partial(Decoder, 64))
    data = (CAPTURES / "well-formed" / "text-answer.sse").read_bytes().replace(b"Hi", b"Hi" * 40, 1)
    found = [v for v in check_capture(data).violations if v.requirement == "PROD-EVT-1"]
    assert found[0].message == f"larger than {MAX_EVENT_BYTES} bytes: a router drops it unread"
