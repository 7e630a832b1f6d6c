"""Mutants of the `custom-tools` profile (spec/custom-tools.md): each is the reference router
(or one of its catalogue consumers) with one piece changed, the way a real router gets it wrong."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import broken_routers
from streamroute.conformance.compare import ARGUMENTS_DONE_EVENTS
from streamroute.reference import Outcome, Router, ToolCallPoint, consumers_for
from streamroute.reference.consumers import (
    CATALOGUE,
    ConsumerError,
    ConsumerFactory,
    DiffConsumer,
    Echo,
    Finished,
    Patch,
    Payload,
    Raise,
    Reject,
    Rejected,
    Silent,
    ToolName,
)
from streamroute.reference.patch import ENDED, UPDATING, WHITESPACE, PatchError, PatchParser
from streamroute.reference.router import _RESOLVED, CALL_TYPES, Item, Slot, ToolError, _consumer_outcome
from streamroute.reference.types import JSONObject, error_outcome

from . import mutant

Tools = Sequence[Mapping[str, Any]]


class CustomTools(Router):
    """The reference router with the consumer catalogue, claiming custom-tools: what each mutant changes."""

    profiles = ("core", "custom-tools")
    options: ClassVar[dict[str, ToolCallPoint]] = {}
    replaces: ClassVar[tuple[ConsumerFactory, ConsumerFactory] | None] = None  # (the catalogue's, its own)

    def __init__(self, tools: Tools) -> None:
        point = self.options.get("tool_call_point", "output_item_done")
        super().__init__(self.registry(tools), tool_call_point=point)

    def registry(self, tools: Tools) -> dict[ToolName, ConsumerFactory]:
        swapped = dict([self.replaces] if self.replaces else [])
        return {key: swapped.get(factory, factory) for key, factory in consumers_for(tools).items()}


# Routing is a table of the reference's own handlers, so a mutant changes an event's routing
# around `feed`: these read the event as the handlers do.


def _item_of(event: object, event_type: str) -> dict[str, Any] | None:
    """The item an `output_item.added` or `.done` event carries."""
    item = event.get("item") if isinstance(event, dict) and event.get("type") == event_type else None
    return item if isinstance(item, dict) else None


def _refused(outcomes: list[Outcome]) -> bool:
    """Core refused the event: its one outcome is an error."""
    return [outcome["kind"] for outcome in outcomes] == ["error"]


def _streamed(item: Item) -> str:
    """What a call's input is as far as the router knows it: complete, or the deltas so far."""
    complete = item.call.complete
    return complete if complete is not None else _deltas(item)


def _deltas(item: Item) -> str:
    """The input a call's deltas have streamed so far."""
    arguments = item.call.arguments
    return "".join(arguments.runs + arguments.recent)


def _before_call(outcomes: list[Outcome], item: Item, inserted: list[Outcome]) -> list[Outcome]:
    """`outcomes` with `inserted` placed before the first one about `item` (its call), else at the end."""
    at = next((i for i, o in enumerate(outcomes) if o.get("item_id") == item.id), len(outcomes))
    return outcomes[:at] + inserted + outcomes[at:]


# -- the slot (section 2) ---------------------------------------------------------


class ConsumerPerCall(CustomTools):
    """Keeps a consumer per custom call: a newer call leaves the older call's consumer watching.

    A call of a tool without consumer leaves the older consumer watching too: CUSTOM-SLOT-6 as well."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._parked: dict[str, Slot] = {}  # item id -> its consumer, while another call's is active

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        if self._slot is not None and self._parks(self._slot, item):
            self._parked[self._slot.item.id] = self._slot
            self._slot = None
        return super()._bind_consumer(item)

    def _parks(self, slot: Slot, item: Item) -> bool:
        """Whether the active consumer goes on watching when `item` is announced."""
        return True

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        self._switch_to(item)
        return super()._consume(item, event, delta)

    def _resolve(self, item: Item) -> list[Outcome]:
        self._switch_to(item)
        return super()._resolve(item)

    def _switch_to(self, item: Item) -> None:
        parked = self._parked.pop(item.id, None)
        if parked is not None:
            if self._slot is not None:
                self._parked[self._slot.item.id] = self._slot
            self._slot = parked


class _AnyNamespace(dict[ToolName, ConsumerFactory]):
    def get(self, key: ToolName, default: Any = None) -> Any:
        return next((factory for (_, name), factory in self.items() if name == key[1]), default)


class MatchesToolByNameOnly(CustomTools):
    """Finds a custom call's consumer by the tool's name alone, whatever its namespace."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._consumers = _AnyNamespace(self._consumers)


class KeepsSlotForToolWithoutConsumer(CustomTools):
    """Leaves the active consumer in place when a call of a tool without one is announced."""

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        if (item.namespace, item.name) not in self._consumers:
            return []
        return super()._bind_consumer(item)


class BindsCallWithoutCallId(CustomTools):
    """Binds a consumer to a custom call announced without a call_id, under its item id."""

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        factory = self._consumers.get((item.namespace, item.name or ""))
        if item.call_id is not None or factory is None:
            return super()._bind_consumer(item)
        self._slot = Slot(item, item.id, factory())
        return []


class FunctionCallKeepsConsumer(CustomTools):
    """Leaves the active consumer in place when a function call is announced."""

    def feed(self, event: object) -> list[Outcome]:
        slot = self._slot
        outcomes = super().feed(event)
        item = _item_of(event, "response.output_item.added")
        if item is not None and item.get("type") == "function_call":
            self._slot = slot
        return outcomes


class AnyItemEmptiesSlot(CustomTools):
    """Drops the active consumer whenever any item is announced: a message, reasoning, a hosted tool."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        item = _item_of(event, "response.output_item.added")
        if item is not None and item.get("type") not in CALL_TYPES and not _refused(outcomes):
            self._slot = None
        return outcomes


class RefusedAddedRebinds(CustomTools):
    """Binds a fresh consumer at a repeated announcement of the bound call, which core refuses."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        stated = _item_of(event, "response.output_item.added")
        item = self._items.get(str(stated.get("id"))) if stated is not None else None
        if item is not None and item.type == "custom_tool_call" and _refused(outcomes):
            outcomes += self._bind_consumer(item)
        return outcomes


class FirstConsumerStays(CustomTools):
    """Keeps the active consumer when a second custom call is announced; the newer call gets none.

    A call of a tool without consumer leaves it active too: CUSTOM-SLOT-6 as well."""

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        return [] if self._slot is not None else super()._bind_consumer(item)


# -- deltas (section 3) -----------------------------------------------------------


def _custom_delta(event: object) -> dict[str, Any] | None:
    """The event, if it is a custom input delta with a text."""
    if isinstance(event, dict) and event.get("type") == "response.custom_tool_call_input.delta":
        return event if isinstance(event.get("delta"), str) else None
    return None


class ConsumesRefusedDeltas(CustomTools):
    """Feeds every custom input delta to the active consumer, also one core refuses.

    A delta that names no call reaches it too: CUSTOM-DELTA-3 as well."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        slot, delta = self._slot, _custom_delta(event)
        if _refused(outcomes) and slot is not None and delta is not None:
            outcomes += self._consume(slot.item, {}, delta["delta"])
        return outcomes


class ConsumesFunctionArguments(CustomTools):
    """Feeds function-call argument deltas to the active consumer too."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        slot = self._slot
        routed = outcomes[0] if outcomes and outcomes[0]["kind"] == "tool.arguments.delta" else None
        if slot is not None and routed is not None and self._items[routed["item_id"]].type == "function_call":
            outcomes += self._consume(slot.item, {}, routed["delta"])
        return outcomes


