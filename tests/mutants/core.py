"""Requirement mutants of the `core` profile: the independent router with one fault each.

Every mutant is `IndependentAdapter` of tests/mutants/independent_router.py
with one `Fault`, a router that shares no code with the reference and passes
every core vector without it. Its adapter is a module attribute named after
the fault (`mutants.core:fire_at_added`), so any runner loads it as it loads
a real implementation. `breaks` names the requirement the mistake violates;
a decision of the spec that a requirement carries is named by that
requirement.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from . import Mutant, mutant
from .independent_router import Fault, IndependentAdapter


def _mutant(fault: Fault, breaks: str, description: str, tool_call_point: str = "output_item_done") -> Mutant:
    attribute = fault.name.lower()
    globals()[attribute] = IndependentAdapter(frozenset({fault}), tool_call_point)
    return Mutant(
        name=f"core.{fault.value}",
        breaks=tuple(breaks.split()),
        target=f"{__name__}:{attribute}",
        kind="implementation",
        description=description,
    )


class _LibraryDesign:
    """The independent router behind a library design of spec/core.md section 12: each subclass
    declares an option and hands over one thing the way the option lets it, wrongly (or, declaring
    none, reads one thing wrongly around the router)."""

    profiles: tuple[str, ...] = ("core",)
    options: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = IndependentAdapter()(tools)
        self.deltas: dict[str, list[str]] = {}  # each call's deltas, by item id
        self.announced: dict[str, dict[str, Any]] = {}  # each item as its output_item.added states it

    def feed(self, event: Any) -> list[dict[str, Any]]:
        item = event.get("item") if isinstance(event, dict) else None
        if event_type(event) == "response.output_item.added" and isinstance(item, dict):
            self.announced.setdefault(str(item.get("id")), item)
        return self.handed_over(self.router.feed(event))

    def close(self) -> list[dict[str, Any]]:
        return self.handed_over(self.router.close())

    def handed_over(self, outcomes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for outcome in outcomes:
            if outcome["kind"] == "tool.arguments.delta":
                self.deltas.setdefault(outcome["item_id"], []).append(outcome["delta"])
        return [self.hand_over(outcome) for outcome in outcomes]

    def hand_over(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """The outcome as the option hands it over: under json_text, a call's arguments as text."""
        as_text = self.options.get("call_arguments") == "json_text"
        if as_text and outcome["kind"] == "tool.call" and outcome["tool_type"] == "function":
            return {**outcome, "arguments": json.dumps(outcome["arguments"])}
        return outcome


def event_type(event: Any) -> Any:
    return event.get("type") if isinstance(event, dict) else None


class ArgumentsTextFromDeltas(_LibraryDesign):
    """Hands over, as a call's JSON text, the text its deltas built, not its complete source."""

    options: ClassVar[Mapping[str, str]] = {"call_arguments": "json_text"}

    def hand_over(self, outcome: dict[str, Any]) -> dict[str, Any]:
        if outcome["kind"] == "tool.call" and outcome["tool_type"] == "function":
            return {**outcome, "arguments": "".join(self.deltas.get(outcome["item_id"], []))}
        return outcome


class OpenCallHandedOver(_LibraryDesign):
    """Hands a call still open at the end over as a tool.call with the text its deltas built."""

    options: ClassVar[Mapping[str, str]] = {"call_arguments": "json_text"}

    def hand_over(self, outcome: dict[str, Any]) -> dict[str, Any]:
        item = self.announced.get(outcome.get("item_id", ""), {})
        if outcome["kind"] == "tool.error" and outcome["code"] == "incomplete" and item.get("name"):
            text = "".join(self.deltas.get(outcome["item_id"], []))
            names = {"item_id": outcome["item_id"], "call_id": item.get("call_id"), "name": item["name"]}
            return {"kind": "tool.call", **names, "tool_type": "function", "arguments": text}
        return super().hand_over(outcome)


class ReadsOnAfterErrorEvent(_LibraryDesign):
    """Declares that an error event ends the stream, and routes the events after it all the same."""

    options: ClassVar[Mapping[str, str]] = {"error_event": "ends_stream"}


class LogprobsTyped(_LibraryDesign):
    """Decodes a text delta into a type whose `logprobs` is a list: any other value is malformed."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        text_event = event_type(event) in ("response.output_text.delta", "response.output_text.done")
        if text_event and event.get("logprobs") is not None and not isinstance(event["logprobs"], list):
            return [{"kind": "error", "code": "malformed_event", "message": "logprobs is not a list"}]
        return super().feed(event)


_CUSTOM_INPUT = ("response.custom_tool_call_input.delta", "response.custom_tool_call_input.done")
_ARGUMENT_DELTAS = ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta")
_ARGUMENTS_DONE = {
    "response.function_call_arguments.done": "arguments",
    "response.custom_tool_call_input.done": "input",
}


class CallIdTypeUnchecked(_LibraryDesign):
    """Reads a custom input event's call_id only when it is a string, and takes any other for absent."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        if event_type(event) in _CUSTOM_INPUT and not isinstance(event.get("call_id"), (str, type(None))):
            event = {key: value for key, value in event.items() if key != "call_id"}
        return super().feed(event)


