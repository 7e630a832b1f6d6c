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

from streamroute.conformance.schemas import OUTCOME, schema

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


def event_type(event: Any) -> str | None:
    """The event's type, when it states one as a string (a malformed event's may be any value)."""
    kind = event.get("type") if isinstance(event, dict) else None
    return kind if isinstance(kind, str) else None


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
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or item["id"] not in self.stated:
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


class JsonTextFromArgumentsDone(_LibraryDesign):
    """Hands over, as a call's JSON text, the text of its arguments .done, the first complete one."""

    options: ClassVar[Mapping[str, str]] = {"call_arguments": "json_text"}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.stated: dict[str, str] = {}  # each call's arguments .done text, by item id

    def feed(self, event: Any) -> list[dict[str, Any]]:
        if event_type(event) == "response.function_call_arguments.done" and isinstance(
            event.get("arguments"), str
        ):
            self.stated.setdefault(str(event.get("item_id")), event["arguments"])
        return super().feed(event)

    def hand_over(self, outcome: dict[str, Any]) -> dict[str, Any]:
        text = self.stated.get(outcome.get("item_id", ""))
        if outcome["kind"] == "tool.call" and outcome["tool_type"] == "function" and text is not None:
            return {**outcome, "arguments": text}
        return super().hand_over(outcome)


class JsonTextEncodedTwice(_LibraryDesign):
    """Hands over a call's JSON text encoded once more, as a JSON string holding it."""

    options: ClassVar[Mapping[str, str]] = {"call_arguments": "json_text"}

    def hand_over(self, outcome: dict[str, Any]) -> dict[str, Any]:
        outcome = super().hand_over(outcome)
        if outcome["kind"] == "tool.call" and outcome["tool_type"] == "function":
            return {**outcome, "arguments": json.dumps(outcome["arguments"])}
        return outcome


class _JsonTextRefusedHandedOver(_LibraryDesign):
    """Hands a call refused with one code over as a tool.call with the text its done item states."""

    options: ClassVar[Mapping[str, str]] = {"call_arguments": "json_text"}
    code: ClassVar[str] = ""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.done: dict[str, dict[str, Any]] = {}  # each call's done item, by item id

    def feed(self, event: Any) -> list[dict[str, Any]]:
        item = event.get("item") if event_type(event) == "response.output_item.done" else None
        if isinstance(item, dict) and item.get("type") == "function_call":
            self.done[str(item.get("id"))] = item
        return super().feed(event)

    def hand_over(self, outcome: dict[str, Any]) -> dict[str, Any]:
        item = self.done.get(outcome.get("item_id", ""), {})
        text, name = item.get("arguments"), item.get("name")
        if (
            outcome["kind"] == "tool.error"
            and outcome["code"] == self.code
            and isinstance(text, str)
            and name
        ):
            names = {"item_id": outcome["item_id"], "call_id": item.get("call_id"), "name": name}
            return {"kind": "tool.call", **names, "tool_type": "function", "arguments": text}
        return super().hand_over(outcome)


class JsonTextIncompleteHandedOver(_JsonTextRefusedHandedOver):
    """Hands a call whose done item is incomplete over as a tool.call with the text it states."""

    code = "incomplete"


class JsonTextDuplicateHandedOver(_JsonTextRefusedHandedOver):
    """Hands a call whose call_id was called before over as a tool.call, a second one with that id."""

    code = "duplicate_call_id"


class _EndsStream(_LibraryDesign):
    """The independent router under `error_event: ends_stream`: nothing after a routed error event is read."""

    options: ClassVar[Mapping[str, str]] = {"error_event": "ends_stream"}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.stopped = False

    def feed(self, event: Any) -> list[dict[str, Any]]:
        if self.stopped:
            return []
        outcomes = super().feed(event)
        self.stopped = event_type(event) == "error" and self.ends(outcomes)
        return outcomes

    def ends(self, outcomes: list[dict[str, Any]]) -> bool:
        """Whether the error event was routed: its one outcome is the producer's error."""
        return [o.get("code") for o in outcomes] not in (["malformed_event"], ["event_after_terminal"])


class EndsStreamEndAtError(_EndsStream):
    """Declares that an error event ends the stream, and produces the end there, not at close."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        return outcomes + self.router.close() if self.stopped and outcomes else outcomes


class EndsStreamAtMalformedError(_EndsStream):
    """Declares that an error event ends the stream, and ends it at a malformed error event too."""

    def ends(self, outcomes: list[dict[str, Any]]) -> bool:
        return [o.get("code") for o in outcomes] != ["event_after_terminal"]


_RESOLVING = ("tool.call", "tool.error")  # a call's one outcome (CORE-CALL-1)
_ENDED = ("completed", "failed", "incomplete")  # the lifecycles of a terminal event


class _HeldToTheEnd(_LibraryDesign):
    """The independent router behind `tool_call_point: response_done`: each call's one outcome,
    made at its done item, waits for the end of the response (CORE-POINT-1, -2)."""

    options: ClassVar[Mapping[str, str]] = {"tool_call_point": "response_done"}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.held: list[dict[str, Any]] | None = []  # None once the response has ended

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        if self.held is not None and event_type(event) == "response.output_item.done":
            self.held += [o for o in outcomes if o["kind"] in _RESOLVING]
            return [o for o in outcomes if o["kind"] not in _RESOLVING]
        ended = [o["event"] for o in outcomes if o["kind"] == "lifecycle" and o["event"] in _ENDED]
        return self.at_the_end(outcomes, ended[0]) if ended else outcomes

    def close(self) -> list[dict[str, Any]]:
        return self.at_the_end(super().close(), None)

    def at_the_end(self, outcomes: list[dict[str, Any]], ended: str | None) -> list[dict[str, Any]]:
        """The held outcomes after the terminal event's lifecycle and error, before the outcomes
        of the calls still open; `ended` is the terminal lifecycle, None at a close without one."""
        held, self.held = self.held or [], None
        if ended != "completed":
            held = [handed for outcome in held for handed in self.not_completed(outcome, ended)]
        opened = (i for i, o in enumerate(outcomes) if "item_id" in o or o["kind"] == "end")
        first = next(opened, len(outcomes))  # the open calls' outcomes name their item
        return [*outcomes[:first], *held, *outcomes[first:]]

    def not_completed(self, outcome: dict[str, Any], ended: str | None) -> list[dict[str, Any]]:
        """What a held outcome of a response that did not complete becomes: a call is refused."""
        if outcome["kind"] != "tool.call":
            return [outcome]
        names = {"item_id": outcome["item_id"], "call_id": outcome["call_id"]}
        message = "the response did not complete"
        return [{"kind": "tool.error", **names, "code": "incomplete", "message": message}]


class FailedResponseCallsRun(_HeldToTheEnd):
    """Hands the calls of a response that failed or was cut off over as they were made."""

    def not_completed(self, outcome: dict[str, Any], ended: str | None) -> list[dict[str, Any]]:
        return [outcome]


class FailedResponseCallsDropped(_HeldToTheEnd):
    """Drops the calls of a response that did not complete, saying nothing of them."""

    def not_completed(self, outcome: dict[str, Any], ended: str | None) -> list[dict[str, Any]]:
        return [] if outcome["kind"] == "tool.call" else [outcome]


class ClosedResponseCallsRun(_HeldToTheEnd):
    """Refuses the calls of response.failed and response.incomplete, and hands those of a stream
    closed without a terminal event over, as if it had completed."""

    def not_completed(self, outcome: dict[str, Any], ended: str | None) -> list[dict[str, Any]]:
        return [outcome] if ended is None else super().not_completed(outcome, ended)


# The `error` codes of a producer's faults, where `producer_fault: ends_stream` stops.
_FAULT_CODES = frozenset(schema(OUTCOME + "#/$defs/fault_code")["enum"])


class _StopsAtTheFault(_LibraryDesign):
    """The independent router behind `producer_fault: ends_stream`: at the first error that reports a
    fault of the producer the stream ends; nothing after it is read (CORE-FAULT-1, -2)."""

    options: ClassVar[Mapping[str, str]] = {"producer_fault": "ends_stream"}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.stopped = False
        self.ended_before = False  # a terminal event was routed before the fault

    def feed(self, event: Any) -> list[dict[str, Any]]:
        if self.stopped:
            return self.after_the_fault(event)
        outcomes = super().feed(event)
        for index, outcome in enumerate(outcomes):
            if outcome["kind"] == "error" and self.is_fault(outcome["code"]):
                self.stopped = True
                return self.at_the_fault(outcomes, index)
            self.ended_before |= outcome["kind"] == "lifecycle" and outcome["event"] in _ENDED
        return outcomes

    def close(self) -> list[dict[str, Any]]:
        outcomes = super().close()
        if self.stopped and outcomes and outcomes[-1]["kind"] == "end":
            outcomes[-1] = {**outcomes[-1], "status": self.end_status(outcomes[-1]["status"])}
        return outcomes

    def is_fault(self, code: str) -> bool:
        return code in _FAULT_CODES

    def at_the_fault(self, outcomes: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
        return outcomes[: index + 1]  # the error is the event's last outcome

    def after_the_fault(self, event: Any) -> list[dict[str, Any]]:
        return []

    def end_status(self, status: str) -> str:
        return status if self.ended_before else "failed"


class FaultEventRoutedOn(_StopsAtTheFault):
    """Stops after the event of the fault, not at its error: what that event made after the error
    (a call whose done item disagreed, say) is handed over."""

    def at_the_fault(self, outcomes: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
        return outcomes


class FaultStopsAnEventLate(_StopsAtTheFault):
    """Stops at the event after the fault: the next event is still routed."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.one_more = True

    def after_the_fault(self, event: Any) -> list[dict[str, Any]]:
        routed, self.one_more = self.one_more, False
        return self.handed_over(self.router.feed(event)) if routed else []


