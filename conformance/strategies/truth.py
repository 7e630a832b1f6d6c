"""What an implementation must make of a generated stream: `expected_outcomes`.

The plan's steps run through the outcome model (outcomes.py) and, for
`execution`, the executor model (executor.py), with the calls' outcomes held
until the response ends under `tool_call_point: response_done` (`_Handover`);
an sse stream's outcomes are then placed at the SSE events that dispatch them,
with what the wire itself causes (invalid data, `[DONE]`, events after it:
spec/sse.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..compare import at_key, to_canonical_point
from ..implementation import Produced
from ..vectors import At
from .executor import Executor
from .outcomes import Machine, error, handed_over
from .plans import StreamPlan
from .rendering import Cuts
from .steps import Control, ControlAction, Done, PartDone, Step, Terminal
from .streams import GeneratedStream
from .vocabulary import CANONICAL_POINT, POINTS, Outcome, ToolCallPoint
from .wire import RecordKind

_HELD = ("tool.call", "tool.error")


class _Handover:
    """Option `tool_call_point: response_done` (CORE-POINT-1, CORE-POINT-2): each call's `tool.call`
    or `tool.error`, made at its done item as at the canonical point, waits for the end of the
    response. At `response.completed` the held outcomes come as they were made; at any other end
    (`response.failed`, `response.incomplete`, close without a terminal event) a held `tool.call`
    is `tool.error` `incomplete`. They come in the order their done items came, after the terminal
    event's `lifecycle` and `error` and before the outcomes of the calls still open (CORE-CALL-6).
    It belongs to a router: a restart loses what it holds."""

    def __init__(self) -> None:
        self.held: list[tuple[At, Outcome]] | None = []  # each with its done item; None: handed over

    def segments(self, at: At, step: Step | None, outcomes: list[Outcome]) -> list[tuple[At, list[Outcome]]]:
        """The outcomes of step `at` (None: close) in the order they are produced, each run with the
        step it is owed to: a held call's with its done item, every other one's with `at`."""
        if self.held is None or not (step is None or isinstance(step, (Done, Terminal))):
            return [(at, outcomes)]
        if isinstance(step, Done):
            self.held += [(at, outcome) for outcome in outcomes if outcome["kind"] in _HELD]
            return [(at, [outcome for outcome in outcomes if outcome["kind"] not in _HELD])]
        completed = isinstance(step, Terminal) and step.status == "completed"
        held, self.held = self.held, None
        first = next(
            (k for k, o in enumerate(outcomes) if "item_id" in o or o["kind"] == "end"), len(outcomes)
        )
        handed = [(done, [handed_over(outcome, completed)]) for done, outcome in held]
        return [(at, outcomes[:first]), *handed, (at, outcomes[first:])]


def _run(
    plan: StreamPlan, cuts: Cuts, steps: Sequence[Step], point: ToolCallPoint, moved: bool
) -> list[Produced]:
    """Every outcome of the steps and of close, each with the step that produced it; `moved`: a
    call's outcomes held under `response_done` (and what the executor makes of them) with their
    done item instead, at its end, where the harness moves them (spec/vectors.md section 3.1)."""
    machine = Machine(plan, cuts, point)
    held = _Handover() if point == "response_done" else None
    executor = Executor(plan) if plan.profile == "execution" else None
    placed: list[tuple[float, bool, int, Produced]] = []
    end: At = "close"

    def place(at: At, outcomes: Sequence[Outcome], owed: At) -> None:
        where = owed if moved else at
        placed.extend((at_key(where), where != at, len(placed), Produced(where, o)) for o in outcomes)

    for at, step in enumerate(steps):
        if isinstance(step, Control):
            assert executor is not None
            if step.action is ControlAction.RESTART:  # a new process: a new router (EXEC-RESTART-1)
                machine = Machine(plan, cuts, point)
                held = _Handover() if point == "response_done" else None
            place(at, executor.control(step), at)
            continue
        outcomes = machine.feed(step)
        for owed, segment in held.segments(at, step, outcomes) if held is not None else [(at, outcomes)]:
            place(at, executor.after(segment, machine) if executor is not None else segment, owed)
    closing = machine.close()
    for owed, segment in held.segments(end, None, closing) if held is not None else [(end, closing)]:
        place(end, executor.after(segment, machine) if executor is not None else segment, owed)
    return [entry for *_, entry in sorted(placed, key=lambda placing: placing[:3])]


def _produced(stream: GeneratedStream, point: ToolCallPoint) -> list[Produced]:
    plan = stream.plan
    wire = stream.wire
    if wire is None:
        produced = _run(plan, stream.cuts, plan.steps, point, moved=True)
        # The harness compares an arguments_done implementation at the canonical point (spec/vectors.md).
        return to_canonical_point(produced, stream.events, point) if point == "arguments_done" else produced
    # The harness moves nothing in an sse vector (spec/vectors.md section 3.1).
    routed = _run(plan, stream.cuts, plan.steps[: wire.routed], point, moved=False)
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

    Under `tool_call_point: arguments_done` and `response_done` they are placed where the harness
    compares them (spec/vectors.md section 3.1): a call's outcomes at its done item when the
    stream has one, else where they are produced. An sse stream's `at` counts its dispatched SSE
    events, and its outcomes stay where they are produced.
    """
    return [{"at": entry.at, **entry.outcome} for entry in _produced(stream, tool_call_point)]


class Truths(Mapping[ToolCallPoint, list[Outcome]]):
    """The expected outcomes at each tool call point, each worked out the first time it is asked
    for: a run is judged at one point, a saved vector names them all. Only a call's arguments
    `.done` tells `arguments_done` apart (CORE-CALL-8), and only a call's done item
    `response_done` (CORE-POINT-1): a stream without one expects there what it expects at the
    canonical point."""

    def __init__(self, stream: GeneratedStream) -> None:
        self.stream = stream
        self._known: dict[ToolCallPoint, list[Outcome]] = {}

    def __getitem__(self, point: ToolCallPoint) -> list[Outcome]:
        if point not in self._known:
            if point == CANONICAL_POINT or self._told_apart(point):
                self._known[point] = expected_outcomes(self.stream, point)
            else:
                self._known[point] = self[CANONICAL_POINT]
        return self._known[point]

    def __iter__(self) -> Iterator[ToolCallPoint]:
        return iter(POINTS)

    def __len__(self) -> int:
        return len(POINTS)

    def _told_apart(self, point: ToolCallPoint) -> bool:
        plan = self.stream.plan
        if point == "arguments_done":
            return any(
                isinstance(step, PartDone) and plan.items[step.item].parts[step.part].channel == "arguments"
                for step in plan.steps
            )
        return any(isinstance(step, Done) and plan.items[step.item].is_call for step in plan.steps)


def expected_at_points(stream: GeneratedStream) -> dict[ToolCallPoint, list[Outcome]]:
    """The expected outcomes at each tool call point (`Truths`, every one worked out)."""
    return dict(Truths(stream))
