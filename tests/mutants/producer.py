"""Checker mutants of spec/producer.md: each is the capture checker (producer/checker.py)
with one piece changed so that it misses one rule, or part of one, as a real checker would."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar
from unittest import mock

from streamroute.conformance.arguments import MAX_ARGUMENTS_DEPTH, nests_deeper
from streamroute.conformance.event_types import EventType, lifecycle_types, terminal_types
from streamroute.conformance.limits import TooDeep, loads
from streamroute.producer import checker
from streamroute.producer.checker import EVENTS, Captured, CaptureReport, Violation, _Checker, _Item
from streamroute.wire.event_stream import Decoder
from streamroute.wire.strict_json import loads_strict

from . import mutant


class Variant(_Checker):
    """The checker with one piece changed: `check` checks a capture as `check_capture` does."""

    replaces: ClassVar[tuple[str, Any] | None] = None  # another name of producer.checker, and its value

    @classmethod
    def check(cls, data: bytes) -> CaptureReport:
        changed = dict([cls.replaces] if cls.replaces else [])
        with mock.patch.multiple(checker, _Checker=cls, **changed):  # check_capture takes no checker
            return checker.check_capture(data)


class Excusing(Variant):
    """A checker that lets what one rule finds pass while `excused` holds: the case it misses."""

    rule: ClassVar[str]
    excused = False

    def report(self, requirement: str, message: str) -> None:
        if not (requirement == self.rule and self.excused):
            super().report(requirement, message)

    @contextmanager
    def excusing(self, excused: bool = True) -> Iterator[None]:
        self.excused = excused
        try:
            yield
        finally:
            self.excused = False


class Unchecked(Excusing):
    """A checker without one rule: whatever the rule finds goes unreported."""

    excused = True


class Misplaced(Variant):
    """A checker that reports what one rule finds elsewhere than at the event it is found at."""

    rule: ClassVar[str]

    def place(self) -> int | None:
        """Where the checker reports it: an event's index, or None for the end of the stream."""
        raise NotImplementedError

    def report(self, requirement: str, message: str) -> None:
        if requirement == self.rule:
            self.violations.append(Violation(self.place(), requirement, message))
        else:
            super().report(requirement, message)


# -- SSE framing (section 1) -----------------------------------------------------------


class Utf8Unchecked(Variant):
    """Decodes the stream with replacement and never looks for bytes that are not UTF-8."""

    replaces = ("_not_utf8", lambda data: iter(()))


class _ForgetfulDecoder(Decoder):
    def close(self) -> bool:
        super().close()
        return False


class UnterminatedEventUnnoticed(Variant):
    """Drops an unterminated last event as a client does, without reporting it."""

    replaces = ("Decoder", _ForgetfulDecoder)


class EventLineUnread(Variant):
    """Never reads the `event:` lines."""

    def take(self, index: int, captured: Captured) -> None:
        super().take(index, dataclasses.replace(captured, sse_event=None))


class StopsAtDone(Variant):
    """Stops at `[DONE]` as a client does, without reporting what follows it."""

    def take(self, index: int, captured: Captured) -> None:
        if not self.after_done:
            super().take(index, captured)


_NOT_UTF8 = checker._not_utf8
_READ_SSE = checker.read_sse


def _first_not_utf8(data: bytes) -> Iterator[int]:
    return itertools.islice(_NOT_UTF8(data), 1)


class Utf8FirstByteOnly(Variant):
    """Stops looking at the first byte that is not UTF-8: the events after it go unchecked."""

    replaces = ("_not_utf8", _first_not_utf8)


def _not_utf8_before_done(data: bytes) -> Iterator[int]:
    done = data.find(b"data: [DONE]")
    return (offset for offset in _NOT_UTF8(data) if done < 0 or offset < done)


class Utf8BeforeDoneOnly(Variant):
    """Looks for bytes that are not UTF-8 up to `[DONE]`, not in what follows it."""

    replaces = ("_not_utf8", _not_utf8_before_done)


class _LineEndDecoder(Decoder):
    def close(self) -> bool:
        inside_a_line = bool(self.receiver._line or self.receiver._spilled)
        super().close()
        return inside_a_line


class UnterminatedLineOnly(Variant):
    """Notices a stream that ends inside a line, not one whose last event lacks its empty line."""

    replaces = ("Decoder", _LineEndDecoder)


def _sse_end_at_last_event(data: bytes) -> tuple[list[Captured], list[Violation]]:
    captured, violations = _READ_SSE(data)
    return captured, [
        Violation(len(captured) - 1, v.requirement, v.message) if v.requirement == "PROD-SSE-2" else v
        for v in violations
    ]


class UnterminatedAtLastEvent(Variant):
    """Reports a stream that ends inside an event at the last whole event, not at the end."""

    replaces = ("read_sse", _sse_end_at_last_event)


def _type_of(data: str) -> object:
    try:
        event = loads(data)
    except ValueError:
        return None
    return event.get("type") if isinstance(event, dict) else None


def _family(event_type: object) -> object:
    return event_type.rpartition(".")[0] if isinstance(event_type, str) else event_type


class EventLineFamilyOnly(Variant):
    """Compares an `event:` line with its data's type up to the last dot: the family, not the step."""

    def take(self, index: int, captured: Captured) -> None:
        if captured.sse_event is not None and _family(captured.sse_event) == _family(_type_of(captured.data)):
            captured = dataclasses.replace(captured, sse_event=None)
        super().take(index, captured)


class EventLineOfFirstEventOnly(Variant):
    """Checks the `event:` line of the first event, taking the others to be framed alike."""

    def take(self, index: int, captured: Captured) -> None:
        super().take(index, captured if self.first else dataclasses.replace(captured, sse_event=None))


class SecondDoneAllowed(Variant):
    """Takes a second `[DONE]` for a repeated end, reporting only data after it."""

    def take(self, index: int, captured: Captured) -> None:
        if not (self.after_done and captured.done):
            super().take(index, captured)


