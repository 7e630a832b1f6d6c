"""A second router of the `core` profile, written from spec/core.md and spec/README.md alone, with faults.

It shares no code with streamroute.reference, so the core mutants are not the
suite checked against itself. Its shape differs on purpose: every event is
first read whole against a table of the fields its type has (`_FIELDS`),
then routed on plain per-item state; function arguments go through a JSON
parser of its own, a tokenizer and an explicit stack. It takes bytes too
(`feed_bytes`, the `sse` profile), because the only way a lone surrogate
reaches a router is JSON text on the wire. With no fault it passes every
core and sse vector at both tool-call points. Each `Fault` makes it break one
requirement the way a real router plausibly would (tests/mutants/core.py).
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

Outcome = dict[str, Any]


class Fault(Enum):
    """One mistake a real router makes; the value is the mutant's name after `core.`."""

    # intake
    GUESS_TEXT_FROM_DELTA = "text-from-any-delta"
    RAISE_ON_NON_OBJECT = "raise-on-non-object"
    SWALLOW_UNKNOWN = "swallow-unknown-events"
    ROUTE_VENDOR_SUFFIX = "route-vendor-suffix"
    UNROUTED_SILENT = "unrouted-events-silent"
    DROP_BY_SEQUENCE_NUMBER = "drop-replayed-sequence-numbers"
    NULL_IS_WRONG_TYPE = "null-is-wrong-type"
    ITEM_FIELDS_UNCHECKED = "item-fields-unchecked"
    ITEM_DECODED_WHOLE = "item-decoded-whole"
    RESOLVE_ITEM_BEFORE_FIELDS = "resolve-item-before-fields"
    AGENT_CHECKED = "agent-member-checked"
    WHOLE_NUMBER_INDEX_MALFORMED = "whole-number-index-malformed"
    # items
    OUTPUT_INDEX_FROM_COUNT = "output-index-from-count"
    OUTPUT_INDEX_DECIDES = "output-index-decides"
    ROUTE_UNKNOWN_ITEM = "route-unknown-item"
    NO_ITEM_TYPE_CHECK = "no-item-type-check"
    SECOND_ADDED_REPLACES = "second-added-replaces"
    DONE_NEEDS_ADDED = "done-needs-added"
    INDEXES_FROM_EVENT_ONLY = "indexes-from-event-only"
    TEXT_OUTPUT_INDEX_FROM_EVENT = "text-output-index-from-event"
    DONE_ITEM_CALL_ID_UNKNOWN = "done-item-call-id-unknown"
    CUSTOM_INPUT_IGNORES_CALL_ID = "custom-input-ignores-call-id"
    CUSTOM_INPUT_TO_OPEN_CALL = "custom-input-to-open-call"
    # text channels
    DROP_EMPTY_TEXT_DELTA = "drop-empty-text-delta"
    PHASE_DROPPED = "phase-dropped"
    AGENT_DROPPED = "agent-dropped"
    NO_TEXT_MISMATCH = "no-text-done-mismatch"
    MENDS_SPLIT_SURROGATES = "mends-split-surrogates"
    REFUSAL_AS_TEXT = "refusal-as-text"
    REFUSAL_UNROUTED = "refusal-unrouted"
    OPEN_RESPONSES_REASONING_UNKNOWN = "open-responses-reasoning-unknown"
    SUMMARY_INDEX_REQUIRED = "summary-index-required"
    LATE_TEXT_DELTA_ROUTED = "late-text-delta-routed"
    LATE_CHECK_PER_CHANNEL = "late-check-per-channel"
    SECOND_TEXT_DONE_ROUTED = "second-text-done-routed"
    # arguments
    NO_ARGUMENTS_PREVIEW = "no-arguments-preview"
    ONE_BUFFER_FOR_ALL_CALLS = "one-buffer-for-all-calls"
    DROP_EMPTY_ARGUMENTS_DELTA = "drop-empty-arguments-delta"
    LATE_ARGUMENTS_DELTA_APPENDED = "late-arguments-delta-appended"
    ARGUMENTS_FROM_DELTAS = "arguments-from-deltas"
    ARGUMENTS_DONE_EVENT_WINS = "arguments-done-event-wins"
    NO_ARGUMENTS_MISMATCH = "no-arguments-done-mismatch"
    SECOND_ARGUMENTS_DONE_REPLACES = "second-arguments-done-replaces"
    # calls
    CALL_AGAIN_ON_DUPLICATE_DONE = "call-again-on-duplicate-done"
    FIRE_AT_ADDED = "fire-at-added"
    ACCEPT_NAN = "accept-nan"
    ACCEPT_TRAILING_GARBAGE = "accept-trailing-garbage"
    DUPLICATE_NAMES_LAST_WINS = "duplicate-names-last-wins"
    DUPLICATE_NAMES_COMPARED_ESCAPED = "duplicate-names-compared-escaped"
    OVERFLOW_TO_INFINITY = "overflow-to-infinity"
    LONG_INTEGERS_EXACT = "long-integers-exact"
    ACCEPT_NON_OBJECT_ARGUMENTS = "accept-non-object-arguments"
    PARSE_CUSTOM_INPUT = "parse-custom-input"
    NAME_FROM_ARGUMENTS_DONE = "name-from-arguments-done"
    FIRST_IDENTITY_STANDS = "first-stated-identity-stands"
    SILENT_NAME_CHANGE = "silent-name-change"
    RESTATED_CALL_ID_REPORTED = "restated-call-id-reported"
    RESTATED_CALL_ID_RETRACTED = "restated-call-id-retracted"
    IGNORE_ITEM_STATUS = "ignore-item-status"
    FORGET_OPEN_CALLS = "forget-open-calls"
    NO_DUPLICATE_CALL_ID_CHECK = "no-duplicate-call-id-check"
    FIRE_WITHOUT_IDENTITY = "fire-without-identity"
    NO_RETRACT_ON_INCOMPLETE = "no-retract-on-incomplete"
    NO_RETRACT_ON_MISMATCH = "no-retract-on-mismatch"
    NO_RETRACT_AT_END = "no-retract-at-end"
    RETRACTION_FREES_CALL_ID = "retraction-frees-call-id"
    IN_PROGRESS_DONE_ITEM_INCOMPLETE = "in-progress-done-item-incomplete"
    INPUT_FAULT_BEFORE_DUPLICATE = "input-fault-before-duplicate"
    HOSTED_CALLS_EXECUTED = "hosted-calls-executed"
    MULTI_AGENT_CALL_EXECUTED = "multi-agent-call-executed"
    # the call catalogue
    CATALOGUE_UNROUTED = "catalogue-unrouted"
    PATCH_FROM_DIFF_DONE = "patch-from-diff-done"
    CATALOGUE_STATUS_IGNORED = "catalogue-status-ignored"
    EVERY_SHELL_LOCAL = "every-shell-local"
    APPROVAL_WITHOUT_REQUEST_ID = "approval-without-request-id"
    SHELL_ADDED_TEXT_DROPPED = "shell-added-text-dropped"
    CATALOGUE_INPUT_UNCHECKED = "catalogue-input-unchecked"
    MISSING_SERVER_LABEL_INVALID = "missing-server-label-invalid"
    UNREADABLE_SAFETY_CHECKS_DROPPED = "unreadable-safety-checks-dropped"
    LATE_PREVIEW_SHOWN = "late-preview-shown"
    # lifecycle and errors
    RESPONSE_REQUIRED = "response-required"
    CANCELLED_IGNORED = "cancelled-status-ignored"
    FAILED_ERROR_SWALLOWED = "failed-error-swallowed"
    ROUTE_AFTER_TERMINAL = "route-after-terminal"
    FORGET_END = "forget-end"
    END_IGNORES_ERROR_EVENT = "end-ignores-error-event"
    STATUS_CHECKED_ON_TERMINAL_ONLY = "status-checked-on-terminal-only"
    FLAT_ERROR_ONLY = "flat-error-only"
    ERROR_EVENT_TERMINAL = "error-event-terminal"
    ERROR_STRING_FALLS_BACK_TO_FLAT = "error-string-falls-back-to-flat"
    # outcomes and limits
    ARGUMENTS_AS_TEXT = "arguments-as-text"
    COUNT_CHARACTERS = "count-characters"
    SURROGATE_AS_ONE_BYTE = "surrogate-as-one-byte"
    TOO_LARGE_AFTER_COMPLETE = "too-large-after-complete"
    TOO_LARGE_SOURCES_UNCOMPARED = "too-large-sources-uncompared"
    NO_DEPTH_LIMIT = "no-depth-limit"
    BRACKETS_IN_STRINGS_COUNTED = "brackets-in-strings-counted"
    TEXT_BUFFER_UNBOUNDED = "text-buffer-unbounded"
    TEXT_LIMIT_STOPS_ROUTING = "text-limit-stops-routing"