class LateOversizedDeltasSilent(_LibraryDesign):
    """Drops the later deltas of a call refused as too large without a word."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        refused = [(outcome["kind"], outcome.get("code")) for outcome in outcomes] == [("error", "too_large")]
        return [] if refused and event_type(event) in _ARGUMENT_DELTAS else outcomes


class OversizedCallCompared(_LibraryDesign):
    """Compares the complete arguments of a call refused as too large with all of its deltas."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.streamed: dict[str, list[str]] = {}  # every delta each call's events carried, by item id
        self.too_large: set[str] = set()  # the calls refused as too large

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        kind = event_type(event)
        item_id = str(event.get("item_id")) if isinstance(event, dict) else ""
        if kind in _ARGUMENT_DELTAS and isinstance(event.get("delta"), str):
            self.streamed.setdefault(item_id, []).append(event["delta"])
        refused_done = kind in _ARGUMENTS_DONE and item_id in self.too_large
        if refused_done and event.get(_ARGUMENTS_DONE[kind]) != "".join(self.streamed.get(item_id, [])):
            outcomes.insert(0, {"kind": "error", "code": "done_mismatch", "message": "the deltas differ"})
        self.too_large.update(
            o["item_id"] for o in outcomes if o["kind"] == "tool.error" and o["code"] == "too_large"
        )
        return outcomes


class OutputIndexZeroWhenOmitted(_LibraryDesign):
    """Reports an event that omits its output_index at output index 0, not at its item's."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        if not isinstance(event, dict) or event.get("output_index") is not None:
            return outcomes
        return [{**o, "output_index": 0} if "output_index" in o else o for o in outcomes]


class TextPastLimitCompared(_LibraryDesign):
    """Compares the text.done of a part whose deltas passed the limit with all of its deltas."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.shown: dict[tuple[str, int], list[str]] = {}  # every text delta of each part
        self.too_large: set[tuple[str, int]] = set()  # the parts past the limit

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        kind = event_type(event)
        if kind not in ("response.output_text.delta", "response.output_text.done"):
            return outcomes
        part = (str(event.get("item_id")), event.get("content_index") or 0)
        if kind == "response.output_text.delta":
            self.shown.setdefault(part, []).append(str(event.get("delta")))
            if any(o["kind"] == "error" and o.get("code") == "too_large" for o in outcomes):
                self.too_large.add(part)
        elif part in self.too_large and event.get("text") != "".join(self.shown.get(part, [])):
            outcomes.insert(0, {"kind": "error", "code": "done_mismatch", "message": "the deltas differ"})
        return outcomes


def _malformed(outcomes: list[dict[str, Any]]) -> bool:
    return [(outcome["kind"], outcome.get("code")) for outcome in outcomes] == [("error", "malformed_event")]


class MalformedEventsSkipped(_LibraryDesign):
    """Skips a malformed event without a word, as a parser that drops what it cannot decode."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        return [] if _malformed(outcomes) else outcomes


class MalformedTextDeltaKept(_LibraryDesign):
    """Reports a text delta that is not a string as malformed, and appends it to its part all the same."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        delta = event.get("delta") if event_type(event) == "response.output_text.delta" else ""
        if _malformed(outcomes) and delta is not None and not isinstance(delta, str):
            self.router.feed({**event, "delta": json.dumps(delta)})  # kept, never shown
        return outcomes


class TextDeltasBatched(_LibraryDesign):
    """Hands text deltas over in batches: those held back come out with the next event of another type."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.held: list[dict[str, Any]] = []  # text deltas not handed over yet

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        if event_type(event) == "response.output_text.delta":
            self.held += outcomes
            return []
        held, self.held = self.held, []
        return held + outcomes

    def close(self) -> list[dict[str, Any]]:
        held, self.held = self.held, []
        return held + super().close()


_PREVIEW_DONE = ("response.apply_patch_call_operation_diff.done", "response.shell_call_command.done")


class _Catalogue(_LibraryDesign):
    """The independent router, routing every call type of the catalogue."""

    options: ClassVar[Mapping[str, Any]] = {"call_types": IndependentAdapter().options["call_types"]}


class PatchDiffUnrouted(_Catalogue):
    """Knows apply_patch calls but not their operation diff events: a diff delta is ignored, unrouted."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        if event_type(event) == "response.apply_patch_call_operation_diff.delta":
            return [{"kind": "ignored", "type": event["type"]}]
        return super().feed(event)