class AfterDoneAtDone(Misplaced):
    """Reports what follows `[DONE]` at the `[DONE]`, not at the event it is."""

    rule = "PROD-SSE-4"
    done_at: int | None = None  # the index of the first `[DONE]`

    def take(self, index: int, captured: Captured) -> None:
        if captured.done and self.done_at is None:
            self.done_at = index
        super().take(index, captured)

    def place(self) -> int | None:
        return self.index if self.done_at is None else self.done_at


# -- events, sequence numbers (sections 2, 3) ---------------------------------------------


def _is_json(text: str) -> bool:
    try:
        loads_strict(text)
    except (ValueError, RecursionError):
        return False
    return True


class NonJsonSkipped(Variant):
    """Takes data that is not JSON for a proxy's keep-alive and skips it."""

    def take(self, index: int, captured: Captured) -> None:
        if self.after_done or captured.done or _is_json(captured.data):
            super().take(index, captured)


class NonObjectSkipped(Variant):
    """Takes JSON that is not an object (a string, a number) for a proxy's keep-alive and skips it."""

    def take(self, index: int, captured: Captured) -> None:
        try:
            event = loads(captured.data)
        except ValueError:  # not JSON, or nested too deep: reported as the checker does
            event = {}
        if self.after_done or captured.done or isinstance(event, dict):
            super().take(index, captured)


_LOADS_NOTING_DUPLICATES = checker.loads_noting_duplicates


def _loads_any_depth(text: str) -> tuple[Any, list[str]]:
    try:
        return _LOADS_NOTING_DUPLICATES(text)
    except TooDeep:
        return json.loads(text), []


class DepthUnlimited(Variant):
    """Reads an event nested past the depth limit as any other: a parser with no limit of its own."""

    replaces = ("loads_noting_duplicates", _loads_any_depth)


_FIRST_ERROR = checker.first_error


class LifecycleEventsTrusted(Variant):
    """Validates the events of items, trusting the response object of every lifecycle event."""

    replaces = (
        "first_error",
        lambda ref, instance: (
            None if instance.get("type") in lifecycle_types() else _FIRST_ERROR(ref, instance)
        ),
    )


class ItemEventsTrusted(Variant):
    """Validates the lifecycle events, the ones holding the response, trusting the events of items."""

    replaces = (
        "first_error",
        lambda ref, instance: (
            _FIRST_ERROR(ref, instance) if instance.get("type") in lifecycle_types() else None
        ),
    )


class SchemaUnchecked(Variant):
    """Trusts every event to have the fields its type requires, never validating it."""

    replaces = ("first_error", lambda ref, instance: None)


class RepeatedNamesUnseen(Variant):
    """Parses each event as JSON.parse does, the last of two members of one name silently kept."""

    replaces = ("loads_noting_duplicates", lambda text: (loads(text), []))


def _loads_noting_top_level_duplicates(text: str) -> tuple[Any, list[str]]:
    value, _ = _LOADS_NOTING_DUPLICATES(text)  # its depth limit still holds
    objects: list[list[tuple[str, Any]]] = []

    def members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        objects.append(pairs)
        return dict(pairs)

    json.loads(text, object_pairs_hook=members)
    names = [name for name, _ in objects[-1]] if isinstance(value, dict) else []  # the outermost: parsed last
    return value, [name for position, name in enumerate(names) if name in names[:position]]


class RepeatedNamesAtTopLevelOnly(Variant):
    """Looks for repeated member names in the event object itself, not in the objects it holds."""

    replaces = ("loads_noting_duplicates", _loads_noting_top_level_duplicates)


class RepeatedNamesOncePerStream(Variant):
    """Reports the first event holding a repeated member name, then stops looking."""

    repeated_seen = False

    def report(self, requirement: str, message: str) -> None:
        if requirement == "PROD-EVT-3":
            if self.repeated_seen:
                return
            self.repeated_seen = True
        super().report(requirement, message)


class RepeatedSequenceAllowed(Variant):
    """Takes a repeated sequence number for a retransmission and lets it pass."""

    def _in_place(self, event_type: str, sequence: object) -> bool:
        return super()._in_place(event_type, None if sequence == self.sequence else sequence)


def _number(sequence: object) -> int | None:
    return sequence if isinstance(sequence, int) and not isinstance(sequence, bool) else None


class SequenceComparedWithPrevious(Variant):
    """Compares each sequence number with the one before it, not with the highest so far."""

    def _in_place(self, event_type: str, sequence: object) -> bool:
        placed = super()._in_place(event_type, sequence)
        if placed and _number(sequence) is not None:
            self.sequence = _number(sequence)
        return placed


class LowerSequenceAllowed(Variant):
    """Takes a sequence number lower than the last for a reordered event; only a repeated one fails."""

    def _in_place(self, event_type: str, sequence: object) -> bool:
        number = _number(sequence)
        lower = number is not None and self.sequence is not None and number < self.sequence
        return super()._in_place(event_type, None if lower else sequence)


class SequenceGapsAllowed(Variant):
    """Checks that sequence numbers increase, not that they increase by one."""

    def _in_place(self, event_type: str, sequence: object) -> bool:
        if isinstance(sequence, int) and self.sequence is not None and sequence > self.sequence:
            self.sequence = sequence - 1
        return super()._in_place(event_type, sequence)


# -- lifecycle (section 4) -------------------------------------------------------------


class AnyLifecycleEventFirst(Variant):
    """Lets the stream start with any lifecycle event, not only response.created."""

    def _in_place(self, event_type: str, sequence: object) -> bool:
        if self.first and event_type in lifecycle_types():
            self.first = False
        return super()._in_place(event_type, sequence)