MAX_BUFFER_BYTES = 1024 * 1024  # CORE-LIMIT-1, CORE-LIMIT-3
MAX_DEPTH = 128  # CORE-LIMIT-2
CALL_TOOL_TYPES = {"function_call": "function", "custom_tool_call": "custom"}
TEXT_FIELD = {"function_call": "arguments", "custom_tool_call": "input"}
# The call catalogue (spec/core.md section 5.1): item type -> the tool_type of its tool.call.
CATALOGUE = {
    "apply_patch_call": "apply_patch",
    "shell_call": "shell",
    "local_shell_call": "local_shell",
    "computer_call": "computer",
    "tool_search_call": "tool_search",
    "mcp_approval_request": "mcp_approval",
}
LIFECYCLE = ("created", "queued", "in_progress", "completed", "failed", "incomplete")
TERMINAL = ("completed", "failed", "incomplete")

# The unrouted rows of the routing table (CORE-EVT-5), by family: `response.<family>.<event>`.
_UNROUTED_FAMILIES = {
    "content_part": ("added", "done"),
    "output_text.annotation": ("added",),
    "refusal": ("done",),
    "reasoning_text": ("done",),
    "reasoning": ("done",),
    "reasoning_summary_part": ("added", "done"),
    "reasoning_summary_text": ("done",),
    "mcp_call_arguments": ("delta", "done"),
    "code_interpreter_call_code": ("delta", "done"),
    "file_search_call": ("in_progress", "searching", "completed"),
    "web_search_call": ("in_progress", "searching", "completed"),
    "code_interpreter_call": ("in_progress", "interpreting", "completed"),
    "image_generation_call": ("in_progress", "generating", "completed", "partial_image"),
    "mcp_call": ("in_progress", "completed", "failed"),
    "mcp_list_tools": ("in_progress", "completed", "failed"),
    "audio": ("delta", "done"),
    "audio.transcript": ("delta", "done"),
    "shell_call_output_content": ("delta", "done"),
    "compaction": ("compacting",),
}
UNROUTED = frozenset(
    f"response.{family}.{event}" for family, events in _UNROUTED_FAMILIES.items() for event in events
) | {"keepalive"}


class Refused(Exception):
    """An event that is not routed; it becomes one `error` outcome."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# -- reading events ----------------------------------------------------------

# What a field must be when present (and not null): the name of the shape and its test.
_SHAPES: dict[str, Callable[[object], bool]] = {
    "string": lambda value: isinstance(value, str),
    "index": lambda value: (type(value) is int or _whole(value)) and value >= 0,
    "object": lambda value: isinstance(value, dict),
}


def _whole(value: object) -> bool:
    """A JSON number written with a fraction or an exponent whose value is whole: 1.0, 1e0."""
    return type(value) is float and value.is_integer()


_ITEM_EVENT = (("item_id", "string"), ("output_index", "index"))
_PART_EVENT = (*_ITEM_EVENT, ("content_index", "index"))
_CUSTOM_INPUT_EVENT = (*_ITEM_EVENT, ("call_id", "string"))
_DELTA = (("delta", "string"),)
_COMMAND_EVENT = (*_ITEM_EVENT, ("command_index", "index"))
_COMMAND = (*_COMMAND_EVENT, ("command", "string"))
_IDENTITY = frozenset(name for name, _ in _CUSTOM_INPUT_EVENT)  # what names an event's item
# The fields each routed type has: (name, shape), and the ones without which it is malformed.
_FIELDS: dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = {
    "response.output_text.delta": ((*_PART_EVENT, *_DELTA), ("delta",)),
    "response.output_text.done": ((*_PART_EVENT, ("text", "string")), ("text",)),
    "response.refusal.delta": ((*_PART_EVENT, *_DELTA), ("delta",)),
    "response.reasoning_text.delta": ((*_PART_EVENT, *_DELTA), ("delta",)),
    "response.reasoning.delta": ((*_PART_EVENT, *_DELTA), ("delta",)),
    "response.reasoning_summary_text.delta": (
        (*_ITEM_EVENT, ("summary_index", "index"), *_DELTA),
        ("delta",),
    ),
    "response.function_call_arguments.delta": ((*_ITEM_EVENT, *_DELTA), ("delta",)),
    "response.function_call_arguments.done": ((*_ITEM_EVENT, ("arguments", "string")), ("arguments",)),
    "response.custom_tool_call_input.delta": ((*_CUSTOM_INPUT_EVENT, *_DELTA), ("delta",)),
    "response.custom_tool_call_input.done": ((*_CUSTOM_INPUT_EVENT, ("input", "string")), ("input",)),
    "response.apply_patch_call_operation_diff.delta": ((*_ITEM_EVENT, *_DELTA), ("delta",)),
    "response.apply_patch_call_operation_diff.done": ((*_ITEM_EVENT, ("diff", "string")), ("diff",)),
    "response.shell_call_command.added": (_COMMAND, ("command_index", "command")),
    "response.shell_call_command.delta": ((*_COMMAND_EVENT, *_DELTA), ("command_index", "delta")),
    "response.shell_call_command.done": (_COMMAND, ("command_index", "command")),
    "response.output_item.added": ((("output_index", "index"), ("item", "object")), ("item",)),
    "response.output_item.done": ((("output_index", "index"), ("item", "object")), ("item",)),
    **{f"response.{name}": ((("response", "object"),), ()) for name in LIFECYCLE},
    "error": ((), ()),  # flat or nested: read by the handler (CORE-ERR-1, CORE-ERR-2)
}
_ERROR_FIELDS = (("code", "string"), ("message", "string"))
_ITEM_FIELDS: tuple[tuple[str, str], ...] = (
    ("id", "string"),
    ("type", "string"),
    ("call_id", "string"),
    ("name", "string"),
    ("namespace", "string"),
    ("status", "string"),
)
# The item types each item event applies to (CORE-ITEM-4).
_APPLIES_TO = {
    "response.output_text.delta": "message",
    "response.output_text.done": "message",
    "response.refusal.delta": "message",
    "response.reasoning_text.delta": "reasoning",
    "response.reasoning.delta": "reasoning",
    "response.reasoning_summary_text.delta": "reasoning",
    "response.function_call_arguments.delta": "function_call",
    "response.function_call_arguments.done": "function_call",
    "response.custom_tool_call_input.delta": "custom_tool_call",
    "response.custom_tool_call_input.done": "custom_tool_call",
    "response.apply_patch_call_operation_diff.delta": "apply_patch_call",
    "response.apply_patch_call_operation_diff.done": "apply_patch_call",
    "response.shell_call_command.added": "shell_call",
    "response.shell_call_command.delta": "shell_call",
    "response.shell_call_command.done": "shell_call",
}
# The preview events of catalogue calls (CORE-CALLTYPE-6): the field each one shows, or None.
_PREVIEW_TEXT = {
    "response.apply_patch_call_operation_diff.delta": "delta",
    "response.apply_patch_call_operation_diff.done": None,
    "response.shell_call_command.added": "command",
    "response.shell_call_command.delta": "delta",
    "response.shell_call_command.done": None,
}


def _read(
    source: Mapping[str, Any],
    fields: Iterable[tuple[str, str]],
    required: Iterable[str],
    where: str,
    null_is_absent: bool = True,
) -> dict[str, Any]:
    """The named fields of `source`, each of its shape or None; Refused when one is wrong or missing."""
    values: dict[str, Any] = {}
    for name, shape in fields:
        value = source.get(name)
        if value is None and name in source and not null_is_absent:
            raise Refused("malformed_event", f"field {where + name!r} is null")
        if value is not None and not _SHAPES[shape](value):
            raise Refused("malformed_event", f"field {where + name!r} must be a {shape}, got {value!r:.40}")
        values[name] = int(value) if shape == "index" and value is not None else value
    for name in required:
        if values[name] is None:
            raise Refused("malformed_event", f"field {where + name!r} is missing")
    return values


# -- the input of catalogue calls (CORE-CALLTYPE-2, -7) ----------------------


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(entry, str) for entry in value)


def _operation(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("path"), str):
        return False
    kind = value.get("type")
    writes = kind in ("create_file", "update_file") and isinstance(value.get("diff"), str)
    return kind == "delete_file" or writes


# The done item's field that holds each catalogue call's input (computer: `actions` or `action`).
_INPUT_OF = {
    "apply_patch": "operation",
    "shell": "action",
    "local_shell": "action",
    "tool_search": "arguments",
    "mcp_approval": "arguments",
}
_INPUT_SHAPE: dict[str, Callable[[Any], bool]] = {
    "apply_patch": _operation,
    "shell": lambda value: isinstance(value, dict) and _strings(value.get("commands")),
    "local_shell": lambda value: (
        isinstance(value, dict) and value.get("type") == "exec" and _strings(value.get("command"))
    ),
    "computer": lambda value: (
        isinstance(value, list)
        and all(isinstance(action, dict) and isinstance(action.get("type"), str) for action in value)
    ),
    "tool_search": lambda value: isinstance(value, dict),
    "mcp_approval": lambda value: isinstance(value, str),
}


# -- text: sizes and comparison (CORE-TEXT-8, CORE-LIMIT-4) ------------------


def well_formed(text: str) -> str:
    """The text with each unpaired surrogate replaced by U+FFFD, as a UTF-8 or WHATWG decoder sees it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def utf8_size(text: str, faults: frozenset[Fault]) -> int:
    if text.isascii() or Fault.COUNT_CHARACTERS in faults:
        return len(text)
    if Fault.SURROGATE_AS_ONE_BYTE in faults:
        return len(text.encode("utf-8", "replace"))  # a lone surrogate becomes "?"
    return len(well_formed(text).encode("utf-8"))  # CORE-LIMIT-4


