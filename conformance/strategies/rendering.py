"""The plan's steps written as the entries a vector feeds: events, and control steps.

Each step kind has one writer (`_WRITERS`); a malformed copy is its step's
event with one field broken (`_corrupt`). The texts of the deltas come from the
plan's cuts: `cuts[item][part]` is the tuple of a part's deltas.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .plans import ItemPlan, PartPlan, StreamPlan, channel_type
from .steps import (
    Added,
    Address,
    CallIdField,
    Control,
    Corruption,
    Delta,
    Done,
    ErrorEvent,
    ErrorForm,
    ErrorShape,
    Extra,
    Foreign,
    Hosted,
    Lifecycle,
    Logprobs,
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
from .vocabulary import COMPLETE_FIELD, DELTA_TYPES, EVENTS, FAILURE_CODE, RESPONSE_STATED, TERMINAL_TYPES

Cuts = tuple[tuple[tuple[str, ...], ...], ...]  # per item, per part: its deltas
Event = dict[str, Any]
OTHER_CALL_ID = "call_elsewhere"  # the call id of CallIdField.OTHER: no item has it


class _Writer:
    """Writes the steps of one plan cut one way."""

    def __init__(self, plan: StreamPlan, cuts: Cuts) -> None:
        self.plan = plan
        self.cuts = cuts

    def write(self, step: Step) -> Any:
        writer: Callable[[_Writer, Any], Any] = _WRITERS[type(step)]
        return writer(self, step)

    def delta_text(self, step: Delta) -> str:
        return self.cuts[step.item][step.part][step.piece] if step.piece is not None else step.text

    # -- lifecycle and errors --

    def response(self, terminal: Terminal | None, form: ResponseForm) -> dict[str, Any]:
        plan = self.plan
        status = "in_progress"
        if terminal is not None:
            status = "cancelled" if plan.status == "cancelled" else terminal.status
        response: dict[str, Any] = {"id": plan.response_id, **RESPONSE_STATED, "status": status}
        if form is ResponseForm.NULL_ID:
            response["id"] = None
        elif form is ResponseForm.NO_ID:
            del response["id"]
        elif form is ResponseForm.OUTPUT_NULL:
            response["output"] = None
        elif form is ResponseForm.ERROR_STATED:
            response["error"] = "none yet"  # of no type `response.failed` reads
        if terminal is not None and terminal.status == "failed":
            error = {"code": FAILURE_CODE, "message": "The model failed to finish."}
            if terminal.error is ErrorForm.NULL:
                response["error"] = None
            elif terminal.error is ErrorForm.CODE_NULL:
                response["error"] = {**error, "code": None}
            elif terminal.error is ErrorForm.STATED:
                response["error"] = error
        if terminal is not None and terminal.status == "incomplete":
            response["incomplete_details"] = {"reason": "max_output_tokens"}
        return response

    def lifecycle(self, step: Lifecycle) -> Event:
        event_type = "response." + step.event
        if step.response is ResponseForm.NO_RESPONSE:
            return {"type": event_type}
        response = None if step.response is ResponseForm.NULL_RESPONSE else self.response(None, step.response)
        return {"type": event_type, "response": response}

    def terminal(self, step: Terminal) -> Event:
        return {"type": TERMINAL_TYPES[step.status], "response": self.response(step, ResponseForm.STATED)}

    def error(self, step: ErrorEvent) -> Event:
        error: dict[str, Any] = {"code": step.code, "message": "Rate limit reached.", "param": None}
        if step.shape is ErrorShape.FLAT_NO_CODE:
            del error["code"]
        if step.shape is ErrorShape.NOT_AN_OBJECT:
            return {"type": "error", **error, "error": "boom"}
        if step.shape in (ErrorShape.NESTED, ErrorShape.NESTED_NULL_CODE):
            code = None if step.shape is ErrorShape.NESTED_NULL_CODE else step.code
            return {"type": "error", "error": {"type": "server_error", **error, "code": code}}
        return {"type": "error", **error}

    def extra(self, step: Extra) -> Event:
        event: Event = {"type": step.event_type}
        if step.with_item:
            messages = [planned.item_id for planned in self.plan.items if planned.kind == "message"]
            event.update(item_id=(messages or ["x_1"])[0], output_index=0, content_index=0, delta="{")
        if step.carries is not None:
            event[step.carries] = _CARRIED[step.carries]
        return event

    def foreign(self, step: Foreign) -> Event:
        event: Event = {"type": step.event_type}
        event.update({"item_id": "ghost_9"} if step.by_id else {"output_index": 99})
        return {**event, str(EVENTS[step.event_type].text): "{}"}

    # -- items --

    def announcement(self, step: Added | Done) -> Event:
        planned = self.plan.items[step.item]
        done = isinstance(step, Done)
        event: Event = {"type": "response.output_item." + ("done" if done else "added")}
        obj = _item_object(planned, done, isinstance(step, Added) and step.other_identity)
        if step.odd_fields:  # fields no router reads (CORE-ITEM-9): a call's text at added, another type's
            odd = {"function": "input", "custom": "arguments"}.get(planned.kind, "content")
            obj.update(
                {odd: 5, "role": 7} if done or not planned.is_call else {COMPLETE_FIELD[planned.kind]: 5}
            )
        if step.output_index is not Stated.ABSENT:
            event["output_index"] = None if step.output_index is Stated.NULL else planned.output_index
        return {**event, "item": obj}

    def hosted(self, step: Hosted) -> Event:
        planned = self.plan.items[step.item]
        return {
            "type": step.event_type,
            "item_id": planned.item_id,
            "output_index": planned.output_index,
            "delta": "{",
        }

    def mismatch(self, step: Mismatch) -> Event:
        return {**_addressed(self.plan.items[step.item], step.event_type, Address()), "delta": "x"}

    def bracket(self, step: PartAdded | PartClosed) -> Event:
        planned = self.plan.items[step.item]
        part = planned.parts[step.part]
        opened = isinstance(step, PartAdded)
        if part.channel == "summary":
            event_type = "response.reasoning_summary_part." + ("added" if opened else "done")
            return {
                **_addressed(planned, event_type, Address()),
                "summary_index": part.index,
                "part": {"type": "summary_text", "text": ""},
            }
        event_type = "response.content_part." + ("added" if opened else "done")
        return {
            **_addressed(planned, event_type, Address()),
            "content_index": part.index,
            "part": {"type": "output_text", "text": "" if opened else part.stated},
        }

    def delta(self, step: Delta) -> Event:
        planned = self.plan.items[step.item]
        part = planned.parts[step.part]
        event_type = DELTA_TYPES["refusal"] if step.as_refusal else channel_type(planned, part, False)
        event = {**_addressed(planned, event_type, step.address), **_indexed(part, step.index)}
        return {**event, "delta": self.delta_text(step), **_logprobs(step.logprobs)}

    def part_done(self, step: PartDone) -> Event:
        planned = self.plan.items[step.item]
        part = planned.parts[step.part]
        event_type = channel_type(planned, part, True)
        event = {**_addressed(planned, event_type, step.address), **_indexed(part, step.index)}
        if step.states_name:
            event["name"] = "name_from_done_event"
        event[_done_field(planned, part)] = step.text if step.text is not None else part.stated
        return {**event, **_logprobs(step.logprobs)}

    def malformed(self, step: Malformed) -> Event:
        return _corrupt(self.write(step.of), step, self.plan)

    def not_an_event(self, step: NotAnEvent) -> Any:
        return copy.deepcopy(step.value)

    def control(self, step: Control) -> Event:
        return step.entry()


_WRITERS: dict[type[Step], Callable[[_Writer, Any], Any]] = {
    Lifecycle: _Writer.lifecycle,
    Terminal: _Writer.terminal,
    ErrorEvent: _Writer.error,
    Extra: _Writer.extra,
    Foreign: _Writer.foreign,
    Added: _Writer.announcement,
    Done: _Writer.announcement,
    Hosted: _Writer.hosted,
    Mismatch: _Writer.mismatch,
    PartAdded: _Writer.bracket,
    PartClosed: _Writer.bracket,
    Delta: _Writer.delta,
    PartDone: _Writer.part_done,
    Malformed: _Writer.malformed,
    NotAnEvent: _Writer.not_an_event,
    Control: _Writer.control,
}


_CARRIED: dict[str, dict[str, Any]] = {  # what an event of no routed type carries, and changes nothing
    "error": {"type": "server_error", "code": "server_error", "message": "Not this event's."},
    "item": {
        "id": "fc_carried",
        "type": "function_call",
        "call_id": "call_carried",
        "name": "get_weather",
        "arguments": "{}",
    },
}


def _item_object(planned: ItemPlan, done: bool, other_identity: bool) -> dict[str, Any]:
    obj: dict[str, Any] = {"id": planned.item_id, "type": planned.item_type}
    if planned.kind == "message":
        texts = [
            {"type": "output_text", "text": p.stated, "annotations": []}
            for p in planned.parts
            if p.channel == "text"
        ]
        return {
            **obj,
            "role": "assistant",
            "status": "completed" if done else "in_progress",
            "content": texts if done else [],
            **dict(planned.labels),
        }
    if planned.kind == "reasoning":
        return {**obj, "summary": [{"type": "summary_text", "text": planned.parts[0].stated}] if done else []}
    if planned.kind == "hosted":
        obj["status"] = "completed" if done else "in_progress"
        if planned.item_type == "mcp_call":
            obj.update(name="lookup", server_label="docs", arguments="{}" if done else "")
        elif planned.item_type == "program":
            obj.update(call_id=f"call_program_{planned.position}", code="return await tools.lookup({});")
        elif planned.item_type == "multi_agent_call":
            arguments = '{"agent_name":"researcher","task":"look it up"}'
            obj.update(action="spawn_agent", arguments=arguments, call_id=f"call_agent_{planned.position}")
        return obj
    identity = planned.done if done else planned.added
    if done:
        if planned.status is not None:
            obj["status"] = planned.status
        if planned.done_text is not None or planned.done_text_null:
            obj[COMPLETE_FIELD[planned.kind]] = planned.done_text
        if planned.done_type is not None:
            obj["type"] = planned.done_type
    else:
        obj.update(status="in_progress", **{COMPLETE_FIELD[planned.kind]: ""})
    again = "_again" if other_identity else ""  # a second announcement stating other ids
    for name in ("call_id", "name", "namespace"):
        value = getattr(identity, name)
        if value is not None:
            obj[name] = value + again if name != "namespace" else value
    if not done:
        obj.update(dict.fromkeys(planned.added_nulls))  # null: absent (CORE-EVT-7)
    return obj


def _addressed(planned: ItemPlan, event_type: str, address: Address) -> Event:
    """An item event's ids, as `address` says (CORE-ITEM-2, CORE-ITEM-8; CORE-EVT-7: null is absent)."""
    event: Event = {"type": event_type}
    if address.item_id is not Stated.ABSENT:
        event["item_id"] = None if address.item_id is Stated.NULL else planned.item_id
    if address.output_index is not Stated.ABSENT:
        event["output_index"] = None if address.output_index is Stated.NULL else planned.output_index
    if address.call_id is CallIdField.SAME:
        event["call_id"] = planned.added.call_id
    elif address.call_id is CallIdField.OTHER:
        event["call_id"] = OTHER_CALL_ID
    return event