class ErrorFirstAllowed(Variant):
    """Lets the stream start with an `error` event, a failure before the response begins."""

    def _in_place(self, event_type: str, sequence: object) -> bool:
        if self.first and event_type == "error":
            self.first = False
        return super()._in_place(event_type, sequence)


class NotCreatedFirstAtEnd(Misplaced):
    """Reports a stream not begun by response.created at its end, not at its first event."""

    rule = "PROD-LIFE-1"

    def place(self) -> int | None:
        return None


class ErrorEventIsTerminal(Variant):
    """Counts an `error` event as the terminal event."""

    replaces = ("EVENTS", {**EVENTS, "error": dataclasses.replace(EVENTS["error"], terminal=True)})


class CompletedOnlyIsTerminal(Variant):
    """Counts response.completed as the terminal event, not response.failed or response.incomplete."""

    replaces = ("_ends", lambda event_type: event_type == "response.completed")


class SecondTerminalIsLateEvent(Variant):
    """Reports a second terminal event as just an event after the terminal one (PROD-LIFE-3)."""

    def report(self, requirement: str, message: str) -> None:
        super().report("PROD-LIFE-3" if requirement == "PROD-LIFE-2" else requirement, message)


class AfterTerminalUnchecked(Variant):
    """Ignores whatever follows the terminal event, but a second terminal event."""

    def _in_place(self, event_type: str, sequence: object) -> bool:
        if self.terminal is not None and event_type not in terminal_types():
            return False
        return super()._in_place(event_type, sequence)


class AnyEventStartsNextResponse(Variant):
    """Takes any event after the terminal one for the start of the recording's next response."""

    replaces = ("starts_a_response", lambda captured: not captured.done)


class LateEventAtTerminal(Misplaced):
    """Reports an event after the terminal one at the terminal event, not where it comes."""

    rule = "PROD-LIFE-3"

    def place(self) -> int | None:
        return self.terminal


class ResponseIdAtTerminalOnly(Variant):
    """Compares the response id of response.created with that of the terminal event only."""

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        if event_type not in terminal_types() and self.response_id is not None:
            response = {**response, "id": self.response_id}
        super()._lifecycle(event_type, response)


class ResponseIdComparedWithPrevious(Variant):
    """Compares each lifecycle event's response id with the one before it, not with response.created's."""

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        super()._lifecycle(event_type, response)
        self.response_id = response["id"]


class ResponseIdBeforeTerminalOnly(Variant):
    """Compares the response id of the lifecycle events up to the terminal one, not the terminal's."""

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        if event_type in terminal_types() and self.response_id is not None:
            response = {**response, "id": self.response_id}
        super()._lifecycle(event_type, response)


class OpenItemsAtCompletedAllowed(Variant):
    """Checks response.completed's output list, not that every announced item was done before it."""

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        if event_type == "response.completed":
            for item in self.items.values():
                item.done = True
        super()._lifecycle(event_type, response)


class OutputOrderUnchecked(Variant):
    """Checks that response.completed's output lists the stream's items, not in which order."""

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        if event_type == "response.completed" and isinstance(response.get("output"), list):
            position = {item_id: item.output_index for item_id, item in self.items.items()}
            output = sorted(response["output"], key=lambda listed: position.get(listed.get("id"), -1))
            response = {**response, "output": output}
        super()._lifecycle(event_type, response)


class OutputCountOnly(Excusing):
    """Checks that response.completed's output lists as many items as the stream had, not which."""

    rule = "PROD-LIFE-5"

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        counted = (
            event_type == "response.completed"
            and all(item.done for item in self.items.values())
            and len(response["output"]) == len(self.items)
        )
        with self.excusing(counted):  # every item done, as many listed: nothing else to see
            super()._lifecycle(event_type, response)


class FinalOutputIdentityOnly(Variant):
    """Compares the final response's items with their done items by call_id and name, not arguments."""

    replaces = ("_text_member", lambda item_type: ())


class FinalOutputComparedWithAnnouncement(Variant):
    """Compares the final response's items with their announcements, not with their done items."""

    def _restated(self, output: object) -> None:
        done = {item_id: item.stated for item_id, item in self.items.items()}
        for item in self.items.values():
            if item.stated is not None:
                item.stated = item.announced
        super()._restated(output)
        for item_id, item in self.items.items():
            item.stated = done[item_id]


class FinalStatusAlwaysCompared(Variant):
    """Compares the final response's item status with its done item's, also where one states none."""

    replaces = ("_IF_BOTH_STATE", frozenset())


class FinalNullStated(Variant):
    """Reads a member stated null as stated: a final `namespace: null` beside a done item without one."""

    replaces = ("_member", lambda item, member: item.get(member, checker._NOTHING))


# What the response object states when PROD-LIFE-6 holds.
_STATED = {"object": "response", "created_at": 1764505140, "model": "gpt-5.1"}


class ResponseFieldsOnCreatedOnly(Variant):
    """Checks the response object's object, created_at and model on response.created only."""

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        super()._lifecycle(
            event_type, response if event_type == "response.created" else {**response, **_STATED}
        )


class ResponseFieldsPresenceOnly(Variant):
    """Checks that the response object has object, created_at and model, not what they hold."""

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        stated = {member: value for member, value in _STATED.items() if member in response}
        super()._lifecycle(event_type, {**response, **stated})


class CreatedAtStringAllowed(Variant):
    """Takes a created_at stated as a string (a date) for a timestamp."""

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        if isinstance(response.get("created_at"), str):
            response = {**response, "created_at": _STATED["created_at"]}
        super()._lifecycle(event_type, response)


# -- items (section 5) -----------------------------------------------------------------


class ReannouncedItemAllowed(Variant):
    """Takes an item announced again for the same item, without a word."""

    def _item_added(self, item: dict[str, Any], output_index: int) -> None:
        if item["id"] not in self.items:
            super()._item_added(item, output_index)