@dataclass
class Buffer:
    """The deltas of one part or call, kept to compare with its complete text, up to the limit."""

    faults: frozenset[Fault] = frozenset()
    limit: float = MAX_BUFFER_BYTES
    pieces: list[str] = field(default_factory=list)  # each delta made well-formed on its own
    received: bool = False
    size: int = 0
    overflowed: bool = False

    def add(self, delta: str) -> bool:
        """Take a delta; False when it takes the buffer past the limit (the buffer is then dropped)."""
        self.size += utf8_size(delta, self.faults)
        if self.size > self.limit:
            self.pieces, self.received, self.overflowed = [], False, True
            return False
        self.pieces.append(delta if Fault.MENDS_SPLIT_SURROGATES in self.faults else well_formed(delta))
        self.received = True
        return True

    def release(self) -> None:
        """Drop the deltas once compared: what a complete source fixed, no delta changes."""
        self.pieces, self.received = [], False

    def agrees(self, text: str) -> bool:
        """Whether the deltas say what the complete text says (CORE-TEXT-8)."""
        return not self.received or well_formed(self.joined()) == well_formed(text)

    def joined(self) -> str:
        return "".join(self.pieces)


# -- JSON (RFC 8259, with the I-JSON restrictions of CORE-CALL-3) ------------


class NotJSON(ValueError):
    pass


_TOKEN = re.compile(
    r"""[ \t\n\r]*(?:
      (?P<punct>[\[\]{},:])
    | "(?P<string>(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)"
    | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?![0-9.eE+-])
    | (?P<word>true|false|null|NaN|-?Infinity)\b
    )""",
    re.VERBOSE,
)
_ESCAPE = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|\\u([0-9a-f]{4})|\\(.)", re.IGNORECASE)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_WORDS = {"true": True, "false": False, "null": None}
_BRACKETS_OUTSIDE_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def _unescape(match: re.Match[str]) -> str:
    high, low, single, simple = match.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00)
    if single is not None:
        return chr(int(single, 16))
    return _SIMPLE_ESCAPES[simple]


def nesting_depth(text: str, faults: frozenset[Fault]) -> int:
    """The most arrays and objects open at once outside strings: one pass, constant memory (CORE-LIMIT-2)."""
    depth = deepest = 0
    if Fault.BRACKETS_IN_STRINGS_COUNTED in faults:
        tokens: Iterable[str] = (c for c in text if c in "[]{}")
    else:
        tokens = (match.group() for match in _BRACKETS_OUTSIDE_STRINGS.finditer(text))
    for token in tokens:
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth = max(depth - 1, 0)
    return deepest


def parse_json(text: str, faults: frozenset[Fault]) -> Any:
    """One JSON value and nothing else; NotJSON says why not. Containers are built on an explicit stack."""
    # Each open container, with its pending member name, as unescaped and as written.
    stack: list[tuple[list[Any] | dict[str, Any], list[tuple[str, str]], set[str]]] = []
    expect = "value"  # value | first (value or close) | key | first-key | colon | next (comma or close)
    position = 0
    value: Any = None
    while True:
        if expect == "end":
            rest = text[position:]
            if rest.strip(" \t\n\r") == "" or Fault.ACCEPT_TRAILING_GARBAGE in faults:
                return value
            raise NotJSON(f"trailing text at {position}")
        match = _TOKEN.match(text, position)
        if match is None:
            raise NotJSON(f"unexpected text at {position}")
        position = match.end()
        punct, string, number, word = match.group("punct", "string", "number", "word")
        if punct in ("]", "}") and expect in ("first", "first-key", "next"):
            container, _, _ = stack.pop()
            if (punct == "]") != isinstance(container, list):
                raise NotJSON(f"mismatched {punct!r} at {position - 1}")
            value = container
        elif expect == "colon":
            if punct != ":":
                raise NotJSON(f"expected ':' at {position - 1}")
            expect = "value"
            continue
        elif expect == "next":
            if punct != ",":
                raise NotJSON(f"expected ',' at {position - 1}")
            expect = "key" if isinstance(stack[-1][0], dict) else "value"
            continue
        elif expect in ("key", "first-key"):
            if string is None:
                raise NotJSON(f"expected a member name at {position - 1}")
            stack[-1][1].append((_ESCAPE.sub(_unescape, string), string))
            expect = "colon"
            continue
        elif punct in ("[", "{"):
            stack.append(([] if punct == "[" else {}, [], set()))
            expect = "first" if punct == "[" else "first-key"
            continue
        elif string is not None:
            value = _ESCAPE.sub(_unescape, string)
        elif number is not None:
            value = _number(number, faults)
        elif word in _WORDS:
            value = _WORDS[word]
        elif word is not None and Fault.ACCEPT_NAN in faults:
            value = float(word)
        else:
            raise NotJSON(f"unexpected {match.group().strip()!r} at {position - len(match.group())}")
        if not stack:
            expect = "end"
            continue
        container, pending, written = stack[-1]
        if isinstance(container, list):
            container.append(value)
        else:
            name, as_written = pending.pop()
            if Fault.DUPLICATE_NAMES_COMPARED_ESCAPED in faults:
                repeated = as_written in written  # a scan of the text, before unescaping
                written.add(as_written)
            else:
                repeated = name in container and Fault.DUPLICATE_NAMES_LAST_WINS not in faults
            if repeated:
                raise NotJSON(f"duplicate member name {name!r}")  # CORE-CALL-10
            container[name] = value
        expect = "next"