def _indexed(part: PartPlan, index: Stated) -> Event:
    if part.channel == "arguments" or index is Stated.ABSENT:
        return {}
    name = "summary_index" if part.channel == "summary" else "content_index"
    return {name: None if index is Stated.NULL else part.index}


_LOGPROBS: dict[Logprobs, Any] = {
    Logprobs.LIST: [{"token": "a", "logprob": -0.1, "bytes": [97], "top_logprobs": []}],
    Logprobs.EMPTY: [],
    Logprobs.NULL: None,
    Logprobs.OTHER: "none",
}


def _logprobs(logprobs: Logprobs) -> Event:
    return {} if logprobs is Logprobs.ABSENT else {"logprobs": _LOGPROBS[logprobs]}


def _done_field(planned: ItemPlan, part: PartPlan) -> str:
    field = EVENTS[channel_type(planned, part, True)].text
    assert field is not None, "every `.done` of a channel states its text"
    return field


_ITEM_FIELDS = {
    Corruption.ID_NUMBER: ("id", 1),
    Corruption.TYPE_NUMBER: ("type", 3),
    Corruption.STATUS_NUMBER: ("status", 5),
    Corruption.CALL_ID_NUMBER: ("call_id", 5),
    Corruption.NAME_NUMBER: ("name", 5),
    Corruption.NAMESPACE_NUMBER: ("namespace", 5),
}
_RESPONSE_FIELDS: dict[Corruption, tuple[str, Any]] = {
    Corruption.RESPONSE_ID_NUMBER: ("id", 1),
    Corruption.RESPONSE_STATUS_NUMBER: ("status", 1),
    Corruption.RESPONSE_ERROR_STRING: ("error", "boom"),
}