class FirstEventAnnouncesItem(Variant):
    """Takes the first event of an item never announced for its announcement, and the announcement
    that comes after for what the item is."""

    def __init__(self) -> None:
        super().__init__()
        self.unannounced: set[str] = set()  # items known from an event before their announcement

    def _item(self, event_type: str, event: dict[str, Any]) -> _Item | None:
        if event["item_id"] not in self.items:
            self.items[event["item_id"]] = _Item(EVENTS[event_type].item_types[0], event["output_index"], {})
            self.unannounced.add(event["item_id"])
        return super()._item(event_type, event)

    def _item_added(self, item: dict[str, Any], output_index: int) -> None:
        if item["id"] in self.unannounced:
            self.unannounced.discard(item["id"])
            self.items[item["id"]].announced = item
        else:
            super()._item_added(item, output_index)


class UnannouncedItemsSkipped(Variant):
    """Skips the events of an item that was never announced, without reporting them."""

    def _item(self, event_type: str, event: dict[str, Any]) -> _Item | None:
        return super()._item(event_type, event) if event["item_id"] in self.items else None


class CallIdsNotCompared(Variant):
    """Never compares the call ids of a response's items: a second call with one is taken."""

    def _own_call_id(self, item: dict[str, Any]) -> None:
        pass


class CallIdsOfOneTypeCompared(Variant):
    """Compares a call's call id with those of the calls of its own type only."""

    def _own_call_id(self, item: dict[str, Any]) -> None:
        every = self.call_ids
        self.call_ids = {
            item_id: call_id
            for item_id, call_id in every.items()
            if item_id not in self.items or self.items[item_id].type == item["type"]
        }
        super()._own_call_id(item)
        self.call_ids = {**every, **self.call_ids}


class CallIdOfPreviousCallCompared(Variant):
    """Compares a call's call id with that of the call before it only."""

    def _own_call_id(self, item: dict[str, Any]) -> None:
        every = self.call_ids
        others = [item_id for item_id in every if item_id != item["id"]]
        self.call_ids = {
            item_id: every[item_id] for item_id in [*others[-1:], item["id"]] if item_id in every
        }
        super()._own_call_id(item)
        self.call_ids = {**every, **self.call_ids}


class AfterErrorUnchecked(Unchecked):
    """Never checks what follows an error event."""

    rule = "PROD-LIFE-8"


class AnyTerminalAfterError(Variant):
    """Takes any terminal event after an error event, response.completed included."""

    def _after_error(self, event_type: str) -> None:
        if event_type not in terminal_types():
            super()._after_error(event_type)


class NextEventAfterErrorOnly(Variant):
    """Checks the event right after an error event, not the ones after that."""

    def _after_error(self, event_type: str) -> None:
        if self.index == self.error + 1:
            super()._after_error(event_type)


class OutputIndexOrderUnchecked(Unchecked):
    """Never checks that items are announced at output indexes 0, 1, 2, ..."""

    rule = "PROD-ITEM-2"


class OutputIndexIncreasingOnly(Excusing):
    """Checks that items are announced at increasing output indexes, not at 0, 1, 2, ..."""

    rule = "PROD-ITEM-2"

    def _item_added(self, item: dict[str, Any], output_index: int) -> None:
        with self.excusing(all(output_index > known.output_index for known in self.items.values())):
            super()._item_added(item, output_index)


class OutputIndexCountsDoneItems(Excusing):
    """Expects an item's output_index to be the number of items done before it, not announced."""

    rule = "PROD-ITEM-2"

    def _item_added(self, item: dict[str, Any], output_index: int) -> None:
        done = sum(known.done for known in self.items.values())
        if item["id"] not in self.items and output_index != done:
            self.report(self.rule, f"item {item['id']!r} has output_index {output_index}, not {done}")
        with self.excusing():  # the checker's own count
            super()._item_added(item, output_index)


class EventOutputIndexUnchecked(Variant):
    """Checks the output_index of each item's done event, not of the events in between."""

    def _item(self, event_type: str, event: dict[str, Any]) -> _Item | None:
        item = self.items.get(event["item_id"])
        if item is not None:
            event = {**event, "output_index": item.output_index}
        return super()._item(event_type, event)


class DoneItemTypeUnchecked(Excusing):
    """Compares a done item's output_index with its announcement's, not its type."""

    rule = "PROD-ITEM-3"

    def _item_done(self, done: dict[str, Any], output_index: int) -> None:
        item = self.items.get(done["id"])
        with self.excusing(item is not None and output_index == item.output_index):
            super()._item_done(done, output_index)


class ItemFoundByOutputIndex(Variant):
    """Finds an event's item by its output_index, not by its item_id."""

    def _named(self, event: dict[str, Any]) -> dict[str, Any]:
        return super()._named({key: value for key, value in event.items() if key != "item_id"})


class EventsAfterItemDoneSkipped(Variant):
    """Skips the events of an item after its done, without reporting them."""

    def _item(self, event_type: str, event: dict[str, Any]) -> _Item | None:
        item = self.items.get(event["item_id"])
        return None if item is not None and item.done else super()._item(event_type, event)


class SecondItemDoneAllowed(Variant):
    """Takes a second output_item.done of an item for a restatement of it."""

    def _item_done(self, done: dict[str, Any], output_index: int) -> None:
        item = self.items.get(done["id"])
        if item is not None and item.done:
            item.done = False
        super()._item_done(done, output_index)


class LastItemOnlyChecked(Variant):
    """Checks for events after an item's done on the item announced last, not the earlier ones."""

    def _late(self, item_id: str) -> bool:
        item = self.items.get(item_id)
        return item is not None and item.done and item_id != list(self.items)[-1]

    def _item(self, event_type: str, event: dict[str, Any]) -> _Item | None:
        return None if self._late(event["item_id"]) else super()._item(event_type, event)

    def _item_done(self, done: dict[str, Any], output_index: int) -> None:
        if not self._late(done["id"]):
            super()._item_done(done, output_index)


