"""Checker mutants of spec/producer.md: each is the capture checker (producer/checker.py)
with one piece changed so that it misses one rule, or part of one, as a real checker would."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar
from unittest import mock

from streamroute.conformance.event_types import EventType, lifecycle_types, terminal_types
from streamroute.conformance.limits import loads
from streamroute.producer import checker
from streamroute.producer.checker import EVENTS, Captured, CaptureReport, _Checker, _Item
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


class Unchecked(Variant):
    """A checker without one rule: whatever the rule finds goes unreported."""

    rule: ClassVar[str]

    def report(self, requirement: str, message: str) -> None:
        if requirement != self.rule:
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


class SchemaUnchecked(Variant):
    """Trusts every event to have the fields its type requires, never validating it."""

    replaces = ("first_error", lambda ref, instance: None)


class RepeatedNamesUnseen(Variant):
    """Parses each event as JSON.parse does, the last of two members of one name silently kept."""

    replaces = ("loads_noting_duplicates", lambda text: (loads(text), []))


class RepeatedSequenceAllowed(Variant):
    """Takes a repeated sequence number for a retransmission and lets it pass."""

    def _in_place(self, event_type: str, sequence: object) -> bool:
        return super()._in_place(event_type, None if sequence == self.sequence else sequence)


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


class ErrorEventIsTerminal(Variant):
    """Counts an `error` event as the terminal event."""

    replaces = ("EVENTS", {**EVENTS, "error": dataclasses.replace(EVENTS["error"], terminal=True)})


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


class ResponseIdAtTerminalOnly(Variant):
    """Compares the response id of response.created with that of the terminal event only."""

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        if event_type not in terminal_types() and self.response_id is not None:
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


class FinalOutputIdentityOnly(Variant):
    """Compares the final response's items with their done items by call_id and name, not arguments."""

    replaces = ("_text_member", lambda item_type: ())


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


# -- items (section 5) -----------------------------------------------------------------


class ReannouncedItemAllowed(Variant):
    """Takes an item announced again for the same item, without a word."""

    def _item_added(self, item: dict[str, Any], output_index: int) -> None:
        if item["id"] not in self.items:
            super()._item_added(item, output_index)


class UnannouncedItemsSkipped(Variant):
    """Skips the events of an item that was never announced, without reporting them."""

    def _item(self, event_type: str, event: dict[str, Any]) -> _Item | None:
        return super()._item(event_type, event) if event["item_id"] in self.items else None


class CallIdsNotCompared(Variant):
    """Never compares the call ids of a response's items: a second call with one is taken."""

    def _own_call_id(self, item: dict[str, Any]) -> None:
        pass


class AfterErrorUnchecked(Unchecked):
    """Never checks what follows an error event."""

    rule = "PROD-LIFE-8"


class AnyTerminalAfterError(Variant):
    """Takes any terminal event after an error event, response.completed included."""

    def _after_error(self, event_type: str) -> None:
        if event_type not in terminal_types():
            super()._after_error(event_type)


class OutputIndexOrderUnchecked(Unchecked):
    """Never checks that items are announced at output indexes 0, 1, 2, ..."""

    rule = "PROD-ITEM-2"


class EventOutputIndexUnchecked(Variant):
    """Checks the output_index of each item's done event, not of the events in between."""

    def _item(self, event_type: str, event: dict[str, Any]) -> _Item | None:
        item = self.items.get(event["item_id"])
        if item is not None:
            event = {**event, "output_index": item.output_index}
        return super()._item(event_type, event)


class EventsAfterItemDoneSkipped(Variant):
    """Skips the events of an item after its done, without reporting them."""

    def _item(self, event_type: str, event: dict[str, Any]) -> _Item | None:
        item = self.items.get(event["item_id"])
        return None if item is not None and item.done else super()._item(event_type, event)


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


# -- parts, texts (sections 6, 7) -----------------------------------------------------------


class PartOrderUnchecked(Variant):
    """Checks that parts open one at a time, not that they open in index order from 0."""

    def _part_added(self, item: _Item, family: str, index: int) -> None:
        if family not in item.open:
            item.opened[family] = index
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


class SecondTextDoneAllowed(Variant):
    """Takes a second `.done` of a text for a fresh statement of the whole text."""

    def _text_event(self, item: _Item, kind: EventType, event: dict[str, Any], value: str) -> None:
        text = item.texts.get((kind.family, None if kind.index is None else event.get(kind.index, 0)))
        if kind.step == "done" and text is not None:
            text.complete = None
        super()._text_event(item, kind, event, value)


class TextDoneUnchecked(Unchecked):
    """Never compares a text's `.done` with the deltas it streamed."""

    rule = "PROD-TEXT-2"


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