def _corrupt(event: Event, step: Malformed, plan: StreamPlan) -> Event:
    """The event with the field `step.corruption` names missing or of the wrong type."""
    how, of = step.corruption, step.of
    planned = plan.items[of.item] if isinstance(of, (Added, Done, Delta, PartDone, Mismatch)) else None
    if isinstance(of, (Added, Done)):
        assert planned is not None
        obj = event["item"]
        if how in _ITEM_FIELDS:
            name, value = _ITEM_FIELDS[how]
            obj[name] = value
        elif how is Corruption.ARGUMENTS_NUMBER:
            obj[COMPLETE_FIELD[planned.kind]] = 5
        elif how is Corruption.ID_MISSING:
            del obj["id"]
        elif how is Corruption.ITEM_MISSING:
            del event["item"]
        elif how is Corruption.ITEM_STRING:
            event["item"] = "item"
        elif how is Corruption.OUTPUT_INDEX_FRACTION:
            event["output_index"] = planned.output_index + 0.5
        else:
            assert how is Corruption.OUTPUT_INDEX_NEGATIVE, how
            event["output_index"] = -1
        return event
    if how is Corruption.RESPONSE_STRING:
        event["response"] = "response"
        return event
    response = event.get("response")
    if isinstance(response, dict) and how in _RESPONSE_FIELDS:
        name, value = _RESPONSE_FIELDS[how]
        response[name] = value
        return event
    if isinstance(of, ErrorEvent):
        nested = event.get("error")
        target = nested if isinstance(nested, dict) else event
        if how is Corruption.ERROR_STRING:  # CORE-ERR-2: an `error` that is not an object
            return {**event, "code": "flat_code", "message": "flat", "error": "boom"}
        if how is Corruption.MESSAGE_MISSING:
            del target["message"]
        else:
            target["code"] = 5
        return event
    value_field = next(k for k in ("delta", "text", "arguments", "input") if k in event)
    summary = isinstance(of, Delta) and planned is not None and planned.parts[of.part].channel == "summary"
    index_field = "summary_index" if summary else "content_index"
    changes: dict[Corruption, tuple[str, Any]] = {
        Corruption.DELTA_NUMBER: (value_field, 5),
        Corruption.DELTA_NULL: (value_field, None),
        Corruption.TEXT_NUMBER: (value_field, 5),
        Corruption.OUTPUT_INDEX_STRING: ("output_index", "0"),
        Corruption.ITEM_ID_NUMBER: ("item_id", 7),
        Corruption.INDEX_STRING: (index_field, "0"),
        Corruption.INDEX_NEGATIVE: (index_field, -1),
        Corruption.INDEX_FRACTION: (index_field, 0.5),
        Corruption.CALL_ID_NUMBER: ("call_id", 5),
    }
    if how in (Corruption.DELTA_MISSING, Corruption.TEXT_MISSING):
        del event[value_field]
    elif how is Corruption.NO_IDS:  # neither item_id nor output_index, nor a custom input's call_id
        for name in ("item_id", "output_index", "call_id"):
            event.pop(name, None)
    else:
        name, value = changes[how]
        event[name] = value
    return event