class ItemTypeUnchecked(Variant):
    """Takes every item event for an item of whatever type."""

    replaces = (
        "EVENTS",
        {
            name: dataclasses.replace(
                event, item_types=tuple({t for e in EVENTS.values() for t in e.item_types})
            )
            if event.item_types
            else event
            for name, event in EVENTS.items()
        },
    )


_CALLS = tuple(sorted({t for e in EVENTS.values() for t in e.item_types if t.endswith("_call")}))


class TextEventsOfAnyItem(Variant):
    """Checks that call events name calls, not that text events name messages."""

    replaces = (
        "EVENTS",
        {
            name: dataclasses.replace(event, item_types=("message", "reasoning", *_CALLS))
            if event.part is not None
            else event
            for name, event in EVENTS.items()
        },
    )


class CallEventsOfAnyCall(Variant):
    """Takes the events of one call type for a call of any type: arguments of a custom tool call."""

    replaces = (
        "EVENTS",
        {
            name: dataclasses.replace(event, item_types=_CALLS)
            if set(event.item_types) <= set(_CALLS) and event.item_types
            else event
            for name, event in EVENTS.items()
        },
    )


# -- parts, texts (sections 6, 7) -----------------------------------------------------------


class PartOrderUnchecked(Variant):
    """Checks that parts open one at a time, not that they open in index order from 0."""

    def _part_added(self, item: _Item, family: str, index: int) -> None:
        if family not in item.open:
            item.opened[family] = index
        super()._part_added(item, family, index)


class PartsOpenInOrderOnly(Variant):
    """Checks that parts open in index order, not that one is closed before the next opens."""

    def _part_added(self, item: _Item, family: str, index: int) -> None:
        item.open.pop(family, None)
        super()._part_added(item, family, index)


class OpenPartAtItemDoneAllowed(Variant):
    """Does not check that an item's parts are closed by the time the item is done."""

    def _item_done(self, done: dict[str, Any], output_index: int) -> None:
        item = self.items.get(done["id"])
        if item is not None:
            item.open.clear()
        super()._item_done(done, output_index)


class TextOutsidePartAllowed(Variant):
    """Takes text events whether their part is open or not."""

    replaces = (
        "EVENTS",
        {name: dataclasses.replace(event, part_required=False) for name, event in EVENTS.items()},
    )


class PartKindOpenOnly(Variant):
    """Checks that a part of a text event's kind is open, not that it is the text's own part."""

    def _text_event(self, item: _Item, kind: EventType, event: dict[str, Any], value: str) -> None:
        if kind.part is not None and kind.index is not None and kind.part in item.open:
            event = {**event, kind.index: item.open[kind.part]}
        super()._text_event(item, kind, event, value)


class PartCheckedForDeltasOnly(Variant):
    """Checks that a text's deltas come in its open part, not that its `.done` does."""

    def _text_event(self, item: _Item, kind: EventType, event: dict[str, Any], value: str) -> None:
        if kind.step == "done":
            kind = dataclasses.replace(kind, part_required=False)
        super()._text_event(item, kind, event, value)


class SecondTextDoneAllowed(Variant):
    """Takes a second `.done` of a text for a fresh statement of the whole text."""

    def _text_event(self, item: _Item, kind: EventType, event: dict[str, Any], value: str) -> None:
        text = item.texts.get((kind.family, None if kind.index is None else event.get(kind.index, 0)))
        if kind.step == "done" and text is not None:
            text.complete = None
        super()._text_event(item, kind, event, value)


class PartClosedBeforeTextDoneAllowed(Excusing):
    """Checks that a text's `.done` comes before its item is done, not before its part closes."""

    rule = "PROD-TEXT-1"

    def _part_done(self, item: _Item, family: str, index: int, part: dict[str, Any]) -> None:
        with self.excusing():
            super()._part_done(item, family, index, part)


class ItemDoneBeforeTextDoneAllowed(Excusing):
    """Checks that a text's `.done` comes before its part closes, not before its item is done."""

    rule = "PROD-TEXT-1"

    def _item_done(self, done: dict[str, Any], output_index: int) -> None:
        with self.excusing():
            super()._item_done(done, output_index)


class TextDoneUnchecked(Unchecked):
    """Never compares a text's `.done` with the deltas it streamed."""

    rule = "PROD-TEXT-2"


class TextDoneLengthOnly(Excusing):
    """Compares the length of a text's `.done` with the deltas', not the text."""

    rule = "PROD-TEXT-2"

    def _text_event(self, item: _Item, kind: EventType, event: dict[str, Any], value: str) -> None:
        text = item.texts.get((kind.family, None if kind.index is None else event.get(kind.index, 0)))
        with self.excusing(text is not None and len("".join(text.deltas)) == len(value)):
            super()._text_event(item, kind, event, value)


class PartTextsUncompared(Excusing):
    """Compares a call's `.done` with its deltas, not a text streamed in a part."""

    rule = "PROD-TEXT-2"

    def _text_event(self, item: _Item, kind: EventType, event: dict[str, Any], value: str) -> None:
        with self.excusing(kind.part is not None):
            super()._text_event(item, kind, event, value)


class DoneItemTextUnchecked(Variant):
    """Compares a done call item's name with its announcement, not its arguments."""

    def _compare(self, item: _Item, family: str, index: int | None, stated: object, what: str) -> None:
        if index is not None:  # a message's part; a call's text has no index
            super()._compare(item, family, index, stated, what)


class DoneItemIdentityUnchecked(Variant):
    """Compares a done call item's arguments with the .done, not its name."""

    def _item_done(self, done: dict[str, Any], output_index: int) -> None:
        item = self.items.get(done["id"])
        if item is not None and "name" in item.announced:
            done = {**done, "name": item.announced["name"]}
        super()._item_done(done, output_index)


