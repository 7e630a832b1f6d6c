"""The ground truth: spec/core.md and spec/custom-tools.md as a state machine over a plan's steps.

`Machine` holds one explicit state: the stream's, each announced item's, each
part's and each call's, and the consumer slot. Each step kind has one handler
(`Machine.STEPS`); a handler reads the states, answers the step's outcomes and
changes a state only through `_move`, which looks the change up in the tables
below: a change they do not list is a bug of this oracle, never of the
implementation under test. The slot is EMPTY (None) or bound to one custom call
(`_Slot`; spec/custom-tools.md section 11): a new function or custom call
rebinds or empties it, its call's resolution or the end of the response
empties it. It reads the plan, never an event's JSON, and never runs the
reference.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal, TypeVar

from .consumers import Consumer, Finished, Refusal, consumer
from .plans import ItemPlan, StreamPlan, channel_type
from .rendering import OTHER_CALL_ID, Cuts
from .steps import (
    Added,
    CallIdField,
    Control,
    Delta,
    Done,
    ErrorEvent,
    ErrorForm,
    ErrorShape,
    Extra,
    Foreign,
    Hosted,
    Lifecycle,
    Malformed,
    Mismatch,
    NotAnEvent,
    PartAdded,
    PartClosed,
    PartDone,
    ResponseForm,
    Stated,
    Step,
    Terminal,
)
from .vocabulary import (
    CALL_TYPES,
    COMPLETE_FIELD,
    DELTA_TYPES,
    EVENTS,
    FAILURE_CODE,
    ITEM_TYPE_OF,
    MAX_BUFFERED_BYTES,
    Outcome,
    ToolCallPoint,
)

StreamState = Literal["OPEN", "TERMINAL", "CLOSED"]
ItemState = Literal["ANNOUNCED", "DONE"]
PartState = Literal["EMPTY", "STREAMING", "DROPPED", "DONE"]
CallState = Literal["PENDING", "FIRED", "RESOLVED"]
StreamMove = Literal["terminal", "close"]
ItemMove = Literal["done"]
PartMove = Literal["delta", "drop", "done"]
CallMove = Literal["fire", "resolve", "settle"]
StateT = TypeVar("StateT", bound=str)
MoveT = TypeVar("MoveT", bound=str)

# The stream is OPEN until its first terminal event (CORE-LIFE-2); `close()` ends it.
STREAM_MOVES: dict[StreamState, dict[StreamMove, StreamState]] = {
    "OPEN": {"terminal": "TERMINAL", "close": "CLOSED"},
    "TERMINAL": {"close": "CLOSED"},
    "CLOSED": {},
}
# An item is ANNOUNCED (its `added`, or its done item first: CORE-ITEM-6), then DONE.
ITEM_MOVES: dict[ItemState, dict[ItemMove, ItemState]] = {"ANNOUNCED": {"done": "DONE"}, "DONE": {}}
# A text part or a call's arguments: EMPTY until a delta is routed, DROPPED past the limit (no
# longer buffered nor compared: CORE-LIMIT-1, -3), DONE at its `.done` (arguments: or the done item).
PART_MOVES: dict[PartState, dict[PartMove, PartState]] = {
    "EMPTY": {"delta": "STREAMING", "drop": "DROPPED", "done": "DONE"},
    "STREAMING": {"delta": "STREAMING", "drop": "DROPPED", "done": "DONE"},
    "DROPPED": {"done": "DONE"},
    "DONE": {},
}
# A call is PENDING until its one tool.call or tool.error (CORE-CALL-1): RESOLVED, or, a tool.call
# at its arguments `.done` (CORE-CALL-8), FIRED until its done item or the end settles it
# (CORE-CALL-12 .. -14).
CALL_MOVES: dict[CallState, dict[CallMove, CallState]] = {
    "PENDING": {"resolve": "RESOLVED", "fire": "FIRED"},
    "FIRED": {"settle": "RESOLVED"},
    "RESOLVED": {},
}


def _move(moves: dict[StateT, dict[MoveT, StateT]], state: StateT, move: MoveT) -> StateT:
    """The state `move` leads to from `state`; every state change of `Machine` goes through here."""
    after = moves[state].get(move)
    assert after is not None, f"no move {move!r} from {state}"
    return after


def well_formed(text: str) -> str:
    """The text with each unpaired surrogate as U+FFFD, as UTF-8 and WHATWG decoders see it
    (CORE-TEXT-8)."""
    return text if text.isascii() or _utf8(text) is not None else _replaced(text)


def utf8_size(text: str) -> int:
    """The UTF-8 size of a text; an unpaired surrogate counts as its U+FFFD, 3 bytes (CORE-LIMIT-4),
    and the halves of a pair as the character they make, 4."""
    if text.isascii():
        return len(text)
    encoded = _utf8(text)
    if encoded is not None:
        return len(encoded)
    return len(text.encode("utf-8", "surrogatepass")) - 2 * len(_SURROGATE_PAIR.findall(text))


_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _utf8(text: str) -> bytes | None:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # an unpaired surrogate
        return None


def _replaced(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def error(code: str | None, **ids: Any) -> Outcome:
    return {"kind": "error", "code": code, **ids}


_NAMES = ("item_id", "call_id", "stream_id", "response_id")


def handed_over(outcome: Outcome, completed: bool) -> Outcome:
    """A call's outcome as `tool_call_point: response_done` hands it over when its response ends:
    as it was made when the response completed; else a `tool.call` is `tool.error` `incomplete`,
    naming what it named (CORE-POINT-2)."""
    if completed or outcome["kind"] != "tool.call":
        return outcome
    return {
        "kind": "tool.error",
        **{name: outcome[name] for name in _NAMES if name in outcome},
        "code": "incomplete",
    }


@dataclass
class _Part:
    """A text part's or a call's deltas as a router holds them, to compare with its complete text."""

    state: PartState = "EMPTY"
    deltas: list[str] = field(default_factory=list)
    size: int = 0

    def move(self, move: PartMove) -> None:
        self.state = _move(PART_MOVES, self.state, move)

    def agrees(self, text: str) -> bool:
        if self.state != "STREAMING":  # nothing routed, or no longer compared
            return True
        return "".join(well_formed(delta) for delta in self.deltas) == well_formed(text)


@dataclass
class _Item:
    """An announced item; a call item's `call` state and `arguments` part too."""

    plan: ItemPlan
    type: str
    output_index: int
    call_id: str | None
    name: str | None
    namespace: str | None
    state: ItemState = "ANNOUNCED"
    parts: dict[int, _Part] = field(default_factory=dict)
    arguments: _Part = field(default_factory=_Part)
    stated: str | None = None  # the text of its arguments `.done`
    call: CallState = "PENDING"

    @property
    def labels(self) -> dict[str, str]:
        """What its text outcomes carry of the labels its announcement states (CORE-TEXT-9, -12)."""
        return self.plan.label_fields

    def move(self, move: ItemMove) -> None:
        self.state = _move(ITEM_MOVES, self.state, move)

    def call_move(self, move: CallMove) -> None:
        self.call = _move(CALL_MOVES, self.call, move)


