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

from . import Mutant
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


MUTANTS: list[Mutant] = [
    # intake
    _mutant(
        Fault.GUESS_TEXT_FROM_DELTA,
        "CORE-EVT-1",
        "an event of an unknown type that carries a string delta for a message is shown as answer text",
    ),
    _mutant(
        Fault.RAISE_ON_NON_OBJECT,
        "CORE-EVT-2",
        "reads every event with event.get, so a JSON array or string raises",
    ),
    _mutant(
        Fault.NULL_IS_WRONG_TYPE,
        "CORE-EVT-7",
        "takes a field that is JSON null for a field of the wrong type",
    ),
    _mutant(
        Fault.ITEM_FIELDS_UNCHECKED,
        "CORE-ITEM-9",
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
    _mutant(
        Fault.SWALLOW_UNKNOWN,
        "CORE-EVT-3",
        "a catch-all branch drops events of unknown types without a trace",
    ),
    _mutant(
        Fault.ROUTE_VENDOR_SUFFIX,
        "CORE-EVT-4",
        "strips a vendor prefix and routes what follows, so acme:response.output_text.delta is text",
    ),
    _mutant(Fault.UNROUTED_SILENT, "CORE-EVT-5", "knows the unrouted event types and drops them silently"),
    _mutant(
        Fault.DROP_BY_SEQUENCE_NUMBER,
        "CORE-EVT-6",
        "drops an event whose sequence_number is not above the last one, taking it for a replay",
    ),
    # items
    _mutant(
        Fault.OUTPUT_INDEX_FROM_COUNT,
        "CORE-ITEM-1",
        "numbers items in announcement order, ignoring the output_index the announcement states",
    ),
    _mutant(
        Fault.OUTPUT_INDEX_DECIDES,
        "CORE-ITEM-2",
        "attributes an item event by its output_index even when it names its item_id",
    ),
    _mutant(
        Fault.ROUTE_UNKNOWN_ITEM,
        "CORE-ITEM-3",
        "creates an item on first sight of an id never announced, and routes the event by its type",
    ),
    _mutant(
        Fault.NO_ITEM_TYPE_CHECK, "CORE-ITEM-4", "routes an event whatever the type of the item it names"
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
    _mutant(
        Fault.INDEXES_FROM_EVENT_ONLY,
        "CORE-ITEM-7",
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
    _mutant(
        Fault.CUSTOM_INPUT_TO_OPEN_CALL,
        "CORE-ITEM-8",
        "gives a custom input event with no id at all to the most recent open custom call",
    ),
    # answer text, refusal and reasoning
    _mutant(Fault.DROP_EMPTY_TEXT_DELTA, "CORE-TEXT-1", "skips an empty text delta (`if not delta: return`)"),
    _mutant(
        Fault.NO_TEXT_MISMATCH,
        "CORE-TEXT-2",
        "shows output_text.done without comparing it with the deltas shown",
    ),
    _mutant(
        Fault.MENDS_SPLIT_SURROGATES,
        "CORE-TEXT-8",
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
    _mutant(
        Fault.NO_ARGUMENTS_PREVIEW, "CORE-ARGS-1", "buffers argument deltas without producing their preview"
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
    _mutant(
        Fault.ARGUMENTS_FROM_DELTAS,
        "CORE-ARGS-5",
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
    _mutant(
        Fault.CALL_AGAIN_ON_DUPLICATE_DONE,
        "CORE-CALL-1",
        "routes every output_item.done of a call, so a repeated one gives the call a second outcome",
    ),
    _mutant(
        Fault.FIRE_AT_ADDED,
        "CORE-CALL-2",
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
        "CORE-CALL-3",
        "passes arguments that parse to a JSON array or scalar on to the call",
    ),
    _mutant(
        Fault.PARSE_CUSTOM_INPUT, "CORE-CALL-3", "parses a custom call's free-text input as JSON arguments"
    ),
    _mutant(
        Fault.NAME_FROM_ARGUMENTS_DONE,
        "CORE-CALL-4",
        "takes the call's name from response.function_call_arguments.done when it carries one",
    ),
    _mutant(
        Fault.DONE_ITEM_IDENTITY_WINS,
        "CORE-CALL-4",
        "a done item that states another call_id or name silently replaces the announced one",
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
    _mutant(
        Fault.HOSTED_CALLS_EXECUTED,
        "CORE-CALL-9",
        "takes any done item with a name and arguments for a function call, a hosted tool's too",
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
        "CORE-LIFE-5",
        "ends a stream without a terminal event as truncated even after an error event",
    ),
    _mutant(
        Fault.FLAT_ERROR_ONLY,
        "CORE-ERR-1",
        "reads only the flat error shape, never Open Responses' nested one",
    ),
    _mutant(Fault.ERROR_EVENT_TERMINAL, "CORE-ERR-1", "takes an error event for the end of the response"),
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
    _mutant(
        Fault.COUNT_CHARACTERS,
        "CORE-LIMIT-1",
        "measures buffered deltas in characters instead of UTF-8 bytes",
    ),
    _mutant(
        Fault.SURROGATE_AS_ONE_BYTE,
        "CORE-LIMIT-4",
        "measures deltas with encode('utf-8', 'replace'), so a lone surrogate counts as one byte",
    ),
    _mutant(
        Fault.TOO_LARGE_AFTER_COMPLETE,
        "CORE-ARGS-4 CORE-LIMIT-1",
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
]