class DonePartUnchecked(Variant):
    """Compares the done message's parts with the text's `.done`, not the part of content_part.done."""

    def _part_done(self, item: _Item, family: str, index: int, part: dict[str, Any]) -> None:
        super()._part_done(item, family, index, {**part, "type": None})


# -- catalogue calls' previews (section 7) -----------------------------------------------


class ShellCommandStartUnchecked(Unchecked):
    """Takes a shell command's deltas whether or not its .added began it."""

    rule = "PROD-CALLTYPE-1"


class ShellCommandRestartAllowed(Variant):
    """Takes a shell command's second .added for a restart of the command."""

    def _text_event(self, item: _Item, kind: EventType, event: dict[str, Any], value: str) -> None:
        if kind.family in checker.STARTED and kind.step == "added":
            item.texts.pop((kind.family, event.get(kind.index or "", 0)), None)
        super()._text_event(item, kind, event, value)


class FirstCommandBegunByItem(Variant):
    """Takes a shell call's first command as begun by the call's announcement, not by its .added."""

    def _text_event(self, item: _Item, kind: EventType, event: dict[str, Any], value: str) -> None:
        if kind.family in checker.STARTED and kind.step != "added" and event.get(kind.index or "") == 0:
            item.texts.setdefault((kind.family, 0), checker._Text(kind.part))
        super()._text_event(item, kind, event, value)


class CatalogueDoneItemUnchecked(Unchecked):
    """Never compares a done apply_patch or shell call with the previews it streamed."""

    rule = "PROD-CALLTYPE-2"


class ApplyPatchDoneUncompared(Variant):
    """Compares a done shell call's commands with their previews, not an apply_patch call's diff."""

    def _catalogue_done(self, item: _Item, done: dict[str, Any]) -> None:
        if item.type != "apply_patch_call":
            super()._catalogue_done(item, done)


class FirstCommandOnlyCompared(Variant):
    """Compares a done shell call's first command with its preview, not the commands after it."""

    def _catalogue_done(self, item: _Item, done: dict[str, Any]) -> None:
        texts = item.texts
        item.texts = {key: text for key, text in texts.items() if key[1] in (None, 0)}
        super()._catalogue_done(item, done)
        item.texts = texts


class DoneStatusUnchecked(Unchecked):
    """Never reads the status a done item states."""

    rule = "PROD-ITEM-7"


class DoneStatusOfCallsOnly(Excusing):
    """Reads the status of a done call item, not of a done message or reasoning item."""

    rule = "PROD-ITEM-7"

    def _item_done(self, done: dict[str, Any], output_index: int) -> None:
        with self.excusing(done.get("type") not in checker.CALL_ID_KEPT):
            super()._item_done(done, output_index)


class DoneStatusOfTheFirstItemOnly(Excusing):
    """Reads the status of a response's first done item only, as if one spoke for all."""

    rule = "PROD-ITEM-7"
    items_done = 0

    def _item_done(self, done: dict[str, Any], output_index: int) -> None:
        self.items_done += 1
        with self.excusing(self.items_done > 1):
            super()._item_done(done, output_index)


class CallIdKeptUnchecked(Unchecked):
    """Never compares a done call item's call_id with its announcement's."""

    rule = "PROD-DONE-2"


class CustomCallIdUnchecked(Variant):
    """Compares a done function call's call_id with its announcement's, not a custom call's."""

    def _call_id_kept(self, item: _Item, done: dict[str, Any]) -> None:
        if item.type != "custom_tool_call":
            super()._call_id_kept(item, done)


class CallIdOfTheFirstCallOnly(Excusing):
    """Compares the call_id of a response's first done call with its announcement's, no other."""

    rule = "PROD-DONE-2"
    calls_done = 0

    def _call_id_kept(self, item: _Item, done: dict[str, Any]) -> None:
        self.calls_done += 1
        with self.excusing(self.calls_done > 1):
            super()._call_id_kept(item, done)


class TextSizeUnchecked(Unchecked):
    """Never measures what a text's deltas spell."""

    rule = "PROD-LIMIT-1"


class TextSizeInCharacters(Variant):
    """Measures a text's deltas in characters, not in bytes of UTF-8."""

    def _measure(self, text: checker._Text, family: str, delta: str) -> None:
        super()._measure(text, family, "x" * len(delta))


class CallTextsOnlyMeasured(Excusing):
    """Measures the deltas of a call's arguments or input, not those of an answer part."""

    rule = "PROD-LIMIT-1"

    def _measure(self, text: checker._Text, family: str, delta: str) -> None:
        with self.excusing(text.part is not None):
            super()._measure(text, family, delta)


class NestingUnchecked(Unchecked):
    """Never measures how deep a call's arguments nest."""

    rule = "PROD-LIMIT-2"


class DoneItemNestingUnchecked(Variant):
    """Measures the nesting of a call's `.done`, not that of its done item."""

    def _nesting(self, arguments: object, what: str) -> None:
        if what != "the done item":
            super()._nesting(arguments, what)


def _objects_nest_deeper(text: str, limit: int = MAX_ARGUMENTS_DEPTH) -> bool:
    """`nests_deeper` counting objects only: the brackets of arrays, outside strings, left out."""
    kept = re.sub(r'"(?:[^"\\]|\\.)*"|[\[\]]', lambda found: found[0] if found[0][0] == '"' else "", text)
    return nests_deeper(kept, limit)


class NestingOfObjectsOnly(Variant):
    """Counts the objects a call's arguments nest, not the arrays between them."""

    replaces = ("nests_deeper", _objects_nest_deeper)


def _checker(target: type, name: str, *breaks: str) -> Any:
    return mutant(target, name, *breaks, kind="checker")