class FaultOnlyWhenMalformed(_StopsAtTheFault):
    """Takes only a malformed event for a fault, as a client whose decoder raises at bad JSON; an
    unknown item, a duplicate or a late delta is routed past."""

    def is_fault(self, code: str) -> bool:
        return code == "malformed_event"


class FaultEndsAsTheRouterSays(_StopsAtTheFault):
    """Ends a stream stopped at its fault with the status the router gives its close, `truncated`."""

    def end_status(self, status: str) -> str:
        return status


class FaultEndsFailedAfterTheTerminal(_StopsAtTheFault):
    """Ends a stream stopped at its fault as failed, though its response had ended before the fault."""

    def end_status(self, status: str) -> str:
        return "failed"


class FaultEndedAtTheFault(_StopsAtTheFault):
    """Produces the stream's end with the error of its fault, not at close."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.ended = False

    def at_the_fault(self, outcomes: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
        self.ended = True
        return [*outcomes[: index + 1], *super().close()]

    def close(self) -> list[dict[str, Any]]:
        return [] if self.ended else super().close()


class _ResponseIdsRewritten(_LibraryDesign):
    """The independent router behind `response_id: rewritten`: a gateway id for each producer id."""

    options: ClassVar[Mapping[str, str]] = {"response_id": "rewritten"}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.issued: dict[str, str] = {}  # producer id -> gateway id

    def hand_over(self, outcome: dict[str, Any]) -> dict[str, Any]:
        if outcome["kind"] == "lifecycle" and outcome["response_id"] is not None and self.rewrites(outcome):
            stated = outcome["response_id"]
            return {**outcome, "response_id": self.issued.setdefault(stated, self.gateway_id(stated))}
        return outcome

    def rewrites(self, outcome: dict[str, Any]) -> bool:
        return True

    def gateway_id(self, stated: str) -> str:
        return f"resp_gateway{len(self.issued) + 1}"


class ResponseIdsRewrittenToOne(_ResponseIdsRewritten):
    """Hands over one response id of its own for every producer id, as a gateway keyed by its route."""

    def gateway_id(self, stated: str) -> str:
        return "resp_gateway"


class ResponseIdRewrittenAtTheEnd(_ResponseIdsRewritten):
    """Rewrites the response id of the terminal event only, the response it stores; others pass as sent."""

    def rewrites(self, outcome: dict[str, Any]) -> bool:
        return outcome["event"] in ("completed", "failed", "incomplete")


class _CorrelatedByOutputIndex(_LibraryDesign):
    """The independent router behind `item_correlation: output_index`: an item event whose item_id
    names no announced item goes to the item announced at its output_index."""

    options: ClassVar[Mapping[str, str]] = {"item_correlation": "output_index"}

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.at_index: dict[int, str] = {}  # output index -> the id of the item announced there

    def feed(self, event: Any) -> list[dict[str, Any]]:
        kind, index = event_type(event), event.get("output_index") if isinstance(event, dict) else None
        if (
            kind == "response.output_item.added"
            and isinstance(event.get("item"), dict)
            and type(index) is int
        ):
            self.at_index[index] = str(event["item"].get("id"))
        known = self.at_index.get(index) if type(index) is int else None
        if known is not None and kind is not None:
            event = self.correlated(event, known)
        return super().feed(event)

    def correlated(self, event: dict[str, Any], known: str) -> dict[str, Any]:
        """The event as the item announced at its output index's (CORE-ITEM-10)."""
        announced = set(self.announced)
        item = event.get("item")
        if event["type"] == "response.output_item.done" and isinstance(item, dict):
            stated_id = item.get("id")
            if isinstance(stated_id, (dict, list)):  # no id at all: the router refuses it (CORE-ITEM-9)
                return event
            return event if stated_id in announced else {**event, "item": {**item, "id": known}}
        stated = event.get("item_id")
        if (
            isinstance(stated, str)
            and stated not in announced
            and event["type"] != "response.output_item.added"
        ):
            return {**event, "item_id": known}
        return event