class FiltersOnlyExplicitCallId(CustomTools):
    """Skips a delta only when it states another call_id, as Codex does: one naming another item gets in."""

    def _consumer_takes(self, slot: Slot, item: Item, event: JSONObject) -> bool:
        return event.get("call_id") in (None, slot.call_id)


class IgnoresStatedCallId(CustomTools):
    """Gives the consumer every delta core attributes to the bound item, whatever call_id it states."""

    def _consumer_takes(self, slot: Slot, item: Item, event: JSONObject) -> bool:
        return item is slot.item


class SkipsDeltaNamedByOutputIndex(CustomTools):
    """Gives the consumer only deltas that name their call by item_id or call_id, not by output_index."""

    def _consumer_takes(self, slot: Slot, item: Item, event: JSONObject) -> bool:
        named = event.get("item_id") is not None or event.get("call_id") is not None
        return named and super()._consumer_takes(slot, item, event)


_CALL_NAMES = ("item_id", "call_id", "output_index")  # what names a delta's call; null is absent


class ConsumesDeltaWithoutId(CustomTools):
    """Gives the active consumer an input delta that names no call at all, as the active call's."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        slot, delta = self._slot, _custom_delta(event)
        if slot is not None and delta is not None and all(delta.get(key) is None for key in _CALL_NAMES):
            outcomes += self._consume(slot.item, {}, delta["delta"])
        return outcomes


class CallIdOverItemId(CustomTools):
    """Attributes an input delta stating a call_id by that call id, even when its item_id names the item."""

    def feed(self, event: object) -> list[Outcome]:
        delta = _custom_delta(event)
        if delta is not None and isinstance(delta.get("call_id"), str) and delta.get("item_id") is not None:
            event = {key: value for key, value in delta.items() if key != "item_id"}
        return super().feed(event)


class SkipsEmptyDeltas(CustomTools):
    """Does not bother the consumer with an empty delta."""

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        return super()._consume(item, event, delta) if delta else []


class UpdateBeforeDelta(CustomTools):
    """Emits the consumer's diff.update before the delta's tool.arguments.delta."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        if [outcome["kind"] for outcome in outcomes[:2]] == ["tool.arguments.delta", "diff.update"]:
            outcomes[:2] = outcomes[1::-1]
        return outcomes


# -- finish (section 4) -----------------------------------------------------------


class NeverFinishes(CustomTools):
    """Drops the consumer at its call's done item without running its finish."""

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        return [], None


class FinishesAtAnyDone(CustomTools):
    """Finishes the active consumer at any item's done, as Codex does, on the input streamed so far."""

    def feed(self, event: object) -> list[Outcome]:
        slot = self._slot
        outcomes = super().feed(event)
        if slot is not None and self._slot is slot and _item_of(event, "response.output_item.done"):
            self._slot = None
            # Codex drops a rejection here
            outcomes += self._finish(slot, _streamed(slot.item), slot.call_id)[0]
        return outcomes


class FinishesWithFirstSource(CustomTools):
    """Finishes the consumer on the input .done's text, the first complete one, not the done item's input."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._first: dict[str, str] = {}  # item id -> the first complete input stated

    def _complete_arguments(self, item: Item, complete: str, what: str) -> list[Outcome]:
        self._first.setdefault(item.id, complete)
        return super()._complete_arguments(item, complete, what)

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        return super()._finish(slot, self._first.get(slot.item.id, complete), call_id)


class RunsRejectedCall(CustomTools):
    """Ignores a rejecting finish and runs the call anyway, as Codex does."""

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        return super()._finish(slot, complete, call_id)[0], None


class FinishNamesTheAnnouncedCallId(CustomTools):
    """Names finish's diff.finish after the call id the slot was bound with, not its call's."""

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        return super()._finish(slot, complete, slot.call_id)


class FinishNamedAfterItsUpdates(CustomTools):
    """Names diff.finish after the call id of its call's diff.updates: one preview stream per call."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self.previewed: dict[str, str] = {}  # the call id of each item's diff.updates

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        for outcome in outcomes:
            if outcome["kind"] == "diff.update":
                self.previewed.setdefault(outcome["item_id"], outcome["call_id"])
        named = self.previewed.get
        return [
            {**o, "call_id": named(o["item_id"], o["call_id"])} if o["kind"] == "diff.finish" else o
            for o in outcomes
        ]


class FinishNamedFromTheAnnouncement(CustomTools):
    """Names diff.finish after the call id its item's announcement stated, kept by item id."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self.announced: dict[str, str] = {}  # the call id each output_item.added stated, by item id

    def feed(self, event: object) -> list[Outcome]:
        item = _item_of(event, "response.output_item.added")
        if item is not None and isinstance(item.get("call_id"), str):
            self.announced.setdefault(str(item.get("id")), item["call_id"])
        return super().feed(event)

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        return super()._finish(slot, complete, self.announced.get(slot.item.id, call_id))


class FinishesCallsThatWillNotRun(CustomTools):
    """Runs the consumer's finish at its call's done item even when the call is refused (incomplete, ...)."""

    def feed(self, event: object) -> list[Outcome]:
        slot = self._slot
        done = _item_of(event, "response.output_item.done")
        complete = slot and _streamed(slot.item)
        outcomes = super().feed(event)
        refused = any(outcome["kind"] == "tool.error" for outcome in outcomes)
        if slot is not None and done is not None and done.get("id") == slot.item.id and refused:
            finish = self._finish(slot, done.get("input") or complete or "", slot.call_id)[0]
            outcomes = _before_call(outcomes, slot.item, finish)
        return outcomes


class MismatchAfterFinish(CustomTools):
    """Reports a done item's done_mismatch after the consumer's finish, just before the call."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        if _item_of(event, "response.output_item.done") is None:
            return outcomes
        mismatches = [o for o in outcomes if o.get("code") == "done_mismatch"]
        rest = [o for o in outcomes if o.get("code") != "done_mismatch"]
        return rest[:-1] + mismatches + rest[-1:] if mismatches and rest else outcomes


class ArgumentsDoneWithoutFinish(CustomTools):
    """At tool_call_point arguments_done, sends the call at its input .done without finishing its consumer."""

    options: ClassVar[dict[str, ToolCallPoint]] = {"tool_call_point": "arguments_done"}
    _at_arguments_done = False

    def feed(self, event: object) -> list[Outcome]:
        kind = event.get("type") if isinstance(event, dict) else None  # a list `type` is no key to look up
        self._at_arguments_done = isinstance(kind, str) and kind in ARGUMENTS_DONE_EVENTS
        return super().feed(event)

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        return ([], None) if self._at_arguments_done else super()._finish(slot, complete, call_id)


# -- failure, end, time (sections 5 to 7) -------------------------------------------


def _consumer_failure(outcome: Outcome) -> bool:
    """The router's report of a consumer that raised: it names the call (a producer's error names none)."""
    return outcome.get("code") == "consumer_failed" and "item_id" in outcome


class ConsumerFailureEscapes(CustomTools):
    """Lets a consumer's exception escape from feed, as a router that never expects a plug-in to fail.

    Feed raises, so it breaks CORE-EVT-2 as well."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        for outcome in outcomes:
            if _consumer_failure(outcome):
                raise RuntimeError(outcome["message"])
        return outcomes


class KeepsFailedConsumer(CustomTools):
    """Reports a consumer that raised, but keeps feeding it and still runs its finish."""

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        slot = self._slot
        outcomes = super()._consume(item, event, delta)
        if slot is not None and self._slot is None:
            self._slot = slot
        return outcomes


class FailedConsumerCancelsCall(CustomTools):
    """Takes a call whose consumer failed for a failed call, and never makes it."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self.failed: set[object] = set()  # the calls whose consumer failed, by item id

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        self.failed.update(o.get("item_id") for o in outcomes if _consumer_failure(o))
        return [o for o in outcomes if not (o["kind"] == "tool.call" and o.get("item_id") in self.failed)]


