"""A response as its producer decided it, for one profile: `draw_plan`.

The shape of the stream is drawn decision by decision (how many items and of
which kind, which deviations, how it ends), so Hypothesis shrinks it; the
details of each item, each deviation and the stream's own (its ids, where it is
cut, the order the items' events interleave in) come from seeds drawn beside
them (choices.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from .choices import Choices
from .deviations import RESPONSE_FORMS, Deviation, malformed, menu
from .items import item, item_steps, shared
from .plans import ConsumerKey, ExecutionTool, ItemPlan, Numbering, PatchText, StreamPlan
from .steps import (
    Added,
    Control,
    ControlAction,
    Delta,
    Done,
    ErrorEvent,
    ErrorForm,
    Extra,
    Lifecycle,
    NotAnEvent,
    Step,
    Terminal,
)
from .texts import json_value
from .tools import catalogue, custom_tools, execution_tools
from .vocabulary import PROGRAMMATIC_TOOL, TOOLS, ConsumerKind, EndStatus, ItemKind, Profile, TerminalStatus

T = TypeVar("T")


@dataclass(frozen=True)
class Shape:
    """What the streams of one profile weigh toward (each choice is as likely as its repetitions)."""

    kinds: tuple[ItemKind, ...]  # the items' kinds
    deviations: tuple[int, ...]  # how many producer deviations a stream has
    cut: int  # one stream in `cut` is cut off: failed, incomplete, cancelled, or without terminal event
    big: int  # one stream in `big` has a text or a call past the 1 MiB limit (CORE-LIMIT-1, -3); 0: none


_CORE_KINDS: tuple[ItemKind, ...] = (
    ("message",) * 4 + ("function",) * 4 + ("custom",) * 2 + ("reasoning",) * 2
)
SHAPES: dict[Profile, Shape] = {
    "core": Shape((*_CORE_KINDS, "hosted"), (0, 1, 2, 3, 3, 4, 4, 5, 6, 8), 3, 8),
    "sse": Shape((*_CORE_KINDS, "hosted"), (0, 1, 2, 2, 3, 4), 3, 0),
    # Calls that complete, with consumers: fewer deviations, fewer cut streams.
    "custom-tools": Shape(
        ("custom",) * 6 + ("function",) * 2 + ("message", "reasoning", "hosted"), (0, 1, 1, 2, 3, 4), 4, 0
    ),
    "execution": Shape(
        ("function",) * 5 + ("custom",) * 2 + ("message", "reasoning", "hosted"), (0, 0, 1, 1, 2), 5, 0
    ),
}
_ENDS: tuple[EndStatus, ...] = ("failed", "incomplete", "cancelled", "truncated")


def _endings(cut: int) -> tuple[EndStatus, ...]:
    """How a stream ends: one time in `cut` cut off, each way as often; shrinks to completed."""
    completed: EndStatus = "completed"
    return (completed,) * (len(_ENDS) * (cut - 1)) + _ENDS


_OVERSIZED: tuple[ItemKind, ...] = ("message", "function", "custom")
_ERROR_FORMS = (ErrorForm.STATED,) * 5 + (ErrorForm.NULL, ErrorForm.ABSENT, ErrorForm.CODE_NULL)
_NUMBERINGS = (Numbering.IN_ORDER,) * 6 + (Numbering.ABSENT, Numbering.REPEATED, Numbering.SHUFFLED)


def draw_plan(c: Choices, profile: Profile = "core", max_items: int = 5) -> StreamPlan:
    """A response as its producer decided it, for one profile, not yet cut into deltas."""
    tools: tuple[dict[str, Any], ...] = TOOLS
    consumers: tuple[tuple[ConsumerKey, ConsumerKind], ...] = ()
    if profile == "custom-tools":
        tools, consumers = custom_tools(c)
    names = catalogue(profile, frozenset(name for (_, name), consumer in consumers if consumer == "patch"))
    stream = c.seeded()  # the stream's own details
    offset = stream.pick([0, 0, 0, 1, 3])  # output indexes need not count the items
    shape = SHAPES[profile]
    count = c.pick([n for n in (0, 1, 2, 3, 3, 4, 4, 5, 5) if n <= max_items])
    oversized = -1
    if shape.big and c.chance(shape.big):
        count = max(count, 1)
        oversized = c.below(count)
    kinds = [c.pick(_OVERSIZED if i == oversized else shape.kinds) for i in range(count)]
    sources = [c.seeded() for _ in range(count)]
    patches: list[PatchText] = []
    wire = profile == "sse"
    items = tuple(
        item(source, kind, i, i + offset, names, patches, i == oversized, wire)
        for i, (kind, source) in enumerate(zip(kinds, sources, strict=True))
    )
    items = _shared_call_ids(stream, items)
    drawn = shared(items, patches)
    counted = profile in ("core", "sse")
    steps_of = [
        item_steps(source, planned, drawn, counted) for planned, source in zip(items, sources, strict=True)
    ]
    body = interleave(c, steps_of, 2 if profile == "custom-tools" else 3)
    deviations = _deviate(c, items, body, profile)
    status = c.pick(_endings(shape.cut))
    if status != "completed":
        body = body[: stream.integer(0, len(body))]  # the stream is cut here
    steps: list[Step] = [Lifecycle(event="created", response=stream.pick(RESPONSE_FORMS))]
    steps += [Lifecycle(event="in_progress", response=stream.pick(RESPONSE_FORMS))] if stream.coin() else []
    steps += body
    if status != "truncated":
        terminal: TerminalStatus = "incomplete" if status == "cancelled" else status
        if status == "cancelled":
            terminal = stream.pick(("incomplete", "failed", "completed"))
        steps.append(Terminal(status=terminal, error=stream.pick(_ERROR_FORMS)))
        steps += _after_terminal(stream, body, steps[-1])
    for k in [0, *(i for i, s in enumerate(steps) if isinstance(s, Terminal))][:2]:
        if stream.chance(5):  # a malformed lifecycle event changes nothing: not even the end (CORE-EVT-10)
            steps.insert(k, malformed(stream, steps[k], None))
            break
    executing: tuple[ExecutionTool, ...] = ()
    if profile == "execution":
        executing = execution_tools(c.seeded())
        tools = tuple(tool.declared() for tool in executing)
        steps = _controls(c, items, steps, executing)
    if profile == "custom-tools" or stream.chance(10):
        steps = _timed(stream, steps)
    if any(item.item_type == "program" for item in items):  # the request declares the tool its items need
        tools = (*tools, PROGRAMMATIC_TOOL)
    numbering = stream.pick(_NUMBERINGS)
    return StreamPlan(
        profile,
        "resp_gen",
        items,
        tuple(steps),
        status,
        tools,
        consumers,
        executing,
        tuple(patches),
        numbering,
        deviations,
    )


def _shared_call_ids(c: Choices, items: tuple[ItemPlan, ...]) -> tuple[ItemPlan, ...]:
    """Sometimes a call states the call id of an earlier one (CORE-CALL-7)."""
    calls = [planned for planned in items if planned.is_call and planned.added.call_id]
    if len(calls) < 2 or not c.chance(3):
        return items
    first, later = calls[0], calls[-1]
    call_id = first.added.call_id
    changed = replace(
        later, added=replace(later.added, call_id=call_id), done=replace(later.done, call_id=call_id)
    )
    return tuple(changed if planned is later else planned for planned in items)


def interleave(c: Choices, streams: Sequence[list[T]], one_in: int) -> list[T]:
    """Merge the items' steps: each item's own order kept, announcements in plan order; one stream
    in `one_in` sends one item after another, as most producers do (and a consumer sees its call
    end), and so does a stream whose order shrinks to the plainest."""
    if c.chance(one_in):
        return [step for steps in streams for step in steps]
    order = c.seeded()
    pending = [list(steps) for steps in streams]
    merged: list[T] = []
    announced = 0
    while any(pending):
        ready = [i for i, steps in enumerate(pending) if steps and i <= announced]
        chosen = order.pick(ready)
        merged.append(pending[chosen].pop(0))
        announced = max(announced, chosen + 1)
    return merged


def _deviate(
    c: Choices, items: Sequence[ItemPlan], body: list[Step], profile: Profile
) -> tuple[Deviation, ...]:
    """The producer's mistakes the spec defines an outcome for, placed in the stream's body."""
    placed = []
    offered = menu(profile)
    for _ in range(c.pick(SHAPES[profile].deviations)):
        chosen = c.pick(offered)
        where = chosen.place(c.seeded(), items, body)
        if where is not None:
            body.insert(where.at, where.step)
            placed.append(chosen)
    return tuple(placed)


def _after_terminal(c: Choices, body: Sequence[Step], terminal: Step) -> list[Step]:
    """Events after the terminal event: refused, whatever they are (CORE-LIFE-4)."""
    count = c.pick([0, 0, 0, 1, 2])
    choices: list[Step] = [terminal, Extra(event_type="acme:trace_event"), NotAnEvent(value=[1])]
    choices += [s for s in body if isinstance(s, (Delta, Done, Added, ErrorEvent))][:6]
    return [c.pick(choices) for _ in range(count)]


_ACTIONS: tuple[ControlAction, ...] = (
    (ControlAction.APPROVE,) * 3 + (ControlAction.DENY,) + (ControlAction.CANCEL,) * 2
)
_ACTIONS += (ControlAction.AUDIT,) + (ControlAction.RESTART,) * 3 + (ControlAction.TOOL_ENDS,) * 2


def _controls(
    c: Choices, items: Sequence[ItemPlan], steps: list[Step], tools: Sequence[ExecutionTool]
) -> list[Step]:
    """Control steps among the events (spec/execution.md section 11), most often just after a call
    is complete; a restart replays the stream or goes on, perhaps as a release that withdrew a
    tool; a tool's end most often names a call of a tool that goes on running."""
    calls = [planned for planned in items if planned.added.call_id or planned.done.call_id]
    pending = {(tool.namespace, tool.name) for tool in tools if tool.behaviour == "pending"}
    running = [
        p
        for p in calls
        if (p.added.namespace, p.added.name) in pending or (p.done.namespace, p.done.name) in pending
    ]
    for _ in range(c.pick([1, 2, 2, 3, 3, 4, 5, 6])):
        action = c.pick(_ACTIONS)
        details = c.seeded()
        among = running if action is ControlAction.TOOL_ENDS and running and not details.chance(4) else calls
        call = details.pick(among) if among and not details.chance(5) else None
        done = [k for k, s in enumerate(steps) if call and isinstance(s, Done) and s.item == call.position]
        at = done[0] + 1 if done and not details.chance(3) else details.integer(1, len(steps))
        call_id = None
        if action in (ControlAction.APPROVE, ControlAction.DENY, ControlAction.TOOL_ENDS):
            call_id = (call.added.call_id or call.done.call_id) if call else "call_unknown"
        control = Control(action=action, call_id=call_id)
        if action is ControlAction.TOOL_ENDS:  # the tool returned, or failed (EXEC-RUN-4)
            ends = {"fails": "the tool failed late"} if details.chance(3) else {"result": json_value(details)}
            control = Control(action=action, call_id=call_id, **ends)
        elif action is ControlAction.RESTART and tools and details.chance(3):  # EXEC-RESTART-6
            withdrawn = details.integer(0, len(tools) - 1)
            release = tuple(replace(t, allow=False) if k == withdrawn else t for k, t in enumerate(tools))
            control = Control(action=action, tools=release)
        if action is ControlAction.RESTART and details.coin():  # the stream replayed from its first event
            steps[at:at] = [control, *(s for s in steps[:at] if not isinstance(s, Control))]
        elif action is ControlAction.CANCEL and details.chance(3):  # then the next response (EXEC-CANCEL-4)
            steps[at:at] = [control, Lifecycle(event="created")]
        else:
            steps.insert(at, control)
    if c.coin():
        steps.append(Control(action=ControlAction.AUDIT))
    return steps


_GAPS = (None, None, 0, 100, 250, 499, 500, 700)


def _timed(c: Choices, steps: Sequence[Step]) -> list[Step]:
    """Stream time on the events (CUSTOM-TIME-1): gaps around the patch throttle's 500 ms."""
    now = 0
    timed = []
    for step in steps:
        gap = c.pick(_GAPS)
        untimed = isinstance(step, Control) or (
            isinstance(step, NotAnEvent) and not isinstance(step.value, dict)
        )
        if untimed or gap is None:
            timed.append(step)
        else:
            now += gap
            timed.append(replace(step, at_ms=now))
    return timed