class CorrelationSkipsTheDoneItem(_CorrelatedByOutputIndex):
    """Declares correlation by output index, and follows it for every item event but the done item."""

    def correlated(self, event: dict[str, Any], known: str) -> dict[str, Any]:
        return event if event["type"] == "response.output_item.done" else super().correlated(event, known)


class CorrelationKeepsTheEventsItemId(_CorrelatedByOutputIndex):
    """Routes an event by its output index, and hands its outcomes over under the item_id the event states."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        outcomes = super().feed(event)
        stated = event.get("item_id") if isinstance(event, dict) else None
        return [
            {**o, "item_id": stated} if isinstance(stated, str) and "item_id" in o else o for o in outcomes
        ]


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
    # and CORE-EVT-2: a name of the wrong type makes feed raise; and CORE-EVT-8: a duplicate
    # announcement with a status of the wrong type is duplicate_event, not malformed_event
    _mutant(
        Fault.ITEM_FIELDS_UNCHECKED,
        "CORE-ITEM-9 CORE-EVT-2 CORE-EVT-8",
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
        Fault.AGENT_CHECKED_ON_ITEM_EVENTS,
        "CORE-EVT-11",
        "decodes output item events into the beta SDK's type, whose agent is an object: a name is malformed",
    ),
    _mutant(
        Fault.AGENT_CHECKED_ON_TEXT_EVENTS,
        "CORE-EVT-11",
        "decodes text events into the beta SDK's type, whose agent is an object: a name is malformed",
    ),
    _mutant(
        Fault.WHOLE_NUMBER_INDEX_MALFORMED,
        "CORE-EVT-12",
        "decodes indexes into an integer type and refuses 1.0, as Go's int and Rust's u64 do",
    ),
    # and CORE-EVT-9: 1.5, no index at all, is not refused as malformed
    _mutant(
        Fault.INDEX_TRUNCATED,
        "CORE-EVT-12 CORE-EVT-9",
        "decodes indexes as floats and converts them to integers, so 1.5 is index 1",
    ),
    _mutant(
        Fault.ITEM_EVENT_INDEX_WHOLE_NUMBER_MALFORMED,
        "CORE-EVT-12",
        "decodes output item events into a type whose output_index is an integer, and refuses 1.0 there",
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
    _mutant(
        Fault.EMPTY_TEXT_DELTA_ENDS_PART,
        "CORE-TEXT-1",
        "takes an empty text delta for the end of its part on screen: the later deltas are kept, never shown",
    ),
    _mutant(Fault.PHASE_DROPPED, "CORE-TEXT-9", "shows commentary and the answer alike: no phase on text"),
    _mutant(
        Fault.TEXT_OUTPUT_INDEX_FROM_EVENT,
        "CORE-ITEM-16",
        "copies a text delta's output_index from the event, though its item was announced elsewhere",
    ),
    _mutant(
        Fault.OUTPUT_INDEX_MOVED_BY_EVENTS,
        "CORE-ITEM-16",
        "moves an item to the output_index each of its events states, as a gateway's renumbering left it",
    ),
    _mutant(
        Fault.TEXT_OUTPUT_INDEX_FROM_FIRST_DELTA,
        "CORE-ITEM-16",
        "places a message's text stream at the output_index its first text delta states",
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
        Fault.NAME_CHANGE_OWN_CODE,
        "CORE-CALL-18",
        "reports a done item's other name as an error name_mismatch of its own, not as done_mismatch",
    ),
    _mutant(
        Fault.NAME_CHANGE_RETRACTED_SILENTLY,
        "CORE-CALL-18",
        "at arguments_done, retracts a call whose done item names another tool without a done_mismatch",
        "arguments_done",
    ),
    _mutant(
        Fault.RESTATED_CALL_ID_REPORTED,
        "CORE-CALL-19",
        "reports a done item's restated call id as a done_mismatch, on every client tool search",
    ),
    _mutant(
        Fault.RESTATED_CALL_ID_REPORTED_AT_ARGUMENTS_DONE,
        "CORE-CALL-19",
        "at arguments_done, reports a done item's restated call id as a done_mismatch, and re-addresses it",
        "arguments_done",
    ),
    _mutant(
        Fault.CUSTOM_RESTATED_CALL_ID_REPORTED,
        "CORE-CALL-19",
        "reports a custom call's restated call id as a done_mismatch, comparing it as its input events do",
    ),
    _mutant(
        Fault.RESTATED_CALL_ID_RETRACTED,
        "CORE-CALL-20",
        "at arguments_done, retracts a call whose done item restates only its call id",
        "arguments_done",
    ),
    _mutant(
        Fault.RESTATED_CALL_MADE_AGAIN,
        "CORE-CALL-20",
        "at arguments_done, makes a call whose done item restates its call id once more, at the new id",
        "arguments_done",
    ),
    _mutant(
        Fault.RESTATED_IDS_SWAPPED,
        "CORE-CALL-20",
        "at arguments_done, swaps the ids of call_id_restated: the announced one is its call_id",
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
        Fault.STATUS_NOT_COMPLETED_REFUSED,
        "CORE-CALL-21",
        "refuses a done call item whose status is not completed, in_progress and absent alike",
    ),
    # and CORE-CALL-2: the done item is not taken for the call's canonical point
    _mutant(
        Fault.IN_PROGRESS_DONE_ITEM_AWAITED,
        "CORE-CALL-21 CORE-CALL-2",
        "takes a done call item whose status says in_progress for an update, and waits for its done item",
    ),
    _mutant(
        Fault.INPUT_FAULT_BEFORE_DUPLICATE,
        "CORE-CALL-22",
        "checks a catalogue call's input before its call id: a duplicate is reported as a bad input",
    ),
    _mutant(
        Fault.JSON_PARSED_BEFORE_DUPLICATE,
        "CORE-CALL-22",
        "parses a function call's arguments before looking up its call id: a duplicate is invalid_json",
    ),
    _mutant(
        Fault.DEPTH_BEFORE_DUPLICATE,
        "CORE-CALL-22",
        "guards a function call's arguments against deep nesting before its call id: a duplicate is too_deep",
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
    # more shapes of the same requirements: each another mistake a router makes
    _mutant(
        Fault.ERROR_FROM_ERROR_MEMBER,
        "CORE-EVT-1",
        "an event of an unknown type that carries an `error` object is an error, as the SDKs' checks make it",
    ),
    _mutant(
        Fault.ITEM_MEMBER_ROUTED,
        "CORE-EVT-1",
        "an event of an unknown type that carries an `item` is routed as that item's output_item.done",
    ),
    _mutant(
        Fault.TYPE_LOOKED_UP_UNCHECKED,
        "CORE-EVT-2",
        "looks the type up in its routing table before checking it is a string: a list or an object raises",
    ),
    _mutant(
        Fault.NESTED_MEMBER_READ_WITH_GET,
        "CORE-EVT-2",
        "reads `response` and `item` with .get, so one that is a string or an array raises",
    ),
    _mutant(
        Fault.MALFORMED_AS_IGNORED,
        "CORE-EVT-9",
        "answers an event it cannot decode with ignored, as a decoder that falls back to an unknown variant",
    ),
    _mutant(
        Fault.MISSING_FIELD_CODE,
        "CORE-EVT-9",
        "reports an event missing a required field with its own code, missing_field, not malformed_event",
    ),
    _mutant(
        Fault.MALFORMED_ADDED_REGISTERS,
        "CORE-EVT-10",
        "registers an announced item before checking its fields: a malformed announcement stands",
    ),
    _mutant(
        Fault.MALFORMED_TERMINAL_ENDS,
        "CORE-EVT-10",
        "fixes the end status at a terminal event before reading it: a malformed one ends the stream",
    ),
    _mutant(
        Fault.UNKNOWN_TYPE_REFUSED,
        "CORE-EVT-3",
        "refuses an event of a type it does not know with an error, as a strict decoder does",
    ),
    _mutant(
        Fault.UNKNOWN_TYPE_UNNAMED,
        "CORE-EVT-3",
        "records an unknown event under a catch-all variant that keeps no type: ignored `unknown`",
    ),
    _mutant(
        Fault.VENDOR_TYPE_MALFORMED,
        "CORE-EVT-4",
        "takes a type with a vendor prefix for a malformed one: its name is no event type",
    ),
    _mutant(
        Fault.VENDOR_PREFIX_DROPPED,
        "CORE-EVT-4",
        "reports a vendor event as ignored under the name after its prefix",
    ),
    _mutant(
        Fault.CONTENT_PARTS_UNREPORTED,
        "CORE-EVT-5",
        "takes content_part.added and .done in to track parts, and reports neither",
    ),
    _mutant(
        Fault.HOSTED_DELTAS_PREVIEWED,
        "CORE-EVT-5",
        "previews a hosted call's argument and code deltas as tool.arguments.delta",
    ),
    _mutant(
        Fault.SEQUENCE_NUMBER_REQUIRED,
        "CORE-EVT-6",
        "decodes sequence_number as a required integer: an event without one is malformed",
    ),
    _mutant(
        Fault.SEQUENCE_GAPS_REPORTED,
        "CORE-EVT-6",
        "reports a sequence number that does not follow the last one as an error",
    ),
    _mutant(
        Fault.NULL_ITEM_ID_LOOKED_UP,
        "CORE-EVT-7",
        "looks an item up by an item_id that is null: unknown_item, not attributed by output_index",
    ),
    _mutant(
        Fault.NULL_CALL_ID_STATED,
        "CORE-EVT-7",
        "takes a call_id, name or namespace stated null at added for stated: the done item's is a mismatch",
    ),
    _mutant(
        Fault.LATE_BEFORE_FIELDS,
        "CORE-EVT-8",
        "refuses an event for a finished item as late or repeated before it checks the event's fields",
    ),
    _mutant(
        Fault.DUPLICATE_BEFORE_FIELDS,
        "CORE-EVT-8",
        "refuses a repeated output_item.added or .done as a duplicate before it checks the item's fields",
    ),
    _mutant(
        Fault.ITEMS_KEYED_BY_OUTPUT_INDEX,
        "CORE-ITEM-1",
        "keys items by output index: one announced at an index another item holds is refused as a duplicate",
    ),
    _mutant(
        Fault.MISSING_OUTPUT_INDEX_IS_ZERO,
        "CORE-ITEM-1",
        "takes an announcement without output_index for index 0, not the number of items announced before",
    ),
    _mutant(
        Fault.OUTPUT_INDEX_FIRST_ANNOUNCED,
        "CORE-ITEM-2",
        "attributes an event without item_id to the first item announced at its output_index, not the last",
    ),
    _mutant(
        Fault.ITEM_ID_REQUIRED,
        "CORE-ITEM-2",
        "refuses an item event without item_id as malformed, even when its output_index names the item",
    ),
    _mutant(
        Fault.UNKNOWN_ITEM_ROUTED_ANYWAY,
        "CORE-ITEM-3",
        "reports a delta naming an unknown item, and hands the delta over all the same",
    ),
    _mutant(Fault.UNKNOWN_ITEM_SILENT, "CORE-ITEM-3", "drops an event naming an unknown item without a word"),
    _mutant(
        Fault.DONE_TYPE_NOT_COMPARED,
        "CORE-ITEM-4",
        "routes an output_item.done whatever type it states for an announced item",
    ),
    _mutant(
        Fault.TYPE_MISMATCH_SILENT, "CORE-ITEM-4", "drops an event of another item's type without a word"
    ),
    _mutant(
        Fault.SECOND_ADDED_SILENT,
        "CORE-ITEM-5",
        "ignores a second output_item.added for an announced id without a word",
    ),
    _mutant(
        Fault.SECOND_ADDED_RESETS,
        "CORE-ITEM-5",
        "reports a second output_item.added, and starts the item's text and arguments over",
    ),
    _mutant(
        Fault.SECOND_DONE_LATE,
        "CORE-ITEM-14",
        "answers a second output_item.done with late_delta, as any event for a finished item",
    ),
    _mutant(
        Fault.REPEATED_DONE_COMPARED,
        "CORE-ITEM-14",
        "takes a repeated output_item.done for an update, reporting only what it changes",
    ),
    _mutant(
        Fault.DONE_WITHOUT_ADDED_CALLS_ONLY,
        "CORE-ITEM-6",
        "accepts a done item never announced only when it is a call; any other is unknown_item",
    ),
    _mutant(
        Fault.DONE_WITHOUT_ADDED_LEFT_OPEN,
        "CORE-ITEM-6",
        "takes a done item never announced for its announcement only, so its call never completes",
    ),
    _mutant(
        Fault.CONTENT_INDEX_REQUIRED,
        "CORE-ITEM-7",
        "refuses a text, refusal or reasoning event without content_index as malformed",
    ),
    _mutant(
        Fault.OMITTED_OUTPUT_INDEX_FROM_COUNT,
        "CORE-ITEM-15",
        "reports an event without output_index at the index of the item announced last",
    ),
    _mutant(
        Fault.OUTPUT_INDEX_REQUIRED,
        "CORE-ITEM-15",
        "refuses an item event that names its item_id but omits output_index as malformed",
    ),
    _mutant(
        Fault.OUTPUT_INDEX_OVER_CALL_ID,
        "CORE-ITEM-8",
        "attributes a custom input event stating call_id and output_index by its position, not its call id",
    ),
    _mutant(
        Fault.CALL_ID_FIRST_ANNOUNCED,
        "CORE-ITEM-8",
        "attributes a custom input event by call_id to the first item announced with it, not the most recent",
    ),
    _mutant(
        Fault.NO_ID_CUSTOM_INPUT_UNKNOWN,
        "CORE-ITEM-11",
        "looks a custom input event that names no item up by a missing id: unknown_item, not malformed",
    ),
    _mutant(
        Fault.NO_ID_CUSTOM_INPUT_IGNORED,
        "CORE-ITEM-11",
        "answers a custom input event that names no item with ignored, as a wire mapper that drops it",
    ),
    _mutant(
        Fault.CONFLICTING_IDS_REFUSED,
        "CORE-ITEM-12",
        "refuses a custom input event whose item_id and call_id name two calls, instead of following item_id",
    ),
    _mutant(
        Fault.EVENT_CALL_ID_ADOPTED,
        "CORE-ITEM-12",
        "at arguments_done, follows item_id, and makes the call with the call_id the event states",
        "arguments_done",
    ),
    _mutant(
        Fault.CALL_ID_CHECKED_ONLY_FOR_LOOKUP,
        "CORE-ITEM-13",
        "type-checks a custom input event's call_id only when it looks the item up by it",
    ),
    _mutant(
        Fault.CALL_ID_STRINGIFIED,
        "CORE-ITEM-13",
        "reads a custom input event's call_id with str(), so a number is a call id",
    ),
    _mutant(
        Fault.ITEM_CONTENT_CHECKED,
        "CORE-ITEM-9",
        "type-checks a message item's role and content too, so a wrong type there makes the event malformed",
    ),
    _mutant(
        Fault.TEXT_DELTA_STRIPPED,
        "CORE-TEXT-1",
        "strips the whitespace around each text delta, so words run together",
    ),
    _mutant(
        Fault.TEXT_ONLY_AT_DONE,
        "CORE-TEXT-1",
        "shows the answer at its output_text.done only, producing no text.delta",
    ),
    _mutant(Fault.TEXT_DONE_DROPPED, "CORE-TEXT-2", "takes output_text.done in and produces no text.done"),
    _mutant(
        Fault.TEXT_DONE_STRIPPED, "CORE-TEXT-2", "strips the whitespace around a part's text at its text.done"
    ),
    _mutant(
        Fault.TEXT_MISMATCH_AFTER_DONE,
        "CORE-TEXT-11",
        "reports a text done_mismatch after the text.done, not before it",
    ),
    _mutant(
        Fault.TEXT_MISMATCH_WITHOUT_DELTAS,
        "CORE-TEXT-11",
        "compares an output_text.done with its deltas even when none came, so a lone .done is a mismatch",
    ),
    _mutant(
        Fault.REASONING_ALSO_TEXT,
        "CORE-TEXT-3",
        "shows reasoning deltas inline with the answer, as text.delta besides reasoning.delta",
    ),
    _mutant(
        Fault.ARGUMENTS_ALSO_TEXT,
        "CORE-TEXT-3",
        "shows a function call's argument deltas as answer text besides their preview",
    ),
    _mutant(
        Fault.REFUSAL_AS_ERROR,
        "CORE-TEXT-4",
        "raises a refusal delta to the application as an error, code refusal",
    ),
    _mutant(
        Fault.REFUSAL_AT_ITEM_DONE,
        "CORE-TEXT-4",
        "gathers a message's refusal deltas and shows the refusal once, at the item's done",
    ),
    _mutant(
        Fault.SUMMARY_AS_CONTENT_INDEX,
        "CORE-TEXT-5",
        "reports a reasoning summary delta with content_index, not summary_index",
    ),
    _mutant(
        Fault.REASONING_TEXT_UNROUTED,
        "CORE-TEXT-5",
        "routes only reasoning summaries: response.reasoning_text.delta is ignored",
    ),
    _mutant(
        Fault.LATE_TEXT_DELTA_REPORTED_AND_SHOWN,
        "CORE-TEXT-6",
        "reports a text delta after its part is done, and shows it all the same",
    ),
    _mutant(
        Fault.SECOND_TEXT_DONE_SILENT,
        "CORE-TEXT-7",
        "ignores a second output_text.done of a part without a word",
    ),
    _mutant(
        Fault.TEXT_DONE_AFTER_ITEM_DONE_ROUTED,
        "CORE-TEXT-7",
        "checks only the part: an output_text.done after its item's done is routed",
    ),
    _mutant(
        Fault.COMPARES_RAW_STRINGS,
        "CORE-TEXT-8",
        "compares texts code unit by code unit: a lone surrogate is not the U+FFFD a decoder made of it",
    ),
    _mutant(
        Fault.COMPARES_NORMALIZED,
        "CORE-TEXT-8",
        "compares texts after NFC normalization, so composed and decomposed accents are equal",
    ),
    _mutant(
        Fault.LOGPROBS_REQUIRED,
        "CORE-TEXT-10",
        "decodes logprobs as a required field: a text event without it, or with null, is malformed",
    ),
    _mutant(
        Fault.LOGPROBS_TOKENS_AS_TEXT,
        "CORE-TEXT-10",
        "builds a text delta from the tokens of its logprobs when it has them",
    ),
    _mutant(
        Fault.ARGUMENTS_DELTA_ACCUMULATED,
        "CORE-ARGS-1",
        "hands over the arguments streamed so far at each delta, a snapshot, not the delta",
    ),
    _mutant(
        Fault.CUSTOM_INPUT_NOT_PREVIEWED,
        "CORE-ARGS-1",
        "previews function arguments only: a custom call's input deltas produce nothing",
    ),
    _mutant(
        Fault.BUFFER_BY_CALL_ID,
        "CORE-ARGS-2",
        "keys argument buffers by call_id, so parallel calls announced without one share a buffer",
    ),
    _mutant(
        Fault.BUFFER_OF_CURRENT_CALL,
        "CORE-ARGS-2",
        "appends every argument delta to the call announced last, whatever item it names",
    ),
    _mutant(
        Fault.EMPTY_DELTA_MALFORMED,
        "CORE-ARGS-3",
        "checks a required delta with `if not delta`, so an empty argument delta is malformed",
    ),
    _mutant(
        Fault.EMPTY_DELTA_ENDS_ARGUMENTS,
        "CORE-ARGS-3",
        "takes an empty argument delta for the end of the arguments, so later deltas are late",
    ),
    _mutant(
        Fault.LATE_ARGUMENTS_DELTA_SILENT,
        "CORE-ARGS-4",
        "drops a delta after the arguments are complete without a word",
    ),
    _mutant(
        Fault.EMPTY_DONE_ITEM_TEXT_ABSENT,
        "CORE-ARGS-5",
        "takes a done item's empty arguments for none (`item.get(\"arguments\") or`): the .done's run",
    ),
    _mutant(
        Fault.MISMATCH_COMPARED_AS_JSON,
        "CORE-ARGS-6",
        "compares the deltas with the complete arguments as parsed JSON, so a difference in spacing is none",
    ),
    _mutant(
        Fault.MISMATCH_FOR_EACH_SOURCE,
        "CORE-ARGS-6",
        "compares every complete source with the deltas, so one disagreement is reported twice",
    ),
    _mutant(
        Fault.CUSTOM_DONE_ITEM_NOT_COMPARED,
        "CORE-ARGS-8",
        "compares a function call's done item with its .done, but not a custom call's",
    ),
    _mutant(
        Fault.DONE_ITEM_COMPARED_AS_JSON,
        "CORE-ARGS-8",
        "compares the done item with the .done as parsed JSON, and not at all when one does not parse",
    ),
    _mutant(
        Fault.ARGUMENTS_DONE_AFTER_ITEM_DONE_ACCEPTED,
        "CORE-ARGS-7",
        "refuses only a second arguments .done, so one after the call's done item is taken silently",
    ),
    _mutant(
        Fault.SECOND_ARGUMENTS_DONE_SILENT, "CORE-ARGS-7", "ignores a second arguments .done without a word"
    ),
    _mutant(
        Fault.CALL_AT_BOTH_POINTS,
        "CORE-CALL-1 CORE-CALL-2",
        "produces the call at its arguments .done and again at its done item",
    ),
    _mutant(
        Fault.VALIDATED_AT_ARGUMENTS_DONE,
        "CORE-CALL-1",
        "refuses arguments that do not parse at their .done, and still makes the call at the done item",
    ),
    _mutant(
        Fault.FIRE_AT_ARGUMENTS_DONE,
        "CORE-CALL-2",
        "declares the canonical point and makes the call at its arguments .done",
    ),
    _mutant(
        Fault.CALL_BEFORE_MISMATCH,
        "CORE-CALL-2",
        "produces the tool.call before the done_mismatch its done item causes",
    ),
    _mutant(
        Fault.REPAIR_TRUNCATED_JSON,
        "CORE-CALL-3 CORE-CALLTYPE-5",
        "repairs arguments cut short (an approval request's too) by closing their strings and brackets,"
        " as partial-JSON parsers do",
    ),
    _mutant(
        Fault.NON_OBJECT_IS_INVALID_JSON,
        "CORE-CALL-15",
        "refuses arguments that are not an object as invalid_json, as a decoder into a map does",
    ),
    _mutant(
        Fault.DOUBLE_ENCODED_UNWRAPPED,
        "CORE-CALL-15",
        "decodes arguments that are a JSON string once more and runs the object inside",
    ),
    _mutant(
        Fault.CUSTOM_INPUT_PARSED_WHEN_JSON,
        "CORE-CALL-16",
        "tries to parse a custom call's input as JSON and hands over what it parsed, written out again",
    ),
    _mutant(
        Fault.CUSTOM_INPUT_UNQUOTED,
        "CORE-CALL-16",
        "takes a custom input that is a quoted JSON string for double-encoded and unquotes it",
    ),
    _mutant(
        Fault.DONE_ITEM_FILLS_NOTHING,
        "CORE-CALL-4",
        "reads a call's call_id and name at its announcement only: the done item never fills them in",
    ),
    _mutant(
        Fault.NAMESPACE_DROPPED,
        "CORE-CALL-4",
        "builds tool.call without namespace, as a type that lacks the field does",
    ),
    _mutant(
        Fault.IDENTITY_CHANGE_SILENT,
        "CORE-CALL-17",
        "keeps the announced call_id when the done item states another, without a word",
    ),
    _mutant(
        Fault.IDENTITY_CHANGE_REFUSES_CALL,
        "CORE-CALL-17",
        "refuses a call whose done item states another call_id than its announcement, as another call",
    ),
    _mutant(
        Fault.MISSING_ARGUMENTS_EMPTY_OBJECT,
        "CORE-CALL-5",
        'runs a function call without a complete source with `arguments or "{}"`',
    ),
    _mutant(
        Fault.INCOMPLETE_PARSED_FIRST,
        "CORE-CALL-5",
        "parses an incomplete call's arguments first, so cut-off JSON is invalid_json, not incomplete",
    ),
    _mutant(
        Fault.OPEN_CALLS_BEFORE_LIFECYCLE,
        "CORE-CALL-6",
        "reports the calls still open at a terminal event before the event's lifecycle",
    ),
    _mutant(
        Fault.OPEN_CALLS_ONLY_AT_CLOSE,
        "CORE-CALL-6",
        "reports the calls still open only at close, not at the terminal event",
    ),
    _mutant(
        Fault.CALL_IDS_PER_TOOL_TYPE,
        "CORE-CALL-7",
        "keeps the called call ids per item type, so a custom call may reuse a function call's",
    ),
    _mutant(
        Fault.ANNOUNCED_CALL_IDS_TAKEN,
        "CORE-CALL-7",
        "refuses a call whose call_id another item was announced with, called or not",
    ),
    _mutant(
        Fault.CALL_SUFFIX_EXECUTED,
        "CORE-CALL-9",
        "takes every item type ending in `_call` for a call the client runs",
    ),
    _mutant(
        Fault.CODE_INTERPRETER_RUN_LOCALLY,
        "CORE-CALL-9",
        "runs a code_interpreter_call's code on the client, as a custom call's input",
    ),
    _mutant(
        Fault.DUPLICATE_NAMES_TOP_LEVEL_ONLY,
        "CORE-CALL-10",
        "looks for duplicated member names in the arguments object only, not in the objects inside it",
    ),
    _mutant(
        Fault.UNDERFLOW_REFUSED,
        "CORE-CALL-11",
        "refuses a number too small for a binary64 (1e-999) too, as an overflow",
    ),
    _mutant(
        Fault.INCOMPLETE_RETRACTED_ONLY_WHEN_CHANGED,
        "CORE-CALL-12",
        "at arguments_done, retracts a call whose done item is incomplete only if it states another call",
        "arguments_done",
    ),
    _mutant(
        Fault.RETRACT_BEFORE_MISMATCH,
        "CORE-CALL-12",
        "at arguments_done, retracts a call whose done item is incomplete before reporting its done_mismatch",
        "arguments_done",
    ),
    _mutant(
        Fault.RETRACT_IGNORES_NEW_NAMESPACE,
        "CORE-CALL-13",
        "at arguments_done, compares only what the announcement stated: a new namespace retracts nothing",
        "arguments_done",
    ),
    _mutant(
        Fault.RETRACT_IGNORES_TEXT,
        "CORE-CALL-13",
        "at arguments_done, retracts a call for another call_id or name, but not for other arguments",
        "arguments_done",
    ),
    _mutant(
        Fault.RETRACT_ONLY_AT_CLOSE,
        "CORE-CALL-14",
        "at arguments_done, retracts an unconfirmed call only at close, not at the terminal event",
        "arguments_done",
    ),
    _mutant(
        Fault.RETRACT_ONLY_ON_FAILURE,
        "CORE-CALL-14",
        "at arguments_done, takes a completed response for the confirmation of its calls, retracting none",
        "arguments_done",
    ),
    _mutant(
        Fault.CATALOGUE_NAME_IS_ITEM_TYPE,
        "CORE-CALLTYPE-1",
        "names a catalogue call's tool.call after its item type (shell_call), not its tool (shell)",
    ),
    _mutant(
        Fault.CATALOGUE_CALL_IDS_UNCHECKED,
        "CORE-CALLTYPE-1",
        "checks the call ids of function and custom calls only: a catalogue call reusing one runs",
    ),
    _mutant(
        Fault.PATCH_DIFF_FROM_DELTAS,
        "CORE-CALLTYPE-2",
        "applies the operation diff its deltas built, not the done item's",
    ),
    _mutant(
        Fault.SHELL_COMMANDS_FROM_PREVIEW,
        "CORE-CALLTYPE-2",
        "runs the shell commands its command previews showed, not the done item's",
    ),
    _mutant(
        Fault.CATALOGUE_FAILED_STATUS_RUNS,
        "CORE-CALLTYPE-3",
        "refuses a catalogue call whose done item is incomplete, as a function call's, but runs a failed one",
    ),
    _mutant(
        Fault.CATALOGUE_OPEN_AT_END_SILENT,
        "CORE-CALLTYPE-3",
        "reports only function and custom calls still open at the end, not catalogue calls",
    ),
    _mutant(
        Fault.MISSING_INPUT_INVALID,
        "CORE-CALLTYPE-10",
        "refuses a catalogue call whose done item lacks its input as invalid_arguments, not incomplete",
    ),
    _mutant(
        Fault.APPROVAL_NAMED_BY_SERVER,
        "CORE-CALLTYPE-10",
        "names an approval request without a name after its server, and asks about it",
    ),
    _mutant(
        Fault.HOSTED_OPEN_AT_END_INCOMPLETE,
        "CORE-CALLTYPE-4",
        "reports a server-run catalogue item still open at the end as a tool.error incomplete",
    ),
    _mutant(
        Fault.PROGRAM_EXECUTED,
        "CORE-CALLTYPE-4",
        "runs a program item's code on the client, as a custom call's input",
    ),
    _mutant(
        Fault.APPROVAL_NAME_PREFIXED,
        "CORE-CALLTYPE-5",
        "names an approval request's call after its server and tool, as MCP clients namespace their tools",
    ),
    _mutant(
        Fault.APPROVAL_ARGUMENTS_NOT_REFUSED,
        "CORE-CALLTYPE-5",
        "asks about an approval request whose arguments are not a JSON object with empty arguments",
    ),
    _mutant(
        Fault.DIFF_DELTA_ACCUMULATED,
        "CORE-CALLTYPE-6",
        "previews the operation diff streamed so far at each delta, not the delta",
    ),
    _mutant(
        Fault.DIFF_DELTA_BY_LINE,
        "CORE-CALLTYPE-6",
        "previews the operation diff line by line, holding a delta's unfinished line back",
    ),
    _mutant(
        Fault.COMMAND_INDEX_DROPPED, "CORE-CALLTYPE-11", "previews a shell command without its command_index"
    ),
    _mutant(
        Fault.SHELL_EVENTS_NEED_ITEM_ID,
        "CORE-CALLTYPE-11",
        "refuses shell command events, which carry no item_id, as malformed",
    ),
    _mutant(
        Fault.PREVIEW_DONE_AS_DELTA,
        "CORE-CALLTYPE-12",
        "shows a preview's .done text once more, as a final tool.arguments.delta",
    ),
    _mutant(
        Fault.PREVIEW_DONE_COMPARED,
        "CORE-CALLTYPE-12",
        "compares a preview's .done with its deltas and reports a done_mismatch",
    ),
    _mutant(
        Fault.WRONG_SHAPE_INCOMPLETE,
        "CORE-CALLTYPE-7 CORE-CALLTYPE-5",
        "refuses a catalogue input (or approval arguments) of the wrong shape as incomplete,"
        " not invalid_arguments",
    ),
    _mutant(
        Fault.DELETE_NEEDS_DIFF,
        "CORE-CALLTYPE-7",
        "asks every apply_patch operation for a diff, so a delete_file is refused",
    ),
    _mutant(
        Fault.LATE_PREVIEW_SILENT,
        "CORE-CALLTYPE-8",
        "drops a preview delta after its preview or item is done without a word",
    ),
    _mutant(
        Fault.LATE_PREVIEW_REPORTED_AND_SHOWN,
        "CORE-CALLTYPE-8",
        "reports a late preview delta, and shows it all the same",
    ),
    _mutant(
        Fault.PREVIEW_DONE_AFTER_ITEM_DONE_ACCEPTED,
        "CORE-CALLTYPE-9",
        "refuses only a second .done of a preview, so one after the item's done item is taken",
    ),
    _mutant(
        Fault.SECOND_PREVIEW_DONE_LATE,
        "CORE-CALLTYPE-9",
        "answers a repeated preview .done with late_delta, not duplicate_event",
    ),
    _mutant(
        Fault.OUTPUT_NULL_REFUSED,
        "CORE-LIFE-1",
        "refuses a lifecycle event whose response.output is null as malformed",
    ),
    _mutant(
        Fault.QUEUED_UNKNOWN,
        "CORE-LIFE-1",
        "does not know response.queued, so a background response's queued event is ignored",
    ),
    _mutant(
        Fault.LAST_TERMINAL_STATUS_WINS,
        "CORE-LIFE-2",
        "refuses a second terminal event, but takes its status for the end",
    ),
    _mutant(
        Fault.INCOMPLETE_ENDS_COMPLETED,
        "CORE-LIFE-2",
        "ends an incomplete response completed, as a stream that finished",
    ),
    _mutant(
        Fault.FAILED_ERROR_BEFORE_LIFECYCLE,
        "CORE-LIFE-3",
        "reports response.failed's error before its lifecycle",
    ),
    _mutant(
        Fault.ERROR_READ_ON_EVERY_EVENT,
        "CORE-LIFE-3",
        "reads response.error on every lifecycle event: a wrong type is malformed, a stated one an error",
    ),
    _mutant(
        Fault.AFTER_TERMINAL_SILENT,
        "CORE-LIFE-4",
        "drops every event after the terminal event without a word",
    ),
    _mutant(
        Fault.AFTER_TERMINAL_UNKNOWN_IGNORED,
        "CORE-LIFE-4",
        "looks the type up before it checks for the end: unknown events after it are ignored",
    ),
    _mutant(
        Fault.END_BEFORE_OPEN_CALLS,
        "CORE-LIFE-5",
        "produces end at close before the outcomes of the calls still open",
    ),
    _mutant(Fault.END_AT_TERMINAL, "CORE-LIFE-5", "produces end at the terminal event, not at close"),
    _mutant(
        Fault.NO_TERMINAL_ENDS_COMPLETED,
        "CORE-LIFE-8",
        "ends a stream without a terminal event completed, as a stream that finished",
    ),
    _mutant(
        Fault.MALFORMED_ERROR_COUNTS,
        "CORE-LIFE-8",
        "counts an error event before reading it, so a malformed one ends the stream failed",
    ),
    _mutant(
        Fault.STATUS_UNCHECKED, "CORE-LIFE-6", "never type-checks response.status, so a number there passes"
    ),
    _mutant(
        Fault.RESPONSE_ID_STRINGIFIED, "CORE-LIFE-6", "reads response.id with str(), so a number is an id"
    ),
    _mutant(
        Fault.NESTED_ERROR_ONLY,
        "CORE-ERR-1",
        "reads only the nested error shape, so a flat error event is malformed",
    ),
    _mutant(
        Fault.CODE_DEFAULTS_TO_TYPE,
        "CORE-ERR-1",
        "gives an error event without a code the error's type, or `error`, for one",
    ),
    _mutant(
        Fault.ERROR_EVENT_SETTLES_CALLS,
        "CORE-ERR-4",
        "reports the calls still open as incomplete at an error event, and goes on routing",
    ),
    _mutant(
        Fault.ERROR_EVENT_COUNTS_AS_TERMINAL,
        "CORE-ERR-4",
        "counts an error event as the terminal event, so the terminal event after it is refused",
    ),
    _mutant(
        Fault.ERROR_STRING_AS_MESSAGE,
        "CORE-ERR-2",
        "takes an `error` member that is a string for the error's message",
    ),
    _mutant(
        Fault.ERROR_STRING_AS_CODE,
        "CORE-ERR-2",
        "decodes an `error` member that is a string as the error's code, the message from the flat fields",
    ),
    _mutant(
        Fault.TOOL_ERROR_CALL_ID_NULL,
        "CORE-OUT-1",
        "writes call_id null on a tool.error whose call has none, instead of leaving it out",
    ),
    _mutant(
        Fault.FAILED_ERROR_MESSAGE_NULL,
        "CORE-OUT-1",
        "writes message null on the error of a failed response that states none",
    ),
    _mutant(
        Fault.CALL_DEFERRED_TO_NEXT_EVENT,
        "CORE-OUT-2 CORE-CALL-2 CORE-CALLTYPE-1",
        "queues each tool.call and hands it over with the next event's outcomes, not at its done item",
    ),
    _mutant(
        Fault.ERRORS_DEFERRED_TO_CLOSE, "CORE-OUT-2", "collects its own errors and reports them all at close"
    ),
    _mutant(Fault.LIMIT_INCLUSIVE, "CORE-LIMIT-1", "refuses a call's deltas at 1 MiB exactly, not past it"),
    _mutant(
        Fault.LIMIT_SHARED_BY_CALLS,
        "CORE-LIMIT-1",
        "bounds the deltas of all calls together, not each call's",
    ),
    _mutant(
        Fault.LATER_OVERSIZED_DELTAS_LATE,
        "CORE-LIMIT-5",
        "answers the later deltas of a call refused as too large with late_delta",
    ),
    _mutant(
        Fault.TOO_LARGE_DONE_REFUSED,
        "CORE-LIMIT-6",
        "refuses the arguments .done of a call refused as too large as too_large, as one more delta",
    ),
    _mutant(
        Fault.TOO_LARGE_DONE_DUPLICATE,
        "CORE-LIMIT-6",
        "takes a call refused as too large for done: its .done and done item are duplicate_event",
    ),
    _mutant(
        Fault.DEPTH_LIMIT_INCLUSIVE,
        "CORE-LIMIT-2",
        "refuses arguments nesting 128 levels deep, not only those past 128",
    ),
    _mutant(
        Fault.TEXT_LIMIT_ERROR_EVERY_DELTA,
        "CORE-LIMIT-3",
        "reports too_large at every delta of a text part past the limit, not once",
    ),
    _mutant(
        Fault.TEXT_PAST_LIMIT_DONE_DROPPED,
        "CORE-LIMIT-7",
        "produces no text.done for a part whose deltas passed the limit",
    ),
    _mutant(
        Fault.TEXT_PAST_LIMIT_RESTARTS_BUFFER,
        "CORE-LIMIT-7",
        "starts a new buffer for the deltas after the limit and compares it with the part's .done",
    ),
    _mutant(
        Fault.SURROGATE_PAIR_SIX_BYTES,
        "CORE-LIMIT-4",
        "counts a character beyond the BMP as two surrogates of 3 bytes each, as CESU-8 does",
    ),
    _mutant(
        Fault.SURROGATE_ZERO_BYTES,
        "CORE-LIMIT-4",
        "measures deltas with encode('utf-8', 'ignore'), so a lone surrogate counts nothing",
    ),
    # options for library designs (section 12)
    mutant(ArgumentsTextFromDeltas, "core.json-text-from-deltas", "CORE-JSON-1"),
    mutant(OpenCallHandedOver, "core.json-text-open-call-handed-over", "CORE-JSON-2"),
    mutant(ReadsOnAfterErrorEvent, "core.reads-on-after-error-event", "CORE-ERR-3"),
    mutant(ResponseIdPerEvent, "core.response-id-per-event", "CORE-LIFE-7"),
    mutant(LogprobsTyped, "core.logprobs-typed", "CORE-TEXT-10"),
    mutant(OutputIndexDeclaredOnly, "core.output-index-declared-only", "CORE-ITEM-10"),
    mutant(CorrelationSkipsTheDoneItem, "core.correlation-skips-the-done-item", "CORE-ITEM-10"),
    mutant(CorrelationKeepsTheEventsItemId, "core.correlation-keeps-the-events-item-id", "CORE-ITEM-10"),
    mutant(JsonTextFromArgumentsDone, "core.json-text-from-arguments-done", "CORE-JSON-1"),
    mutant(JsonTextEncodedTwice, "core.json-text-encoded-twice", "CORE-JSON-1"),
    mutant(JsonTextIncompleteHandedOver, "core.json-text-incomplete-handed-over", "CORE-JSON-2"),
    mutant(JsonTextDuplicateHandedOver, "core.json-text-duplicate-handed-over", "CORE-JSON-2"),
    mutant(EndsStreamEndAtError, "core.ends-stream-end-at-error", "CORE-ERR-3"),
    mutant(EndsStreamAtMalformedError, "core.ends-stream-at-malformed-error", "CORE-ERR-3"),
    mutant(FailedResponseCallsRun, "core.failed-response-calls-run", "CORE-POINT-2"),
    mutant(FailedResponseCallsDropped, "core.failed-response-calls-dropped", "CORE-POINT-2"),
    mutant(ClosedResponseCallsRun, "core.closed-response-calls-run", "CORE-POINT-2"),
    mutant(FaultEventRoutedOn, "core.fault-event-routed-on", "CORE-FAULT-1"),
    mutant(FaultStopsAnEventLate, "core.fault-stops-an-event-late", "CORE-FAULT-1"),
    mutant(FaultOnlyWhenMalformed, "core.fault-only-when-malformed", "CORE-FAULT-1"),
    mutant(FaultEndsAsTheRouterSays, "core.fault-ends-as-the-router-says", "CORE-FAULT-2"),
    mutant(FaultEndsFailedAfterTheTerminal, "core.fault-ends-failed-after-the-terminal", "CORE-FAULT-2"),
    mutant(FaultEndedAtTheFault, "core.fault-ended-at-the-fault", "CORE-FAULT-2"),
    mutant(ResponseIdsRewrittenToOne, "core.response-ids-rewritten-to-one", "CORE-LIFE-7"),
    mutant(ResponseIdRewrittenAtTheEnd, "core.response-id-rewritten-at-the-end", "CORE-LIFE-7"),
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