def _number(token: str, faults: frozenset[Fault]) -> int | float:
    integer = not any(mark in token for mark in ".eE")
    exact = integer and Fault.LONG_INTEGERS_EXACT in faults
    if math.isinf(float(token)) and not exact and Fault.OVERFLOW_TO_INFINITY not in faults:
        raise NotJSON(f"number {token[:20]} overflows a binary64")  # CORE-CALL-11
    return int(token) if integer else float(token)


# -- per-item state ----------------------------------------------------------


@dataclass
class Call:
    """What a call item has received, and the one outcome it has produced."""

    deltas: Buffer
    done_text: str | None = None  # from the arguments/input .done event
    complete: bool = False  # its .done or its done item was routed: later deltas are late
    outcome: str | None = None  # "tool.call" or "tool.error", once
    fired: bool = False  # its tool.call went out at its .done, before its done item (arguments_done)
    made_with: str | None = None  # the call id its tool.call went out with
    settled: bool = False  # its done item was routed, or the response ended


@dataclass
class ItemState:
    id: str
    type: str
    output_index: int
    call_id: str | None
    name: str | None
    namespace: str | None
    done: bool = False
    parts: dict[int, Buffer] = field(default_factory=dict)  # message text parts by content_index
    parts_done: set[int] = field(default_factory=set)  # and a catalogue call's previews done
    call: Call | None = None
    hosted: bool = False  # a catalogue item the server runs (CORE-CALLTYPE-4)
    phase: str | None = None  # a message's, as announced (CORE-TEXT-9)
    agent: str | None = None  # the agent_name of a message's `agent`, as announced (CORE-TEXT-12)


# -- bytes to events (spec/sse.md) --------------------------------------------

_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")


class EventStreamDecoder:
    """The data of each event a text/event-stream dispatches, however its bytes are cut."""

    def __init__(self) -> None:
        self.utf8 = codecs.getincrementaldecoder("utf-8")("replace")  # SSE-LINE-1
        self.started = False  # the byte order mark is looked for once (SSE-LINE-2)
        self.after_cr = False  # the last chunk ended in CR: an LF that follows it is that break's
        self.line: list[str] = []
        self.data: list[str] | None = None  # the data lines of the event being read

    def feed(self, chunk: bytes) -> list[str]:
        text = self.utf8.decode(chunk)
        if not text:  # an empty chunk, or part of one character: nothing changes
            return []
        if not self.started:
            self.started = True
            text = text.removeprefix("\ufeff")
        if self.after_cr:
            self.after_cr = False
            text = text.removeprefix("\n")  # SSE-LINE-3: CR LF cut between two chunks
        dispatched: list[str] = []
        pieces = _LINE_BREAK.split(text)
        for piece in pieces[::2][:-1]:  # every piece a line break ends
            self.line.append(piece)
            line = "".join(self.line)
            self.line = []
            data = self._line(line)
            if data is not None:
                dispatched.append(data)
        self.line.append(pieces[-1])
        self.after_cr = len(pieces) > 1 and pieces[-2] == "\r" and pieces[-1] == ""
        return dispatched

    def _line(self, line: str) -> str | None:
        """Take one line; the event's data when the line dispatches it (SSE-FIELD-*, SSE-EVENT-1)."""
        if line == "":
            data, self.data = self.data, None
            return None if data is None else "\n".join(data)
        if line.startswith(":"):
            return None  # a comment
        name, _, value = line.partition(":")
        if name == "data":
            if self.data is None:
                self.data = []
            self.data.append(value.removeprefix(" "))
        return None  # event, id, retry and unknown fields change nothing (SSE-FIELD-4)


def _named_agent(agent: object) -> bool:
    """An `agent` member that names its agent: an object with a string agent_name."""
    return isinstance(agent, dict) and isinstance(agent.get("agent_name"), str)


def _labelled(outcome: Outcome, item: ItemState) -> Outcome:
    """A text outcome with its message's labels, phase and agent (CORE-TEXT-9, CORE-TEXT-12)."""
    labels = {"phase": item.phase, "agent": item.agent}
    return {**outcome, **{name: value for name, value in labels.items() if value is not None}}


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _error(code: str | None, message: str, **extra: Any) -> Outcome:
    return {"kind": "error", "code": code, "message": message, **extra}


