"""What an implementation must make of a generated stream: `expected_outcomes`.

The plan's steps run through the outcome model (outcomes.py) and, for
`execution`, the executor model (executor.py); an sse stream's outcomes are then
placed at the SSE events that dispatch them, with what the wire itself causes
(invalid data, `[DONE]`, events after it: spec/sse.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..compare import to_canonical_point
from ..implementation import Produced
from .executor import Executor
from .outcomes import Machine, error
from .plans import StreamPlan
from .rendering import Cuts
from .steps import Control, ControlAction, PartDone, Step
from .streams import GeneratedStream
from .vocabulary import CANONICAL_POINT, POINTS, Outcome, ToolCallPoint
from .wire import RecordKind


def _run(plan: StreamPlan, cuts: Cuts, steps: Sequence[Step], point: ToolCallPoint) -> list[Produced]:
    """Every outcome of the steps and of close, each with the step that produced it."""
    machine = Machine(plan, cuts, point)
    executor = Executor(plan) if plan.profile == "execution" else None
    produced: list[Produced] = []
    for at, step in enumerate(steps):
        if isinstance(step, Control):
            assert executor is not None
            if step.action is ControlAction.RESTART:  # a new process: a new router (EXEC-RESTART-1)
                machine = Machine(plan, cuts, point)
            outcomes = executor.control(step)
        else:
            outcomes = machine.feed(step)
            outcomes = executor.after(outcomes, machine) if executor is not None else outcomes
        produced += (Produced(at, outcome) for outcome in outcomes)
    closing = machine.close()
    closing = executor.after(closing, machine) if executor is not None else closing
    return produced + [Produced("close", outcome) for outcome in closing]


def _produced(stream: GeneratedStream, point: ToolCallPoint) -> list[Produced]:
    plan = stream.plan
    wire = stream.wire
    if wire is None:
        produced = _run(plan, stream.cuts, plan.steps, point)
        # The harness compares an arguments_done implementation at the canonical point (spec/vectors.md).
        return to_canonical_point(produced, stream.events, point) if point == "arguments_done" else produced
    routed = _run(plan, stream.cuts, plan.steps[: wire.routed], point)
    by_event: dict[Any, list[Outcome]] = {}
    for entry in routed:
        by_event.setdefault(entry.at, []).append(entry.outcome)
    placed: list[Produced] = []
    after_done = False
    for number, record in enumerate(wire.dispatched()):  # `at` counts dispatched SSE events (spec/sse.md 7)
        if after_done:
            placed.append(Produced(number, error("event_after_done")))  # SSE-DATA-4
        elif record.kind is RecordKind.DONE:
            after_done = True  # SSE-DATA-3
        elif record.kind is RecordKind.INVALID:
            placed.append(Produced(number, error("invalid_data")))  # SSE-DATA-2
        else:
            placed += (Produced(number, outcome) for outcome in by_event.get(record.event, []))
    return placed + [Produced("close", outcome) for outcome in by_event.get("close", [])]


def expected_outcomes(
    stream: GeneratedStream, tool_call_point: ToolCallPoint = CANONICAL_POINT
) -> list[Outcome]:
    """The exact outcomes the spec requires for the stream, each with `at`, from its plan alone.

    Under `tool_call_point: arguments_done` they are placed where the harness
    compares them (spec/vectors.md): a call's outcomes at its done item when the
    stream has one, else at its arguments `.done`. An sse stream's `at` counts its
    dispatched SSE events.
    """
    return [{"at": entry.at, **entry.outcome} for entry in _produced(stream, tool_call_point)]


def expected_at_points(stream: GeneratedStream) -> dict[ToolCallPoint, list[Outcome]]:
    """The expected outcomes at each tool call point. Only a call's arguments `.done` tells the
    points apart (CORE-CALL-8): a stream without one expects at each what it expects at the
    canonical point."""
    plan = stream.plan
    canonical = expected_outcomes(stream, CANONICAL_POINT)
    told_apart = any(
        isinstance(step, PartDone) and plan.items[step.item].parts[step.part].channel == "arguments"
        for step in plan.steps
    )
    return {
        point: expected_outcomes(stream, point) if told_apart and point != CANONICAL_POINT else canonical
        for point in POINTS
    }