class PreviewDoneIgnored(_Catalogue):
    """Answers a preview's .done with ignored, as for an event it does not route."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        if event_type(event) in _PREVIEW_DONE and not outcomes:
            return [{"kind": "ignored", "type": event["type"]}]
        return outcomes


_CATALOGUE_CALLS = ("apply_patch_call", "shell_call", "local_shell_call", "computer_call", "tool_search_call")


class CatalogueCallIdFromItemId(_Catalogue):
    """Takes a catalogue call's item id for its call id when the item states none, and runs it."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        item = event.get("item") if isinstance(event, dict) else None
        if isinstance(item, dict) and item.get("type") in _CATALOGUE_CALLS and item.get("call_id") is None:
            event = {**event, "item": {**item, "call_id": item.get("id")}}
        return super().feed(event)


class DoneItemTrustedAfterArgumentsDone(_LibraryDesign):
    """Takes the done item's text for the call's once an arguments .done came, without comparing them."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.stated: dict[str, Any] = {}  # the text of each call's arguments .done, by item id

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        kind = event_type(event)
        if kind in _ARGUMENTS_DONE:
            self.stated.setdefault(str(event.get("item_id")), event.get(_ARGUMENTS_DONE[kind]))
        item = event.get("item") if kind == "response.output_item.done" else None
        if not isinstance(item, dict) or item.get("id") not in self.stated:
            return outcomes
        text = item.get("arguments", item.get("input"))
        mismatches = [
            i for i, o in enumerate(outcomes) if (o["kind"], o.get("code")) == ("error", "done_mismatch")
        ]
        if text is not None and text != self.stated[item["id"]] and mismatches:
            del outcomes[mismatches[-1]]  # the text's; one about the call's identity comes first
        return outcomes


class TextDoneFromDeltas(_LibraryDesign):
    """Hands a part's text.done over with the text its deltas built, when any were shown."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.shown: dict[tuple[str, int], list[str]] = {}  # the text deltas shown of each part

    def hand_over(self, outcome: dict[str, Any]) -> dict[str, Any]:
        part = (outcome.get("item_id", ""), outcome.get("content_index", 0))
        if outcome["kind"] == "text.delta":
            self.shown.setdefault(part, []).append(outcome["delta"])
        if outcome["kind"] == "text.done" and part in self.shown:
            return {**outcome, "text": "".join(self.shown[part])}
        return outcome


class _RepeatedDoneSilent(_LibraryDesign):
    """The independent router, silent on a repeated event of the types it names."""

    done_types: ClassVar[tuple[str, ...]] = ()

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        if event_type(event) not in self.done_types:
            return outcomes
        return [o for o in outcomes if (o["kind"], o.get("code")) != ("error", "duplicate_event")]


class RepeatedItemDoneSilent(_RepeatedDoneSilent):
    """Ignores a second output_item.done of an item without a word (the call still runs once)."""

    done_types = ("response.output_item.done",)


class RepeatedPreviewDoneSilent(_RepeatedDoneSilent):
    """Ignores a second .done of a call's preview, or one after its done item, without a word."""

    done_types = _PREVIEW_DONE
    options: ClassVar[Mapping[str, Any]] = {"call_types": IndependentAdapter().options["call_types"]}


class OutputIndexDeclaredOnly(_LibraryDesign):
    """Declares correlation by output index, and keys every event by its item id all the same."""

    options: ClassVar[Mapping[str, str]] = {"item_correlation": "output_index"}


class ResponseIdPerEvent(_LibraryDesign):
    """Hands over response ids of its own, a new one for each lifecycle event."""

    options: ClassVar[Mapping[str, str]] = {"response_id": "rewritten"}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.issued = 0  # response ids handed over

    def hand_over(self, outcome: dict[str, Any]) -> dict[str, Any]:
        if outcome["kind"] == "lifecycle":
            self.issued += 1
            return {**outcome, "response_id": f"resp_gateway{self.issued}"}
        return outcome


