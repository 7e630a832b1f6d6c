"""Properties of the reference router on generated streams (conformance/strategies.py).

Each stream is drawn with its ground truth; what the reference must answer
comes from that truth, never from running the reference. The `ci` Hypothesis
profile runs a few dozen streams per property; `tox -e fuzz` runs 10,000.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from streamroute.conformance.compare import compare, to_canonical_point
from streamroute.conformance.implementation import Produced
from streamroute.conformance.schemas import OUTCOME, first_error
from streamroute.conformance.strategies import (
    GeneratedStream,
    check_properties,
    expected_outcomes,
    stream_plans,
    streams,
    streams_from,
)
from streamroute.reference import Router, consumers_for

DELTA_KINDS = {"text.delta", "tool.arguments.delta", "reasoning.delta"}


def route(stream: GeneratedStream, **options: Any) -> list[Produced]:
    router = Router(**options)
    produced = [Produced(at, o) for at, event in enumerate(stream.events) for o in router.feed(event)]
    return produced + [Produced("close", o) for o in router.close()]


def outcomes(stream: GeneratedStream) -> list[dict[str, Any]]:
    return [entry.outcome for entry in route(stream)]


@given(streams())
def test_the_reference_produces_exactly_the_outcomes_of_the_ground_truth(stream: GeneratedStream) -> None:
    mismatch = compare(expected_outcomes(stream), route(stream), None)
    assert mismatch is None, str(mismatch)


@given(streams())
def test_under_arguments_done_the_reference_produces_them_too(stream: GeneratedStream) -> None:
    produced = to_canonical_point(route(stream, tool_call_point="arguments_done"), stream.events)
    mismatch = compare(expected_outcomes(stream, "arguments_done"), produced, None)
    assert mismatch is None, str(mismatch)
    assert check_properties(stream.truth, [p.outcome for p in produced], "arguments_done") == []


@given(streams(consumer=True))
def test_with_diff_consumers_the_reference_produces_exactly_the_outcomes_too(stream: GeneratedStream) -> None:
    for point in ("output_item_done", "arguments_done"):
        produced = route(stream, consumers=consumers_for(stream.tools), tool_call_point=point)
        produced = to_canonical_point(produced, stream.events)
        mismatch = compare(expected_outcomes(stream, point), produced, None)
        assert mismatch is None, f"{point}: {mismatch}"


@given(streams())
def test_text_outcomes_concatenate_to_the_ground_truth_text(stream: GeneratedStream) -> None:
    shown: dict[tuple[str, int], str] = {}
    done: dict[tuple[str, int], str] = {}
    for outcome in outcomes(stream):
        if outcome["kind"] == "text.delta":
            key = (outcome["item_id"], outcome["content_index"])
            shown[key] = shown.get(key, "") + outcome["delta"]
        if outcome["kind"] == "text.done":
            done[(outcome["item_id"], outcome["content_index"])] = outcome["text"]
    parts = {(part.item_id, part.content_index): part for part in stream.truth.texts}
    assert set(shown) <= set(parts)
    for key, part in parts.items():
        if part.done:
            assert shown.get(key, part.text) == part.text  # a part sent without deltas shows nothing
            assert done[key] == part.text
        else:
            assert part.text.startswith(shown.get(key, ""))
            assert key not in done


@given(streams())
def test_each_completed_call_appears_exactly_once_with_equal_arguments(stream: GeneratedStream) -> None:
    calls = [o for o in outcomes(stream) if o["kind"] == "tool.call"]
    expected = [call for call in stream.truth.calls if call.done]
    assert sorted(o["item_id"] for o in calls) == sorted(call.item_id for call in expected)
    for call in expected:
        (stated,) = [o for o in calls if o["item_id"] == call.item_id]
        assert (stated["call_id"], stated["name"], stated["tool_type"]) == (
            call.call_id,
            call.name,
            call.tool_type,
        )
        if call.tool_type == "function":
            assert stated["arguments"] == call.arguments
        else:
            assert stated["input"] == call.input


@given(streams())
def test_no_call_appears_for_a_truncated_or_failed_item(stream: GeneratedStream) -> None:
    produced = outcomes(stream)
    for call in stream.truth.calls:
        mine = [
            o
            for o in produced
            if o.get("item_id") == call.item_id and o["kind"] in ("tool.call", "tool.error")
        ]
        if not call.done:
            assert [(o["kind"], o["code"]) for o in mine] == [("tool.error", "incomplete")]
    assert produced[-1] == {"kind": "end", "status": stream.truth.status}


@given(streams())
def test_no_outcome_fails_the_outcome_schema(stream: GeneratedStream) -> None:
    for outcome in outcomes(stream):
        assert first_error(OUTCOME, outcome) is None, outcome
    assert check_properties(stream.truth, outcomes(stream)) == []


@given(st.data())
def test_recutting_the_same_stream_changes_nothing_but_the_deltas(data: st.DataObject) -> None:
    plan = data.draw(stream_plans())
    first, second = data.draw(streams_from(plan)), data.draw(streams_from(plan))

    def without_deltas(stream: GeneratedStream) -> list[tuple[Any, dict[str, Any]]]:
        return [(p.at, p.outcome) for p in route(stream) if p.outcome["kind"] not in DELTA_KINDS]

    assert without_deltas(first) == without_deltas(second)
    assert first.truth == second.truth