class FinishesAtEnd(CustomTools):
    """Finishes the active consumer when the response ends, to flush its last preview."""

    def feed(self, event: object) -> list[Outcome]:
        slot, ended = self._slot, self.stream_state == "TERMINAL"
        return self._flushed(slot, super().feed(event)) if not ended else super().feed(event)

    def close(self) -> list[Outcome]:
        return self._flushed(self._slot, super().close())

    def _flushed(self, slot: Slot | None, outcomes: list[Outcome]) -> list[Outcome]:
        if slot is None or self.stream_state not in ("TERMINAL", "CLOSED"):
            return outcomes
        return _before_call(outcomes, slot.item, self._finish(slot, _streamed(slot.item), slot.call_id)[0])


class TimeFromRoutedEventsOnly(CustomTools):
    """Reads the stream time only from events it routes: an ignored event's at_ms is lost."""

    def feed(self, event: object) -> list[Outcome]:
        now = self._now_ms
        outcomes = super().feed(event)
        if all(outcome["kind"] in ("ignored", "error") for outcome in outcomes):
            self._now_ms = now
        return outcomes


class TimeZeroWithoutAtMs(CustomTools):
    """Takes an event without at_ms to be at time 0, not at the time of the event before it."""

    def feed(self, event: object) -> list[Outcome]:
        if isinstance(event, dict) and "at_ms" not in event:
            self._now_ms = 0
        return super().feed(event)


# -- the catalogue (section 8) ------------------------------------------------------


class ConsumerReusedAcrossCalls(CustomTools):
    """Creates one consumer per tool and reuses it for every call of that tool."""

    def registry(self, tools: Tools) -> dict[ToolName, ConsumerFactory]:
        return {key: _once(factory) for key, factory in super().registry(tools).items()}


def _once(factory: ConsumerFactory) -> ConsumerFactory:
    """A factory that makes one consumer, and gives that one at every call."""
    consumer = factory()
    return lambda: consumer


class _EchoBufferBefore(Echo):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        before = self.buffer
        return {**(super().consume(delta, at_ms) or {}), "buffer": before}


class EchoBufferBeforeDelta(CustomTools):
    """Gives echo's buffer as it was before the delta, not including it."""

    replaces = (Echo, _EchoBufferBefore)


class _SilentWithInput(Silent):
    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return Finished(result={"buffer": input_text})


class SilentFinishesWithInput(CustomTools):
    """Gives silent's finish the call's input as its buffer, not what the consumer saw."""

    replaces = (Silent, _SilentWithInput)


class _EchoingReject(Echo):
    finish = Reject.finish


class RejectPreviews(CustomTools):
    """Makes the reject consumer preview each delta like echo before it rejects."""

    replaces = (Reject, _EchoingReject)


class _RaiseAtFinishOnly(Raise):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        return None


class RaiseOnlyAtFinish(CustomTools):
    """Makes the raise consumer fail at finish only, not at each delta."""

    replaces = (Raise, _RaiseAtFinishOnly)


class _RaiseAtConsumeOnly(Raise):
    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return Finished(result={"buffer": ""})


class RaiseOnlyAtConsume(CustomTools):
    """Makes the raise consumer fail at each delta only: its finish succeeds with nothing seen."""

    replaces = (Raise, _RaiseAtConsumeOnly)


class NoPatchConsumer(CustomTools):
    """Installs the consumers it knows and leaves a tool whose consumer is patch without one."""

    def registry(self, tools: Tools) -> dict[ToolName, ConsumerFactory]:
        return super().registry([tool for tool in tools if tool.get("consumer") != "patch"])


# -- the patch consumer (section 9) -------------------------------------------------


def _patch_parsing_with(parser: type[PatchParser]) -> type[Patch]:
    class ParsedWith(Patch):
        def __init__(self) -> None:
            super().__init__()
            self._parser = parser()

    return ParsedWith


class _DeltaEndsLine(PatchParser):
    def feed(self, text: str) -> bool:
        return super().feed(text if text.endswith("\n") else text + "\n")


class PatchDeltaEndsLine(CustomTools):
    """Parses each input delta as if it ended a line: a delta that cuts a line in two breaks the patch.

    So its finish rejects a complete patch whose deltas cut a line: CUSTOM-PATCH-5 as well."""

    replaces = (Patch, _patch_parsing_with(_DeltaEndsLine))


class _DropsPartialLine(PatchParser):
    def finish(self) -> None:
        self._partial = []
        super().finish()


class PatchDropsLastLine(CustomTools):
    """Never parses the text after the input's last newline: a patch without a final one loses a line.

    So its finish rejects a complete patch without a final newline: CUSTOM-PATCH-5 as well."""

    replaces = (Patch, _patch_parsing_with(_DropsPartialLine))


class _TakesUpdateWithoutChange(PatchParser):
    def _close_entry(self) -> None:
        if self._state == UPDATING and not any(hunk.lines for hunk in self._files[-1].hunks):
            self._state = ENDED  # skips the check that the update changes something
        super()._close_entry()


class PatchTakesUpdateWithoutChange(CustomTools):
    """Accepts an Update File section without any hunk line."""

    replaces = (Patch, _patch_parsing_with(_TakesUpdateWithoutChange))


class _TrimsUpdateLines(PatchParser):
    def _update_line(self, line: str, marker: str) -> bool:
        return super()._update_line(line, marker.strip(WHITESPACE))


class PatchTrimsUpdateLines(CustomTools):
    """Trims an update's lines on both sides before comparing them: an indented marker there is a marker."""

    replaces = (Patch, _patch_parsing_with(_TrimsUpdateLines))


class _IgnoresTextAfterEnd(PatchParser):
    def _parse_line(self, raw: str) -> bool:
        if self._state == ENDED:
            self._line += 1
            return False
        return super()._parse_line(raw)


class PatchIgnoresTextAfterEnd(CustomTools):
    """Ignores whatever follows *** End Patch instead of rejecting a line that is not blank."""

    replaces = (Patch, _patch_parsing_with(_IgnoresTextAfterEnd))


class _HunkLinesWithoutPrefix(PatchParser):
    def _hunk_line(self, line: str) -> bool:
        changed = super()._hunk_line(line)
        lines = self._files[-1].hunks[-1].lines
        lines[-1] = lines[-1][1:]
        return changed


class PatchHunkLinesWithoutPrefix(CustomTools):
    """Previews a hunk's lines without their ' ', '+' or '-' prefix."""

    replaces = (Patch, _patch_parsing_with(_HunkLinesWithoutPrefix))


class _CurrentFileOnly(PatchParser):
    def files(self) -> list[dict[str, Any]]:
        return super().files()[-1:]


class PatchPreviewsCurrentFileOnly(CustomTools):
    """Previews only the file being parsed, not every file parsed so far."""

    replaces = (Patch, _patch_parsing_with(_CurrentFileOnly))


class _SkipsBadLines(PatchParser):
    skipped: PatchError | None = None

    def _parse_line(self, raw: str) -> bool:
        try:
            return super()._parse_line(raw)
        except PatchError as error:
            self.skipped = self.skipped or error
            return False

    def finish(self) -> None:
        super().finish()
        if self.skipped is not None:
            raise self.skipped


class PatchPreviewsPastError(CustomTools):
    """Skips a line it cannot parse and goes on previewing; only finish reports the error."""

    replaces = (Patch, _patch_parsing_with(_SkipsBadLines))


class _TakesPatchWithoutEnd(PatchParser):
    def finish(self) -> None:
        if self._partial:
            self.feed("\n")  # the last line
        if self.error is None:
            self._state = ENDED  # a patch cut short is taken as it stands
        super().finish()