MUTANTS: list[Mutant] = [
    # the call catalogue
    # and CORE-CALLTYPE-6, -11, -12: knowing no catalogue item, it answers their preview events ignored
    _mutant(
        Fault.CATALOGUE_UNROUTED,
        "CORE-CALLTYPE-1 CORE-CALLTYPE-6 CORE-CALLTYPE-11 CORE-CALLTYPE-12",
        "knows only function and custom calls: shell, apply_patch and approval items are ignored as hosted",
    ),
    _mutant(
        Fault.PATCH_FROM_DIFF_DONE,
        "CORE-CALLTYPE-2",
        "applies the diff of the operation diff's .done event, not the done item's operation",
    ),
    _mutant(
        Fault.CATALOGUE_STATUS_IGNORED,
        "CORE-CALLTYPE-3",
        "never reads a catalogue call's status, so an incomplete shell call runs",
    ),
    _mutant(
        Fault.EVERY_SHELL_LOCAL,
        "CORE-CALLTYPE-4",
        "takes every shell call for the client's, whatever its environment",
    ),
    _mutant(
        Fault.APPROVAL_WITHOUT_REQUEST_ID,
        "CORE-CALLTYPE-5",
        "looks for an approval request's call_id in the item, which has none, so it is refused as incomplete",
    ),
    # and CORE-CALLTYPE-8: a shell command's .added after the call is done is dropped without its late_delta
    _mutant(
        Fault.SHELL_ADDED_TEXT_DROPPED,
        "CORE-CALLTYPE-11 CORE-CALLTYPE-8",
        "previews a shell command's deltas but drops the text its .added event starts with",
    ),
    _mutant(
        Fault.MISSING_SERVER_LABEL_INVALID,
        "CORE-CALLTYPE-10",
        "takes an approval request without server_label for one with a bad input, not an incomplete one",
    ),
    _mutant(
        Fault.UNREADABLE_SAFETY_CHECKS_DROPPED,
        "CORE-CALLTYPE-7",
        "drops a computer call's pending_safety_checks when they are no array, and runs it unchecked",
    ),
    _mutant(
        Fault.CATALOGUE_INPUT_UNCHECKED,
        "CORE-CALLTYPE-7",
        "passes a catalogue call's input on unchecked: an operation without a path is a tool.call",
    ),
    _mutant(
        Fault.LATE_PREVIEW_SHOWN,
        "CORE-CALLTYPE-8",
        "shows a preview delta that comes after its preview or its call is done",
    ),
    # intake
    # and CORE-EVT-4: a vendor type that carries a delta is shown as text too
    _mutant(
        Fault.GUESS_TEXT_FROM_DELTA,
        "CORE-EVT-1 CORE-EVT-4",
        "an event of an unknown type that carries a string delta for a message is shown as answer text",
    ),
    _mutant(
        Fault.RAISE_ON_NON_OBJECT,
        "CORE-EVT-2",
        "reads every event with event.get, so a JSON array or string raises",
    ),
    # and CORE-ITEM-7, CORE-ERR-1, CORE-LIFE-3, CORE-LIFE-1, CORE-ITEM-9: an index, an error's code,
    # a failed response's error, a lifecycle event's response, an item's call_id stated null are
    # refused, not read as 0, a null code, no error object, no response, no call_id
    _mutant(
        Fault.NULL_IS_WRONG_TYPE,
        "CORE-EVT-7 CORE-ITEM-7 CORE-ERR-1 CORE-LIFE-3 CORE-LIFE-1 CORE-ITEM-9",
        "takes a field that is JSON null for a field of the wrong type",
    ),
    # and CORE-EVT-2: a name of the wrong type makes feed raise
    _mutant(
        Fault.ITEM_FIELDS_UNCHECKED,
        "CORE-ITEM-9 CORE-EVT-2",
        "checks only an item's id and type, so a call_id or name of the wrong type reaches the call",
    ),
    _mutant(
        Fault.ITEM_DECODED_WHOLE,
        "CORE-ITEM-9",
        "decodes every item into one type with string arguments and input, so a number there is malformed",
    ),
    _mutant(
        Fault.RESOLVE_ITEM_BEFORE_FIELDS,
        "CORE-EVT-8",
        "looks an item event's item up before reading its other fields: a malformed delta is unknown_item",
    ),
    # and CORE-EVT-4: vendor types are dropped too
    _mutant(
        Fault.AGENT_CHECKED,
        "CORE-EVT-11",
        "decodes a multi-agent event's agent member and refuses the event when it is not an object",
    ),
    _mutant(
        Fault.WHOLE_NUMBER_INDEX_MALFORMED,
        "CORE-EVT-12",
        "decodes indexes into an integer type and refuses 1.0, as Go's int and Rust's u64 do",
    ),
    _mutant(
        Fault.SWALLOW_UNKNOWN,
        "CORE-EVT-3 CORE-EVT-4",
        "a catch-all branch drops events of unknown types without a trace",
    ),
    _mutant(
        Fault.ROUTE_VENDOR_SUFFIX,
        "CORE-EVT-4",
        "strips a vendor prefix and routes what follows, so acme:response.output_text.delta is text",
    ),
    _mutant(Fault.UNROUTED_SILENT, "CORE-EVT-5", "knows the unrouted event types and drops them silently"),
    # and CORE-LIFE-4: the events of a second response after the terminal one go without event_after_terminal
    _mutant(
        Fault.DROP_BY_SEQUENCE_NUMBER,
        "CORE-EVT-6 CORE-LIFE-4",
        "drops an event whose sequence_number is not above the last one, taking it for a replay",
    ),
    # items
    _mutant(
        Fault.OUTPUT_INDEX_FROM_COUNT,
        "CORE-ITEM-1",
        "numbers items in announcement order, ignoring the output_index the announcement states",
    ),
    # and CORE-ITEM-3: an event naming an item never announced is routed to the item at its index
    _mutant(
        Fault.OUTPUT_INDEX_DECIDES,
        "CORE-ITEM-2 CORE-ITEM-3",
        "attributes an item event by its output_index even when it names its item_id",
    ),
    _mutant(
        Fault.ROUTE_UNKNOWN_ITEM,
        "CORE-ITEM-3",
        "creates an item on first sight of an id never announced, and routes the event by its type",
    ),
    # and CORE-EVT-2: argument deltas for a message make feed raise
    _mutant(
        Fault.NO_ITEM_TYPE_CHECK,
        "CORE-ITEM-4 CORE-EVT-2",
        "routes an event whatever the type of the item it names",
    ),
    _mutant(
        Fault.SECOND_ADDED_REPLACES,
        "CORE-ITEM-5",
        "a second output_item.added for an announced id silently replaces the item",
    ),
    _mutant(
        Fault.DONE_NEEDS_ADDED,
        "CORE-ITEM-6",
        "refuses an output_item.done whose item was never announced as unknown_item",
    ),
    # and CORE-ITEM-15: an omitted output_index is null, not the item's
    _mutant(
        Fault.INDEXES_FROM_EVENT_ONLY,
        "CORE-ITEM-7 CORE-ITEM-15",
        "copies content_index and output_index from the event, null when the event omits them",
    ),
    _mutant(
        Fault.SUMMARY_INDEX_REQUIRED,
        "CORE-ITEM-7",
        "takes a reasoning summary delta without summary_index for malformed instead of index 0",
    ),
    _mutant(
        Fault.CUSTOM_INPUT_IGNORES_CALL_ID,
        "CORE-ITEM-8",
        "attributes custom input events by item_id and output_index only, never by call_id",
    ),
    # and CORE-EVT-9: the custom input event naming no call, malformed, goes without its malformed_event
    _mutant(
        Fault.CUSTOM_INPUT_TO_OPEN_CALL,
        "CORE-ITEM-11 CORE-EVT-9",
        "gives a custom input event with no id at all to the most recent open custom call",
    ),
    # answer text, refusal and reasoning
    _mutant(Fault.DROP_EMPTY_TEXT_DELTA, "CORE-TEXT-1", "skips an empty text delta (`if not delta: return`)"),
    _mutant(Fault.PHASE_DROPPED, "CORE-TEXT-9", "shows commentary and the answer alike: no phase on text"),
    _mutant(
        Fault.TEXT_OUTPUT_INDEX_FROM_EVENT,
        "CORE-ITEM-16",
        "copies a text delta's output_index from the event, though its item was announced elsewhere",
    ),
    _mutant(
        Fault.DONE_ITEM_CALL_ID_UNKNOWN,
        "CORE-ITEM-8",
        "indexes call ids at announcement only: a call id the done item states names no item",
    ),
    _mutant(Fault.AGENT_DROPPED, "CORE-TEXT-12", "shows a subagent's text as the answer: no agent on text"),
    _mutant(
        Fault.NO_TEXT_MISMATCH,
        "CORE-TEXT-11",
        "shows output_text.done without comparing it with the deltas shown",
    ),
    # and CORE-TEXT-11, CORE-ARGS-6: the texts they compare disagree, and no done_mismatch says so
    _mutant(
        Fault.MENDS_SPLIT_SURROGATES,
        "CORE-TEXT-8 CORE-TEXT-11 CORE-ARGS-6",
        "compares the joined deltas with the text, as JavaScript strings do, so halves of a pair mend",
    ),
    _mutant(Fault.REFUSAL_AS_TEXT, "CORE-TEXT-3", "shows refusal deltas as answer text"),
    _mutant(Fault.REFUSAL_UNROUTED, "CORE-TEXT-4", "treats response.refusal.delta as an unrouted event"),
    _mutant(
        Fault.OPEN_RESPONSES_REASONING_UNKNOWN,
        "CORE-TEXT-5",
        "knows only OpenAI's reasoning events, so Open Responses' response.reasoning.delta is unknown",
    ),
    _mutant(
        Fault.LATE_TEXT_DELTA_ROUTED,
        "CORE-TEXT-6",
        "shows a text delta that arrives after its part or item is done",
    ),
    _mutant(
        Fault.LATE_CHECK_PER_CHANNEL,
        "CORE-TEXT-6",
        "keeps done parts per channel, so a refusal delta at a content index whose text is done is shown",
    ),
    _mutant(
        Fault.SECOND_TEXT_DONE_ROUTED,
        "CORE-TEXT-7",
        "produces text.done for every output_text.done, a repeated one too",
    ),
    # arguments
    # and CORE-ARGS-3: an empty delta is not routed either
    _mutant(
        Fault.NO_ARGUMENTS_PREVIEW,
        "CORE-ARGS-1 CORE-ARGS-3",
        "buffers argument deltas without producing their preview",
    ),
    _mutant(
        Fault.ONE_BUFFER_FOR_ALL_CALLS,
        "CORE-ARGS-2",
        "keeps one argument buffer for the stream, so deltas of parallel calls are glued together",
    ),
    _mutant(Fault.DROP_EMPTY_ARGUMENTS_DELTA, "CORE-ARGS-3", "skips an empty argument delta"),
    _mutant(
        Fault.LATE_ARGUMENTS_DELTA_APPENDED,
        "CORE-ARGS-4",
        "appends a delta that arrives after the arguments are complete",
    ),
    # and CORE-ARGS-6: taking the deltas for the arguments, it never reports that they disagree
    _mutant(
        Fault.ARGUMENTS_FROM_DELTAS,
        "CORE-ARGS-5 CORE-ARGS-6",
        "takes a call's arguments from its deltas when no arguments .done arrives",
    ),
    _mutant(
        Fault.ARGUMENTS_DONE_EVENT_WINS,
        "CORE-ARGS-5",
        "executes the arguments .done text when the done item states other arguments",
    ),
    _mutant(
        Fault.NO_ARGUMENTS_MISMATCH,
        "CORE-ARGS-6",
        "never compares a call's deltas with its complete arguments",
    ),
    _mutant(
        Fault.SECOND_ARGUMENTS_DONE_REPLACES,
        "CORE-ARGS-7",
        "a second arguments .done silently replaces the first",
    ),
    # the complete call
    # and CORE-ITEM-14: the repeated done item of a catalogue call goes without its duplicate_event
    _mutant(
        Fault.CALL_AGAIN_ON_DUPLICATE_DONE,
        "CORE-CALL-1 CORE-ITEM-14",
        "routes every output_item.done of a call, so a repeated one gives the call a second outcome",
    ),
    # and CORE-CALLTYPE-1: the catalogue's calls are fired at their announcement too
    _mutant(
        Fault.FIRE_AT_ADDED,
        "CORE-CALL-2 CORE-CALLTYPE-1",
        "fires tool.call at output_item.added, from the announced arguments or {}",
    ),
    _mutant(
        Fault.ACCEPT_NAN, "CORE-CALL-3", "parses arguments with a lenient parser that reads NaN and Infinity"
    ),
    _mutant(
        Fault.ACCEPT_TRAILING_GARBAGE,
        "CORE-CALL-3",
        "parses the first JSON value of the arguments and ignores what follows it",
    ),
    _mutant(
        Fault.DUPLICATE_NAMES_LAST_WINS,
        "CORE-CALL-10",
        "parses arguments with a duplicated member name, keeping the last value",
    ),
    _mutant(
        Fault.DUPLICATE_NAMES_COMPARED_ESCAPED,
        "CORE-CALL-10",
        "looks for duplicated member names in the text as written, so `a` and `\\u0061` are two names",
    ),
    _mutant(
        Fault.LONG_INTEGERS_EXACT,
        "CORE-CALL-11",
        "reads an integer of any length exactly, as Python does; only a float beyond a binary64 is refused",
    ),
    _mutant(
        Fault.OVERFLOW_TO_INFINITY, "CORE-CALL-11", "reads a number that overflows a binary64 as Infinity"
    ),
    _mutant(
        Fault.ACCEPT_NON_OBJECT_ARGUMENTS,
        "CORE-CALL-15",
        "passes arguments that parse to a JSON array or scalar on to the call",
    ),
    _mutant(
        Fault.PARSE_CUSTOM_INPUT, "CORE-CALL-16", "parses a custom call's free-text input as JSON arguments"
    ),
    _mutant(
        Fault.NAME_FROM_ARGUMENTS_DONE,
        "CORE-CALL-4",
        "takes the call's name from response.function_call_arguments.done when it carries one",
    ),
    _mutant(
        Fault.FIRST_IDENTITY_STANDS,
        "CORE-CALL-17",
        "keeps the call id and name first announced when the done item restates them, as spec 1.3 said",
    ),
    _mutant(
        Fault.SILENT_NAME_CHANGE,
        "CORE-CALL-18",
        "takes the done item's name for the call without saying that the previews named another tool",
    ),
    _mutant(
        Fault.RESTATED_CALL_ID_REPORTED,
        "CORE-CALL-19",
        "reports a done item's restated call id as a done_mismatch, on every client tool search",
    ),
    _mutant(
        Fault.RESTATED_CALL_ID_RETRACTED,
        "CORE-CALL-20",
        "at arguments_done, retracts a call whose done item restates only its call id",
        "arguments_done",
    ),
    _mutant(Fault.IGNORE_ITEM_STATUS, "CORE-CALL-5", "executes a call whose done item has status incomplete"),
    _mutant(
        Fault.FORGET_OPEN_CALLS,
        "CORE-CALL-6",
        "says nothing about calls still open when the response ends",
    ),
    _mutant(
        Fault.NO_DUPLICATE_CALL_ID_CHECK,
        "CORE-CALL-7",
        "calls every call item, even one whose call_id was already called",
    ),
    _mutant(
        Fault.FIRE_WITHOUT_IDENTITY,
        "CORE-CALL-8",
        "at arguments_done, resolves a call at its .done even when its announced item lacks a name",
        "arguments_done",
    ),
    _mutant(
        Fault.NO_RETRACT_ON_INCOMPLETE,
        "CORE-CALL-12",
        "at arguments_done, says nothing when the done item of a call already made is incomplete",
        "arguments_done",
    ),
    _mutant(
        Fault.NO_RETRACT_ON_MISMATCH,
        "CORE-CALL-13",
        "at arguments_done, reports a done item that states another call as a mismatch only",
        "arguments_done",
    ),
    _mutant(
        Fault.NO_RETRACT_AT_END,
        "CORE-CALL-14",
        "at arguments_done, says nothing of a call already made when the response ends before its done item",
        "arguments_done",
    ),
    # and CORE-ITEM-9: a tool_search call's object arguments are type-checked as a function call's
    _mutant(
        Fault.RETRACTION_FREES_CALL_ID,
        "CORE-CALL-7",
        "at arguments_done, forgets the call id of a retracted call, so a later call with it runs",
        "arguments_done",
    ),
    _mutant(
        Fault.IN_PROGRESS_DONE_ITEM_INCOMPLETE,
        "CORE-CALL-21",
        "refuses a done call item whose status still says in_progress, as the Vercel AI SDK's schema did",
    ),
    _mutant(
        Fault.INPUT_FAULT_BEFORE_DUPLICATE,
        "CORE-CALL-22",
        "checks a catalogue call's input before its call id: a duplicate is reported as a bad input",
    ),
    _mutant(
        Fault.HOSTED_CALLS_EXECUTED,
        "CORE-CALL-9 CORE-ITEM-9",
        "takes any done item with a name and arguments for a function call, a hosted tool's too",
    ),
    _mutant(
        Fault.MULTI_AGENT_CALL_EXECUTED,
        "CORE-CALL-9",
        "takes a multi_agent_call (a call_id, JSON arguments) for a function call named by its action",
    ),
    # lifecycle, errors and outcomes
    _mutant(
        Fault.RESPONSE_REQUIRED, "CORE-LIFE-1", "takes a lifecycle event without `response` for malformed"
    ),
    _mutant(
        Fault.STATUS_CHECKED_ON_TERMINAL_ONLY,
        "CORE-LIFE-6",
        "reads response.status only on terminal events, so a wrong type elsewhere passes",
    ),
    _mutant(
        Fault.CANCELLED_IGNORED,
        "CORE-LIFE-2",
        "takes the end status from the terminal event's type alone, never `cancelled`",
    ),
    _mutant(
        Fault.FAILED_ERROR_SWALLOWED,
        "CORE-LIFE-3",
        "response.failed produces its lifecycle but not its error",
    ),
    _mutant(Fault.ROUTE_AFTER_TERMINAL, "CORE-LIFE-4", "keeps routing events after the terminal event"),
    _mutant(Fault.FORGET_END, "CORE-LIFE-5", "close() produces no end"),
    _mutant(
        Fault.END_IGNORES_ERROR_EVENT,
        "CORE-LIFE-8",
        "ends a stream without a terminal event as truncated even after an error event",
    ),
    _mutant(
        Fault.FLAT_ERROR_ONLY,
        "CORE-ERR-1",
        "reads only the flat error shape, never Open Responses' nested one",
    ),
    _mutant(Fault.ERROR_EVENT_TERMINAL, "CORE-ERR-4", "takes an error event for the end of the response"),
    _mutant(
        Fault.ERROR_STRING_FALLS_BACK_TO_FLAT,
        "CORE-ERR-2",
        "reads the flat fields when `error` is present but not an object",
    ),
    _mutant(
        Fault.ARGUMENTS_AS_TEXT,
        "CORE-OUT-1",
        "puts the arguments' JSON text on tool.call, as the API's item has it, not the parsed object",
    ),
    # limits
    # and CORE-LIMIT-4: a lone surrogate counts one, not three
    _mutant(
        Fault.COUNT_CHARACTERS,
        "CORE-LIMIT-1 CORE-LIMIT-4",
        "measures buffered deltas in characters instead of UTF-8 bytes",
    ),
    _mutant(
        Fault.SURROGATE_AS_ONE_BYTE,
        "CORE-LIMIT-4",
        "measures deltas with encode('utf-8', 'replace'), so a lone surrogate counts as one byte",
    ),
    _mutant(
        Fault.TOO_LARGE_SOURCES_UNCOMPARED,
        "CORE-LIMIT-6",
        "compares nothing of a call refused as too large, not even its .done with its done item",
    ),
    _mutant(
        Fault.TOO_LARGE_AFTER_COMPLETE,
        "CORE-ARGS-4 CORE-LIMIT-5",
        "answers a delta after the arguments .done of an oversized call with too_large instead of late_delta",
    ),
    _mutant(Fault.NO_DEPTH_LIMIT, "CORE-LIMIT-2", "parses arguments however deep they nest"),
    _mutant(
        Fault.BRACKETS_IN_STRINGS_COUNTED,
        "CORE-LIMIT-2",
        "counts brackets inside JSON strings towards the nesting depth",
    ),
    _mutant(Fault.TEXT_BUFFER_UNBOUNDED, "CORE-LIMIT-3", "buffers a text part's deltas without bound"),
    _mutant(
        Fault.TEXT_LIMIT_STOPS_ROUTING,
        "CORE-LIMIT-3",
        "stops showing a text part's deltas once its buffer passes the limit",
    ),
    # options for library designs (section 12)
    mutant(ArgumentsTextFromDeltas, "core.json-text-from-deltas", "CORE-JSON-1"),
    mutant(OpenCallHandedOver, "core.json-text-open-call-handed-over", "CORE-JSON-2"),
    mutant(ReadsOnAfterErrorEvent, "core.reads-on-after-error-event", "CORE-ERR-3"),
    mutant(ResponseIdPerEvent, "core.response-id-per-event", "CORE-LIFE-7"),
    mutant(LogprobsTyped, "core.logprobs-typed", "CORE-TEXT-10"),
    mutant(OutputIndexDeclaredOnly, "core.output-index-declared-only", "CORE-ITEM-10"),
    # read around the router
    mutant(CallIdTypeUnchecked, "core.call-id-type-unchecked", "CORE-ITEM-13"),
    mutant(LateOversizedDeltasSilent, "core.late-oversized-deltas-silent", "CORE-LIMIT-5"),
    mutant(OversizedCallCompared, "core.oversized-call-compared", "CORE-LIMIT-6"),
    mutant(RepeatedItemDoneSilent, "core.repeated-item-done-silent", "CORE-ITEM-14"),
    mutant(TextPastLimitCompared, "core.text-past-limit-compared", "CORE-LIMIT-7"),
    mutant(OutputIndexZeroWhenOmitted, "core.output-index-zero-when-omitted", "CORE-ITEM-15"),
    mutant(RepeatedPreviewDoneSilent, "core.repeated-preview-done-silent", "CORE-CALLTYPE-9"),
    mutant(TextDeltasBatched, "core.text-deltas-batched", "CORE-OUT-2"),
    mutant(CatalogueCallIdFromItemId, "core.catalogue-call-id-from-item-id", "CORE-CALLTYPE-10"),
    mutant(PatchDiffUnrouted, "core.patch-diff-unrouted", "CORE-CALLTYPE-6"),
    mutant(PreviewDoneIgnored, "core.preview-done-ignored", "CORE-CALLTYPE-12"),
    mutant(DoneItemTrustedAfterArgumentsDone, "core.done-item-trusted-after-arguments-done", "CORE-ARGS-8"),
    mutant(TextDoneFromDeltas, "core.text-done-from-deltas", "CORE-TEXT-2"),
    mutant(MalformedEventsSkipped, "core.malformed-events-skipped", "CORE-EVT-9"),
    mutant(MalformedTextDeltaKept, "core.malformed-text-delta-kept", "CORE-EVT-10"),
]