class CatalogueDoneItemUnchecked(Unchecked):
    """Never compares a done apply_patch or shell call with the previews it streamed."""

    rule = "PROD-CALLTYPE-2"


def _checker(target: type, name: str, *breaks: str) -> Any:
    return mutant(target, name, *breaks, kind="checker")


MUTANTS = [
    _checker(Utf8Unchecked, "prod.utf8-unchecked", "PROD-SSE-1"),
    _checker(UnterminatedEventUnnoticed, "prod.unterminated-event-unnoticed", "PROD-SSE-2"),
    _checker(EventLineUnread, "prod.event-line-unread", "PROD-SSE-3"),
    _checker(StopsAtDone, "prod.stops-at-done", "PROD-SSE-4"),
    _checker(NonJsonSkipped, "prod.non-json-skipped", "PROD-EVT-1"),
    _checker(SchemaUnchecked, "prod.schema-unchecked", "PROD-EVT-2"),
    _checker(RepeatedNamesUnseen, "prod.repeated-names-unseen", "PROD-EVT-3"),
    _checker(RepeatedSequenceAllowed, "prod.repeated-sequence-allowed", "PROD-SEQ-1"),
    _checker(SequenceGapsAllowed, "prod.sequence-gaps-allowed", "PROD-SEQ-2"),
    _checker(AnyLifecycleEventFirst, "prod.any-lifecycle-event-first", "PROD-LIFE-1"),
    _checker(ErrorEventIsTerminal, "prod.error-event-is-terminal", "PROD-LIFE-2"),
    _checker(SecondTerminalIsLateEvent, "prod.second-terminal-is-late-event", "PROD-LIFE-2"),
    _checker(AfterTerminalUnchecked, "prod.after-terminal-unchecked", "PROD-LIFE-3"),
    _checker(ResponseIdAtTerminalOnly, "prod.response-id-at-terminal-only", "PROD-LIFE-4"),
    _checker(OpenItemsAtCompletedAllowed, "prod.open-items-at-completed-allowed", "PROD-LIFE-5"),
    _checker(OutputOrderUnchecked, "prod.output-order-unchecked", "PROD-LIFE-5"),
    _checker(ResponseFieldsOnCreatedOnly, "prod.response-fields-on-created-only", "PROD-LIFE-6"),
    _checker(ResponseFieldsPresenceOnly, "prod.response-fields-presence-only", "PROD-LIFE-6"),
    _checker(FinalOutputIdentityOnly, "prod.final-output-identity-only", "PROD-LIFE-7"),
    _checker(ReannouncedItemAllowed, "prod.reannounced-item-allowed", "PROD-ITEM-1"),
    _checker(UnannouncedItemsSkipped, "prod.unannounced-items-skipped", "PROD-ITEM-1"),
    _checker(OutputIndexOrderUnchecked, "prod.output-index-order-unchecked", "PROD-ITEM-2"),
    _checker(EventOutputIndexUnchecked, "prod.event-output-index-unchecked", "PROD-ITEM-3"),
    _checker(EventsAfterItemDoneSkipped, "prod.events-after-item-done-skipped", "PROD-ITEM-4"),
    _checker(ItemTypeUnchecked, "prod.item-type-unchecked", "PROD-ITEM-5"),
    _checker(CallIdsNotCompared, "prod.call-ids-not-compared", "PROD-ITEM-6"),
    _checker(AfterErrorUnchecked, "prod.after-error-unchecked", "PROD-LIFE-8"),
    _checker(AnyTerminalAfterError, "prod.any-terminal-after-error", "PROD-LIFE-8"),
    _checker(PartOrderUnchecked, "prod.part-order-unchecked", "PROD-PART-1"),
    _checker(OpenPartAtItemDoneAllowed, "prod.open-part-at-item-done-allowed", "PROD-PART-1"),
    _checker(TextOutsidePartAllowed, "prod.text-outside-part-allowed", "PROD-PART-2"),
    _checker(SecondTextDoneAllowed, "prod.second-text-done-allowed", "PROD-TEXT-1"),
    _checker(TextDoneUnchecked, "prod.text-done-unchecked", "PROD-TEXT-2"),
    _checker(DoneItemTextUnchecked, "prod.done-item-text-unchecked", "PROD-DONE-1"),
    _checker(DoneItemIdentityUnchecked, "prod.done-item-identity-unchecked", "PROD-DONE-1"),
    _checker(DonePartUnchecked, "prod.done-part-unchecked", "PROD-DONE-1"),
    _checker(ShellCommandStartUnchecked, "prod.shell-command-start-unchecked", "PROD-CALLTYPE-1"),
    _checker(CatalogueDoneItemUnchecked, "prod.catalogue-done-item-unchecked", "PROD-CALLTYPE-2"),
]