MUTANTS = [
    _checker(Utf8Unchecked, "prod.utf8-unchecked", "PROD-SSE-1"),
    _checker(Utf8FirstByteOnly, "prod.utf8-first-byte-only", "PROD-SSE-1"),
    _checker(Utf8BeforeDoneOnly, "prod.utf8-before-done-only", "PROD-SSE-1"),
    _checker(UnterminatedEventUnnoticed, "prod.unterminated-event-unnoticed", "PROD-SSE-2"),
    _checker(UnterminatedLineOnly, "prod.unterminated-line-only", "PROD-SSE-2"),
    _checker(UnterminatedAtLastEvent, "prod.unterminated-at-last-event", "PROD-SSE-2"),
    _checker(EventLineUnread, "prod.event-line-unread", "PROD-SSE-3"),
    _checker(EventLineFamilyOnly, "prod.event-line-family-only", "PROD-SSE-3"),
    _checker(EventLineOfFirstEventOnly, "prod.event-line-of-first-event-only", "PROD-SSE-3"),
    _checker(StopsAtDone, "prod.stops-at-done", "PROD-SSE-4"),
    _checker(SecondDoneAllowed, "prod.second-done-allowed", "PROD-SSE-4"),
    _checker(AfterDoneAtDone, "prod.after-done-at-done", "PROD-SSE-4"),
    _checker(NonJsonSkipped, "prod.non-json-skipped", "PROD-EVT-1"),
    _checker(NonObjectSkipped, "prod.non-object-skipped", "PROD-EVT-1"),
    _checker(DepthUnlimited, "prod.depth-unlimited", "PROD-EVT-1"),
    _checker(SchemaUnchecked, "prod.schema-unchecked", "PROD-EVT-2"),
    _checker(LifecycleEventsTrusted, "prod.lifecycle-events-trusted", "PROD-EVT-2"),
    _checker(ItemEventsTrusted, "prod.item-events-trusted", "PROD-EVT-2"),
    _checker(RepeatedNamesUnseen, "prod.repeated-names-unseen", "PROD-EVT-3"),
    _checker(RepeatedNamesAtTopLevelOnly, "prod.repeated-names-at-top-level-only", "PROD-EVT-3"),
    _checker(RepeatedNamesOncePerStream, "prod.repeated-names-once-per-stream", "PROD-EVT-3"),
    _checker(RepeatedSequenceAllowed, "prod.repeated-sequence-allowed", "PROD-SEQ-1"),
    _checker(SequenceComparedWithPrevious, "prod.sequence-compared-with-previous", "PROD-SEQ-1"),
    _checker(LowerSequenceAllowed, "prod.lower-sequence-allowed", "PROD-SEQ-1"),
    _checker(SequenceGapsAllowed, "prod.sequence-gaps-allowed", "PROD-SEQ-2"),
    _checker(AnyLifecycleEventFirst, "prod.any-lifecycle-event-first", "PROD-LIFE-1"),
    _checker(ErrorFirstAllowed, "prod.error-first-allowed", "PROD-LIFE-1"),
    _checker(NotCreatedFirstAtEnd, "prod.not-created-first-at-end", "PROD-LIFE-1"),
    _checker(ErrorEventIsTerminal, "prod.error-event-is-terminal", "PROD-LIFE-2"),
    _checker(SecondTerminalIsLateEvent, "prod.second-terminal-is-late-event", "PROD-LIFE-2"),
    _checker(CompletedOnlyIsTerminal, "prod.completed-only-is-terminal", "PROD-LIFE-2"),
    _checker(AfterTerminalUnchecked, "prod.after-terminal-unchecked", "PROD-LIFE-3"),
    _checker(AnyEventStartsNextResponse, "prod.any-event-starts-next-response", "PROD-LIFE-3"),
    _checker(LateEventAtTerminal, "prod.late-event-at-terminal", "PROD-LIFE-3"),
    _checker(ResponseIdAtTerminalOnly, "prod.response-id-at-terminal-only", "PROD-LIFE-4"),
    _checker(ResponseIdComparedWithPrevious, "prod.response-id-compared-with-previous", "PROD-LIFE-4"),
    _checker(ResponseIdBeforeTerminalOnly, "prod.response-id-before-terminal-only", "PROD-LIFE-4"),
    _checker(OpenItemsAtCompletedAllowed, "prod.open-items-at-completed-allowed", "PROD-LIFE-5"),
    _checker(OutputOrderUnchecked, "prod.output-order-unchecked", "PROD-LIFE-5"),
    _checker(OutputCountOnly, "prod.output-count-only", "PROD-LIFE-5"),
    _checker(ResponseFieldsOnCreatedOnly, "prod.response-fields-on-created-only", "PROD-LIFE-6"),
    _checker(ResponseFieldsPresenceOnly, "prod.response-fields-presence-only", "PROD-LIFE-6"),
    _checker(CreatedAtStringAllowed, "prod.created-at-string-allowed", "PROD-LIFE-6"),
    _checker(FinalOutputIdentityOnly, "prod.final-output-identity-only", "PROD-LIFE-7"),
    _checker(
        FinalOutputComparedWithAnnouncement, "prod.final-output-compared-with-announcement", "PROD-LIFE-7"
    ),
    _checker(FinalStatusAlwaysCompared, "prod.final-status-always-compared", "PROD-LIFE-7"),
    _checker(FinalNullStated, "prod.final-null-stated", "PROD-LIFE-7"),
    _checker(ReannouncedItemAllowed, "prod.reannounced-item-allowed", "PROD-ITEM-1"),
    _checker(UnannouncedItemsSkipped, "prod.unannounced-items-skipped", "PROD-ITEM-1"),
    _checker(FirstEventAnnouncesItem, "prod.first-event-announces-item", "PROD-ITEM-1"),
    _checker(OutputIndexOrderUnchecked, "prod.output-index-order-unchecked", "PROD-ITEM-2"),
    _checker(OutputIndexIncreasingOnly, "prod.output-index-increasing-only", "PROD-ITEM-2"),
    _checker(OutputIndexCountsDoneItems, "prod.output-index-counts-done-items", "PROD-ITEM-2"),
    _checker(EventOutputIndexUnchecked, "prod.event-output-index-unchecked", "PROD-ITEM-3"),
    _checker(DoneItemTypeUnchecked, "prod.done-item-type-unchecked", "PROD-ITEM-3"),
    _checker(ItemFoundByOutputIndex, "prod.item-found-by-output-index", "PROD-ITEM-3"),
    _checker(EventsAfterItemDoneSkipped, "prod.events-after-item-done-skipped", "PROD-ITEM-4"),
    _checker(SecondItemDoneAllowed, "prod.second-item-done-allowed", "PROD-ITEM-4"),
    _checker(LastItemOnlyChecked, "prod.last-item-only-checked", "PROD-ITEM-4"),
    _checker(ItemTypeUnchecked, "prod.item-type-unchecked", "PROD-ITEM-5"),
    _checker(TextEventsOfAnyItem, "prod.text-events-of-any-item", "PROD-ITEM-5"),
    _checker(CallEventsOfAnyCall, "prod.call-events-of-any-call", "PROD-ITEM-5"),
    _checker(CallIdsNotCompared, "prod.call-ids-not-compared", "PROD-ITEM-6"),
    _checker(CallIdsOfOneTypeCompared, "prod.call-ids-of-one-type-compared", "PROD-ITEM-6"),
    _checker(CallIdOfPreviousCallCompared, "prod.call-id-of-previous-call-compared", "PROD-ITEM-6"),
    _checker(AfterErrorUnchecked, "prod.after-error-unchecked", "PROD-LIFE-8"),
    _checker(AnyTerminalAfterError, "prod.any-terminal-after-error", "PROD-LIFE-8"),
    _checker(NextEventAfterErrorOnly, "prod.next-event-after-error-only", "PROD-LIFE-8"),
    _checker(PartOrderUnchecked, "prod.part-order-unchecked", "PROD-PART-1"),
    _checker(OpenPartAtItemDoneAllowed, "prod.open-part-at-item-done-allowed", "PROD-PART-1"),
    _checker(PartsOpenInOrderOnly, "prod.parts-open-in-order-only", "PROD-PART-1"),
    _checker(TextOutsidePartAllowed, "prod.text-outside-part-allowed", "PROD-PART-2"),
    _checker(PartKindOpenOnly, "prod.part-kind-open-only", "PROD-PART-2"),
    _checker(PartCheckedForDeltasOnly, "prod.part-checked-for-deltas-only", "PROD-PART-2"),
    _checker(PartClosedBeforeTextDoneAllowed, "prod.part-closed-before-text-done-allowed", "PROD-TEXT-1"),
    _checker(ItemDoneBeforeTextDoneAllowed, "prod.item-done-before-text-done-allowed", "PROD-TEXT-1"),
    _checker(SecondTextDoneAllowed, "prod.second-text-done-allowed", "PROD-TEXT-1"),
    _checker(TextDoneUnchecked, "prod.text-done-unchecked", "PROD-TEXT-2"),
    _checker(TextDoneLengthOnly, "prod.text-done-length-only", "PROD-TEXT-2"),
    _checker(PartTextsUncompared, "prod.part-texts-uncompared", "PROD-TEXT-2"),
    _checker(DoneItemTextUnchecked, "prod.done-item-text-unchecked", "PROD-DONE-1"),
    _checker(DoneItemIdentityUnchecked, "prod.done-item-identity-unchecked", "PROD-DONE-1"),
    _checker(DonePartUnchecked, "prod.done-part-unchecked", "PROD-DONE-1"),
    _checker(ShellCommandStartUnchecked, "prod.shell-command-start-unchecked", "PROD-CALLTYPE-1"),
    _checker(ShellCommandRestartAllowed, "prod.shell-command-restart-allowed", "PROD-CALLTYPE-1"),
    _checker(FirstCommandBegunByItem, "prod.first-command-begun-by-item", "PROD-CALLTYPE-1"),
    _checker(CatalogueDoneItemUnchecked, "prod.catalogue-done-item-unchecked", "PROD-CALLTYPE-2"),
    _checker(ApplyPatchDoneUncompared, "prod.apply-patch-done-uncompared", "PROD-CALLTYPE-2"),
    _checker(FirstCommandOnlyCompared, "prod.first-command-only-compared", "PROD-CALLTYPE-2"),
    _checker(DoneStatusUnchecked, "prod.done-status-unchecked", "PROD-ITEM-7"),
    _checker(DoneStatusOfCallsOnly, "prod.done-status-of-calls-only", "PROD-ITEM-7"),
    _checker(DoneStatusOfTheFirstItemOnly, "prod.done-status-of-the-first-item-only", "PROD-ITEM-7"),
    _checker(CallIdKeptUnchecked, "prod.call-id-kept-unchecked", "PROD-DONE-2"),
    _checker(CallIdOfTheFirstCallOnly, "prod.call-id-of-the-first-call-only", "PROD-DONE-2"),
    _checker(CustomCallIdUnchecked, "prod.custom-call-id-unchecked", "PROD-DONE-2"),
    _checker(TextSizeUnchecked, "prod.text-size-unchecked", "PROD-LIMIT-1"),
    _checker(TextSizeInCharacters, "prod.text-size-in-characters", "PROD-LIMIT-1"),
    _checker(CallTextsOnlyMeasured, "prod.call-texts-only-measured", "PROD-LIMIT-1"),
    _checker(NestingUnchecked, "prod.nesting-unchecked", "PROD-LIMIT-2"),
    _checker(DoneItemNestingUnchecked, "prod.done-item-nesting-unchecked", "PROD-LIMIT-2"),
    _checker(NestingOfObjectsOnly, "prod.nesting-of-objects-only", "PROD-LIMIT-2"),
]
