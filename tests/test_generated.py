"""The generated streams of conformance/strategies/: the reference routes them as their ground truth
says, at either tool call point, in every profile; and they reach the situations they are drawn for,
every registered deviation among them.

Each stream is drawn with its ground truth; what the reference must answer comes from that truth,
never from running the reference. The `ci` Hypothesis profile runs a few dozen streams per
property; `tox -e fuzz` runs 10,000.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamroute.conformance.event_types import event_types
from streamroute.conformance.fuzz import Case, Generated, Sources, digest, draw_streams, judge
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.strategies import (
    CATALOGUE_CALL_TYPES,
    DEVIATIONS,
    HOSTED,
    POINTS,
    PROFILES,
    UNKNOWN_TYPES,
    UNROUTED_TYPES,
    GeneratedStream,
    Profile,
    ToolCallPoint,
    check_properties,
    cited,
    expected_outcomes,
    stream_plans,
    streams,
    streams_from,
    well_formed,
)
from streamroute.conformance.strategies.catalogue import CallFault, CatalogueStream
from streamroute.conformance.strategies.steps import (
    Added,
    CallIdField,
    Control,
    ControlAction,
    Delta,
    Done,
    ErrorEvent,
    Lifecycle,
    Logprobs,
    Malformed,
    Stated,
    Step,
    Terminal,
)
from streamroute.conformance.strategies.wire import RecordKind

# Hundreds of generated streams per profile and tool call point: once, in `tox -e slow`.
pytestmark = pytest.mark.slow

REFERENCE = {
    "output_item_done": PythonImplementation.load("streamroute.reference.adapter:router"),
    "arguments_done": PythonImplementation.load("streamroute.reference.adapter:arguments_done_router"),
}
MESSAGE_KINDS = {"error", "tool.error", "tool.rejected", "tool.failed"}
EXECUTION_KINDS = ("tool.ready", "tool.rejected", "tool.started", "tool.succeeded", "tool.failed")
EXECUTION_KINDS += ("tool.cancelled", "tool.duplicate", "tool.audit")
DELTA_KINDS = {"text.delta", "tool.arguments.delta", "reasoning.delta", "refusal.delta", "diff.update"}


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("profile", PROFILES)
@given(data=st.data())
def test_the_reference_routes_every_generated_stream_as_its_ground_truth_says(
    profile: Profile, point: ToolCallPoint, data: st.DataObject
) -> None:
    stream = data.draw(streams(profile))
    assert judge(REFERENCE[point], Case(Generated.of_stream(stream))) is None


@pytest.mark.parametrize("profile", PROFILES)
@given(data=st.data())
def test_the_properties_in_words_hold_for_the_ground_truth_and_see_a_change(
    profile: Profile, data: st.DataObject
) -> None:
    stream = data.draw(streams(profile))
    said = {"message": "what went wrong"}  # never stated by an expected outcome, always by a produced one
    outcomes = [
        {k: v for k, v in o.items() if k != "at"} | (said if o["kind"] in MESSAGE_KINDS else {})
        for o in expected_outcomes(stream)
    ]
    assert check_properties(stream, outcomes) == []
    assert check_properties(stream, outcomes[:-1]) != []  # no end
    calls = [i for i, o in enumerate(outcomes) if o["kind"] == "tool.call"]
    if calls:
        wrong = [
            *outcomes[: calls[0]],
            {**outcomes[calls[0]], "call_id": "call_other"},
            *outcomes[calls[0] + 1 :],
        ]
        assert any("expected tool.call" in problem for problem in check_properties(stream, wrong))


def _routed(stream: GeneratedStream) -> list[tuple[Any, dict[str, Any]]]:
    return [(o["at"], o) for o in expected_outcomes(stream) if o["kind"] not in DELTA_KINDS]


@given(st.data())
def test_recutting_the_same_plan_changes_nothing_but_the_deltas(data: st.DataObject) -> None:
    plan = data.draw(stream_plans())
    first, second = data.draw(streams_from(plan)), data.draw(streams_from(plan))
    # A mismatch depends only on the texts, never on where they are cut; but halves of a surrogate
    # pair in one delta make a character, in two do not (D9), and a limit falls in one delta or another.
    plain = all(
        len(p.streamed) < 100 and p.streamed == well_formed(p.streamed)
        for item in plan.items
        for p in item.parts
    )
    if plain:
        assert _routed(first) == _routed(second)
    assert judge(REFERENCE["output_item_done"], Case(Generated.of_stream(second))) is None


def test_drawn_streams_are_distinct_and_the_same_for_the_same_seed() -> None:
    sources = Sources(("core", "sse"), (), session=False)
    first = [digest(case.generated) for case in draw_streams(sources, 30, seed=5)]
    assert first == [digest(case.generated) for case in draw_streams(sources, 30, seed=5)]
    assert len(set(first)) == 30
    assert first != [digest(case.generated) for case in draw_streams(sources, 30, seed=6)]


# What each profile's streams are drawn to reach, by the outcomes they expect or the bytes they
# carry: a few hundred streams must reach each, so a fault in any of them is seen.
Reached = Callable[[GeneratedStream, list[dict[str, Any]]], bool]


def _code(code: str) -> Reached:
    return lambda stream, outcomes: any(o.get("code") == code for o in outcomes)


def _kind(kind: str) -> Reached:
    return lambda stream, outcomes: any(o["kind"] == kind for o in outcomes)


def _step(holds: Callable[[Step], bool]) -> Reached:
    return lambda stream, outcomes: any(holds(step) for step in stream.plan.steps)


def _after_terminal(stream: GeneratedStream, outcomes: list[dict[str, Any]]) -> bool:
    steps = stream.plan.steps
    terminal = next((k for k, step in enumerate(steps) if isinstance(step, Terminal)), len(steps))
    return any(not isinstance(step, Control) for step in steps[terminal + 1 :])


CORE: dict[str, Reached] = {
    name: _code(name)
    for name in (
        "malformed_event",
        "unknown_item",
        "item_type_mismatch",
        "duplicate_event",
        "late_delta",
        "done_mismatch",
        "event_after_terminal",
        "too_large",
        "too_deep",
        "invalid_json",
        "invalid_arguments",
        "incomplete",
        "duplicate_call_id",
    )
}
CORE.update(
    {
        "refusal": _kind("refusal.delta"),
        "reasoning": _kind("reasoning.delta"),
        "a call": _kind("tool.call"),
        "an error event": _step(lambda step: isinstance(step, ErrorEvent)),
        "an unrouted or unknown event": _kind("ignored"),
        "attribution by output_index": _step(
            lambda s: isinstance(s, Delta) and s.address.item_id is Stated.ABSENT
        ),
        "attribution by call_id": _step(lambda s: isinstance(s, Delta) and s.address.by_call_id),
        "logprobs of another shape": _step(lambda s: isinstance(s, Delta) and s.logprobs is Logprobs.OTHER),
        "a malformed lifecycle event": _step(
            lambda s: isinstance(s, Malformed) and isinstance(s.of, Lifecycle)
        ),
        "events after the terminal event": _after_terminal,
        "a done item only": lambda stream, outcomes: any(
            isinstance(s, Done)
            and not any(isinstance(t, Added) and t.item == s.item for t in stream.plan.steps)
            for s in stream.plan.steps
        ),
        "cancelled": lambda stream, outcomes: outcomes[-1]["status"] == "cancelled",
        "truncated": lambda stream, outcomes: outcomes[-1]["status"] == "truncated",
    }
)
REACHED: dict[Profile, dict[str, Reached]] = {
    "core": CORE,
    "custom-tools": {
        "diff.update": _kind("diff.update"),
        "diff.finish": _kind("diff.finish"),
        "consumer_rejected": _code("consumer_rejected"),
        "consumer_failed": _code("consumer_failed"),
        "a patch preview": lambda stream, outcomes: any("files" in o for o in outcomes),
        "a delta for another call": _step(
            lambda s: isinstance(s, Delta) and s.address.call_id is CallIdField.OTHER
        ),
    },
    "execution": {kind: _kind(kind) for kind in EXECUTION_KINDS}
    | {
        "not_awaiting_approval": _code("not_awaiting_approval"),
        "a restart": _step(lambda s: isinstance(s, Control) and s.action is ControlAction.RESTART),
    },
    "sse": {
        "invalid_data": _code("invalid_data"),
        "event_after_done": _code("event_after_done"),
        "[DONE]": lambda stream, outcomes: (
            stream.wire is not None and any(r.kind is RecordKind.DONE for r in stream.wire.records)
        ),
        "an unfinished last event": lambda stream, outcomes: (
            stream.wire is not None and stream.wire.unfinished
        ),
        "bytes that are not UTF-8": lambda stream, outcomes: (
            stream.wire is not None
            and "stream_base64" in Case(Generated.of_stream(stream)).vector("output_item_done").data
        ),
        "CR line ends": lambda stream, outcomes: stream.wire is not None and b"\r" in stream.wire.data,
    },
}


@pytest.mark.parametrize("profile", PROFILES)
def test_a_few_hundred_streams_of_each_profile_reach_every_situation_it_is_drawn_for(
    profile: Profile,
) -> None:
    drawn = [
        case.generated.drawn for case in draw_streams(Sources((profile,), (), session=False), 300, seed=13)
    ]
    expected = [expected_outcomes(stream) for stream in drawn]
    for name, reached in REACHED[profile].items():
        count = sum(reached(stream, outcomes) for stream, outcomes in zip(drawn, expected, strict=True))
        assert count >= 2, f"{profile}: {count} of {len(drawn)} streams reach {name}"
    placed = [deviation for stream in drawn for deviation in stream.plan.deviations]
    for deviation in DEVIATIONS.values():
        if deviation.weights[profile]:
            count = placed.count(deviation)
            assert count >= 2, f"{profile}: {count} of {len(drawn)} streams hold deviation {deviation.name}"


def test_a_few_hundred_catalogue_streams_reach_every_fault_a_producer_makes_of_a_call() -> None:
    drawn = [
        case.generated.drawn for case in draw_streams(Sources((), CATALOGUE_CALL_TYPES, False), 300, seed=13)
    ]
    faults = Counter(
        fault for stream in drawn if isinstance(stream, CatalogueStream) for fault in stream.faults
    )
    for fault in CallFault:
        assert faults[fault] >= 2, f"{faults[fault]} of 300 streams hold a call {fault.value}"


def test_every_deviation_exercises_requirements_the_spec_defines() -> None:
    for deviation in DEVIATIONS.values():
        assert deviation.requirements, deviation.name
        assert cited(deviation.requirements)[0] == list(deviation.requirements), deviation.name


def test_the_streams_types_and_options_are_what_the_schemas_say() -> None:
    events = event_types()
    assert set(POINTS) == set(get_args(ToolCallPoint))
    assert not set(UNKNOWN_TYPES) & set(events)
    assert not any(events[name].routed for name in UNROUTED_TYPES)
    for item_type, names in HOSTED.items():  # CORE-CALL-9: unrouted, and about the hosted item
        assert all(not events[name].routed and item_type in events[name].item_types for name in names)