class PatchTakesMissingEnd(CustomTools):
    """Accepts a patch that never reaches *** End Patch."""

    replaces = (Patch, _patch_parsing_with(_TakesPatchWithoutEnd))


class _Unthrottled(Patch):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        self._last_emitted_ms = None
        return super().consume(delta, at_ms)


class PatchUnthrottled(CustomTools):
    """Sends every change of the patch preview at once, without the 500 ms throttle."""

    replaces = (Patch, _Unthrottled)


class _StrictInterval(Patch):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        payload = super().consume(delta, at_ms - 1)  # a millisecond early: `>` where `>=` is due
        if payload is not None:
            self._last_emitted_ms = at_ms
        return payload


class PatchThrottleStrict(CustomTools):
    """Lets the next preview through only once more than 500 ms have passed, not at 500."""

    replaces = (Patch, _StrictInterval)


class _DropsPending(Patch):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        payload = super().consume(delta, at_ms)
        if payload is None:
            self._catch_up()
            self._pending = False
        return payload


class PatchDropsThrottledChange(CustomTools):
    """Drops a change that comes inside the throttle's interval instead of keeping it pending."""

    replaces = (Patch, _DropsPending)


class _ResendsUnchanged(Patch):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        if self._last_emitted_ms is not None:
            self._pending = True
        return super().consume(delta, at_ms)


class PatchResendsUnchanged(CustomTools):
    """Sends the preview again at every delta due after the interval, changed or not, as Codex may."""

    replaces = (Patch, _ResendsUnchanged)


class _JudgesStream(Patch):
    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return super().finish("".join(self._deltas), at_ms)


class PatchFinishJudgesStream(CustomTools):
    """Judges at finish the patch it reassembled from the deltas, not the call's input, as Codex does.

    So its finish judges another text than the input the call runs: CUSTOM-FIN-7 as well."""

    replaces = (Patch, _JudgesStream)


# -- more shapes of the same requirements ------------------------------------------------


def _tool_of(item: Item) -> ToolName:
    return (item.namespace, item.name or "")


class SlotPerTool(ConsumerPerCall):
    """Keeps a slot per tool: a call of another tool leaves the active one's consumer watching."""

    def _parks(self, slot: Slot, item: Item) -> bool:
        return _tool_of(slot.item) != _tool_of(item)


class SlotEmptiedByErrors(CustomTools):
    """Resets the consumer slot whenever an event produces an error, whatever call it names."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        if any(outcome["kind"] == "error" for outcome in outcomes):
            self._slot = None
        return outcomes


class BindsAtFirstDelta(CustomTools):
    """Binds a call's consumer at its first input delta, not at its announcement."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._bound: set[str] = set()  # the calls that got their consumer

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        return []

    def feed(self, event: object) -> list[Outcome]:
        delta = _custom_delta(event)
        item = self._items.get(str(delta.get("item_id"))) if delta is not None else None
        bound: list[Outcome] = []
        if item is not None and item.type == "custom_tool_call" and item.id not in self._bound:
            self._bound.add(item.id)
            bound = Router._bind_consumer(self, item)
        return bound + super().feed(event)


class ReplacedConsumerFinished(CustomTools):
    """Finishes the active consumer when a second custom call replaces it, to flush its last preview."""

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        slot = self._slot
        has_consumer = item.name is not None and (item.namespace, item.name) in self._consumers
        if slot is None or not has_consumer or item.call_id is None:
            return super()._bind_consumer(item)
        return self._finish(slot, _streamed(slot.item), slot.call_id)[0] + super()._bind_consumer(item)


class EchoForToolsWithoutConsumer(CustomTools):
    """Gives every custom tool without a consumer the echo consumer, so each call has a preview."""

    def registry(self, tools: Tools) -> dict[ToolName, ConsumerFactory]:
        given = super().registry(tools)
        custom = [(tool.get("namespace"), tool["name"]) for tool in tools if tool.get("type") == "custom"]
        return {**{key: Echo for key in custom}, **given}


class ConsumerlessCallFinishesConsumer(CustomTools):
    """Finishes the active consumer when a call of a tool without one is announced, instead of dropping it."""

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        slot = self._slot
        has_consumer = item.name is not None and (item.namespace, item.name) in self._consumers
        if slot is None or has_consumer:
            return super()._bind_consumer(item)
        return self._finish(slot, _streamed(slot.item), slot.call_id)[0] + super()._bind_consumer(item)


class KeepsSlotForCallWithoutCallId(CustomTools):
    """Leaves the active consumer in place when a custom call without call_id is announced, as Codex does."""

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        return [] if item.call_id is None else super()._bind_consumer(item)


class BindsCallIdAtDone(CustomTools):
    """Binds a consumer to a custom call announced without a call_id once its done item states one."""

    def feed(self, event: object) -> list[Outcome]:
        stated = _item_of(event, "response.output_item.done")
        item = self._items.get(str(stated.get("id"))) if stated is not None else None
        call_id = stated.get("call_id") if stated is not None else None
        unbound = item is not None and item.type == "custom_tool_call" and item.call_id is None
        if unbound and isinstance(call_id, str) and self._slot is None:
            assert item is not None
            item.call_id = call_id
            self._bind_consumer(item)
        return super().feed(event)


class FunctionCallFinishesConsumer(CustomTools):
    """Finishes the active consumer when a function call is announced, instead of dropping it."""

    def feed(self, event: object) -> list[Outcome]:
        slot = self._slot
        outcomes = super().feed(event)
        item = _item_of(event, "response.output_item.added")
        if (
            slot is not None
            and self._slot is None
            and item is not None
            and item.get("type") == "function_call"
        ):
            outcomes += self._finish(slot, _streamed(slot.item), slot.call_id)[0]
        return outcomes


class FunctionCallGetsItsToolsConsumer(CustomTools):
    """Binds a function call to the consumer its registry tool names, as it does a custom call's."""

    def registry(self, tools: Tools) -> dict[ToolName, ConsumerFactory]:
        named = [tool for tool in tools if tool.get("type") == "function" and tool.get("consumer")]
        functions = {(tool.get("namespace"), tool["name"]): CATALOGUE[tool["consumer"]] for tool in named}
        return {**functions, **super().registry(tools)}

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        stated = _item_of(event, "response.output_item.added")
        item = self._items.get(str(stated.get("id"))) if stated is not None else None
        if item is not None and item.type == "function_call" and not _refused(outcomes):
            outcomes += self._bind_consumer(item)
        return outcomes


class MalformedAddedEmptiesSlot(CustomTools):
    """Empties the slot at every custom call announcement, one core refuses as malformed too."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        item = _item_of(event, "response.output_item.added")
        if item is not None and item.get("type") == "custom_tool_call" and _refused(outcomes):
            self._slot = None
        return outcomes


class ConsumesInputDone(CustomTools):
    """Gives the active consumer a call's input .done text too, as the stream's last delta."""

    def _complete_arguments(self, item: Item, complete: str, what: str) -> list[Outcome]:
        outcomes = super()._complete_arguments(item, complete, what)
        if what.startswith("response.custom_tool_call_input.done") and self._slot is not None:
            outcomes += self._consume(item, {}, complete)
        return outcomes


class NoIdDeltaUnbinds(CustomTools):
    """Drops the active consumer at an input delta that names no call, taking the stream for confused."""

    def feed(self, event: object) -> list[Outcome]:
        delta = _custom_delta(event)
        if delta is not None and all(delta.get(key) is None for key in _CALL_NAMES):
            self._slot = None
        return super().feed(event)


class NoIdDeltaEndsConsumer(CustomTools):
    """Finishes the active consumer at an input delta that names no call, taking it for the stream's end."""

    def feed(self, event: object) -> list[Outcome]:
        delta, slot = _custom_delta(event), self._slot
        outcomes = super().feed(event)
        if slot is not None and delta is not None and all(delta.get(key) is None for key in _CALL_NAMES):
            self._slot = None
            outcomes += self._finish(slot, _streamed(slot.item), slot.call_id)[0]
        return outcomes