class IndependentRouter:
    """Routes one response stream: `feed` each event, then `close` (spec/README.md, The router)."""

    def __init__(self, faults: frozenset[Fault] = frozenset(), *, at_arguments_done: bool = False) -> None:
        self.faults = faults
        self.at_arguments_done = at_arguments_done
        self.items: dict[str, ItemState] = {}  # in announcement order
        self.by_output_index: dict[int, ItemState] = {}
        self.by_call_id: dict[str, ItemState] = {}
        self.called: set[str] = set()
        self.index = -1
        self.end_status: str | None = None
        self.error_event_seen = False
        self.closed = False
        self.last_sequence_number = -1
        self.shared_buffer = Buffer(faults)  # ONE_BUFFER_FOR_ALL_CALLS
        self.stream = EventStreamDecoder()
        self.dispatched = -1
        self.stream_done = False  # [DONE] was dispatched

    def has(self, fault: Fault) -> bool:
        return fault in self.faults

    # -- entry points --

    def feed(self, event: Any) -> list[Outcome]:
        if self.closed:  # `end` is the last outcome ever (CORE-LIFE-5)
            return []
        self.index += 1
        try:
            return self._route(event)
        except Refused as refused:
            return [_error(refused.code, f"event {self.index}: {refused}")]

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        """The outcomes of each SSE event this chunk dispatches (spec/sse.md section 6)."""
        if self.closed:
            return []
        return [self._dispatch(data) for data in self.stream.feed(chunk)]

    def _dispatch(self, data: str) -> list[Outcome]:
        """One dispatched event's data: `[DONE]`, JSON for the router, or neither (SSE-DATA-*)."""
        self.dispatched += 1
        if self.stream_done:
            return [_error("event_after_done", f"SSE event {self.dispatched} comes after [DONE]")]
        if data == "[DONE]":
            self.stream_done = True
            return []
        try:
            event = json.loads(data, parse_constant=_not_json)
        except (ValueError, RecursionError):
            return [_error("invalid_data", f"SSE event {self.dispatched}: its data is not JSON")]
        return self.feed(event)

    def close(self) -> list[Outcome]:
        if self.closed:
            return []
        self.closed = True
        outcomes = self._settle_open_calls()
        if self.has(Fault.FORGET_END):
            return outcomes
        status = self.end_status
        if status is None:
            failed = self.error_event_seen and not self.has(Fault.END_IGNORES_ERROR_EVENT)
            status = "failed" if failed else "truncated"
        return [*outcomes, {"kind": "end", "status": status}]

    # -- dispatch --

    def _route(self, event: Any) -> list[Outcome]:
        if not isinstance(event, dict) and not self.has(Fault.RAISE_ON_NON_OBJECT):
            raise Refused("malformed_event", f"an event must be a JSON object, not {type(event).__name__}")
        kind = event.get("type")
        if not isinstance(kind, str):
            raise Refused("malformed_event", "field 'type' must be a string")
        if self.has(Fault.DROP_BY_SEQUENCE_NUMBER):
            number = event.get("sequence_number")
            if type(number) is int:
                if number <= self.last_sequence_number:
                    return []  # taken for a replay
                self.last_sequence_number = number
        agent = event.get("agent")
        if self.has(Fault.AGENT_CHECKED) and agent is not None and not _named_agent(agent):
            raise Refused("malformed_event", "field 'agent' must be an object with a string agent_name")
        if self.end_status is not None and not self.has(Fault.ROUTE_AFTER_TERMINAL):
            raise Refused("event_after_terminal", f"{kind} after the terminal event")
        if self.has(Fault.ROUTE_VENDOR_SUFFIX) and ":" in kind:
            kind = kind.rsplit(":", 1)[1]
        if (
            kind not in _FIELDS
            or (kind == "response.reasoning.delta" and self.has(Fault.OPEN_RESPONSES_REASONING_UNKNOWN))
            or (kind in _PREVIEW_TEXT and self.has(Fault.CATALOGUE_UNROUTED))
        ):
            return self._ignored(event, kind)
        fields, required = _FIELDS[kind]
        if kind == "response.reasoning_summary_text.delta" and self.has(Fault.SUMMARY_INDEX_REQUIRED):
            required = (*required, "summary_index")
        if kind in _APPLIES_TO and self.has(Fault.RESOLVE_ITEM_BEFORE_FIELDS):
            identity = [(name, shape) for name, shape in fields if name in _IDENTITY]
            self._resolve_item(kind, self._read(event, identity, (), ""))  # looked up, then read
        values = self._read(event, fields, required, "")  # CORE-EVT-8: every field, then the item
        lifecycle = kind.removeprefix("response.")
        if lifecycle in LIFECYCLE:
            return self._lifecycle(lifecycle, values["response"])
        if kind == "error":
            return self._error_event(event)
        if kind == "response.output_item.added":
            return self._added(values)
        if kind == "response.output_item.done":
            return self._item_done(values)
        item = self._resolve_item(kind, values)
        if kind in _PREVIEW_TEXT:
            return self._preview(kind, item, values)
        if kind in ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta"):
            return self._arguments_delta(item, values["delta"])
        if kind in ("response.function_call_arguments.done", "response.custom_tool_call_input.done"):
            return self._arguments_done(item, values[TEXT_FIELD[item.type]], event)
        return self._channel(kind, item, values)

    def _read(
        self,
        source: Mapping[str, Any],
        fields: Iterable[tuple[str, str]],
        required: Iterable[str],
        where: str,
    ) -> dict[str, Any]:
        if self.has(Fault.WHOLE_NUMBER_INDEX_MALFORMED):  # as a Go int or a Rust u64 decodes it
            for name, shape in fields:
                if shape == "index" and _whole(source.get(name)):
                    raise Refused("malformed_event", f"field {where + name!r} must be written as an integer")
        return _read(source, fields, required, where, not self.has(Fault.NULL_IS_WRONG_TYPE))

    def _ignored(self, event: dict[str, Any], kind: str) -> list[Outcome]:
        if self.has(Fault.GUESS_TEXT_FROM_DELTA) and isinstance(event.get("delta"), str):
            item = self.items.get(str(event.get("item_id")))
            if item is not None and item.type == "message":
                index = event.get("content_index") or 0
                return [self._text_delta_outcome(item, event.get("output_index"), index, event["delta"])]
        if self.has(Fault.SWALLOW_UNKNOWN) and kind not in UNROUTED:
            return []
        if self.has(Fault.UNROUTED_SILENT) and kind in UNROUTED:
            return []
        return [{"kind": "ignored", "type": event["type"]}]

    # -- lifecycle and errors --

    def _lifecycle(self, name: str, response: dict[str, Any] | None) -> list[Outcome]:
        if response is None and self.has(Fault.RESPONSE_REQUIRED):
            raise Refused("malformed_event", "field 'response' is missing")
        terminal = name in TERMINAL
        read = [("id", "string")]
        if terminal or not self.has(Fault.STATUS_CHECKED_ON_TERMINAL_ONLY):
            read.append(("status", "string"))  # CORE-LIFE-6: on every lifecycle event
        if name == "failed":
            read.append(("error", "object"))
        stated = self._read(response or {}, read, (), "response.")
        outcomes: list[Outcome] = [{"kind": "lifecycle", "event": name, "response_id": stated["id"]}]
        if not terminal:
            return outcomes
        if name == "failed":  # CORE-LIFE-3
            error = self._read(stated["error"] or {}, _ERROR_FIELDS, (), "response.error.")
            if not self.has(Fault.FAILED_ERROR_SWALLOWED):
                outcomes.append(_error(error["code"], error["message"] or "the response failed"))
        cancelled = stated["status"] == "cancelled" and not self.has(Fault.CANCELLED_IGNORED)
        self.end_status = "cancelled" if cancelled else name
        return outcomes + self._settle_open_calls()

    def _error_event(self, event: dict[str, Any]) -> list[Outcome]:
        nested = event.get("error")
        if nested is not None and not isinstance(nested, dict):  # CORE-ERR-2
            if not self.has(Fault.ERROR_STRING_FALLS_BACK_TO_FLAT):
                raise Refused("malformed_event", "field 'error' must be an object")
            nested = None
        if nested is None or self.has(Fault.FLAT_ERROR_ONLY):
            stated = self._read(event, _ERROR_FIELDS, ("message",), "")
        else:
            stated = self._read(nested, _ERROR_FIELDS, ("message",), "error.")
        self.error_event_seen = True
        if self.has(Fault.ERROR_EVENT_TERMINAL):
            self.end_status = "failed"
        return [_error(stated["code"], stated["message"])]

    # -- items --

    def _item_of(self, values: dict[str, Any], done: bool) -> dict[str, Any]:
        """The fields of the event's item that the router reads (CORE-ITEM-9)."""
        item = values["item"]
        if item.get("type") == "multi_agent_call" and self.has(Fault.MULTI_AGENT_CALL_EXECUTED):
            item = {**item, "type": "function_call", "name": item.get("action")}  # a call named by its action
        identity = self._read(item, _ITEM_FIELDS[:2], ("id", "type"), "item.")
        fields = _ITEM_FIELDS[2:]
        if self.has(Fault.ITEM_DECODED_WHOLE):
            fields = (*fields, ("arguments", "string"), ("input", "string"))
        elif done and (identity["type"] in TEXT_FIELD or self.has(Fault.HOSTED_CALLS_EXECUTED)):
            fields = (*fields, (TEXT_FIELD.get(identity["type"], "arguments"), "string"))
        if identity["type"] in CATALOGUE:
            identity["hosted"] = self._hosted(identity["type"], item)
            if self.has(Fault.CATALOGUE_UNROUTED):  # taken for a hosted tool's item (CORE-CALL-9)
                identity["type"] = "unrouted_" + identity["type"]
        if self.has(Fault.ITEM_FIELDS_UNCHECKED):
            stated = {**identity, **{name: item.get(name) for name, _ in fields}}
        else:
            stated = {**identity, **self._read(item, fields, (), "item.")}
        if stated["type"] == "mcp_approval_request" and not self.has(Fault.APPROVAL_WITHOUT_REQUEST_ID):
            stated["call_id"] = stated["id"]  # CORE-CALLTYPE-5: the answer names the request's id
        return stated

    def _hosted(self, item_type: str, item: Mapping[str, Any]) -> bool:
        """CORE-CALLTYPE-4: who runs a catalogue item, as this form of it says."""
        if item_type == "tool_search_call":
            return item.get("execution") != "client"
        environment = item.get("environment")
        if item_type != "shell_call" or environment is None or self.has(Fault.EVERY_SHELL_LOCAL):
            return False
        return not isinstance(environment, dict) or environment.get("type") != "local"

    def _announce(self, stated: dict[str, Any], output_index: int | None) -> ItemState:
        """Register an item (CORE-ITEM-1): by id, at its output index, by its call id."""
        if output_index is None or self.has(Fault.OUTPUT_INDEX_FROM_COUNT):
            output_index = len(self.items)
        item = ItemState(
            stated["id"], stated["type"], output_index, stated["call_id"], stated["name"], stated["namespace"]
        )
        if item.type in CALL_TOOL_TYPES or (self.has(Fault.HOSTED_CALLS_EXECUTED) and item.name is not None):
            shared = self.has(Fault.ONE_BUFFER_FOR_ALL_CALLS)
            item.call = Call(self.shared_buffer if shared else Buffer(self.faults))
        elif item.type in CATALOGUE:  # its input is its done item's: nothing is buffered
            item.hosted = stated["hosted"]
            item.call = Call(Buffer(self.faults), settled=item.hosted)
        self.items.pop(item.id, None)  # SECOND_ADDED_REPLACES: the new one goes last
        self.items[item.id] = item
        self.by_output_index[output_index] = item
        if item.call_id is not None:
            self.by_call_id[item.call_id] = item
        return item

    def _added(self, values: dict[str, Any]) -> list[Outcome]:
        stated = self._item_of(values, done=False)
        if stated["id"] in self.items and not self.has(Fault.SECOND_ADDED_REPLACES):
            raise Refused("duplicate_event", f"item {stated['id']!r} was announced before")
        item = self._announce(stated, values["output_index"])
        phase, agent = values["item"].get("phase"), values["item"].get("agent")
        if isinstance(phase, str) and not self.has(Fault.PHASE_DROPPED):  # CORE-TEXT-9: a label only
            item.phase = phase
        if _named_agent(agent) and not self.has(Fault.AGENT_DROPPED):  # CORE-TEXT-12: a label too
            item.agent = agent["agent_name"]
        if self.has(Fault.FIRE_AT_ADDED) and item.call is not None:
            announced = values["item"].get(TEXT_FIELD.get(item.type, "arguments"))
            return self._produce(item, announced if isinstance(announced, str) and announced else "{}")
        return []

    def _item_done(self, values: dict[str, Any]) -> list[Outcome]:
        stated = self._item_of(values, done=True)
        item = self.items.get(stated["id"])
        if item is None:
            if self.has(Fault.DONE_NEEDS_ADDED):
                raise Refused("unknown_item", f"item {stated['id']!r} was never announced")
            item = self._announce(stated, values["output_index"])  # CORE-ITEM-6
        elif item.type != stated["type"]:
            raise Refused(
                "item_type_mismatch", f"item {item.id!r} is a {item.type}, done as {stated['type']}"
            )
        elif item.done and not (self.has(Fault.CALL_AGAIN_ON_DUPLICATE_DONE) and item.call is not None):
            raise Refused("duplicate_event", f"item {item.id!r} is already done")
        item.done = True
        if item.type in CATALOGUE and item.call is not None:
            return self._catalogue_done(item, item.call, stated, values["item"])
        if item.call is None:
            return []
        return self._call_done(item, item.call, stated)

    def _identity(self, item: ItemState, call: Call, stated: dict[str, Any]) -> tuple[list[Outcome], bool]:
        """CORE-CALL-4, -17: what the done item states is the call's, what it leaves out the
        announcement's; another name or namespace is a done_mismatch (CORE-CALL-18), another call
        id is not (CORE-CALL-19). Also whether the done item states another tool than the call
        made at the .done was made for (CORE-CALL-13)."""
        outcomes: list[Outcome] = []
        contradicted = False
        for name in ("call_id", "name", "namespace"):
            first, again = getattr(item, name), stated[name]
            if again is None or again == first:
                continue
            if first is not None and self.has(Fault.FIRST_IDENTITY_STANDS):  # spec 1.3's rule
                outcomes.append(_error("done_mismatch", f"the done item states {name} {again!r}"))
                contradicted |= call.fired
                continue
            if name == "call_id":
                reported = self.has(Fault.RESTATED_CALL_ID_REPORTED)
            else:
                reported = not self.has(Fault.SILENT_NAME_CHANGE)
            if first is not None and reported:
                message = f"the done item states {name} {again!r}, not {first!r}"
                outcomes.append(_error("done_mismatch", message))
            contradicted |= call.fired and name != "call_id"  # a namespace the call lacked included
            setattr(item, name, again)
            if name == "call_id" and not self.has(Fault.DONE_ITEM_CALL_ID_UNKNOWN):
                self.by_call_id[again] = item  # CORE-ITEM-8: the done item states it most recently
        return outcomes, contradicted

    def _call_done(self, item: ItemState, call: Call, stated: dict[str, Any]) -> list[Outcome]:
        refusing = (
            ("incomplete", "in_progress")
            if self.has(Fault.IN_PROGRESS_DONE_ITEM_INCOMPLETE)
            else ("incomplete",)
        )
        incomplete = stated["status"] in refusing and not self.has(Fault.IGNORE_ITEM_STATUS)
        outcomes, contradicted = self._identity(item, call, stated)
        text, stated_text = call.done_text, stated.get(TEXT_FIELD.get(item.type, "arguments"))
        if text is None and call.deltas.received and self.has(Fault.ARGUMENTS_FROM_DELTAS):
            stated_text = None  # the deltas are taken for the arguments
            text = call.deltas.joined()
        if stated_text is not None:  # CORE-ARGS-5: the done item's text is the call's
            if text is None:
                agree = call.deltas.agrees(stated_text) or self.has(Fault.NO_ARGUMENTS_MISMATCH)
            else:
                agree = well_formed(text) == well_formed(stated_text) or (
                    call.deltas.overflowed and self.has(Fault.TOO_LARGE_SOURCES_UNCOMPARED)
                )
            if not agree:
                outcomes.append(
                    _error("done_mismatch", f"the done item's text {stated_text!r:.60} disagrees")
                )
                contradicted = True
            if text is None or not self.has(Fault.ARGUMENTS_DONE_EVENT_WINS):
                text = stated_text
        call.complete = call.settled = True
        call.deltas.release()
        if call.fired:  # arguments_done: the call went out at its .done (CORE-CALL-8)
            readdressed = item.call_id != call.made_with
            if incomplete and not self.has(Fault.NO_RETRACT_ON_INCOMPLETE):  # CORE-CALL-12
                outcomes.append(self._retracted(item, "its done item is incomplete"))
            elif contradicted and not self.has(Fault.NO_RETRACT_ON_MISMATCH):  # CORE-CALL-13
                outcomes.append(self._retracted(item, "its done item states another call"))
            elif readdressed and self.has(Fault.RESTATED_CALL_ID_RETRACTED):
                outcomes.append(self._retracted(item, "its done item states another call id"))
            elif readdressed and not self.has(Fault.FIRST_IDENTITY_STANDS):  # CORE-CALL-20
                assert item.call_id is not None
                assert call.made_with is not None
                self.called.add(item.call_id)  # both ids are the call's (CORE-CALL-7)
                message = f"the call made as {call.made_with!r} is {item.call_id!r}"
                outcomes.append(
                    _error(
                        "call_id_restated",
                        message,
                        item_id=item.id,
                        call_id=item.call_id,
                        previous_call_id=call.made_with,
                    )
                )
            return outcomes
        if call.outcome is not None and not self.has(Fault.CALL_AGAIN_ON_DUPLICATE_DONE):
            return outcomes
        if incomplete:  # CORE-CALL-5
            return outcomes + self._tool_error(item, "incomplete", "the done item's status is incomplete")
        return outcomes + self._produce(item, text)

    def _retracted(self, item: ItemState, why: str) -> Outcome:
        """Names the call as it was made, whatever id its done item states (CORE-CALL-12 .. -14)."""
        assert item.call is not None
        if self.has(Fault.RETRACTION_FREES_CALL_ID):  # as if it had never been made (CORE-CALL-7)
            self.called.discard(str(item.call.made_with))
        message = f"the call produced at its .done is withdrawn: {why}"
        return _error("call_retracted", message, item_id=item.id, call_id=item.call.made_with)

    def _resolve_item(self, kind: str, values: dict[str, Any]) -> ItemState:
        """The item an item event belongs to (CORE-ITEM-2, -3, -4, -8)."""
        item_id, output_index, call_id = values["item_id"], values["output_index"], values.get("call_id")
        if self.has(Fault.CUSTOM_INPUT_IGNORES_CALL_ID):
            call_id = None
        if output_index is not None and self.has(Fault.OUTPUT_INDEX_DECIDES):
            item_id = None
        item: ItemState | None
        if item_id is not None:
            item = self.items.get(item_id)
            missing = f"item {item_id!r} was never announced"
        elif call_id is not None:
            item = self.by_call_id.get(call_id)
            missing = f"no item was announced with call_id {call_id!r}"
        elif output_index is not None:
            item = self.by_output_index.get(output_index)
            missing = f"no item was announced at output_index {output_index}"
        elif kind.startswith("response.custom_tool_call_input") and self.has(Fault.CUSTOM_INPUT_TO_OPEN_CALL):
            open_calls = [i for i in self.items.values() if i.type == "custom_tool_call" and not i.done]
            if not open_calls:
                raise Refused("malformed_event", "no id, and no custom call is open")
            item = open_calls[-1]
        else:  # CORE-ITEM-8: not even a custom input goes to a guessed call
            raise Refused("malformed_event", "the event names no item (item_id, call_id or output_index)")
        if item is None:
            if not self.has(Fault.ROUTE_UNKNOWN_ITEM):
                raise Refused("unknown_item", missing)
            stated = {"id": item_id or "", "type": _APPLIES_TO[kind], "call_id": call_id, "name": None}
            item = self._announce({**stated, "namespace": None}, output_index)  # created on first sight
        if item.type != _APPLIES_TO[kind] and not self.has(Fault.NO_ITEM_TYPE_CHECK):
            raise Refused("item_type_mismatch", f"{kind} does not apply to the {item.type} {item.id!r}")
        return item

    # -- text, refusal and reasoning --

    def _text_delta_outcome(
        self, item: ItemState, output_index: int | None, index: int, delta: str
    ) -> Outcome:
        event_index = self.has(Fault.INDEXES_FROM_EVENT_ONLY) or (
            output_index is not None and self.has(Fault.TEXT_OUTPUT_INDEX_FROM_EVENT)
        )
        if not event_index:
            output_index = item.output_index  # the item's, whatever the event states (CORE-ITEM-15, -16)
        outcome = {
            "kind": "text.delta",
            "item_id": item.id,
            "output_index": output_index,
            "content_index": index,
            "delta": delta,
        }
        return _labelled(outcome, item)

    def _channel(self, kind: str, item: ItemState, values: dict[str, Any]) -> list[Outcome]:
        index_field = "summary_index" if "summary_index" in values else "content_index"
        index = values[index_field]
        if index is None and not self.has(Fault.INDEXES_FROM_EVENT_ONLY):
            index = 0  # CORE-ITEM-7
        if kind == "response.output_text.done":
            return self._text_done(item, index, values["text"])
        refusal = kind == "response.refusal.delta"
        part_done = index in item.parts_done and not (refusal and self.has(Fault.LATE_CHECK_PER_CHANNEL))
        if (part_done or item.done) and not (
            kind == "response.output_text.delta" and self.has(Fault.LATE_TEXT_DELTA_ROUTED)
        ):  # CORE-TEXT-6: a part is done whatever the channel
            raise Refused("late_delta", f"delta after part {index} of {item.id!r} was done")
        delta = values["delta"]
        if refusal and not self.has(Fault.REFUSAL_AS_TEXT):
            if self.has(Fault.REFUSAL_UNROUTED):
                return [{"kind": "ignored", "type": kind}]
            return [{"kind": "refusal.delta", "item_id": item.id, "content_index": index, "delta": delta}]
        if kind.startswith("response.reasoning"):
            return [{"kind": "reasoning.delta", "item_id": item.id, index_field: index, "delta": delta}]
        if delta == "" and self.has(Fault.DROP_EMPTY_TEXT_DELTA):
            return []
        outcome = self._text_delta_outcome(item, values["output_index"], index, delta)
        limit = math.inf if self.has(Fault.TEXT_BUFFER_UNBOUNDED) else MAX_BUFFER_BYTES
        part = item.parts.setdefault(index, Buffer(self.faults, limit))
        stops = self.has(Fault.TEXT_LIMIT_STOPS_ROUTING)
        if part.overflowed:
            return [] if stops else [outcome]
        if part.add(delta):
            return [outcome]
        message = f"part {index} of {item.id!r} passes {MAX_BUFFER_BYTES} bytes: it is no longer compared"
        return (
            [_error("too_large", message)] if stops else [outcome, _error("too_large", message)]
        )  # CORE-LIMIT-3

    def _text_done(self, item: ItemState, index: int, text: str) -> list[Outcome]:
        if (index in item.parts_done or item.done) and not self.has(Fault.SECOND_TEXT_DONE_ROUTED):
            raise Refused("duplicate_event", f"part {index} of {item.id!r} is already done")  # CORE-TEXT-7
        item.parts_done.add(index)
        part = item.parts.pop(index, Buffer())
        outcomes: list[Outcome] = []
        if not part.agrees(text) and not self.has(Fault.NO_TEXT_MISMATCH):  # CORE-TEXT-2
            outcomes.append(_error("done_mismatch", f"text {text!r:.60} disagrees with its deltas"))
        done = {"kind": "text.done", "item_id": item.id, "content_index": index, "text": text}
        return [*outcomes, _labelled(done, item)]

    # -- arguments and calls --

    def _arguments_delta(self, item: ItemState, delta: str) -> list[Outcome]:
        call = item.call
        assert call is not None  # every function or custom call item has one
        late = call.complete and not self.has(Fault.LATE_ARGUMENTS_DELTA_APPENDED)
        if late and not (
            call.deltas.overflowed and self.has(Fault.TOO_LARGE_AFTER_COMPLETE)
        ):  # CORE-ARGS-4, even past CORE-LIMIT-1
            raise Refused("late_delta", f"delta after the arguments of {item.id!r} were complete")
        if call.deltas.overflowed:
            raise Refused("too_large", f"delta of {item.id!r} dropped: its arguments passed the limit")
        if delta == "" and self.has(Fault.DROP_EMPTY_ARGUMENTS_DELTA):
            return []
        if not call.deltas.add(delta):  # CORE-LIMIT-1
            return self._tool_error(
                item, "too_large", f"the arguments of {item.id!r} pass {MAX_BUFFER_BYTES} bytes"
            )
        if self.has(Fault.NO_ARGUMENTS_PREVIEW):
            return []
        return [{"kind": "tool.arguments.delta", "item_id": item.id, "delta": delta}]

    def _arguments_done(self, item: ItemState, text: str, event: dict[str, Any]) -> list[Outcome]:
        call = item.call
        assert call is not None
        if call.complete and not (self.has(Fault.SECOND_ARGUMENTS_DONE_REPLACES) and not item.done):
            raise Refused(
                "duplicate_event", f"the arguments of {item.id!r} are already complete"
            )  # CORE-ARGS-7
        outcomes: list[Outcome] = []
        if not call.complete and not call.deltas.agrees(text) and not self.has(Fault.NO_ARGUMENTS_MISMATCH):
            outcomes.append(_error("done_mismatch", f"the .done text {text!r:.60} disagrees with its deltas"))
        call.complete = True
        call.done_text = text
        call.deltas.release()
        if isinstance(event.get("name"), str) and self.has(Fault.NAME_FROM_ARGUMENTS_DONE):
            item.name = event["name"]
        identified = (item.call_id is not None and item.name is not None) or self.has(
            Fault.FIRE_WITHOUT_IDENTITY
        )
        if self.at_arguments_done and identified and call.outcome is None:  # CORE-CALL-8
            outcomes += self._produce(item, text)
        return outcomes

    def _produce(self, item: ItemState, text: str | None) -> list[Outcome]:
        """The call's one tool.call or tool.error (CORE-CALL-1, -3, -5, -7, CORE-LIMIT-2)."""
        call = item.call
        assert call is not None
        if item.call_id is None or item.name is None or text is None:
            return self._tool_error(item, "incomplete", "the call has no call id, name or complete text")
        if item.call_id in self.called and not self.has(Fault.NO_DUPLICATE_CALL_ID_CHECK):
            return self._tool_error(item, "duplicate_call_id", f"call id {item.call_id!r} was already called")
        outcome: Outcome = {
            "kind": "tool.call",
            "item_id": item.id,
            "call_id": item.call_id,
            "name": item.name,
        }
        if item.type == "custom_tool_call" and not self.has(Fault.PARSE_CUSTOM_INPUT):
            outcome.update(tool_type="custom", input=text)
        else:
            if nesting_depth(text, self.faults) > MAX_DEPTH and not self.has(Fault.NO_DEPTH_LIMIT):
                return self._tool_error(
                    item, "too_deep", f"the arguments nest deeper than {MAX_DEPTH} levels"
                )
            try:
                arguments = parse_json(text, self.faults)
            except NotJSON as problem:
                return self._tool_error(item, "invalid_json", f"the arguments are not JSON: {problem}")
            if not isinstance(arguments, dict) and not self.has(Fault.ACCEPT_NON_OBJECT_ARGUMENTS):
                return self._tool_error(item, "invalid_arguments", "the arguments are not a JSON object")
            outcome.update(tool_type=CALL_TOOL_TYPES.get(item.type, "function"), arguments=arguments)
            if self.has(Fault.ARGUMENTS_AS_TEXT):
                outcome["arguments"] = text
        if item.namespace is not None:
            outcome["namespace"] = item.namespace
        call.outcome = "tool.call"
        call.fired = not item.done
        call.made_with = item.call_id
        self.called.add(item.call_id)
        return [outcome]

    # -- the call catalogue (spec/core.md section 5.1) --

    def _preview(self, kind: str, item: ItemState, values: dict[str, Any]) -> list[Outcome]:
        """CORE-CALLTYPE-6, -8: shown, never kept; one preview per command (the diff is one)."""
        index = values.get("command_index") or 0
        finished = index in item.parts_done or item.done
        shown = _PREVIEW_TEXT[kind]
        if shown is None:
            if finished:
                raise Refused("duplicate_event", f"preview {index} of {item.id!r} was done before")
            item.parts_done.add(index)
            if item.call is not None and "diff" in values:
                item.call.done_text = values["diff"]  # kept only for PATCH_FROM_DIFF_DONE
            return []
        if kind == "response.shell_call_command.added" and self.has(Fault.SHELL_ADDED_TEXT_DROPPED):
            return []
        if finished and not self.has(Fault.LATE_PREVIEW_SHOWN):
            raise Refused("late_delta", f"preview delta after preview {index} of {item.id!r} was done")
        outcome: Outcome = {"kind": "tool.arguments.delta", "item_id": item.id, "delta": values[shown]}
        if "command_index" in values:
            outcome["command_index"] = index
        return [outcome]

    def _catalogue_done(
        self, item: ItemState, call: Call, stated: dict[str, Any], done: Mapping[str, Any]
    ) -> list[Outcome]:
        """A catalogue call's one outcome, from the done item alone (CORE-CALLTYPE-1 .. -5, -7)."""
        item.hosted = stated["hosted"]
        if item.hosted:  # CORE-CALLTYPE-4
            call.settled = True
            return []
        outcomes, _ = self._identity(item, call, stated)
        call.complete = call.settled = True
        if call.outcome is not None:
            return outcomes
        tool_type = CATALOGUE[item.type]
        ignores_status = self.has(Fault.CATALOGUE_STATUS_IGNORED)
        if stated["status"] in ("incomplete", "failed") and not ignores_status:  # CORE-CALLTYPE-3
            return outcomes + self._tool_error(item, "incomplete", f"the done item is {stated['status']}")
        if item.call_id is None or (item.name is None and tool_type == "mcp_approval"):
            return outcomes + self._tool_error(item, "incomplete", "the call has no call id or name")
        try:
            fields, refused = self._catalogue_fields(tool_type, done), None
        except Refused as fault:
            fields, refused = {}, fault
        first_input = self.has(Fault.INPUT_FAULT_BEFORE_DUPLICATE)
        if refused is not None and (refused.code == "incomplete" or first_input):  # CORE-CALL-22
            return outcomes + self._tool_error(item, refused.code, str(refused))
        if item.call_id in self.called:  # CORE-CALL-7, before the input's own faults
            return outcomes + self._tool_error(item, "duplicate_call_id", f"{item.call_id!r} was called")
        if refused is not None:
            return outcomes + self._tool_error(item, refused.code, str(refused))
        name = item.name if tool_type == "mcp_approval" else tool_type
        if "operation" in fields and call.done_text is not None and self.has(Fault.PATCH_FROM_DIFF_DONE):
            fields["operation"] = {**fields["operation"], "diff": call.done_text}
        call.outcome = "tool.call"
        self.called.add(item.call_id)
        return [
            *outcomes,
            {
                "kind": "tool.call",
                "item_id": item.id,
                "call_id": item.call_id,
                "name": name,
                "tool_type": tool_type,
                **fields,
            },
        ]

    def _catalogue_fields(self, tool_type: str, done: Mapping[str, Any]) -> dict[str, Any]:
        """The tool.call fields of a catalogue call (CORE-CALLTYPE-2, -7); Refused when it has none."""
        if tool_type == "computer":  # the preview tool's one action is a list of one
            name = "actions" if done.get("actions") is not None else "action"
        else:
            name = _INPUT_OF[tool_type]
        value: Any = done.get(name)
        if value is None:
            raise Refused("incomplete", f"the done item has no {name}")
        if tool_type == "computer" and name == "action":
            value = [value]
        if not _INPUT_SHAPE[tool_type](value) and not self.has(Fault.CATALOGUE_INPUT_UNCHECKED):
            raise Refused("invalid_arguments", f"the done item's {name} is not of its shape")
        if tool_type == "computer":
            checks = done.get("pending_safety_checks")
            fields = {"actions": value}
            if isinstance(checks, list):
                return {**fields, "pending_safety_checks": checks}
            if checks is not None and not self.has(Fault.UNREADABLE_SAFETY_CHECKS_DROPPED):
                raise Refused(
                    "invalid_arguments", "pending_safety_checks must be an array"
                )  # CORE-CALLTYPE-7
            return fields
        if tool_type != "mcp_approval":
            return {name: value}
        label = done.get("server_label")
        if label is None and not self.has(Fault.MISSING_SERVER_LABEL_INVALID):
            raise Refused("incomplete", "an approval request names no server_label")  # CORE-CALLTYPE-10
        if not isinstance(label, str):
            raise Refused("invalid_arguments", "an approval request names its server_label")
        if nesting_depth(value, self.faults) > MAX_DEPTH:
            raise Refused("too_deep", f"the arguments nest deeper than {MAX_DEPTH} levels")
        try:
            arguments = parse_json(value, self.faults)
        except NotJSON as problem:
            raise Refused("invalid_json", f"the arguments are not JSON: {problem}") from None
        if not isinstance(arguments, dict):
            raise Refused("invalid_arguments", "the arguments are not a JSON object")
        return {"arguments": arguments, "server_label": label}

    def _tool_error(self, item: ItemState, code: str, message: str) -> list[Outcome]:
        assert item.call is not None
        item.call.outcome = "tool.error"
        outcome: Outcome = {"kind": "tool.error", "item_id": item.id, "code": code, "message": message}
        if item.call_id is not None:
            outcome["call_id"] = item.call_id
        return [outcome]

    def _settle_open_calls(self) -> list[Outcome]:
        """The response ended: each call without its done item is told so (CORE-CALL-6, CORE-CALL-8)."""
        if self.has(Fault.FORGET_OPEN_CALLS):
            return []
        outcomes: list[Outcome] = []
        for item in self.items.values():
            call = item.call
            if call is None or call.settled:
                continue
            call.settled = True
            if call.outcome is None:
                outcomes += self._tool_error(
                    item, "incomplete", "the response ended before the call completed"
                )
            elif call.fired and not self.has(Fault.NO_RETRACT_AT_END):  # CORE-CALL-14
                outcomes.append(self._retracted(item, "the response ended before its done item"))
        return outcomes


@dataclass(frozen=True)
class IndependentAdapter:
    """An adapter (README.md): called with the vector's tool list, it returns a fresh router."""

    faults: frozenset[Fault] = frozenset()
    tool_call_point: str = "output_item_done"
    profiles: tuple[str, ...] = ("core", "sse")

    @property
    def options(self) -> dict[str, Any]:
        call_types = [*CALL_TOOL_TYPES.values(), *CATALOGUE.values()]
        return {"tool_call_point": self.tool_call_point, "call_types": call_types}

    def __call__(self, tools: Sequence[Mapping[str, Any]]) -> IndependentRouter:
        return IndependentRouter(self.faults, at_arguments_done=self.tool_call_point == "arguments_done")


router = IndependentAdapter()
arguments_done_router = IndependentAdapter(tool_call_point="arguments_done")
