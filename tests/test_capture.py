"""`streamroute check-capture`: well-formed captures pass; each planted fault is reported where it is.

Each broken capture under tests/captures/broken has a `.expect` file beside it:
`#` lines say what was planted, every other line is `INDEX REQUIREMENT` (or
`end REQUIREMENT` for the end of the stream), and the checker must report
exactly those, in that order.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamroute.conformance.capture import check_capture
from streamroute.conformance.cli import main
from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.schemas import EVENT, SPEC_DIR, schema
from streamroute.reference import EVENT_TYPES

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