class ConsumerGetsStrippedDelta(CustomTools):
    """Gives the consumer each delta stripped of its surrounding whitespace."""

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        return super()._consume(item, event, delta.strip())


class FinishAtInputDone(CustomTools):
    """Runs the consumer's finish at the call's input .done, though the call is made at its done item."""

    def _complete_arguments(self, item: Item, complete: str, what: str) -> list[Outcome]:
        outcomes = super()._complete_arguments(item, complete, what)
        slot = self._release(item) if what.startswith("response.custom_tool_call_input.done") else None
        return outcomes if slot is None else outcomes + self._finish(slot, complete, slot.call_id)[0]


class DoneOfAnyItemDropsConsumer(CustomTools):
    """Drops the active consumer at any other item's done, so its own call never finishes it."""

    def feed(self, event: object) -> list[Outcome]:
        done = _item_of(event, "response.output_item.done")
        slot = self._slot
        if slot is not None and done is not None and done.get("id") != slot.item.id:
            self._slot = None
        return super().feed(event)


class FinishesAtAnyCallDone(CustomTools):
    """Finishes the active consumer at any call's done, a function call's too, on the input so far."""

    def feed(self, event: object) -> list[Outcome]:
        slot = self._slot
        outcomes = super().feed(event)
        done = _item_of(event, "response.output_item.done")
        is_call = (
            done is not None and done.get("type") in CALL_TYPES and done.get("id") != (slot and slot.item.id)
        )
        if slot is not None and self._slot is slot and is_call:
            self._slot = None
            outcomes += self._finish(slot, _streamed(slot.item), slot.call_id)[0]
        return outcomes


class RejectionIsInvalidArguments(CustomTools):
    """Reports a rejecting finish as tool.error invalid_arguments, as any input refused before it runs."""

    def _resolve_as_error(self, item: Item, error: ToolError) -> list[Outcome]:
        if error.code == "consumer_rejected":
            error = ToolError("invalid_arguments", error.message)
        return super()._resolve_as_error(item, error)


class RejectionWithoutCallId(CustomTools):
    """Reports a rejecting finish as a tool.error without the call's call_id, the consumer's message only."""

    def _resolve_as_error(self, item: Item, error: ToolError) -> list[Outcome]:
        outcomes = super()._resolve_as_error(item, error)
        if error.code != "consumer_rejected":
            return outcomes
        return [{k: v for k, v in outcome.items() if k != "call_id"} for outcome in outcomes]


class FinishBeforeDuplicateCheck(CustomTools):
    """Runs the consumer's finish before it checks the call id: a duplicate call is finished, then refused."""

    def _resolve(self, item: Item) -> list[Outcome]:
        slot = self._slot if self._slot is not None and self._slot.item is item else None
        call = item.call
        duplicate = item.call_id in self._called_ids and call is not None and call.complete is not None
        if slot is None or call is None or not duplicate or item.name is None or call.state in _RESOLVED:
            return super()._resolve(item)
        finished = self._finish(slot, call.complete or "", slot.call_id)[0]
        return finished + super()._resolve(item)


class IncompleteCallAskedOfConsumer(CustomTools):
    """Asks the consumer about a call whose done item is incomplete, and reports its rejection, not core's."""

    def _resolve_as_error(self, item: Item, error: ToolError) -> list[Outcome]:
        slot = self._slot if self._slot is not None and self._slot.item is item else None
        if slot is None or error.code != "incomplete":
            return super()._resolve_as_error(item, error)
        _, rejection = self._finish(slot, _streamed(item), slot.call_id)
        return super()._resolve_as_error(
            item, error if rejection is None else ToolError("consumer_rejected", rejection)
        )


class MismatchDroppedWhenFinished(CustomTools):
    """Drops a done item's done_mismatch when the call's consumer finished: the preview stands for it."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        if not any(outcome["kind"] == "diff.finish" for outcome in outcomes):
            return outcomes
        return [outcome for outcome in outcomes if outcome.get("code") != "done_mismatch"]


class MismatchReportedAgainAtFinish(CustomTools):
    """Reports, at the consumer's finish, that the input it saw differs from the complete one, as core did."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._seen: dict[str, str] = {}  # what each call's consumer took, by item id

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        if self._slot is not None and self._consumer_takes(self._slot, item, event):
            self._seen[item.id] = self._seen.get(item.id, "") + delta
        return super()._consume(item, event, delta)

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        outcomes, rejection = super()._finish(slot, complete, call_id)
        seen = self._seen.get(slot.item.id)
        if seen is not None and seen != complete:
            outcomes.insert(0, error_outcome("done_mismatch", "the input the consumer saw differs"))
        return outcomes, rejection


class FinishWithDeltas(CustomTools):
    """Gives the consumer's finish the input its deltas built, as Codex's finish judges reassembled text."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._streamed: dict[str, str] = {}  # each call's deltas, by item id

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        self._streamed[item.id] = self._streamed.get(item.id, "") + delta
        return super()._consume(item, event, delta)

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        return super()._finish(slot, self._streamed.get(slot.item.id, complete), call_id)


class FinishWithInputDoneOnly(FinishesWithFirstSource):
    """Gives the consumer's finish the input .done's text, or nothing when the call had none."""

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        return CustomTools._finish(self, slot, self._first.get(slot.item.id, ""), call_id)

    def _complete_arguments(self, item: Item, complete: str, what: str) -> list[Outcome]:
        if what.startswith("response.custom_tool_call_input.done"):
            self._first.setdefault(item.id, complete)
        return CustomTools._complete_arguments(self, item, complete, what)


class FailureBeforeDelta(CustomTools):
    """Reports a consumer that raised at a delta before that delta's tool.arguments.delta."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        kinds = [(outcome["kind"], outcome.get("code")) for outcome in outcomes]
        if kinds == [("tool.arguments.delta", None), ("error", "consumer_failed")]:
            outcomes.reverse()
        return outcomes


class FailureAsInternalError(CustomTools):
    """Reports a consumer that raised as the router's own internal_error, the code of a bug of the router."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        return [{**o, "code": "internal_error"} if _consumer_failure(o) else o for o in outcomes]


class FailedConsumerFinished(CustomTools):
    """Stops feeding a consumer that raised at a delta, but still runs its finish at the call's done."""

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        slot = self._slot
        outcomes = super()._consume(item, event, delta)
        if slot is not None and self._slot is None:
            self._failed = slot
        return outcomes

    def _resolve(self, item: Item) -> list[Outcome]:
        failed = getattr(self, "_failed", None)
        if (
            failed is not None
            and failed.item is item
            and item.call is not None
            and item.call.state not in _RESOLVED
        ):
            self._failed = None
            self._slot = failed
        return super()._resolve(item)


class FailedConsumerRetried(CustomTools):
    """Binds a fresh consumer of the same tool after one raised, and feeds it the next delta."""

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        slot = self._slot
        outcomes = super()._consume(item, event, delta)
        if slot is not None and self._slot is None:
            self._slot = Slot(slot.item, slot.call_id, self._consumers[_tool_of(slot.item)]())
        return outcomes


class FailureEndsStream(CustomTools):
    """Stops routing after a consumer fails, taking the failure for a broken stream."""

    def feed(self, event: object) -> list[Outcome]:
        if getattr(self, "_broken", False):
            return []
        outcomes = super().feed(event)
        self._broken = any(_consumer_failure(outcome) for outcome in outcomes)
        return outcomes


