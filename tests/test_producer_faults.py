"""Generated captures (producer/generated.py) against the producer checker.

On every generated capture, in SSE and in JSON Lines, `check_capture` reports
exactly the planted faults, by event and requirement; a capture without faults
has no violation; every PROD-* requirement has a fault, and 500 captures reach
each one many times.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.schemas import SPEC_DIR
from streamroute.producer.checker import check_capture
from streamroute.producer.generated import (
    RULES,
    Format,
    GeneratedCapture,
    Report,
    captures,
    difference,
    sample,
)

FORMATS: tuple[Format, ...] = ("sse", "jsonl")


def _reported(capture: GeneratedCapture, form: Format) -> list[Report]:
    report = check_capture(capture.data(form))
    assert report.format == form  # each rendering is told for what it is, as `check-capture` guesses
    return [(violation.at, violation.requirement) for violation in report.violations]


@pytest.mark.slow
@given(captures())
def test_the_checker_reports_exactly_the_planted_faults(capture: GeneratedCapture) -> None:
    for form in FORMATS:
        problem = difference(capture.expected(form), _reported(capture, form))
        assert problem is None, f"{form}: {problem}; planted: {capture.planted}"


@pytest.mark.slow
@given(captures(faults=False))
def test_a_capture_without_faults_has_no_violation(capture: GeneratedCapture) -> None:
    for form in FORMATS:
        assert capture.expected(form) == ()
        assert _reported(capture, form) == []


def test_every_producer_requirement_has_a_fault() -> None:
    requirements, _ = read_requirements(SPEC_DIR)
    assert sorted(RULES) == sorted(r for r in requirements if r.startswith("PROD-"))


@pytest.mark.slow
def test_500_captures_reach_every_requirement_many_times() -> None:
    reached = Counter(
        rule
        for capture in sample(500, 0)
        for rule in {rule for form in FORMATS for _, rule in capture.expected(form)}
    )
    assert {rule: reached[rule] for rule in RULES if reached[rule] < 10} == {}
    assert 0 < sum(not capture.planted for capture in sample(500, 0)) < 150  # some well-formed, not most


def test_a_difference_is_said_in_words_and_order_within_an_event_is_none() -> None:
    expected: list[Report] = [(3, "PROD-ITEM-1"), (3, "PROD-SEQ-2"), (None, "PROD-LIFE-2")]
    assert difference(expected, [(3, "PROD-SEQ-2"), (3, "PROD-ITEM-1"), (None, "PROD-LIFE-2")]) is None
    assert difference(expected, [(3, "PROD-ITEM-1"), (4, "PROD-SEQ-2"), (None, "PROD-LIFE-2")]) == (
        "missed PROD-SEQ-2 at event 3; reported PROD-SEQ-2 at event 4 wrongly"
    )
    assert difference(expected, expected[:2]) == "missed PROD-LIFE-2 at the end"