def render_events(plan: StreamPlan, cuts: Cuts) -> list[Any]:
    """The plan's steps as the entries a vector feeds: events (and control steps)."""
    writer = _Writer(plan, cuts)
    events = []
    for step, number in zip(plan.steps, plan.numbering.numbers(len(plan.steps)), strict=True):
        event = writer.write(step)
        if isinstance(event, dict) and not isinstance(step, Control):
            numbered: Event = {"type": event.pop("type")} if "type" in event else {}
            if number is not None and not isinstance(step, (Malformed, NotAnEvent)):
                numbered["sequence_number"] = number
            event = {**numbered, **event}
            if step.at_ms is not None:
                event["at_ms"] = step.at_ms
        events.append(event)
    return events


AGENT_NAME = "root"
_INDEXES = ("output_index", "content_index", "summary_index")


def restyled(events: list[Any], agent: bool, float_indexes: bool) -> list[Any]:
    """The events as other producers write them, meaning the same. `agent`: every event and item
    names its agent by name, as a gateway that flattens the beta multi-agent `agent` member does
    (routing never reads it, CORE-EVT-11; a name, not an object, labels no text, CORE-TEXT-12).
    `float_indexes`: every index a whole number written as a float, `1.0` for 1, as an encoder
    that writes numbers as floats does (the index it is worth, CORE-EVT-12)."""
    styled = []
    for event in events:
        if isinstance(event, dict) and isinstance(event.get("type"), str):
            event = dict(event)
            if agent:
                event["agent"] = AGENT_NAME
                if isinstance(event.get("item"), dict):  # an item's own agent stands
                    event["item"] = {"agent": AGENT_NAME, **event["item"]}
            if float_indexes:
                event.update((k, float(event[k])) for k in _INDEXES if type(event.get(k)) is int)
        styled.append(event)
    return styled