class CallBeforeFinishFailure(CustomTools):
    """Reports a consumer that raised at finish after the call's tool.call, not before it."""

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        failed = [o for o in outcomes if _consumer_failure(o)]
        calls = [o for o in outcomes if o["kind"] == "tool.call"]
        if not failed or not calls:
            return outcomes
        return [o for o in outcomes if o not in failed] + failed


class EndFlushesPendingPreview(CustomTools):
    """Shows the pending preview of a consumer still active when the response ends, without finishing it."""

    def _end_response(self) -> list[Outcome]:
        slot = self._slot
        outcomes = super()._end_response()
        if slot is None or not isinstance(slot.consumer, Patch):
            return outcomes
        consumer = slot.consumer
        if consumer._catch_up():
            return [_consumer_outcome("diff.update", slot, {"files": consumer._parser.files()}), *outcomes]
        return outcomes


class EndJudgedByConsumer(CustomTools):
    """Asks a consumer still active when the response ends to judge the call, and reports its rejection."""

    def _end_response(self) -> list[Outcome]:
        slot = self._slot
        if slot is None:
            return super()._end_response()
        self._slot = None
        _, rejection = self._finish(slot, _streamed(slot.item), slot.call_id)
        outcomes = super()._end_response()
        if rejection is None:
            return outcomes
        return [
            {**o, "code": "consumer_rejected"} if o.get("item_id") == slot.item.id else o for o in outcomes
        ]


class TimeFromDeltasOnly(CustomTools):
    """Reads the stream time only from the custom input deltas its consumers take."""

    def feed(self, event: object) -> list[Outcome]:
        now = self._now_ms
        outcomes = super().feed(event)
        if _custom_delta(event) is None:
            self._now_ms = now
        return outcomes


class ConsumerPerDelta(CustomTools):
    """Creates a fresh consumer for each delta, so no consumer sees more than one."""

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        slot = self._slot
        if slot is not None:
            self._slot = Slot(slot.item, slot.call_id, self._consumers[_tool_of(slot.item)]())
        return super()._consume(item, event, delta)


class _EchoWithoutDelta(Echo):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        super().consume(delta, at_ms)
        return {"buffer": self.buffer}


class EchoWithoutDelta(CustomTools):
    """Makes echo answer each delta with its buffer only, without the delta."""

    replaces = (Echo, _EchoWithoutDelta)


class _EchoWithInput(Echo):
    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return Finished(result={"buffer": input_text})


class EchoFinishesWithInput(CustomTools):
    """Gives echo's finish the call's input as its buffer, not what the consumer saw."""

    replaces = (Echo, _EchoWithInput)


class _SilentAnswers(Silent):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        super().consume(delta, at_ms)
        return {"buffer": "".join(self._deltas)}


class SilentAnswersDeltas(CustomTools):
    """Makes silent answer each delta with its buffer, as echo does."""

    replaces = (Silent, _SilentAnswers)


class _SilentWithoutResult(Silent):
    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return Finished()


class SilentFinishesWithNothing(CustomTools):
    """Makes silent's finish answer no diff.finish: a consumer that says nothing says nothing at the end."""

    replaces = (Silent, _SilentWithoutResult)


class _RejectAccepts(Reject):
    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return Finished()


class RejectAccepts(CustomTools):
    """Makes reject's finish accept the call."""

    replaces = (Reject, _RejectAccepts)


class _RejectRaises(Reject):
    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        raise ConsumerError(Reject().finish(input_text, at_ms).message)  # type: ignore[union-attr]


class RejectRaises(CustomTools):
    """Makes reject signal its rejection by raising at finish."""

    replaces = (Reject, _RejectRaises)


class _RaiseAnswersError(Raise):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        return {"error": "the raise consumer fails on every delta"}


class RaiseAnswersErrorPayload(CustomTools):
    """Makes raise answer each delta with an error payload instead of failing."""

    replaces = (Raise, _RaiseAnswersError)


def _failing_factory() -> DiffConsumer:
    raise ConsumerError("the raise consumer cannot be created")


class RaiseFailsAtCreation(CustomTools):
    """Makes the raise consumer fail when it is created, at the call's announcement, not at each delta."""

    replaces = (Raise, _failing_factory)


class _RaiseRejectsAtFinish(Raise):
    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return Rejected("the raise consumer fails at finish")


class RaiseRejectsAtFinish(CustomTools):
    """Makes raise's finish reject the call instead of failing."""

    replaces = (Raise, _RaiseRejectsAtFinish)


class _RaiseAtFinishAfterDeltas(Raise):
    seen = False

    def consume(self, delta: str, at_ms: int) -> Payload | None:
        self.seen = True
        return super().consume(delta, at_ms)

    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        if self.seen:
            return super().finish(input_text, at_ms)
        return Finished(result={"buffer": ""})


class RaiseFailsAtFinishOnlyAfterDeltas(CustomTools):
    """Makes raise fail at finish only once it has failed at a delta: a call without deltas finishes."""

    replaces = (Raise, _RaiseAtFinishAfterDeltas)


class PatchAsEcho(CustomTools):
    """Installs echo for a tool whose consumer is patch."""

    replaces = (Patch, Echo)


class _PatchPreviewsAtFinish(Patch):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        self._deltas.append(delta)
        return None


class PatchPreviewsAtFinishOnly(CustomTools):
    """Installs a patch consumer that parses the patch only at finish: no preview while it streams."""

    replaces = (Patch, _PatchPreviewsAtFinish)


class _KeepsCr(PatchParser):
    def _parse_line(self, raw: str) -> bool:
        return super()._parse_line(raw + "\r" if raw.endswith("\r") else raw)


class PatchKeepsCr(CustomTools):
    """Splits the patch at LF and keeps a line's trailing CR: a CRLF patch's markers do not match."""

    replaces = (Patch, _patch_parsing_with(_KeepsCr))


class _MoveToDropped(PatchParser):
    def files(self) -> list[dict[str, Any]]:
        return [{k: v for k, v in entry.items() if k != "move_to"} for entry in super().files()]


class PatchMoveToDropped(CustomTools):
    """Previews an update entry without its move_to."""

    replaces = (Patch, _patch_parsing_with(_MoveToDropped))


class _PendingLostAtFinish(Patch):
    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        self._catch_up()
        self._pending = False
        return super().finish(input_text, at_ms)


class PatchPendingLostAtFinish(CustomTools):
    """Drops the pending preview at finish: the change inside the last interval is never shown."""

    replaces = (Patch, _PendingLostAtFinish)


class _ResumesAfterError(PatchParser):
    def feed(self, text: str) -> bool:
        changed = super().feed(text)
        if self.error is not None and not getattr(self, "_errored", False):
            self._errored = self.error  # what finish reports
            self.error = None  # the rest of the delta is dropped, and the next one parsed
            self._partial = []
        return changed

    def finish(self) -> None:
        super().finish()
        errored = getattr(self, "_errored", None)
        if errored is not None:
            raise errored


class PatchResumesAfterError(CustomTools):
    """Drops the rest of the delta at a parse error and previews on from the next one, as Codex does."""

    replaces = (Patch, _patch_parsing_with(_ResumesAfterError))


class _ShowsPreviewBeforeError(Patch):
    def consume(self, delta: str, at_ms: int) -> Payload | None:
        parsing = self._parser.error is None
        payload = super().consume(delta, at_ms)
        if payload is None and parsing and self._parser.error is not None:
            return {"files": self._parser.files()}  # what parsed before the faulty line
        return payload


class PatchShowsPreviewBeforeError(CustomTools):
    """Shows, at the delta where the patch turns out malformed, the preview of the lines before the error."""

    replaces = (Patch, _ShowsPreviewBeforeError)