@dataclass
class _Slot:
    item: _Item
    call_id: str
    consumer: Consumer


_NAMELESS = (ResponseForm.NO_RESPONSE, ResponseForm.NULL_RESPONSE, ResponseForm.NULL_ID, ResponseForm.NO_ID)


class Machine:
    """What a conforming router makes of a plan's steps: one handler per step kind, named here."""

    STEPS: ClassVar[dict[type[Step], str]] = {
        Lifecycle: "_lifecycle",
        Terminal: "_terminal",
        ErrorEvent: "_error_event",
        Added: "_added",
        Done: "_done",
        Delta: "_delta",
        PartDone: "_part_done",
        Mismatch: "_mismatch",
        Extra: "_ignored",
        Hosted: "_ignored",
        PartAdded: "_ignored",
        PartClosed: "_ignored",
        Malformed: "_malformed",
        NotAnEvent: "_malformed",
        Foreign: "_foreign",
    }

    def __init__(self, plan: StreamPlan, cuts: Cuts, point: ToolCallPoint) -> None:
        self.plan = plan
        self.cuts = cuts
        self.point = point
        self.consumers = dict(plan.consumers)
        self.items: dict[str, _Item] = {}  # in announcement order
        self.at_index: dict[int, _Item] = {}
        self.with_call_id: dict[str, _Item] = {}
        self.called: set[str] = set()
        self.pointers: dict[str, str | None] = {}  # execution: each call's schema verdict
        self.slot: _Slot | None = None
        self.state: StreamState = "OPEN"
        self.status: str | None = None  # TERMINAL: the end status its terminal event set
        self.error_seen = False  # not a state: an `error` event decides the status of an unended stream
        self.now = 0  # the stream time (CUSTOM-TIME-1)

    def feed(self, step: Step) -> list[Outcome]:
        assert not isinstance(step, Control), "control steps go to the executor"
        if step.at_ms is not None:
            self.now = step.at_ms
        if isinstance(step, NotAnEvent):
            return [error("malformed_event")]  # not an object with a type: nothing to name (CORE-LIFE-4)
        if self.state != "OPEN":
            return [error("event_after_terminal")]
        handler: Callable[[Any], list[Outcome]] = getattr(self, self.STEPS[type(step)])
        return handler(step)

    def close(self) -> list[Outcome]:
        outcomes = self._settle() if self.state == "OPEN" else []
        status = self.status or ("failed" if self.error_seen else "truncated")
        self.state = _move(STREAM_MOVES, self.state, "close")
        return [*outcomes, {"kind": "end", "status": status}]  # CORE-LIFE-5

    # -- lifecycle and errors --

    def _lifecycle(self, step: Lifecycle) -> list[Outcome]:
        response_id = None if step.response in _NAMELESS else self.plan.response_id
        return [{"kind": "lifecycle", "event": step.event, "response_id": response_id}]  # CORE-LIFE-1

    def _terminal(self, step: Terminal) -> list[Outcome]:
        outcomes = [{"kind": "lifecycle", "event": step.status, "response_id": self.plan.response_id}]
        if step.status == "failed":  # CORE-LIFE-3
            outcomes.append(error(FAILURE_CODE if step.error is ErrorForm.STATED else None))
        self.status = "cancelled" if self.plan.status == "cancelled" else step.status  # CORE-LIFE-2
        self.state = _move(STREAM_MOVES, self.state, "terminal")
        return outcomes + self._settle()

    def _error_event(self, step: ErrorEvent) -> list[Outcome]:
        if step.shape is ErrorShape.NOT_AN_OBJECT:  # an `error` that is not an object: malformed (CORE-ERR-2)
            return [error("malformed_event")]
        self.error_seen = True  # CORE-ERR-1, CORE-LIFE-8
        unstated = step.shape in (ErrorShape.NESTED_NULL_CODE, ErrorShape.FLAT_NO_CODE)
        return [error(None if unstated else step.code)]

    def _ignored(self, step: Extra | Hosted | PartAdded | PartClosed) -> list[Outcome]:
        return [{"kind": "ignored", "type": _ignored_type(self.plan, step)}]  # CORE-EVT-3, -4, -5

    def _malformed(self, step: Malformed | NotAnEvent) -> list[Outcome]:
        return [error("malformed_event")]  # CORE-EVT-9

    def _foreign(self, step: Foreign) -> list[Outcome]:
        return [error("unknown_item")]  # CORE-ITEM-3

    def _settle(self) -> list[Outcome]:
        """The response ends: open calls will never come (CORE-CALL-6, CORE-CALL-14); the slot empties."""
        outcomes: list[Outcome] = []
        for item in self.items.values():
            if item.type not in CALL_TYPES:
                continue
            if item.call == "PENDING":
                outcomes += self._call_error(item, "incomplete")
            elif item.call == "FIRED":
                outcomes.append(error("call_retracted", item_id=item.plan.item_id, call_id=item.call_id))
                item.call_move("settle")
        self.slot = None  # CUSTOM-END-1
        return outcomes

    # -- items --

    def _announce(self, plan: ItemPlan, step: Added | Done, item_type: str) -> _Item:
        identity = plan.added if isinstance(step, Added) else plan.done
        if isinstance(step, Added) and step.other_identity:  # a second announcement, stating other ids
            again = {
                k: v + "_again" for k, v in (("call_id", identity.call_id), ("name", identity.name)) if v
            }
            identity = replace(identity, **again)
        output_index = plan.output_index
        if step.output_index is not Stated.STATED:
            output_index = len(self.items)  # CORE-ITEM-1
        item = _Item(plan, item_type, output_index, identity.call_id, identity.name, identity.namespace)
        self.items[plan.item_id] = item
        self.at_index[output_index] = item
        if item.call_id is not None:
            self.with_call_id[item.call_id] = item  # the item most recently announced with it (CORE-ITEM-8)
        return item

    def _added(self, step: Added) -> list[Outcome]:
        plan = self.plan.items[step.item]
        if plan.item_id in self.items:  # CORE-ITEM-5: the first announcement stands
            return [error("duplicate_event")]
        item = self._announce(plan, step, plan.item_type)
        if item.type == "custom_tool_call":  # CUSTOM-SLOT-2, -5
            kind = self.consumers.get((item.namespace, item.name)) if item.name is not None else None
            self.slot = None
            if kind is not None and item.call_id is not None:
                self.slot = _Slot(item, item.call_id, consumer(self.plan, kind, plan.parts[0].streamed))
        elif item.type == "function_call":  # CUSTOM-SLOT-3
            self.slot = None
        return []

    def _done(self, step: Done) -> list[Outcome]:
        plan = self.plan.items[step.item]
        stated_type = plan.done_type or plan.item_type
        item = self.items.get(plan.item_id)
        if item is None:  # CORE-ITEM-6
            item = self._announce(plan, step, stated_type)
        elif item.type != stated_type:  # CORE-ITEM-4
            return [error("item_type_mismatch")]
        elif item.state == "DONE":  # CORE-ITEM-14
            return [error("duplicate_event")]
        item.move("done")
        if item.type not in CALL_TYPES:
            return []  # CUSTOM-FIN-2
        return self._call_done(item)

    def _call_done(self, item: _Item) -> list[Outcome]:
        plan = item.plan
        made_with = (item.call_id, item.name, item.namespace)
        outcomes = self._restated(item)
        text = item.stated
        if plan.done_text is not None:  # CORE-ARGS-5: the done item's text is the call's
            agrees = (
                well_formed(plan.done_text) == well_formed(text)
                if text is not None
                else item.arguments.agrees(plan.done_text)
            )
            if not agrees:  # CORE-ARGS-6, CORE-ARGS-8
                outcomes.append(error("done_mismatch"))
            text = plan.done_text
        if item.arguments.state != "DONE":
            item.arguments.move("done")
        if item.call == "FIRED":  # CORE-CALL-12, -13, -20: the call went out at its `.done`
            return outcomes + self._confirm(item, made_with, bool(outcomes))
        if item.call == "RESOLVED":
            return outcomes
        if plan.status == "incomplete":  # CORE-CALL-5
            return outcomes + self._call_error(item, "incomplete")
        return outcomes + self._resolve(item, text)  # CORE-CALL-2

    def _restated(self, item: _Item) -> list[Outcome]:
        """CORE-CALL-17: the call id, name and namespace the done item states are the call's; another
        name or namespace than announced is a `done_mismatch` (CORE-CALL-18), another call id is not
        (CORE-CALL-19), and either call id names the item from then on (CORE-ITEM-8)."""
        outcomes: list[Outcome] = []
        for name in ("call_id", "name", "namespace"):
            first, again = getattr(item, name), getattr(item.plan.done, name)
            if again is None:
                continue
            if name != "call_id" and first is not None and again != first:
                outcomes.append(error("done_mismatch"))
            setattr(item, name, again)
            if name == "call_id":
                self.with_call_id[again] = item
        return outcomes

    def _confirm(self, item: _Item, made_with: tuple[str | None, ...], mismatched: bool) -> list[Outcome]:
        """The done item of a call made at its arguments `.done`: it retracts the call when it is
        incomplete or states another call (CORE-CALL-12, CORE-CALL-13), re-addresses it when it
        restates only its call id (CORE-CALL-20), and otherwise confirms it."""
        item.call_move("settle")
        made_call_id = made_with[0]
        ids = {"item_id": item.plan.item_id}
        if item.plan.status == "incomplete" or mismatched or made_with[1:] != (item.name, item.namespace):
            return [error("call_retracted", **ids, call_id=made_call_id)]
        if item.call_id != made_call_id:
            assert item.call_id is not None
            self.called.add(item.call_id)  # both ids are the call's (CORE-CALL-7)
            return [error("call_id_restated", **ids, call_id=item.call_id, previous_call_id=made_call_id)]
        return []

    def _find(self, plan: ItemPlan, event_type: str, step: Delta | PartDone | None) -> _Item | Outcome:
        """The item an item event belongs to (CORE-ITEM-2, -3, -4, -8), or the error it causes."""
        if step is not None and step.address.by_call_id:
            found = self.with_call_id.get(plan.added.call_id or "")
        elif step is not None and step.address.item_id is not Stated.STATED:
            found = self.at_index.get(plan.output_index)
        else:
            found = self.items.get(plan.item_id)
        if found is None:
            return error("unknown_item")
        if found.type != ITEM_TYPE_OF[event_type]:
            return error("item_type_mismatch")
        return found

    def _mismatch(self, step: Mismatch) -> list[Outcome]:
        found = self._find(self.plan.items[step.item], step.event_type, None)
        assert isinstance(found, dict), "a mismatched event never routes"
        return [found]

    # -- deltas and dones --

    def _delta(self, step: Delta) -> list[Outcome]:
        plan = self.plan.items[step.item]
        part = plan.parts[step.part]
        event_type = DELTA_TYPES["refusal"] if step.as_refusal else channel_type(plan, part, False)
        item = self._find(plan, event_type, step)
        if isinstance(item, dict):
            return [item]
        delta = self.cuts[step.item][step.part][step.piece] if step.piece is not None else step.text
        if part.channel == "arguments":
            return self._arguments_delta(item, step, delta)
        held = item.parts.get(part.index)
        if (held is not None and held.state == "DONE") or item.state == "DONE":  # CORE-TEXT-6
            return [error("late_delta")]
        if event_type == DELTA_TYPES["refusal"]:  # CORE-TEXT-4
            return [
                {
                    "kind": "refusal.delta",
                    "item_id": item.plan.item_id,
                    "content_index": part.index,
                    "delta": delta,
                }
            ]
        if part.channel != "text":  # CORE-TEXT-5
            index = "summary_index" if part.channel == "summary" else "content_index"
            return [
                {"kind": "reasoning.delta", "item_id": item.plan.item_id, index: part.index, "delta": delta}
            ]
        outcomes = [
            {
                "kind": "text.delta",
                "item_id": item.plan.item_id,
                "output_index": item.output_index,  # its item's, whatever the event states (CORE-ITEM-16)
                "content_index": part.index,
                "delta": delta,
                **item.labels,  # CORE-TEXT-9, CORE-TEXT-12
            }
        ]  # CORE-TEXT-1
        held = item.parts.setdefault(part.index, _Part())
        if held.state != "DROPPED":
            held.size += utf8_size(delta)
            if held.size > MAX_BUFFERED_BYTES:  # CORE-LIMIT-3: routed on, no longer compared
                held.move("drop")
                held.deltas = []
                outcomes.append(error("too_large"))
            else:
                held.deltas.append(delta)
                held.move("delta")
        return outcomes

    def _arguments_delta(self, item: _Item, step: Delta, delta: str) -> list[Outcome]:
        arguments = item.arguments
        if arguments.state == "DONE":  # CORE-ARGS-4
            return [error("late_delta")]
        if arguments.state == "DROPPED":  # CORE-LIMIT-5
            return [error("too_large")]
        arguments.size += utf8_size(delta)
        if arguments.size > MAX_BUFFERED_BYTES:  # CORE-LIMIT-1: the call can never run
            arguments.move("drop")
            arguments.deltas = []
            return self._call_error(item, "too_large")
        arguments.deltas.append(delta)  # CORE-ARGS-1, -2, -3
        arguments.move("delta")
        outcomes = [{"kind": "tool.arguments.delta", "item_id": item.plan.item_id, "delta": delta}]
        slot = self.slot
        stated = {CallIdField.SAME: item.plan.added.call_id, CallIdField.OTHER: OTHER_CALL_ID}
        call_id = stated.get(step.address.call_id)
        if slot is not None and slot.item is item and call_id in (None, slot.call_id):  # CUSTOM-DELTA-2
            answer = slot.consumer.consume(delta, self.now)
            if answer is Refusal.FAILED:  # CUSTOM-FAIL-1
                self.slot = None
                return [*outcomes, error("consumer_failed", item_id=item.plan.item_id, call_id=slot.call_id)]
            assert not isinstance(answer, Refusal)
            outcomes += [
                {"kind": "diff.update", "item_id": item.plan.item_id, "call_id": slot.call_id, **p}
                for p in answer
            ]
        return outcomes

    def _part_done(self, step: PartDone) -> list[Outcome]:
        plan = self.plan.items[step.item]
        part = plan.parts[step.part]
        event_type = channel_type(plan, part, True)
        if not EVENTS[event_type].routed:
            return [
                {"kind": "ignored", "type": event_type}
            ]  # CORE-EVT-5: refusal, reasoning and summary dones
        item = self._find(plan, event_type, step)
        if isinstance(item, dict):
            return [item]
        text = step.text if step.text is not None else part.stated
        if part.channel == "text":
            held = item.parts.setdefault(part.index, _Part())
            if held.state == "DONE" or item.state == "DONE":  # CORE-TEXT-7
                return [error("duplicate_event")]
            mismatch = [] if held.agrees(text) else [error("done_mismatch")]  # CORE-TEXT-11
            held.move("done")
            return [
                *mismatch,
                {
                    "kind": "text.done",
                    "item_id": item.plan.item_id,
                    "content_index": part.index,
                    "text": text,
                    **item.labels,
                },
            ]
        if item.arguments.state == "DONE":  # CORE-ARGS-7
            return [error("duplicate_event")]
        outcomes = [] if item.arguments.agrees(text) else [error("done_mismatch")]  # CORE-ARGS-6
        item.arguments.move("done")
        item.stated = text
        if self.point == "arguments_done" and item.call == "PENDING" and item.call_id and item.name:
            outcomes += self._resolve(item, text, "fire")  # CORE-CALL-8
        return outcomes

    # -- the complete call --

    def _resolve(self, item: _Item, text: str | None, move: CallMove = "resolve") -> list[Outcome]:
        """The call's one tool.call or tool.error (CORE-CALL-1), after its consumer's finish; a
        tool.call makes `move`."""
        slot = self._release(item)
        if item.call_id is None or item.name is None or text is None:  # CORE-CALL-5
            return self._call_error(item, "incomplete")
        if item.call_id in self.called:  # CORE-CALL-7
            return self._call_error(item, "duplicate_call_id")
        verdict = self.plan.verdict(item.plan, text)
        if verdict.code is not None:  # CORE-CALL-3, CORE-LIMIT-2
            return self._call_error(item, verdict.code)
        tool_type = CALL_TYPES[item.type]
        call = {"kind": "tool.call", "item_id": item.plan.item_id, "call_id": item.call_id, "name": item.name}
        call.update({"tool_type": tool_type, COMPLETE_FIELD[tool_type]: verdict.value})
        if item.namespace is not None:
            call["namespace"] = item.namespace
        outcomes: list[Outcome] = []
        if slot is not None:  # CUSTOM-FIN-1
            answer = slot.consumer.finish(text, self.now)
            ids = {"item_id": item.plan.item_id, "call_id": item.call_id}  # CUSTOM-FIN-8: the call's
            if answer is Refusal.REJECTED:  # CUSTOM-FIN-3
                return self._call_error(item, "consumer_rejected")
            if answer is Refusal.FAILED:  # CUSTOM-FAIL-1: the call goes on
                outcomes.append(error("consumer_failed", **ids))
            else:
                assert isinstance(answer, Finished)
                outcomes += [{"kind": "diff.update", **ids, **update} for update in answer.updates]
                outcomes.append({"kind": "diff.finish", **ids, **answer.result})
        item.call_move(move)
        self.called.add(item.call_id)
        self.pointers[item.plan.item_id] = verdict.pointer
        return [*outcomes, call]

    def _call_error(self, item: _Item, code: str) -> list[Outcome]:
        if item.call != "PENDING":
            return []
        self._release(item)  # CUSTOM-FIN-4, CUSTOM-END-1: dropped unfinished
        item.call_move("resolve")
        outcome = {"kind": "tool.error", "item_id": item.plan.item_id, "code": code}
        return [{**outcome, "call_id": item.call_id} if item.call_id is not None else outcome]

    def _release(self, item: _Item) -> _Slot | None:
        slot = self.slot
        if slot is None or slot.item is not item:
            return None
        self.slot = None
        return slot


def _ignored_type(plan: StreamPlan, step: Extra | Hosted | PartAdded | PartClosed) -> str:
    if isinstance(step, (Extra, Hosted)):
        return step.event_type
    part = plan.items[step.item].parts[step.part]
    group = "reasoning_summary_part" if part.channel == "summary" else "content_part"
    return f"response.{group}.{'added' if isinstance(step, PartAdded) else 'done'}"