class InputNormalizedByPatchConsumer(CustomTools):
    """Runs a call whose consumer is patch with the patch as its parser read it: lines ended by LF only."""

    def _resolve(self, item: Item) -> list[Outcome]:
        slot = self._slot
        outcomes = super()._resolve(item)
        if slot is None or slot.item is not item or not isinstance(slot.consumer, Patch):
            return outcomes
        return [
            {**o, "input": o["input"].replace("\r\n", "\n")} if o["kind"] == "tool.call" else o
            for o in outcomes
        ]


class ReplacedCallRunsWhatItsConsumerSaw(CustomTools):
    """Runs a call whose consumer was replaced with the input that consumer saw, not its complete input."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._replaced: dict[str, str] = {}  # the calls whose consumer was replaced, and what it saw

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        slot = self._slot
        if slot is not None:
            self._replaced[slot.item.id] = _deltas(slot.item)
        return super()._bind_consumer(item)

    def feed(self, event: object) -> list[Outcome]:
        outcomes = super().feed(event)
        return [
            {**o, "input": self._replaced[o["item_id"]]}
            if o["kind"] == "tool.call" and o["item_id"] in self._replaced
            else o
            for o in outcomes
        ]


MUTANTS = [
    mutant(ConsumerPerCall, "custom.consumer-per-call", "CUSTOM-SLOT-1", "CUSTOM-SLOT-5", "CUSTOM-SLOT-6"),
    mutant(MatchesToolByNameOnly, "custom.tool-by-name-only", "CUSTOM-SLOT-2"),
    mutant(KeepsSlotForToolWithoutConsumer, "custom.keeps-slot-for-tool-without-consumer", "CUSTOM-SLOT-6"),
    mutant(BindsCallWithoutCallId, "custom.binds-call-without-call-id", "CUSTOM-SLOT-7"),
    mutant(FunctionCallKeepsConsumer, "custom.function-call-keeps-consumer", "CUSTOM-SLOT-3"),
    mutant(AnyItemEmptiesSlot, "custom.any-item-empties-slot", "CUSTOM-SLOT-4"),
    mutant(RefusedAddedRebinds, "custom.refused-added-rebinds", "CUSTOM-SLOT-4"),
    mutant(FirstConsumerStays, "custom.first-consumer-stays", "CUSTOM-SLOT-5", "CUSTOM-SLOT-6"),
    mutant(ConsumesRefusedDeltas, "custom.consumes-refused-deltas", "CUSTOM-DELTA-1", "CUSTOM-DELTA-3"),
    mutant(ConsumesFunctionArguments, "custom.consumes-function-arguments", "CUSTOM-DELTA-1"),
    mutant(broken_routers.IgnoresCallIdFilter, "custom.consumes-every-call", "CUSTOM-DELTA-2"),
    mutant(FiltersOnlyExplicitCallId, "custom.filters-only-explicit-call-id", "CUSTOM-DELTA-2"),
    mutant(IgnoresStatedCallId, "custom.ignores-stated-call-id", "CUSTOM-DELTA-2"),
    mutant(SkipsDeltaNamedByOutputIndex, "custom.skips-delta-named-by-output-index", "CUSTOM-DELTA-2"),
    mutant(ConsumesDeltaWithoutId, "custom.consumes-delta-without-id", "CUSTOM-DELTA-3"),
    mutant(CallIdOverItemId, "custom.call-id-over-item-id", "CORE-ITEM-12"),
    mutant(SkipsEmptyDeltas, "custom.skips-empty-deltas", "CUSTOM-DELTA-4"),
    mutant(UpdateBeforeDelta, "custom.update-before-delta", "CUSTOM-DELTA-4"),
    mutant(NeverFinishes, "custom.never-finishes", "CUSTOM-FIN-1"),
    mutant(broken_routers.FinishAfterCall, "custom.finish-after-call", "CUSTOM-FIN-1"),
    mutant(FinishesAtAnyDone, "custom.finishes-at-any-done", "CUSTOM-FIN-2"),
    mutant(RunsRejectedCall, "custom.runs-rejected-call", "CUSTOM-FIN-3"),
    mutant(FinishesCallsThatWillNotRun, "custom.finishes-calls-that-will-not-run", "CUSTOM-FIN-4"),
    mutant(MismatchAfterFinish, "custom.mismatch-after-finish", "CUSTOM-FIN-5"),
    mutant(ArgumentsDoneWithoutFinish, "custom.arguments-done-without-finish", "CUSTOM-FIN-6"),
    mutant(FinishesWithFirstSource, "custom.finishes-with-first-source", "CUSTOM-FIN-7"),
    mutant(FinishNamesTheAnnouncedCallId, "custom.finish-names-the-announced-call-id", "CUSTOM-FIN-8"),
    mutant(FinishNamedAfterItsUpdates, "custom.finish-named-after-its-updates", "CUSTOM-FIN-8"),
    mutant(FinishNamedFromTheAnnouncement, "custom.finish-named-from-the-announcement", "CUSTOM-FIN-8"),
    mutant(ConsumerFailureEscapes, "custom.consumer-failure-escapes", "CUSTOM-FAIL-1", "CORE-EVT-2"),
    mutant(KeepsFailedConsumer, "custom.keeps-failed-consumer", "CUSTOM-FAIL-2"),
    mutant(FailedConsumerCancelsCall, "custom.failed-consumer-cancels-call", "CUSTOM-FAIL-3"),
    mutant(FinishesAtEnd, "custom.finishes-at-end", "CUSTOM-END-1"),
    mutant(TimeFromRoutedEventsOnly, "custom.time-from-routed-events-only", "CUSTOM-TIME-1"),
    mutant(TimeZeroWithoutAtMs, "custom.time-zero-without-at-ms", "CUSTOM-TIME-1"),
    mutant(ConsumerReusedAcrossCalls, "custom.consumer-reused-across-calls", "CUSTOM-CAT-1"),
    mutant(EchoBufferBeforeDelta, "custom.echo-buffer-before-delta", "CUSTOM-CAT-2"),
    mutant(SilentFinishesWithInput, "custom.silent-finishes-with-input", "CUSTOM-CAT-3"),
    mutant(RejectPreviews, "custom.reject-previews", "CUSTOM-CAT-4"),
    mutant(RaiseOnlyAtFinish, "custom.raise-only-at-finish", "CUSTOM-CAT-5"),
    mutant(RaiseOnlyAtConsume, "custom.raise-only-at-consume", "CUSTOM-CAT-7"),
    mutant(NoPatchConsumer, "custom.no-patch-consumer", "CUSTOM-CAT-6"),
    mutant(PatchDeltaEndsLine, "custom.patch-delta-ends-line", "CUSTOM-PATCH-1", "CUSTOM-PATCH-5"),
    mutant(PatchDropsLastLine, "custom.patch-drops-last-line", "CUSTOM-PATCH-1", "CUSTOM-PATCH-5"),
    mutant(PatchTakesUpdateWithoutChange, "custom.patch-takes-update-without-change", "CUSTOM-PATCH-2"),
    mutant(PatchTrimsUpdateLines, "custom.patch-trims-update-lines", "CUSTOM-PATCH-2"),
    mutant(PatchIgnoresTextAfterEnd, "custom.patch-ignores-text-after-end", "CUSTOM-PATCH-2"),
    mutant(PatchHunkLinesWithoutPrefix, "custom.patch-hunk-lines-without-prefix", "CUSTOM-PATCH-3"),
    mutant(PatchPreviewsCurrentFileOnly, "custom.patch-previews-current-file-only", "CUSTOM-PATCH-3"),
    mutant(PatchUnthrottled, "custom.patch-unthrottled", "CUSTOM-PATCH-4"),
    mutant(PatchThrottleStrict, "custom.patch-throttle-strict", "CUSTOM-PATCH-4"),
    mutant(PatchDropsThrottledChange, "custom.patch-drops-throttled-change", "CUSTOM-PATCH-4"),
    mutant(PatchResendsUnchanged, "custom.patch-resends-unchanged", "CUSTOM-PATCH-4"),
    mutant(PatchFinishJudgesStream, "custom.patch-finish-judges-stream", "CUSTOM-PATCH-5", "CUSTOM-FIN-7"),
    mutant(PatchTakesMissingEnd, "custom.patch-takes-missing-end", "CUSTOM-PATCH-5"),
    mutant(PatchPreviewsPastError, "custom.patch-previews-past-error", "CUSTOM-PATCH-6"),
    mutant(broken_routers.BuildsCallFromBuffer, "custom.call-from-consumer-buffer", "CUSTOM-EXEC-1"),
    mutant(SlotPerTool, "custom.slot-per-tool", "CUSTOM-SLOT-1"),
    mutant(SlotEmptiedByErrors, "custom.slot-emptied-by-errors", "CUSTOM-SLOT-1"),
    mutant(BindsAtFirstDelta, "custom.binds-at-first-delta", "CUSTOM-SLOT-2"),
    mutant(ReplacedConsumerFinished, "custom.replaced-consumer-finished", "CUSTOM-SLOT-5", "CUSTOM-SLOT-2"),
    mutant(
        EchoForToolsWithoutConsumer, "custom.echo-for-tools-without-consumer", "CUSTOM-CAT-1", "CUSTOM-SLOT-6"
    ),
    mutant(ConsumerlessCallFinishesConsumer, "custom.consumerless-call-finishes-consumer", "CUSTOM-SLOT-6"),
    mutant(KeepsSlotForCallWithoutCallId, "custom.keeps-slot-for-call-without-call-id", "CUSTOM-SLOT-7"),
    mutant(BindsCallIdAtDone, "custom.binds-call-id-at-done", "CUSTOM-SLOT-7"),
    mutant(FunctionCallFinishesConsumer, "custom.function-call-finishes-consumer", "CUSTOM-SLOT-3"),
    mutant(FunctionCallGetsItsToolsConsumer, "custom.function-call-gets-its-tools-consumer", "CUSTOM-SLOT-3"),
    mutant(MalformedAddedEmptiesSlot, "custom.malformed-added-empties-slot", "CUSTOM-SLOT-4"),
    mutant(ConsumesInputDone, "custom.consumes-input-done", "CUSTOM-DELTA-1"),
    mutant(NoIdDeltaUnbinds, "custom.no-id-delta-unbinds", "CUSTOM-DELTA-3"),
    mutant(NoIdDeltaEndsConsumer, "custom.no-id-delta-ends-consumer", "CUSTOM-DELTA-3"),
    mutant(ConsumerGetsStrippedDelta, "custom.consumer-gets-stripped-delta", "CUSTOM-DELTA-4"),
    mutant(FinishAtInputDone, "custom.finish-at-input-done", "CUSTOM-FIN-1"),
    mutant(DoneOfAnyItemDropsConsumer, "custom.done-of-any-item-drops-consumer", "CUSTOM-FIN-2"),
    mutant(FinishesAtAnyCallDone, "custom.finishes-at-any-call-done", "CUSTOM-FIN-2"),
    mutant(RejectionIsInvalidArguments, "custom.rejection-is-invalid-arguments", "CUSTOM-FIN-3"),
    mutant(RejectionWithoutCallId, "custom.rejection-without-call-id", "CUSTOM-FIN-3"),
    mutant(FinishBeforeDuplicateCheck, "custom.finish-before-duplicate-check", "CUSTOM-FIN-4"),
    mutant(IncompleteCallAskedOfConsumer, "custom.incomplete-call-asked-of-consumer", "CUSTOM-FIN-4"),
    mutant(MismatchDroppedWhenFinished, "custom.mismatch-dropped-when-finished", "CUSTOM-FIN-5"),
    mutant(MismatchReportedAgainAtFinish, "custom.mismatch-reported-again-at-finish", "CUSTOM-FIN-5"),
    mutant(FinishWithDeltas, "custom.finish-with-deltas", "CUSTOM-FIN-7"),
    mutant(FinishWithInputDoneOnly, "custom.finish-with-input-done-only", "CUSTOM-FIN-7"),
    mutant(FailureBeforeDelta, "custom.failure-before-delta", "CUSTOM-FAIL-1"),
    mutant(FailureAsInternalError, "custom.failure-as-internal-error", "CUSTOM-FAIL-1"),
    mutant(FailedConsumerFinished, "custom.failed-consumer-finished", "CUSTOM-FAIL-2"),
    mutant(FailedConsumerRetried, "custom.failed-consumer-retried", "CUSTOM-FAIL-2"),
    mutant(FailureEndsStream, "custom.failure-ends-stream", "CUSTOM-FAIL-3"),
    mutant(CallBeforeFinishFailure, "custom.call-before-finish-failure", "CUSTOM-FAIL-3"),
    mutant(EndFlushesPendingPreview, "custom.end-flushes-pending-preview", "CUSTOM-END-1"),
    mutant(EndJudgedByConsumer, "custom.end-judged-by-consumer", "CUSTOM-END-1"),
    mutant(TimeFromDeltasOnly, "custom.time-from-deltas-only", "CUSTOM-TIME-1"),
    mutant(ConsumerPerDelta, "custom.consumer-per-delta", "CUSTOM-CAT-1"),
    mutant(EchoWithoutDelta, "custom.echo-without-delta", "CUSTOM-CAT-2"),
    mutant(EchoFinishesWithInput, "custom.echo-finishes-with-input", "CUSTOM-CAT-2"),
    mutant(SilentAnswersDeltas, "custom.silent-answers-deltas", "CUSTOM-CAT-3"),
    mutant(SilentFinishesWithNothing, "custom.silent-finishes-with-nothing", "CUSTOM-CAT-3"),
    mutant(RejectAccepts, "custom.reject-accepts", "CUSTOM-CAT-4"),
    mutant(RejectRaises, "custom.reject-raises", "CUSTOM-CAT-4"),
    mutant(RaiseAnswersErrorPayload, "custom.raise-answers-error-payload", "CUSTOM-CAT-5"),
    mutant(RaiseFailsAtCreation, "custom.raise-fails-at-creation", "CUSTOM-CAT-5", "CUSTOM-CAT-7"),
    mutant(RaiseRejectsAtFinish, "custom.raise-rejects-at-finish", "CUSTOM-CAT-7"),
    mutant(
        RaiseFailsAtFinishOnlyAfterDeltas, "custom.raise-fails-at-finish-only-after-deltas", "CUSTOM-CAT-7"
    ),
    mutant(PatchAsEcho, "custom.patch-as-echo", "CUSTOM-CAT-6"),
    mutant(PatchPreviewsAtFinishOnly, "custom.patch-previews-at-finish-only", "CUSTOM-CAT-6"),
    mutant(PatchKeepsCr, "custom.patch-keeps-cr", "CUSTOM-PATCH-1"),
    mutant(PatchMoveToDropped, "custom.patch-move-to-dropped", "CUSTOM-PATCH-3"),
    mutant(PatchPendingLostAtFinish, "custom.patch-pending-lost-at-finish", "CUSTOM-PATCH-5"),
    mutant(PatchResumesAfterError, "custom.patch-resumes-after-error", "CUSTOM-PATCH-6"),
    mutant(PatchShowsPreviewBeforeError, "custom.patch-shows-preview-before-error", "CUSTOM-PATCH-6"),
    mutant(InputNormalizedByPatchConsumer, "custom.input-normalized-by-patch-consumer", "CUSTOM-EXEC-1"),
    mutant(
        ReplacedCallRunsWhatItsConsumerSaw, "custom.replaced-call-runs-what-its-consumer-saw", "CUSTOM-EXEC-1"
    ),
]
