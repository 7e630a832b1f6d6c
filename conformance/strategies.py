"""Hypothesis strategies for generated streams, each drawn with its ground truth.

Hand-written vectors are finite; stream bugs live in the cuts, interleavings
and producer mistakes nobody wrote down. These strategies draw streams whose
meaning is decided *before* they are cut into events, so every stream comes
with what a conforming implementation must make of it.

Theory of operation
-------------------
A `StreamPlan` is what the producer decided: the items of one response
(messages of text and refusal parts, reasoning, function and custom calls,
hosted tool items), what each call states where (its deltas, its arguments
`.done`, its done item: the same text or not, JSON or not, too deep or too
large), which identity each item states at `added` and at done, and the
*steps* of the stream in order. A step is one event, named by what it means
(`delta` of part 1 of item 2, addressed by `output_index` only; the done item
of item 0; a second `.done` with another text; an `error` event; a malformed
copy of an event; a control step), never by its JSON. The plan's producer
deviates as the spec says producers do: late deltas and duplicate dones,
disagreeing complete sources, missing ids, unknown and vendor events, events
after the terminal event, cut-off streams, oversized and overdeep arguments.

`streams_from(plan)` cuts each part's text at drawn positions into deltas and
renders the steps as events (`render_events`); for the `sse` profile it also
writes the events as SSE bytes (`Wire`: comments, CRLF, CR, multi-line data,
`[DONE]`, data that is not JSON, bytes that are not UTF-8, a byte order mark,
an unfinished last event) and the ways to cut them.

`expected_outcomes(stream, point)` runs the plan's steps through `Machine`,
the spec written down as small state machines: the stream's, each item's, each
part's and each call's states and their transition tables (`STREAM_MOVES`,
`ITEM_MOVES`, `PART_MOVES`, `CALL_MOVES`), the consumer slot, one handler per
step kind (`Machine.STEPS`), the custom-tools consumer catalogue (`patch`
included: a generated patch carries its previews line by line), and for
`execution` an executor machine of spec/execution.md section 2. It reads the
plan, never an event's JSON, and never runs the reference. A complete text's
meaning is decided when it is drawn (`Verdict`: the parsed object, or the
`tool.error` code), as is a patch's preview at each line. The event types'
facts (terminal, routed, item type, text field) come from the event schema
(`event_types()`), the option values from the vector schema.

`check_properties(stream, outcomes)` says in words how an implementation's
outcomes part from the ground truth: every outcome valid, each part's text,
each call's one `tool.call` or `tool.error`, the end status.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, ClassVar, Literal, TypeVar

from hypothesis import strategies as st

from .compare import json_equal, to_canonical_point
from .event_types import event_types
from .implementation import Produced
from .requirements import LEVEL_RANK, read_requirements
from .schemas import OPTIONS, OUTCOME, SPEC_DIR, first_error, json_pointer, option_defaults, schema

Profile = Literal["core", "custom-tools", "execution", "sse"]
ToolCallPoint = Literal["output_item_done", "arguments_done"]  # the option's values, as typed
EndStatus = Literal["completed", "failed", "incomplete", "cancelled", "truncated"]
ItemKind = Literal["message", "reasoning", "function", "custom", "hosted"]
Channel = Literal["text", "refusal", "summary", "reasoning_text", "reasoning", "arguments"]
Outcome = dict[str, Any]
T = TypeVar("T")

PROFILES: tuple[Profile, ...] = ("core", "custom-tools", "execution", "sse")
# Option `tool_call_point` as the vector schema defines it; `ToolCallPoint` types the same values.
POINTS: tuple[ToolCallPoint, ...] = tuple(schema(OPTIONS)["properties"]["tool_call_point"]["enum"])
CANONICAL_POINT: ToolCallPoint = option_defaults()["tool_call_point"]

MAX_BUFFERED_BYTES = 1 << 20  # CORE-LIMIT-1, CORE-LIMIT-3
MAX_DEPTH = 128  # CORE-LIMIT-2
PREVIEW_INTERVAL_MS = 500  # CUSTOM-PATCH-4
FAILURE_CODE = "server_error"
# What every producer's response object states besides its id, status and output (PROD-LIFE-6).
RESPONSE_STATED = {"object": "response", "created_at": 1764505140, "model": "gpt-5.1"}

EVENTS = event_types()
TERMINAL_TYPES = {event.step: name for name, event in EVENTS.items() if event.terminal}  # by status
# The event family each channel streams in: the channel's `.delta` and `.done` types.
_FAMILIES = {
    "text": "response.output_text",
    "refusal": "response.refusal",
    "summary": "response.reasoning_summary_text",
    "reasoning_text": "response.reasoning_text",
    "reasoning": "response.reasoning",
    "function": "response.function_call_arguments",
    "custom": "response.custom_tool_call_input",
}
DELTA_TYPES = {channel: EVENTS[family + ".delta"].name for channel, family in _FAMILIES.items()}
DONE_TYPES = {channel: EVENTS[family + ".done"].name for channel, family in _FAMILIES.items()}
# The item type each routed item event applies to (CORE-ITEM-4).
ITEM_TYPE_OF = {
    name: EVENTS[name].item_types[0]
    for name in (*DELTA_TYPES.values(), *DONE_TYPES.values())
    if EVENTS[name].routed
}
_CALL_DONE = (EVENTS[DONE_TYPES["function"]], EVENTS[DONE_TYPES["custom"]])
CALL_TYPES = {event.item_types[0]: event.tool_type for event in _CALL_DONE if event.tool_type}
CALL_ITEM_TYPES = {tool_type: item_type for item_type, tool_type in CALL_TYPES.items()}
COMPLETE_FIELD = {event.tool_type: event.item_path[0] for event in _CALL_DONE}  # tool_type -> field
# Hosted tool items: the server runs them (CORE-CALL-9); their events are unrouted.
HOSTED = {
    "web_search_call": ("response.web_search_call.in_progress", "response.web_search_call.searching"),
    "mcp_call": ("response.mcp_call_arguments.delta", "response.mcp_call_arguments.done"),
    "code_interpreter_call": (
        "response.code_interpreter_call_code.delta",
        "response.code_interpreter_call.interpreting",
    ),
    "image_generation_call": (
        "response.image_generation_call.generating",
        "response.image_generation_call.partial_image",
    ),
    "file_search_call": ("response.file_search_call.searching", "response.file_search_call.completed"),
}
# Events a router must answer with `ignored`: unknown, vendor-prefixed (even a routed name
# behind the prefix), and unrouted types of the routing table.
UNKNOWN_TYPES = ("response.future_feature.delta", "response.output_text.delta.v2", "ping")
VENDOR_TYPES = ("acme:trace_event", "acme:response.output_text.delta", "x:response.completed")
UNROUTED_TYPES = (
    "response.output_text.annotation.added",
    "response.reasoning_summary_part.added",
    "response.audio.delta",
    "response.audio.transcript.delta",
    "response.mcp_list_tools.in_progress",
    "response.code_interpreter_call_code.done",
)
EXTRA_TYPES = (*UNKNOWN_TYPES, *VENDOR_TYPES, *UNROUTED_TYPES)


# -- what the producer decided -------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What a call's complete text means, decided when it was drawn (CORE-CALL-3, CORE-LIMIT-2)."""

    code: str | None  # None: the call goes out with `value`; else its tool.error code
    value: Any = None  # the parsed arguments (function) or the input (custom)
    pointer: str | None = None  # execution: where the arguments fail the tool's schema (EXEC-CHECK-2)


@dataclass(frozen=True)
class Identity:
    """What an item states at `added` or at done: its call id, name and namespace (CORE-CALL-4)."""

    call_id: str | None = None
    name: str | None = None
    namespace: str | None = None


@dataclass(frozen=True)
class PartPlan:
    """A content part, a reasoning part, or a call's arguments (`channel` "arguments")."""

    channel: Channel
    index: int  # content_index or summary_index
    streamed: str  # what its deltas concatenate to
    pieces: int  # into how many deltas it is cut
    stated: str  # what its `.done` states, when the stream has it


@dataclass(frozen=True)
class PatchText:
    """A generated apply_patch text and its preview after each line (spec/custom-tools.md 9)."""

    text: str
    previews: tuple[Any, ...]  # previews[k]: the `files` after k lines
    changes: tuple[bool, ...]  # changes[k - 1]: line k changes the preview
    error_line: int | None  # the line a streaming parser stops at
    valid: bool  # finish accepts the complete text


@dataclass(frozen=True)
class ItemPlan:
    """One output item, decided before it is cut into events."""

    kind: ItemKind
    position: int  # its place among the plan's items: its id says it
    output_index: int
    item_type: str
    parts: tuple[PartPlan, ...] = ()
    added: Identity = Identity()
    done: Identity = Identity()
    done_text: str | None = None  # calls: the done item's arguments or input; None: not stated
    done_text_null: bool = False  # ... stated as null, which is absent (D1)
    status: str | None = "completed"  # the done item's status; None: absent
    done_type: str | None = None  # the done item's type when it is not the announced one (CORE-ITEM-4)
    verdicts: tuple[tuple[str, Verdict], ...] = ()  # calls: the meaning of each complete text

    @property
    def item_id(self) -> str:
        prefix = {"message": "msg", "reasoning": "rs", "function": "fc", "custom": "ctc", "hosted": "ht"}
        return f"{prefix[self.kind]}_{self.position}"

    @property
    def is_call(self) -> bool:
        return self.kind in ("function", "custom")


@dataclass(frozen=True)
class Step:
    """One entry of the stream, by what it means. `kind` is a transition of `Machine`."""

    kind: str
    item: int = -1  # the item's position in the plan
    part: int = 0  # the part's position in the item
    piece: int = -1  # which delta of the part; -1: an extra delta whose text is `text`
    text: str = ""  # an extra delta's text, a `.done`'s other text, an extra event's type
    form: frozenset[str] = frozenset()  # how the event names things (see `_item_event`)
    value: Any = None  # malformed: the event; control: the step; error: the code
    at_ms: int | None = None  # the stream time the event carries (CUSTOM-TIME-1)


@dataclass(frozen=True)
class ExecutionTool:
    """A tool of an execution vector, with its declared behaviour (spec/execution.md section 11)."""

    name: str
    type: Literal["function", "custom"]
    namespace: str | None = None
    parameters: dict[str, Any] | None = None
    allow: bool = True
    permitted: bool = True
    requires_approval: bool = False
    behaviour: Literal["result", "fails", "pending"] = "result"
    result: Any = None

    def declared(self) -> dict[str, Any]:
        tool: dict[str, Any] = {"name": self.name, "type": self.type}
        if self.namespace is not None:
            tool["namespace"] = self.namespace
        if self.parameters is not None:
            tool["parameters"] = self.parameters
        if not self.allow:
            tool["allow"] = False
        if not self.permitted:
            tool["permitted"] = False
        if self.requires_approval:
            tool["requires_approval"] = True
        if self.behaviour == "fails":
            tool["fails"] = "the tool failed"
        elif self.behaviour == "pending":
            tool["pending"] = True
        else:
            tool["result"] = self.result
        return tool


@dataclass(frozen=True)
class StreamPlan:
    profile: Profile
    response_id: str
    items: tuple[ItemPlan, ...]
    steps: tuple[Step, ...]  # every entry of the stream, response.created first
    status: EndStatus  # how the producer ended it: `truncated` has no terminal event
    tools: tuple[dict[str, Any], ...]  # the vector's tool list
    consumers: tuple[
        tuple[tuple[str | None, str], str], ...
    ] = ()  # custom-tools: (namespace, name) -> consumer
    execution_tools: tuple[ExecutionTool, ...] = ()
    patches: tuple[PatchText, ...] = ()  # the patch texts of the plan's calls
    sequence: str = "in_order"  # sequence numbers: in_order, absent, repeated, shuffled (CORE-EVT-6)

    def verdict(self, item: ItemPlan, text: str) -> Verdict:
        """What a complete text means for the call it completes, wherever it was drawn."""
        if item.kind == "custom":
            return Verdict(None, text)
        for owner in (item, *self.items):
            for stated, verdict in owner.verdicts:
                if stated == text:
                    return verdict
        raise AssertionError(f"{item.item_id}: no verdict for {text[:40]!r}")

    def patch(self, text: str) -> PatchText | None:
        for patch in self.patches:
            if patch.text == text:
                return patch
        return None


def _pick(draw: st.DrawFn, options: Sequence[T]) -> T:
    """One of the options, each as likely (duplicates weigh more); shrinks to the first."""
    return options[draw(st.integers(0, len(options) - 1))]


def _chance(draw: st.DrawFn, one_in: int) -> bool:
    """True one time in `one_in`; shrinks to False, the plain case."""
    return draw(st.integers(0, one_in - 1)) == one_in - 1


# How many deltas a text is cut into: none (a producer may send only the complete text), to several.
_PIECES = (0, 1, 2, 2, 3, 3, 4, 5)

# -- drawing: texts and complete sources ---------------------------------------------------------

# Characters that matter to routers: JSON's own, every UTF-8 length, a newline, U+FFFD.
_ALPHABET = 'ab {}[]",:\\é€中😀\n\ufffd'
_chars = st.sampled_from(_ALPHABET) | st.characters(codec="utf-8")
texts = st.text(_chars, max_size=12)

_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    # Below 2**53 in magnitude: a larger double with an integer value is written by some JSON
    # encoders (JavaScript's) as an integer literal whose exact value is not the double's.
    | st.floats(min_value=-(2**53), max_value=2**53)
    | st.text(_chars, max_size=8)
)
json_values = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(_chars, max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
argument_objects = st.dictionaries(st.text(_chars, max_size=6), json_values, max_size=4)

# Text that is not JSON (RFC 8259), or JSON whose meaning a parser must not choose (D7), by the
# mistake a lenient parser makes with it.
_NOT_JSON: tuple[tuple[str, ...], ...] = (
    (
        "",
        "{",
        '{"city": "Paris"',
        "{'a': 1}",
        '{"a": 01}',
        '{"a": 1,}',
        "{a: 1}",
        '{"a": "\x01"}',
        '{"a": "\\x"}',
    ),
    ('{"a": 1} x', '{"city": "Paris"}}', '{"a": 1}{"b": 2}', '{"a": tru}', '{"a": 1} // done'),
    ('{"a": NaN}', '{"a": Infinity}', '{"a": [-Infinity]}'),
    ('{"a": 1, "a": 2}', '{"x": {"b": [1], "b": [1]}}', '{"a": 1, "\\u0061": 2}'),
    ('{"n": 1e999}', '{"n": [-1e400]}', '{"n": 2e308}', '{"n": 1' + "0" * 400 + "}"),
)
_NOT_OBJECTS = ("[]", "[1, 2]", '"text"', "5", "-1.5", "null", "true", " [] ")


def _dumps(draw: st.DrawFn, value: Any) -> str:
    ensure_ascii = draw(st.booleans())  # True: non-ASCII as \\u escapes, astral ones as surrogate pairs
    separators = _pick(draw, [(",", ":"), (", ", ": ")])
    return json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)


def _nested(depth: int, inner: str) -> tuple[str, Any]:
    """Arguments whose nesting is `depth` levels (the object is level 1)."""
    text, value = inner, json.loads(inner)
    for _ in range(depth - 1):
        text, value = f"[{text}]", [value]
    return f'{{"a": {text}}}', {"a": value}


@st.composite
def _argument_text(
    draw: st.DrawFn, objects: st.SearchStrategy[tuple[Any, str | None]], schema: bool
) -> tuple[str, Verdict]:
    """Arguments text and what it means: mostly an object, sometimes not one, not JSON, too deep.
    `schema`: the tool has an argument schema, which only `objects` knows how to meet or fail."""
    shape = _pick(draw, ["object"] * 8 + ["not_json"] * 4 + ["not_object", "deep", "strings"])
    if schema and shape in ("deep", "strings"):
        return '{"a": ' + "[" * (MAX_DEPTH + 1), Verdict("too_deep")
    if shape == "object":
        value, pointer = draw(objects)
        return _dumps(draw, value), Verdict(None, value, pointer)
    if shape == "not_json":
        return _pick(draw, _pick(draw, _NOT_JSON)), Verdict("invalid_json")
    if shape == "not_object":
        return _pick(draw, _NOT_OBJECTS), Verdict("invalid_arguments")
    if shape == "strings":  # brackets inside strings do not nest (CORE-LIMIT-2)
        value = {"a": "[" * draw(st.integers(130, 300)), "b": "{"}
        return json.dumps(value), Verdict(None, value)
    depth = _pick(draw, [MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 7])
    if depth > MAX_DEPTH and draw(st.booleans()):  # too deep, whether or not it is JSON at all
        return '{"a": ' + "[" * depth, Verdict("too_deep")
    text, value = _nested(depth, _pick(draw, ["1", "null", '"x"']))
    return text, Verdict(None, value) if depth <= MAX_DEPTH else Verdict("too_deep")


def _any_object(draw: st.DrawFn) -> tuple[Any, str | None]:
    return draw(argument_objects), None


_any_objects = st.composite(_any_object)()


@st.composite
def _big(draw: st.DrawFn) -> str:
    """A text around CORE-LIMIT-1's 1 MiB in UTF-8, cut into few large deltas. It ends in 5,000
    2- or 3-byte characters or lone surrogates (3 bytes, D8), so a router that counts characters
    or counts a surrogate as 1 byte sees it 5,000 bytes or more smaller; the rest is ASCII, so a
    vector of it stays well below the vector file size limit."""
    unit = _pick(draw, ["a", "é", "€", "\ud800"])
    size = len(unit.encode("utf-8", "surrogatepass"))
    over = _pick(draw, [0, 1, 1, 2, 700])  # at the limit, just past it, well past it
    tail = unit * 5_000
    return "a" * (MAX_BUFFERED_BYTES + over - len(tail) * size) + tail


# -- drawing: patches ----------------------------------------------------------------------------

_PATH = st.sampled_from(["a.txt", "src/main.py", "docs/read me.md", "é.txt"])
_LINE = st.text(st.sampled_from("ab xé{"), min_size=1, max_size=6)
# What a hunk line says after its prefix: text, or a marker, which in an update is only text (C3).
_HUNK_TEXT = _LINE | st.sampled_from(["*** Add File: b.txt", "*** End Patch", "@@ x"])


class _PatchWriter:
    """A patch being written line by line, with the preview after each line (CUSTOM-PATCH-2, -3)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.changes: list[bool] = []
        self.files: list[dict[str, Any]] = []
        self.previews: list[Any] = [[]]
        self.error_line: int | None = None

    def line(self, text: str, changed: bool = True) -> None:
        self.lines.append(text)
        self.changes.append(changed)
        self.previews.append(copy.deepcopy(self.files))

    def fault(self, text: str) -> None:
        """A line the grammar does not allow: the parser stops there (CUSTOM-PATCH-6)."""
        self.error_line = self.error_line or len(self.lines) + 1
        self.line(text, changed=False)


@st.composite
def _patch(draw: st.DrawFn) -> PatchText:
    """A patch of the grammar's safe core, its preview after each line, and at most one fault."""
    fault = _pick(
        draw,
        [None] * 12
        + ["no_begin", "bad_add", "bad_update", "empty_update", "no_end", "after_end", "after_end"],
    )
    patch = _PatchWriter()
    if fault == "no_begin":
        patch.fault("hello")
    else:
        patch.line("*** Begin Patch", changed=False)
    if _chance(draw, 6):
        patch.line("*** Environment ID: dev", changed=False)
    for number in range(draw(st.integers(1, 3))):
        op = _pick(draw, ["add", "update", "update", "delete"])
        if number == 0 and fault in ("bad_add", "bad_update"):
            op = fault.removeprefix("bad_")
        path = draw(_PATH)
        if fault == "empty_update" and number == 0:  # an update without a hunk: refused where it closes
            patch.files.append({"op": "update", "path": path, "move_to": None, "hunks": []})
            patch.line(f"*** Update File: {path}")
            patch.error_line = len(patch.lines) + 1
        elif op == "delete":
            patch.files.append({"op": "delete", "path": path})
            patch.line(f"*** Delete File: {path}")
        elif op == "add":
            patch.files.append({"op": "add", "path": path, "content": ""})
            patch.line(f"*** Add File: {path}")
            for text in draw(st.lists(_LINE, min_size=1, max_size=3)):
                patch.files[-1]["content"] += text + "\n"
                patch.line("+" + text)
            if fault == "bad_add" and number == 0:
                patch.fault("oops")
        else:
            _update(draw, patch, path, fault == "bad_update" and number == 0)
    if fault != "no_end":
        patch.line("*** End Patch", changed=False)
    if fault == "after_end":
        patch.fault("trailing")
    elif fault != "no_end" and _chance(draw, 6):
        patch.line("", changed=False)  # a blank line after the end is nothing
    ending = _pick(draw, ["\n", "\r\n"])
    text = ending.join(patch.lines) + (ending if draw(st.booleans()) else "")
    return PatchText(text, tuple(patch.previews), tuple(patch.changes), patch.error_line, fault is None)


def _update(draw: st.DrawFn, patch: _PatchWriter, path: str, bad: bool) -> None:
    entry: dict[str, Any] = {"op": "update", "path": path, "move_to": None, "hunks": []}
    patch.files.append(entry)
    patch.line(f"*** Update File: {path}")
    if draw(st.booleans()):
        entry["move_to"] = "moved/" + path
        patch.line(f"*** Move to: moved/{path}")
    for number in range(draw(st.integers(1, 2))):
        context = _pick(draw, [None, "def f():", "class A"])
        entry["hunks"].append({"context": context, "lines": [], "end_of_file": False})
        if number > 0 or context is not None or draw(st.booleans()):
            patch.line("@@" if context is None else f"@@ {context}")
        for prefix, text in draw(
            st.lists(st.tuples(st.sampled_from(" +-"), _HUNK_TEXT), min_size=1, max_size=3)
        ):
            empty = prefix == " " and _chance(draw, 6)  # an empty line is the context line " "
            entry["hunks"][-1]["lines"].append(" " if empty else prefix + text)
            patch.line("" if empty else prefix + text)
        if bad:
            patch.fault("xyz")
    if _chance(draw, 4):
        entry["hunks"][-1]["end_of_file"] = True
        patch.line("*** End of File")
        if draw(st.booleans()):
            patch.line("", changed=False)  # a blank line after it is nothing


# -- drawing: items ------------------------------------------------------------------------------

FUNCTION_TOOLS = ("get_weather", "search_docs")
CUSTOM_TOOLS = ("run_sql",)
# The tool registry of core and sse streams (core reads no tool list).
TOOLS: tuple[dict[str, Any], ...] = (
    *({"name": name, "type": "function", "parameters": {"type": "object"}} for name in FUNCTION_TOOLS),
    *({"name": name, "type": "custom"} for name in CUSTOM_TOOLS),
)


@dataclass(frozen=True)
class _Catalogue:
    """The names items may state, and how each call's texts are drawn, for one profile."""

    functions: tuple[tuple[str | None, str], ...]  # (namespace, name)
    customs: tuple[tuple[str | None, str], ...]
    objects: Callable[[str], st.SearchStrategy[tuple[Any, str | None]]]  # by tool name
    patches: frozenset[str] = frozenset()  # custom tools whose input is a patch


def _texts_for(
    draw: st.DrawFn, kind: str, name: str, catalogue: _Catalogue, patches: list[PatchText]
) -> tuple[str, Verdict]:
    if kind == "function":
        return draw(_argument_text(catalogue.objects(name), name in SCHEMAS))
    if name in catalogue.patches or _chance(draw, 10):
        patch = draw(_patch())
        patches.append(patch)
        return patch.text, Verdict(None, patch.text)
    text = draw(st.text(_chars, max_size=24))
    return text, Verdict(None, text)


@st.composite
def _call(
    draw: st.DrawFn,
    position: int,
    output_index: int,
    kind: str,
    catalogue: _Catalogue,
    patches: list[PatchText],
    big: bool,
) -> ItemPlan:
    namespace, name = _pick(draw, catalogue.functions if kind == "function" else catalogue.customs)
    call_id = f"call_{position}"
    text, verdict = _texts_for(draw, kind, name, catalogue, patches)
    verdicts = [(text, verdict)]

    def other() -> str:  # another complete text, with its own meaning
        if kind == "function" and verdict.code is None and draw(st.booleans()):
            again = _dumps(draw, verdict.value)  # the same object, written otherwise: still another text
            verdicts.append((again, verdict))
            return again
        again, meaning = _texts_for(draw, kind, name, catalogue, patches)
        verdicts.append((again, meaning))
        return again

    if big:
        streamed = draw(_big())
        pieces = draw(st.integers(2, 3))
    else:
        streamed = other() if _chance(draw, 6) else text  # deltas that disagree with it
        # A patch streams in many deltas, so its consumer's throttle has moments to decide.
        pieces = _pick(draw, (2, 3, 4, 5, 6, 8) if patches and streamed == patches[-1].text else _PIECES)
    stated = other() if _chance(draw, 6) else text  # a `.done` the done item contradicts (D10)
    done_text: str | None = text
    source = _pick(draw, ["item"] * 5 + ["absent", "null"])
    if source != "item":
        done_text, text = None, stated  # the `.done` alone states it
    added = Identity(call_id, name, namespace)
    identity = _pick(
        draw,
        ["full"] * 14
        + ["late_call_id", "late_name"] * 2
        + ["late_namespace", "no_call_id", "no_name", "none"],
    )
    if identity == "no_call_id":
        added = replace(added, call_id=None)
    elif identity == "no_name":
        added = replace(added, name=None)
    done = Identity(added.call_id, added.name, namespace)
    if identity == "late_call_id":
        added = replace(added, call_id=None)
    elif identity == "late_name":
        added = replace(added, name=None)
    elif identity == "late_namespace":
        added = replace(added, namespace=None)
    elif identity == "none":
        done = Identity()
    contradiction = _pick(draw, [None] * 12 + ["call_id", "name"])  # CORE-CALL-17: the first stands
    if contradiction == "call_id" and added.call_id is not None:
        done = replace(done, call_id=added.call_id + "_other")
    elif contradiction == "name" and added.name is not None:
        done = replace(done, name=added.name + "_other")
    status = _pick(draw, ["completed"] * 10 + ["incomplete", None])
    item_type = CALL_ITEM_TYPES[kind]
    done_type = "message" if _chance(draw, 41) else None
    return ItemPlan(
        "function" if kind == "function" else "custom",
        position,
        output_index,
        item_type,
        (PartPlan("arguments", 0, streamed, pieces, stated),),
        added,
        done,
        done_text,
        source == "null",
        status,
        done_type,
        tuple(verdicts),
    )


def _split_surrogates(text: str) -> str:
    """The text with each astral character as its two UTF-16 halves, as two lone surrogates."""
    out = []
    for char in text:
        if ord(char) > 0xFFFF:
            code = ord(char) - 0x10000
            out += [chr(0xD800 + (code >> 10)), chr(0xDC00 + (code & 0x3FF))]
        else:
            out.append(char)
    return "".join(out)


@st.composite
def _text_part(draw: st.DrawFn, channel: Channel, index: int, big: bool, wire: bool) -> PartPlan:
    """`wire`: the stream goes out as SSE bytes, which carry U+FFFD as bytes that are not UTF-8
    (SSE-LINE-1), and events longer than a reader's buffer."""
    text = draw(texts)
    if big:  # CORE-LIMIT-3: routed on, no longer compared
        return PartPlan(channel, index, draw(_big()), draw(st.integers(2, 3)), draw(texts))
    if wire and _chance(draw, 3):
        text += "\ufffd"
    if wire and _chance(draw, 12):
        text = "a" * draw(st.integers(65_000, 70_000)) + text  # past 64 KiB, a common line buffer
    streamed = text
    variant = _pick(draw, ["same"] * 8 + ["other", "split"])
    if variant == "other":
        streamed = text + _pick(draw, ["x", " ", "é"])  # the deltas disagree (CORE-TEXT-11)
    elif variant == "split":
        text += "😀"
        streamed = _split_surrogates(text)  # halves of a pair in two deltas: another text (D9)
    return PartPlan(channel, index, streamed, _pick(draw, _PIECES), text)


@st.composite
def _item(
    draw: st.DrawFn,
    position: int,
    output_index: int,
    profile: Profile,
    catalogue: _Catalogue,
    patches: list[PatchText],
    big: bool,
) -> ItemPlan:
    kind = _pick(draw, _SHAPES[profile].kinds)
    if big:
        kind = _pick(draw, ["message", "function", "custom"])
    if kind in ("function", "custom"):
        return draw(_call(position, output_index, kind, catalogue, patches, big))
    if kind == "message":
        channels: list[Channel] = _pick(
            draw, [["text"], ["text"], ["text", "text"], ["refusal"], ["text", "refusal"]]
        )
        channels = ["text"] if big else channels
        wire = profile == "sse"
        parts = tuple(
            draw(_text_part(c, i, big and i == 0 and c == "text", wire)) for i, c in enumerate(channels)
        )
        return ItemPlan("message", position, output_index, "message", parts)
    if kind == "reasoning":
        channel: Channel = _pick(draw, ["summary", "summary", "reasoning_text", "reasoning"])
        return ItemPlan(
            "reasoning",
            position,
            output_index,
            "reasoning",
            (draw(_text_part(channel, 0, False, profile == "sse")),),
        )
    hosted = _pick(draw, sorted(HOSTED))
    return ItemPlan("hosted", position, output_index, hosted, (), Identity(None, "lookup", None))


# -- drawing: steps ------------------------------------------------------------------------------

_ID_FORMS = ["full"] * 6 + ["no_output_index", "null_output_index", "no_item_id", "null_item_id"]


@dataclass(frozen=True)
class _Shape:
    """What the streams of one profile weigh toward (each choice is as likely as its repetitions)."""

    kinds: tuple[ItemKind, ...]  # the items' kinds
    deviations: tuple[int, ...]  # how many producer deviations a stream has
    cut: int  # one stream in `cut` is cut off: failed, incomplete, cancelled, or without terminal event
    big: bool  # one stream in ten has a text or a call past the 1 MiB limit (CORE-LIMIT-1, -3)


_CORE_KINDS: tuple[ItemKind, ...] = (
    ("message",) * 4 + ("function",) * 4 + ("custom",) * 2 + ("reasoning",) * 2
)
_SHAPES: dict[Profile, _Shape] = {
    "core": _Shape((*_CORE_KINDS, "hosted"), (0, 1, 2, 3, 3, 4, 4, 5, 6, 8), 3, True),
    "sse": _Shape((*_CORE_KINDS, "hosted"), (0, 1, 2, 2, 3, 4), 3, False),
    # Calls that complete, with consumers: fewer deviations, fewer cut streams.
    "custom-tools": _Shape(
        ("custom",) * 6 + ("function",) * 2 + ("message", "reasoning", "hosted"), (0, 1, 1, 2, 3, 4), 4, False
    ),
    "execution": _Shape(
        ("function",) * 5 + ("custom",) * 2 + ("message", "reasoning", "hosted"), (0, 0, 1, 1, 2), 5, False
    ),
}
_ENDS: tuple[EndStatus, ...] = ("failed", "incomplete", "cancelled", "truncated")
_small_texts = st.text(st.sampled_from('}] x"é'), max_size=3)


def _ids_form(draw: st.DrawFn, item: ItemPlan, routed: bool) -> set[str]:
    """How an item event names its item (CORE-ITEM-2, CORE-ITEM-8). `routed`: it must reach the
    item whatever the announcements did, so it keeps its `item_id` (or, custom, its call id)."""
    forms = ["full", "full", "no_output_index", "null_output_index"] if routed else list(_ID_FORMS)
    if item.kind == "custom" and item.added.call_id is not None:
        forms += ["call_id_same"] if routed else ["call_id_same", "by_call_id"]
    form = _pick(draw, forms)
    return set() if form == "full" else {form}


def _index_form(draw: st.DrawFn, part: PartPlan) -> set[str]:
    """An index of 0 may be left out or null (CORE-ITEM-7, D6)."""
    if part.index != 0 or part.channel == "arguments":
        return set()
    return {_pick(draw, ["stated"] * 4 + ["no_index", "null_index"])} - {"stated"}


def _item_steps(draw: st.DrawFn, item: ItemPlan, plan: _Drawn, counted: bool) -> list[Step]:
    """The item's events in the order a producer sends them, some left out as producers do."""
    i = item.position
    if item.kind == "hosted":
        events = [Step("hosted", i, text=kind) for kind in HOSTED[item.item_type]]
        return [Step("added", i), *events, Step("done", i)]
    if _chance(draw, 20):  # only the done item (CORE-ITEM-6)
        return [Step("done", i, form=frozenset(_added_form(draw, counted)))]
    steps = [Step("added", i, form=frozenset(_added_form(draw, counted)))]
    for p, part in enumerate(item.parts):
        # A patch's deltas reach its own call, by id: its consumer previews the patch drawn (_Patch).
        # So do those of a call sharing its call id with another, which its call id alone might not.
        routed = part.channel == "arguments" and (
            any(part.streamed == patch.text for patch in plan.patches) or item.added.call_id in plan.shared
        )
        bracketed = part.channel in ("text", "summary") and draw(st.booleans())  # unrouted part events
        steps += [Step("part_added", i, p)] if bracketed else []
        for piece in range(part.pieces):
            form = _ids_form(draw, item, routed) | _index_form(draw, part)
            steps.append(Step("delta", i, p, piece, form=frozenset(form)))
        if not _chance(draw, 5):  # its `.done`, routed or not
            form = _ids_form(draw, item, routed) | _index_form(draw, part)
            if part.channel == "arguments" and _chance(draw, 6):
                form.add("states_name")  # a `.done` carrying a name and call id of its own (CORE-CALL-4)
            steps.append(Step("part_done", i, p, form=frozenset(form)))
        steps += [Step("part_closed", i, p)] if bracketed else []
    if not _chance(draw, 15):
        steps.append(Step("done", i, form=frozenset(_added_form(draw, counted))))
    return steps


def _added_form(draw: st.DrawFn, counted: bool) -> set[str]:
    """`counted`: the announcement may leave out its output index, which is then the count of items
    announced before it (CORE-ITEM-1), so another item's events by output index may reach it. An
    item may also carry fields no router reads, of any type (D1b)."""
    forms = ["stated"] * 6 + ["odd_fields"] + (["no_output_index", "null_output_index"] if counted else [])
    return {_pick(draw, forms)} - {"stated"}


def _interleave(draw: st.DrawFn, streams: Sequence[list[T]], one_in: int) -> list[T]:
    """Merge the items' steps: each item's own order kept, announcements in plan order; one stream
    in `one_in` sends one item after another, as most producers do (and a consumer sees its call end)."""
    if _chance(draw, one_in):
        return [step for steps in streams for step in steps]
    pending = [list(steps) for steps in streams]
    merged: list[T] = []
    announced = 0
    while any(pending):
        ready = [i for i, steps in enumerate(pending) if steps and i <= announced]
        chosen = ready[draw(st.integers(0, len(ready) - 1))]  # shrinks to one item after another
        merged.append(pending[chosen].pop(0))
        announced = max(announced, chosen + 1)
    return merged


def _corruptions(step: Step, item: ItemPlan | None) -> list[str]:
    """Ways to make a copy of `step` malformed (CORE-EVT-9, D1b, D2, D3) without touching its ids."""
    if step.kind in ("delta", "foreign", "mismatch"):
        part = item.parts[step.part] if item and item.parts and step.kind == "delta" else None
        found = [
            "delta_number",
            "delta_missing",
            "delta_null",
            "output_index_string",
            "item_id_number",
            "no_ids",
        ]
        if part is not None and part.channel != "arguments":
            found += ["index_string", "index_negative"]
        if step.kind == "delta" and item is not None and item.kind == "custom":
            found.append("call_id_number")  # read by custom input events only (CORE-ITEM-8)
        return found
    if step.kind == "part_done":
        return ["text_number", "text_missing", "no_ids"]
    if step.kind in ("added", "done"):
        found = ["item_missing", "item_string", "id_missing", "id_number", "type_number", "status_number"]
        found += ["call_id_number", "name_number", "namespace_number", "output_index_negative"]
        if step.kind == "done" and item is not None and item.is_call:
            found.append("arguments_number")
        return found
    if step.kind in ("created", "in_progress", "queued", "terminal"):
        found = ["response_string", "response_id_number", "response_status_number"]
        return [*found, "response_error_string"] if step.text == "failed" else found
    if step.kind == "error":
        return ["error_string", "message_missing", "code_number"]
    return []


# Events that are not JSON objects with a string type (CORE-EVT-9).
_NOT_EVENTS: tuple[Any, ...] = (
    5,
    "response.output_text.delta",
    [1, 2],
    None,
    True,
    {},
    {"type": 5},
    {"type": None},
)


def _deviate(draw: st.DrawFn, items: Sequence[ItemPlan], body: list[Step], profile: Profile) -> None:
    """The producer's mistakes the spec defines an outcome for, inserted into the stream's body."""
    weights = {
        "duplicate": 3, "late": 3, "early": 1, "foreign": 1, "mismatch": 1, "malformed": 4,
        "not_an_event": 1, "extra": 3, "error": 2, "lifecycle": 1, "anonymous": 1,
    }  # fmt: skip
    if profile == "custom-tools":
        weights.update(other_call_id=3, rebind=2, anonymous=2)
    menu = [kind for kind, weight in weights.items() for _ in range(weight)]
    for _ in range(_pick(draw, _SHAPES[profile].deviations)):
        kind = _pick(draw, menu)
        if kind == "extra":
            placed = _pick(draw, ["", "", "with_item"])
            _insert(draw, body, Step("extra", text=_pick(draw, EXTRA_TYPES), form=frozenset({placed})))
        elif kind == "not_an_event":
            _insert(draw, body, Step("malformed", value=_pick(draw, _NOT_EVENTS)))
        elif kind == "error":
            code = _pick(draw, ["rate_limit_exceeded", None])
            shape = _pick(draw, ["flat", "nested", "nested_null_code", "flat_no_code", "error_string"])
            _insert(draw, body, Step("error", value=code, form=frozenset({shape})))
        elif kind == "lifecycle":
            _insert(
                draw, body, Step(_pick(draw, ["in_progress", "queued", "created"]), form=_response_form(draw))
            )
        elif kind == "foreign":  # an item never announced (CORE-ITEM-3)
            event_type = _pick(draw, sorted(ITEM_TYPE_OF))
            foreign = Step("foreign", text=event_type, form=frozenset({_pick(draw, ["by_id", "by_index"])}))
            if _chance(draw, 3):  # malformed too: fields are checked first (CORE-EVT-8)
                foreign = _corrupted(
                    foreign, frozenset({"corrupt:" + _pick(draw, ["delta_number", "delta_missing"])})
                )
            _insert(draw, body, foreign)
        elif body:
            _deviate_item(draw, kind, items, body)


def _insert(draw: st.DrawFn, steps: list[Step], step: Step, lo: int = 0) -> None:
    steps.insert(draw(st.integers(lo, len(steps))), step)


def _deviate_item(draw: st.DrawFn, kind: str, items: Sequence[ItemPlan], body: list[Step]) -> None:
    """A deviation about one item of the stream; nothing when the stream has no such item."""
    if kind == "duplicate":  # CORE-ITEM-5, CORE-TEXT-7, CORE-ARGS-7
        found = [k for k, s in enumerate(body) if s.kind in ("added", "done") or _routed_done(s, items)]
        if not found:
            return
        k = _pick(draw, found)
        again = body[k]
        if again.kind == "added" and items[again.item].is_call and draw(st.booleans()):
            again = replace(again, form=again.form | {"other_identity"})  # the first announcement stands
        if again.kind == "part_done" and draw(st.booleans()):
            again = replace(again, text=_other_text(draw, items[again.item]))
        _insert(draw, body, again, k + 1)
    elif (
        kind == "anonymous"
    ):  # a custom input delta with no id at all: malformed, even while a call is open (D12)
        found = [k for k, s in enumerate(body) if s.kind == "added" and items[s.item].kind == "custom"]
        if found:
            k = _pick(draw, found)
            delta = Step("delta", body[k].item, 0, -1, draw(_small_texts))
            _insert(draw, body, _corrupted(delta, frozenset({"corrupt:no_ids"})), k + 1)
    elif kind == "rebind":  # a second announcement of a custom call, which core refuses (CUSTOM-SLOT-4)
        found = [k for k, s in enumerate(body) if s.kind == "added" and items[s.item].kind == "custom"]
        if found:
            k = _pick(draw, found)
            body.insert(k + 1, body[k])
    elif kind in ("late", "other_call_id"):  # CORE-TEXT-6, CORE-ARGS-4; CUSTOM-DELTA-2
        if kind == "late":
            found = [
                k
                for k, s in enumerate(body)
                if (s.kind == "done" and items[s.item].parts) or _routed_done(s, items)
            ]
        else:
            found = [k for k, s in enumerate(body) if s.kind == "added" and items[s.item].kind == "custom"]
        if not found:
            return
        k = _pick(draw, found)
        anchor = body[k]
        item = items[anchor.item]
        part = anchor.part if anchor.kind == "part_done" else draw(st.integers(0, len(item.parts) - 1))
        form = _ids_form(draw, item, routed=True) - {"call_id_same", "by_call_id"}
        if kind == "other_call_id":
            form.add("call_id_other")
        elif item.parts[part].channel == "text" and anchor.kind == "part_done" and draw(st.booleans()):
            form.add("as_refusal")  # another channel, the same content part (D5)
        _insert(draw, body, Step("delta", anchor.item, part, -1, draw(_small_texts), frozenset(form)), k + 1)
    elif kind == "early":  # a delta before its item is announced: unknown_item (CORE-ITEM-3)
        first = {
            s.item: k for k, s in reversed(list(enumerate(body))) if s.kind == "added" and items[s.item].parts
        }
        if first:
            k = _pick(draw, sorted(first.values()))  # its first announcement, not a second one
            step = Step("delta", body[k].item, 0, -1, draw(_small_texts))
            body.insert(draw(st.integers(0, k)), step)
    elif kind == "mismatch":  # an event of another item type (CORE-ITEM-4)
        found = [k for k, s in enumerate(body) if s.kind == "added" and items[s.item].kind != "hosted"]
        if found:
            k = _pick(draw, found)
            wrong = {
                "message": "response.function_call_arguments.delta",
                "function": "response.custom_tool_call_input.delta",
            }
            event_type = wrong.get(items[body[k].item].kind, "response.output_text.delta")
            _insert(draw, body, Step("mismatch", body[k].item, text=event_type), k + 1)
    elif kind == "malformed":  # a corrupted copy, just before the event it copies
        found = [
            k
            for k, s in enumerate(body)
            if (s.kind == "delta" and s.piece >= 0)
            or _routed_done(s, items)
            or s.kind in ("added", "done", "error", "in_progress", "queued", "mismatch")
        ]
        found = [k for k in found if body[k].kind != "done" or items[body[k].item].done_type is None]
        if found:
            k = _pick(draw, found)
            original = body[k]
            how = _pick(draw, _corruptions(original, items[original.item] if original.item >= 0 else None))
            ids = {"no_output_index", "null_output_index", "no_item_id", "null_item_id", "by_call_id"}
            ids |= {"no_response", "null_response", "null_id", "no_id"}
            body.insert(k, _corrupted(original, (original.form - ids) | {"corrupt:" + how}))


def _corrupted(original: Step, form: frozenset[str]) -> Step:
    """A malformed copy of `original`: its kind in `text`, the step itself in `value`."""
    return Step("malformed", original.item, original.part, original.piece, original.kind, form, original)


def _routed_done(step: Step, items: Sequence[ItemPlan]) -> bool:
    if step.kind != "part_done":
        return False
    item = items[step.item]
    return EVENTS[_channel_type(item, item.parts[step.part], True)].routed


def _other_text(draw: st.DrawFn, item: ItemPlan) -> str:
    """Another text for a second `.done`: one of the item's complete texts, or any text."""
    if item.kind == "function":
        return _pick(draw, [text for text, _ in item.verdicts])
    return draw(texts)


def _response_form(draw: st.DrawFn) -> frozenset[str]:
    """How a lifecycle event states its response: in full, or as D1 says null is absent."""
    form = _pick(draw, ["stated"] * 8 + ["no_response", "null_response", "null_id", "no_id"])
    return frozenset({form} - {"stated"})


def _after_terminal(draw: st.DrawFn, body: Sequence[Step], terminal: Step) -> list[Step]:
    """Events after the terminal event: refused, whatever they are (CORE-LIFE-4)."""
    count = _pick(draw, [0, 0, 0, 1, 2])
    choices = [terminal, Step("extra", text="acme:trace_event"), Step("malformed", value=[1])]
    choices += [s for s in body if s.kind in ("delta", "done", "added", "error")][:6]
    return [_pick(draw, choices) for _ in range(count)]


# -- drawing: tools and plans --------------------------------------------------------------------

_CONSUMERS = ("echo", "silent", "reject", "raise", "patch")
WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city"],
    "additionalProperties": False,
}
FILES = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "items": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        }
    },
    "required": ["files"],
}
SCHEMAS: dict[str, dict[str, Any]] = {"get_weather": WEATHER, "edit_files": FILES}


@st.composite
def _schema_object(draw: st.DrawFn, name: str) -> tuple[Any, str | None]:
    """Arguments for a tool of SCHEMAS: valid, or with exactly one fault, and its JSON Pointer
    (EXEC-CHECK-2)."""
    city = draw(st.text(_chars, max_size=6))
    fault = _pick(draw, [None] * 5 + ["type", "missing", "extra", "nested"])
    if name == "get_weather":
        value: dict[str, Any] = {"city": city}
        if draw(st.booleans()):
            value["days"] = draw(st.integers(1, 9))
        if fault == "type":
            return {**value, "city": 5}, "/city"
        if fault == "missing":
            return {k: v for k, v in value.items() if k != "city"}, "/city"
        if fault in ("extra", "nested"):
            extra = _pick(draw, ["unit", "a/b", "m~n"])
            return {**value, extra: 1}, json_pointer([extra])
        return value, None
    files: list[dict[str, Any]] = [{"path": draw(_PATH)} for _ in range(draw(st.integers(1, 3)))]
    if fault == "type":
        return {"files": "all"}, "/files"
    if fault == "missing":
        return {}, "/files"
    if fault in ("extra", "nested"):
        where = draw(st.integers(0, len(files) - 1))
        files[where] = {"path": 5} if fault == "nested" else {"name": "x"}
        return {"files": files}, f"/files/{where}/path"
    return {"files": files}, None


def _catalogue(profile: Profile, patches: frozenset[str]) -> _Catalogue:
    """What the items of a profile's streams call; `patches`: the custom tools whose input is a patch."""
    functions: tuple[tuple[str | None, str], ...]
    customs: tuple[tuple[str | None, str], ...]
    if profile == "execution":
        functions = (
            (None, "get_weather"),
            (None, "edit_files"),
            (None, "search_docs"),
            ("ops", "deploy"),
        ) * 2
        functions += (
            (None, "deploy"),
            ("other", "get_weather"),
        )  # the allow-list's names elsewhere (EXEC-CHECK-1)
        customs = ((None, "run_sql"), (None, "get_weather"), (None, "unlisted"))

        def objects(name: str) -> st.SearchStrategy[tuple[Any, str | None]]:
            return _schema_object(name) if name in SCHEMAS else _any_objects

        return _Catalogue((*functions, (None, "unlisted")), customs, objects)
    functions = ((None, "get_weather"), (None, "search_docs"), ("mcp__docs", "lookup"))
    customs = ((None, "run_sql"), (None, "apply_patch"))
    if profile == "custom-tools":  # mostly tools with a consumer, some more than once
        customs += ((None, "run_sql"), (None, "apply_patch"), ("files", "write"), ("files", "write"))
        customs += ((None, "note"), (None, "unlisted"))
        customs += ((None, "write"), ("other", "run_sql"))  # a consumer's tool name in another namespace
    return _Catalogue(functions, customs, lambda name: _any_objects, patches | {"apply_patch"})


@st.composite
def _custom_tools(
    draw: st.DrawFn,
) -> tuple[tuple[dict[str, Any], ...], tuple[tuple[tuple[str | None, str], str], ...]]:
    """A registry of custom-tools: consumers drawn from the catalogue (CUSTOM-CAT-1)."""
    consumers = {
        (None, "run_sql"): _pick(draw, _CONSUMERS),
        (None, "apply_patch"): _pick(draw, ["patch", "patch", "patch", "echo", "raise"]),
        ("files", "write"): _pick(draw, _CONSUMERS),
    }
    tools: list[dict[str, Any]] = [
        {"name": "get_weather", "type": "function", "consumer": "echo"},  # never used (CUSTOM-SLOT-3)
        {"name": "search_docs", "type": "function"},
        {"name": "note", "type": "custom"},  # no consumer
    ]
    for (namespace, name), consumer in consumers.items():
        tool = {"name": name, "type": "custom", "consumer": consumer}
        tools.append({"namespace": namespace, **tool} if namespace else tool)
    return tuple(tools), tuple(consumers.items())


@st.composite
def _execution_tools(draw: st.DrawFn) -> tuple[ExecutionTool, ...]:
    """The application's tools with drawn behaviours (spec/execution.md section 11)."""
    found = []
    for namespace, name, tool_type in (
        (None, "get_weather", "function"),
        (None, "edit_files", "function"),
        (None, "search_docs", "function"),
        ("ops", "deploy", "function"),
        (None, "run_sql", "custom"),
    ):
        behaviour = _pick(draw, ["result", "result", "result", "fails", "pending", "pending"])
        found.append(
            ExecutionTool(
                name,
                tool_type,  # type: ignore[arg-type]
                namespace,
                SCHEMAS.get(name),
                allow=not _chance(draw, 12),
                permitted=not _chance(draw, 12),
                requires_approval=_chance(draw, 3),
                behaviour=behaviour,  # type: ignore[arg-type]
                result=draw(json_values) if behaviour == "result" else None,
            )
        )
    return tuple(found)


def _controls(draw: st.DrawFn, items: Sequence[ItemPlan], steps: list[Step]) -> list[Step]:
    """Control steps among the events (spec/execution.md section 11), most often just after a call
    is complete; a restart replays the stream or goes on."""
    calls = [item for item in items if item.added.call_id or item.done.call_id]
    for _ in range(_pick(draw, [1, 2, 2, 3, 3, 4, 5, 6])):
        control = _pick(
            draw, ["approve", "approve", "approve", "deny", "cancel", "cancel", "audit"] + ["restart"] * 3
        )
        value: dict[str, Any] = {"control": control}
        named = not _chance(draw, 5)
        call = _pick(draw, calls) if calls and named else None
        done = [k for k, s in enumerate(steps) if call and s.kind == "done" and s.item == call.position]
        anchored = not _chance(draw, 3)
        at = done[0] + 1 if done and anchored else draw(st.integers(1, len(steps)))
        if control in ("approve", "deny"):
            value["call_id"] = (call.added.call_id or call.done.call_id) if call else "call_unknown"
        if control == "restart" and draw(st.booleans()):  # the stream replayed from its first event
            replay = [s for s in steps[:at] if s.kind != "control"]
            steps[at:at] = [Step("control", value=value), *replay]
        elif control == "cancel" and _chance(draw, 3):  # then the next response (EXEC-CANCEL-4)
            steps[at:at] = [Step("control", value=value), Step("created")]
        else:
            steps.insert(at, Step("control", value=value))
    if draw(st.booleans()):
        steps.append(Step("control", value={"control": "audit"}))
    return steps


@st.composite
def stream_plans(draw: st.DrawFn, profile: Profile = "core", max_items: int = 5) -> StreamPlan:
    """A response as its producer decided it, for one profile, not yet cut into deltas."""
    tools: tuple[dict[str, Any], ...] = TOOLS
    consumers: tuple[tuple[tuple[str | None, str], str], ...] = ()
    if profile == "custom-tools":
        tools, consumers = draw(_custom_tools())
    catalogue = _catalogue(
        profile, frozenset(name for (_, name), consumer in consumers if consumer == "patch")
    )
    patches: list[PatchText] = []
    offset = _pick(draw, [0, 0, 0, 1, 3])  # output indexes need not count the items
    shape = _SHAPES[profile]
    count = _pick(draw, [n for n in (0, 1, 2, 3, 3, 4, 4, 5, 5) if n <= max_items])
    big = -1
    if shape.big and _chance(draw, 8):  # one stream in eight
        count = max(count, 1)
        big = draw(st.integers(0, count - 1))
    items = tuple(draw(_item(i, i + offset, profile, catalogue, patches, i == big)) for i in range(count))
    items = _shared_call_ids(draw, items)
    drawn = _Drawn(tuple(patches), _shared(items))
    steps_of = [_item_steps(draw, item, drawn, profile in ("core", "sse")) for item in items]
    body = _interleave(draw, steps_of, 2 if profile == "custom-tools" else 3)
    _deviate(draw, items, body, profile)
    status: EndStatus = _pick(draw, _ENDS) if draw(st.integers(0, shape.cut - 1)) == 0 else "completed"
    if status != "completed":
        body = body[: draw(st.integers(0, len(body)))]  # the stream is cut here
    steps = [Step("created", form=_response_form(draw))]
    steps += [Step("in_progress", form=_response_form(draw))] if draw(st.booleans()) else []
    steps += body
    if status != "truncated":
        terminal = "incomplete" if status == "cancelled" else status
        if status == "cancelled":
            terminal = _pick(draw, ["incomplete", "failed", "completed"])
        form = {_pick(draw, ["stated"] * 5 + ["error_null", "no_error", "code_null"])} - {"stated"}
        steps.append(Step("terminal", text=terminal, form=frozenset(form)))
        steps += _after_terminal(draw, body, steps[-1])
    for k in [0, *(i for i, s in enumerate(steps) if s.kind == "terminal")][:2]:
        if _chance(draw, 5):  # a malformed lifecycle event changes nothing: not even the end (D2)
            how = _pick(draw, _corruptions(steps[k], None))
            steps.insert(k, _corrupted(steps[k], frozenset({"corrupt:" + how})))
            break
    execution_tools: tuple[ExecutionTool, ...] = ()
    if profile == "execution":
        execution_tools = draw(_execution_tools())
        tools = tuple(tool.declared() for tool in execution_tools)
        steps = _controls(draw, items, steps)
    steps = _timed(draw, steps) if profile == "custom-tools" or _chance(draw, 10) else steps
    sequence = _pick(draw, ["in_order"] * 6 + ["absent", "repeated", "shuffled"])
    plan = StreamPlan(
        profile,
        "resp_gen",
        items,
        tuple(steps),
        status,
        tools,
        consumers,
        execution_tools,
        tuple(patches),
        sequence,
    )
    return plan


@dataclass(frozen=True)
class _Drawn:
    """What the items' steps depend on beyond each item: the patches drawn, the call ids shared."""

    patches: tuple[PatchText, ...]
    shared: frozenset[str | None]


def _shared(items: Sequence[ItemPlan]) -> frozenset[str | None]:
    stated = [item.added.call_id for item in items if item.added.call_id is not None]
    return frozenset(call_id for call_id in stated if stated.count(call_id) > 1)


def _shared_call_ids(draw: st.DrawFn, items: tuple[ItemPlan, ...]) -> tuple[ItemPlan, ...]:
    """Sometimes a call states the call id of an earlier one (CORE-CALL-7)."""
    calls = [item for item in items if item.is_call and item.added.call_id]
    if len(calls) < 2 or not _chance(draw, 3):
        return items
    first, later = calls[0], calls[-1]
    shared = first.added.call_id
    changed = replace(
        later, added=replace(later.added, call_id=shared), done=replace(later.done, call_id=shared)
    )
    return tuple(changed if item is later else item for item in items)


def _timed(draw: st.DrawFn, steps: Sequence[Step]) -> list[Step]:
    """Stream time on the events (CUSTOM-TIME-1): gaps around the patch throttle's 500 ms."""
    now = 0
    timed = []
    for step in steps:
        if step.kind == "control" or (
            step.kind == "malformed" and not step.text and not isinstance(step.value, dict)
        ):
            timed.append(step)
            continue
        gap = _pick(draw, [None, None, 0, 100, 250, 499, 500, 700])
        if gap is None:
            timed.append(step)
            continue
        now += gap
        timed.append(replace(step, at_ms=now))
    return timed


# -- rendering: steps to events ------------------------------------------------------------------

Cuts = tuple[tuple[tuple[str, ...], ...], ...]  # per item, per part: its deltas


def _response(plan: StreamPlan, step: Step) -> dict[str, Any]:
    terminal = step.kind == "terminal"
    status = ("cancelled" if plan.status == "cancelled" else step.text) if terminal else "in_progress"
    response: dict[str, Any] = {"id": plan.response_id, **RESPONSE_STATED, "status": status}
    if "null_id" in step.form:
        response["id"] = None
    elif "no_id" in step.form:
        del response["id"]
    if terminal and step.text == "failed":
        error = {"code": FAILURE_CODE, "message": "The model failed to finish."}
        response["error"] = (
            None
            if "error_null" in step.form
            else {**error, "code": None}
            if "code_null" in step.form
            else error
        )
        if "no_error" in step.form:
            del response["error"]
    if terminal and step.text == "incomplete":
        response["incomplete_details"] = {"reason": "max_output_tokens"}
    return response


def _item_object(item: ItemPlan, done: bool, form: frozenset[str]) -> dict[str, Any]:
    obj: dict[str, Any] = {"id": item.item_id, "type": item.item_type}
    if item.kind == "message":
        texts = [
            {"type": "output_text", "text": p.stated, "annotations": []}
            for p in item.parts
            if p.channel == "text"
        ]
        return {
            **obj,
            "role": "assistant",
            "status": "completed" if done else "in_progress",
            "content": texts if done else [],
        }
    if item.kind == "reasoning":
        return {**obj, "summary": [{"type": "summary_text", "text": item.parts[0].stated}] if done else []}
    if item.kind == "hosted":
        obj["status"] = "completed" if done else "in_progress"
        if item.item_type == "mcp_call":
            obj.update(name="lookup", server_label="docs", arguments="{}" if done else "")
        return obj
    identity = item.done if done else item.added
    if done:
        if item.status is not None:
            obj["status"] = item.status
        if item.done_text is not None or item.done_text_null:
            obj[COMPLETE_FIELD[item.kind]] = item.done_text
        if item.done_type is not None:
            obj["type"] = item.done_type
    else:
        obj.update(status="in_progress", **{COMPLETE_FIELD[item.kind]: ""})
    again = "_again" if "other_identity" in form else ""
    for name in ("call_id", "name", "namespace"):
        value = getattr(identity, name)
        if value is not None:
            obj[name] = value + again if name != "namespace" else value
    return obj


def _addressed(item: ItemPlan, event_type: str, form: frozenset[str]) -> dict[str, Any]:
    """An item event's ids, as `form` says (CORE-ITEM-2, CORE-ITEM-8; D1: null is absent)."""
    event: dict[str, Any] = {"type": event_type}
    if "by_call_id" in form:
        return {**event, "call_id": item.added.call_id}
    if "no_item_id" not in form:
        event["item_id"] = None if "null_item_id" in form else item.item_id
    if "no_output_index" not in form:
        event["output_index"] = None if "null_output_index" in form else item.output_index
    if "call_id_same" in form:
        event["call_id"] = item.added.call_id
    if "call_id_other" in form:
        event["call_id"] = "call_elsewhere"
    return event


def _indexed(part: PartPlan, form: frozenset[str]) -> dict[str, Any]:
    if part.channel == "arguments" or "no_index" in form:
        return {}
    name = "summary_index" if part.channel == "summary" else "content_index"
    return {name: None if "null_index" in form else part.index}


def _channel_type(item: ItemPlan, part: PartPlan, done: bool) -> str:
    channel = item.kind if part.channel == "arguments" else part.channel
    return (DONE_TYPES if done else DELTA_TYPES)[channel]


def _done_field(item: ItemPlan, part: PartPlan) -> str:
    text = EVENTS[_channel_type(item, part, True)].text
    assert text is not None, "every `.done` of a channel states its text"
    return text


def _event(plan: StreamPlan, cuts: Cuts, step: Step) -> Any:
    kind = step.kind
    if kind == "control":
        return dict(step.value)
    if kind == "malformed":
        return _corrupt(plan, cuts, step) if step.text else copy.deepcopy(step.value)
    if kind in ("created", "in_progress", "queued", "terminal"):
        event_type = TERMINAL_TYPES[step.text] if kind == "terminal" else "response." + kind
        if "no_response" in step.form:
            return {"type": event_type}
        return {
            "type": event_type,
            "response": None if "null_response" in step.form else _response(plan, step),
        }
    if kind == "error":
        error: dict[str, Any] = {"code": step.value, "message": "Rate limit reached.", "param": None}
        if "flat_no_code" in step.form:
            del error["code"]
        if "error_string" in step.form:
            return {"type": "error", **error, "error": "boom"}
        if step.form & {"nested", "nested_null_code"}:
            nested = {
                "type": "server_error",
                **error,
                "code": None if "nested_null_code" in step.form else step.value,
            }
            return {"type": "error", "error": nested}
        return {"type": "error", **error}
    if kind == "extra":
        event: dict[str, Any] = {"type": step.text}
        if "with_item" in step.form:
            messages = [item.item_id for item in plan.items if item.kind == "message"]
            event.update(item_id=(messages or ["x_1"])[0], output_index=0, content_index=0, delta="{")
        return event
    if kind == "foreign":
        event = {"type": step.text}
        event.update({"item_id": "ghost_9"} if "by_id" in step.form else {"output_index": 99})
        return {**event, str(EVENTS[step.text].text): "{}"}
    item = plan.items[step.item]
    if kind in ("added", "done"):
        event = {"type": "response.output_item." + kind}
        obj = _item_object(item, kind == "done", step.form)
        if "odd_fields" in step.form:  # fields no router reads (D1b): a call's text at added, another type's
            odd = {"function": "input", "custom": "arguments"}.get(item.kind, "content")
            obj.update(
                {odd: 5, "role": 7} if kind == "done" or not item.is_call else {COMPLETE_FIELD[item.kind]: 5}
            )
        if "no_output_index" not in step.form:
            event["output_index"] = None if "null_output_index" in step.form else item.output_index
        return {**event, "item": obj}
    if kind == "hosted":
        return {"type": step.text, "item_id": item.item_id, "output_index": item.output_index, "delta": "{"}
    if kind == "mismatch":
        return {**_addressed(item, step.text, frozenset()), "delta": "x"}
    if kind in ("part_added", "part_closed"):
        part = item.parts[step.part]
        if part.channel == "summary":
            event_type = "response.reasoning_summary_part." + ("added" if kind == "part_added" else "done")
            return {
                **_addressed(item, event_type, frozenset()),
                "summary_index": part.index,
                "part": {"type": "summary_text", "text": ""},
            }
        event_type = "response.content_part." + ("added" if kind == "part_added" else "done")
        text = part.stated if kind == "part_closed" else ""
        return {
            **_addressed(item, event_type, frozenset()),
            "content_index": part.index,
            "part": {"type": "output_text", "text": text},
        }
    part = item.parts[step.part]
    if kind == "delta":
        delta = cuts[step.item][step.part][step.piece] if step.piece >= 0 else step.text
        event_type = DELTA_TYPES["refusal"] if "as_refusal" in step.form else _channel_type(item, part, False)
        return {**_addressed(item, event_type, step.form), **_indexed(part, step.form), "delta": delta}
    assert kind == "part_done", step
    event = {**_addressed(item, _channel_type(item, part, True), step.form), **_indexed(part, step.form)}
    if "states_name" in step.form:
        event["name"] = "name_from_done_event"
    return {**event, _done_field(item, part): step.text or part.stated}


def _corrupt(plan: StreamPlan, cuts: Cuts, step: Step) -> dict[str, Any]:
    """A copy of the step's event with one field missing or of the wrong type."""
    how = next(f for f in step.form if f.startswith("corrupt:")).removeprefix("corrupt:")
    event: dict[str, Any] = _event(plan, cuts, replace(step.value, form=step.form - {"corrupt:" + how}))
    item = plan.items[step.item] if step.item >= 0 else None
    response = event.get("response")
    if step.text in ("added", "done"):
        obj = event["item"]
        fields = {"id_number": ("id", 1), "type_number": ("type", 3), "status_number": ("status", 5)}
        fields.update(
            call_id_number=("call_id", 5), name_number=("name", 5), namespace_number=("namespace", 5)
        )
        if item is not None and item.is_call:
            fields["arguments_number"] = (COMPLETE_FIELD[item.kind], 5)
        if how in fields:
            name, value = fields[how]
            obj[name] = value
        elif how == "id_missing":
            del obj["id"]
        elif how == "item_missing":
            del event["item"]
        elif how == "item_string":
            event["item"] = "item"
        else:
            assert how == "output_index_negative", how
            event["output_index"] = -1
        return event
    if how == "response_string":
        event["response"] = "response"
        return event
    if isinstance(response, dict) and how.startswith("response_"):
        name = {
            "response_id_number": "id",
            "response_status_number": "status",
            "response_error_string": "error",
        }[how]
        response[name] = 1 if name != "error" else "boom"
        return event
    if step.text == "error":
        nested = event.get("error")
        target = nested if isinstance(nested, dict) else event
        if how == "error_string":
            return {**event, "code": "flat_code", "message": "flat", "error": "boom"}  # D3
        if how == "message_missing":
            del target["message"]
        else:
            target["code"] = 5
        return event
    value_field = next(k for k in ("delta", "text", "arguments", "input") if k in event)
    summary = step.text == "delta" and item is not None and item.parts[step.part].channel == "summary"
    index_field = "summary_index" if summary else "content_index"
    changes: dict[str, Any] = {
        "delta_number": (value_field, 5), "delta_null": (value_field, None),
        "text_number": (value_field, 5), "output_index_string": ("output_index", "0"),
        "item_id_number": ("item_id", 7), "index_string": (index_field, "0"),
        "index_negative": (index_field, -1), "call_id_number": ("call_id", 5),
    }  # fmt: skip
    if how in ("delta_missing", "text_missing"):
        del event[value_field]
    elif how == "no_ids":  # neither item_id nor output_index, nor a custom input's call_id (CORE-ITEM-2, D12)
        for name in ("item_id", "output_index", "call_id"):
            event.pop(name, None)
    else:
        name, value = changes[how]
        event[name] = value
    return event


def _sequence_numbers(mode: str, count: int) -> list[int | None]:
    """Sequence numbers a router never reads (CORE-EVT-6): in order, absent, repeated, shuffled."""
    if mode == "absent":
        return [None] * count
    if mode == "repeated":
        return [n - (n % 3 == 2) for n in range(count)]
    if mode == "shuffled":
        return [count - n for n in range(count)]
    return list(range(count))


def render_events(plan: StreamPlan, cuts: Cuts) -> list[Any]:
    """The plan's steps as the entries a vector feeds: events (and control steps)."""
    events = []
    for step, number in zip(plan.steps, _sequence_numbers(plan.sequence, len(plan.steps)), strict=True):
        event = _event(plan, cuts, step)
        if isinstance(event, dict) and step.kind != "control":
            numbered: dict[str, Any] = {"type": event.pop("type")} if "type" in event else {}
            if number is not None and step.kind != "malformed":
                numbered["sequence_number"] = number
            event = {**numbered, **event}
            if step.at_ms is not None:
                event["at_ms"] = step.at_ms
        events.append(event)
    return events


# -- the ground truth: spec/core.md and spec/custom-tools.md as a state machine ------------------
#
# `Machine` holds one explicit state: the stream's, each announced item's, each
# part's and each call's, and the consumer slot. Each step kind has one handler
# (`Machine.STEPS`); a handler reads the states, answers the step's outcomes and
# changes a state only through `_move`, which looks the change up in the tables
# below: a change they do not list is a bug of this oracle, never of the
# implementation under test. The slot is EMPTY (None) or bound to one custom call
# (`_Slot`; spec/custom-tools.md section 11): a new function or custom call
# rebinds or empties it, its call's resolution or the end of the response
# empties it.

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
# at its arguments `.done` (CORE-CALL-8), FIRED until its done item or the end settles it (D11).
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
    """The text with each unpaired surrogate as U+FFFD, as UTF-8 and WHATWG decoders see it (D9)."""
    return text if text.isascii() or _utf8(text) is not None else _replaced(text)


def utf8_size(text: str) -> int:
    """The UTF-8 size of a text; an unpaired surrogate counts as its U+FFFD, 3 bytes (D8), and the
    halves of a pair as the character they make, 4."""
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


def _error(code: str | None, **ids: Any) -> Outcome:
    return {"kind": "error", "code": code, **ids}


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

    def move(self, move: ItemMove) -> None:
        self.state = _move(ITEM_MOVES, self.state, move)

    def call_move(self, move: CallMove) -> None:
        self.call = _move(CALL_MOVES, self.call, move)


@dataclass(frozen=True)
class _Finished:
    updates: tuple[dict[str, Any], ...]
    result: dict[str, Any]


_FAILED = "failed"  # a consumer that raised (CUSTOM-FAIL-1)
_REJECTED = "rejected"  # CUSTOM-FIN-3
ConsumerAnswer = _Finished | str


class _Echo:
    """CUSTOM-CAT-2 and, `silent`, CUSTOM-CAT-3."""

    def __init__(self, silent: bool) -> None:
        self.silent = silent
        self.buffer = ""

    def consume(self, delta: str, now: int) -> list[dict[str, Any]] | str:
        self.buffer += delta
        return [] if self.silent else [{"delta": delta, "buffer": self.buffer}]

    def finish(self, text: str, now: int) -> ConsumerAnswer:
        return _Finished((), {"buffer": self.buffer})


class _Refuses:
    """CUSTOM-CAT-4 (`reject`), CUSTOM-CAT-5 and CUSTOM-CAT-7 (`raise`)."""

    def __init__(self, answer: str) -> None:
        self.answer = answer

    def consume(self, delta: str, now: int) -> list[dict[str, Any]] | str:
        return _FAILED if self.answer == _FAILED else []

    def finish(self, text: str, now: int) -> ConsumerAnswer:
        return self.answer


class _Patch:
    """CUSTOM-PATCH-4 to -6 over a text whose previews were decided when it was drawn."""

    def __init__(self, plan: StreamPlan, streamed: str) -> None:
        self.plan = plan
        self.streamed = _patch_of(plan, streamed)
        self.taken = ""
        self.lines = 0  # complete lines taken
        self.pending = False
        self.stopped = False  # a parse error: no preview ever again
        self.last: int | None = None  # when the last update was emitted

    def consume(self, delta: str, now: int) -> list[dict[str, Any]] | str:
        self.taken += delta
        assert self.streamed.text.startswith(self.taken), "a patch consumer takes its call's planned deltas"
        lines = self.taken.count("\n")
        for line in range(self.lines + 1, lines + 1):
            if line == self.streamed.error_line:
                self.stopped = True
            elif not self.stopped and self.streamed.changes[line - 1]:
                self.pending = True
        self.lines = lines
        if (
            self.stopped
            or not self.pending
            or (self.last is not None and now - self.last < PREVIEW_INTERVAL_MS)
        ):
            return []
        self.pending, self.last = False, now
        return [{"files": self.streamed.previews[lines]}]

    def finish(self, text: str, now: int) -> ConsumerAnswer:
        complete = _patch_of(self.plan, text)
        if not complete.valid:
            return _REJECTED
        result = complete.previews[-1]
        shown = result if self.taken == text else self.streamed.previews[self.lines]
        updates = ({"files": shown},) if self.pending and not self.stopped else ()
        return _Finished(updates, {"files": result})


def _patch_of(plan: StreamPlan, text: str) -> PatchText:
    """The drawn patch this text is, or free text: a parse error at its first line."""
    return plan.patch(text) or PatchText(text, ([],), (), 1, False)


def _consumer(plan: StreamPlan, kind: str, streamed: str) -> _Echo | _Refuses | _Patch:
    if kind in ("echo", "silent"):
        return _Echo(kind == "silent")
    if kind == "patch":
        return _Patch(plan, streamed)
    return _Refuses(_REJECTED if kind == "reject" else _FAILED)


@dataclass
class _Slot:
    item: _Item
    call_id: str
    consumer: _Echo | _Refuses | _Patch


class Machine:
    """What a conforming router makes of a plan's steps: one handler per step kind, named here."""

    STEPS: ClassVar[dict[str, str]] = {
        "created": "_lifecycle",
        "in_progress": "_lifecycle",
        "queued": "_lifecycle",
        "terminal": "_lifecycle",
        "error": "_error_event",
        "added": "_added",
        "done": "_done",
        "delta": "_delta",
        "part_done": "_part_done",
        "mismatch": "_mismatch",
        "extra": "_ignored",
        "hosted": "_ignored",
        "part_added": "_ignored",
        "part_closed": "_ignored",
        "malformed": "_malformed",
        "foreign": "_foreign",
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
        if step.at_ms is not None:
            self.now = step.at_ms
        if step.kind == "malformed" and not step.text and not _has_type(step.value):
            return [_error("malformed_event")]  # not an object with a type: nothing to name (CORE-LIFE-4)
        if self.state != "OPEN":
            return [_error("event_after_terminal")]
        handler: Callable[[Step], list[Outcome]] = getattr(self, self.STEPS[step.kind])
        return handler(step)

    def close(self) -> list[Outcome]:
        outcomes = self._settle() if self.state == "OPEN" else []
        status = self.status or ("failed" if self.error_seen else "truncated")
        self.state = _move(STREAM_MOVES, self.state, "close")
        return [*outcomes, {"kind": "end", "status": status}]  # CORE-LIFE-5

    # -- lifecycle and errors --

    def _lifecycle(self, step: Step) -> list[Outcome]:
        plain = not step.form & {"no_response", "null_response", "null_id", "no_id"}
        response_id = self.plan.response_id if plain else None
        name = step.text if step.kind == "terminal" else step.kind
        outcomes = [{"kind": "lifecycle", "event": name, "response_id": response_id}]  # CORE-LIFE-1
        if step.kind != "terminal":
            return outcomes
        if name == "failed":  # CORE-LIFE-3
            plain_error = not step.form & {
                "no_response",
                "null_response",
                "error_null",
                "no_error",
                "code_null",
            }
            outcomes.append(_error(FAILURE_CODE if plain_error else None))
        self.status = "cancelled" if self.plan.status == "cancelled" else name  # CORE-LIFE-2
        self.state = _move(STREAM_MOVES, self.state, "terminal")
        return outcomes + self._settle()

    def _error_event(self, step: Step) -> list[Outcome]:
        if (
            "error_string" in step.form
        ):  # an `error` that is not an object: malformed, flat fields or not (D3)
            return [_error("malformed_event")]
        self.error_seen = True  # CORE-ERR-1, CORE-LIFE-5
        return [_error(None if step.form & {"nested_null_code", "flat_no_code"} else step.value)]

    def _ignored(self, step: Step) -> list[Outcome]:
        return [{"kind": "ignored", "type": _ignored_type(self.plan, step)}]  # CORE-EVT-3, -4, -5

    def _malformed(self, step: Step) -> list[Outcome]:
        return [_error("malformed_event")]  # CORE-EVT-9

    def _foreign(self, step: Step) -> list[Outcome]:
        return [_error("unknown_item")]  # CORE-ITEM-3

    def _settle(self) -> list[Outcome]:
        """The response ends: open calls will never come (CORE-CALL-6, D11); the slot empties."""
        outcomes: list[Outcome] = []
        for item in self.items.values():
            if item.type not in CALL_TYPES:
                continue
            if item.call == "PENDING":
                outcomes += self._call_error(item, "incomplete")
            elif item.call == "FIRED":
                outcomes.append(_error("call_retracted", item_id=item.plan.item_id, call_id=item.call_id))
                item.call_move("settle")
        self.slot = None  # CUSTOM-END-1
        return outcomes

    # -- items --

    def _announce(self, plan: ItemPlan, step: Step, item_type: str) -> _Item:
        identity = plan.added if step.kind == "added" else plan.done
        if "other_identity" in step.form:  # a second announcement, stating other ids (see `_item_object`)
            again = {
                k: v + "_again" for k, v in (("call_id", identity.call_id), ("name", identity.name)) if v
            }
            identity = replace(identity, **again)
        output_index = plan.output_index
        if step.form & {"no_output_index", "null_output_index"}:
            output_index = len(self.items)  # CORE-ITEM-1
        item = _Item(plan, item_type, output_index, identity.call_id, identity.name, identity.namespace)
        self.items[plan.item_id] = item
        self.at_index[output_index] = item
        if item.call_id is not None:
            self.with_call_id[item.call_id] = item
        return item

    def _added(self, step: Step) -> list[Outcome]:
        plan = self.plan.items[step.item]
        if plan.item_id in self.items:  # CORE-ITEM-5: the first announcement stands
            return [_error("duplicate_event")]
        item = self._announce(plan, step, plan.item_type)
        if item.type == "custom_tool_call":  # CUSTOM-SLOT-2, -5
            consumer = self.consumers.get((item.namespace, item.name)) if item.name is not None else None
            self.slot = None
            if consumer is not None and item.call_id is not None:
                self.slot = _Slot(item, item.call_id, _consumer(self.plan, consumer, plan.parts[0].streamed))
        elif item.type == "function_call":  # CUSTOM-SLOT-3
            self.slot = None
        return []

    def _done(self, step: Step) -> list[Outcome]:
        plan = self.plan.items[step.item]
        stated_type = plan.done_type or plan.item_type
        item = self.items.get(plan.item_id)
        if item is None:  # CORE-ITEM-6
            item = self._announce(plan, step, stated_type)
        elif item.type != stated_type:  # CORE-ITEM-4
            return [_error("item_type_mismatch")]
        elif item.state == "DONE":  # CORE-ITEM-5
            return [_error("duplicate_event")]
        item.move("done")
        if item.type not in CALL_TYPES:
            return []  # CUSTOM-FIN-2
        return self._call_done(item)

    def _call_done(self, item: _Item) -> list[Outcome]:
        plan = item.plan
        outcomes: list[Outcome] = []
        contradicted = plan.status == "incomplete"
        for name in ("call_id", "name", "namespace"):  # CORE-CALL-4: the first stated value stands
            first, again = getattr(item, name), getattr(plan.done, name)
            if first is None:
                setattr(item, name, again)
                if name == "call_id" and again is not None:
                    self.with_call_id.setdefault(again, item)
                contradicted |= (
                    item.call == "FIRED" and again is not None
                )  # the call went out without it (CORE-CALL-13)
            elif again is not None and again != first:
                outcomes.append(_error("done_mismatch"))
                contradicted = True
        text = item.stated
        if plan.done_text is not None:  # D10: the done item's text is the call's
            agrees = (
                well_formed(plan.done_text) == well_formed(text)
                if text is not None
                else item.arguments.agrees(plan.done_text)
            )
            if not agrees:  # CORE-ARGS-6
                outcomes.append(_error("done_mismatch"))
                contradicted = True
            text = plan.done_text
        if item.arguments.state != "DONE":
            item.arguments.move("done")
        if item.call == "FIRED":  # D11: the call went out at its `.done`
            item.call_move("settle")
            if contradicted:
                outcomes.append(_error("call_retracted", item_id=plan.item_id, call_id=item.call_id))
            return outcomes
        if item.call == "RESOLVED":
            return outcomes
        if plan.status == "incomplete":  # CORE-CALL-5
            return outcomes + self._call_error(item, "incomplete")
        return outcomes + self._resolve(item, text)  # CORE-CALL-2

    def _find(self, plan: ItemPlan, event_type: str, form: frozenset[str]) -> _Item | Outcome:
        """The item an item event belongs to (CORE-ITEM-2, -3, -4, -8), or the error it causes."""
        if "by_call_id" in form:
            found = self.with_call_id.get(plan.added.call_id or "")
        elif form & {"no_item_id", "null_item_id"}:
            found = self.at_index.get(plan.output_index)
        else:
            found = self.items.get(plan.item_id)
        if found is None:
            return _error("unknown_item")
        if found.type != ITEM_TYPE_OF[event_type]:
            return _error("item_type_mismatch")
        return found

    def _mismatch(self, step: Step) -> list[Outcome]:
        found = self._find(self.plan.items[step.item], step.text, frozenset())
        assert isinstance(found, dict), "a mismatched event never routes"
        return [found]

    # -- deltas and dones --

    def _delta(self, step: Step) -> list[Outcome]:
        plan = self.plan.items[step.item]
        part = plan.parts[step.part]
        event_type = DELTA_TYPES["refusal"] if "as_refusal" in step.form else _channel_type(plan, part, False)
        item = self._find(plan, event_type, step.form)
        if isinstance(item, dict):
            return [item]
        delta = self.cuts[step.item][step.part][step.piece] if step.piece >= 0 else step.text
        if part.channel == "arguments":
            return self._arguments_delta(item, step, delta)
        held = item.parts.get(part.index)
        if (held is not None and held.state == "DONE") or item.state == "DONE":  # CORE-TEXT-6, D5
            return [_error("late_delta")]
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
        stated_index = not step.form & {"no_output_index", "null_output_index", "by_call_id"}
        outcomes = [
            {
                "kind": "text.delta",
                "item_id": item.plan.item_id,
                "output_index": plan.output_index if stated_index else item.output_index,
                "content_index": part.index,
                "delta": delta,
            }
        ]  # CORE-TEXT-1
        held = item.parts.setdefault(part.index, _Part())
        if held.state != "DROPPED":
            held.size += utf8_size(delta)
            if held.size > MAX_BUFFERED_BYTES:  # CORE-LIMIT-3: routed on, no longer compared
                held.move("drop")
                held.deltas = []
                outcomes.append(_error("too_large"))
            else:
                held.deltas.append(delta)
                held.move("delta")
        return outcomes

    def _arguments_delta(self, item: _Item, step: Step, delta: str) -> list[Outcome]:
        arguments = item.arguments
        if arguments.state == "DONE":  # CORE-ARGS-4, D4
            return [_error("late_delta")]
        if arguments.state == "DROPPED":  # CORE-LIMIT-1
            return [_error("too_large")]
        arguments.size += utf8_size(delta)
        if arguments.size > MAX_BUFFERED_BYTES:  # CORE-LIMIT-1: the call can never run
            arguments.move("drop")
            arguments.deltas = []
            return self._call_error(item, "too_large")
        arguments.deltas.append(delta)  # CORE-ARGS-1, -2, -3
        arguments.move("delta")
        outcomes = [{"kind": "tool.arguments.delta", "item_id": item.plan.item_id, "delta": delta}]
        slot = self.slot
        stated = {"by_call_id": item.plan.added.call_id, "call_id_same": item.plan.added.call_id}
        stated["call_id_other"] = "call_elsewhere"
        call_id = next((stated[f] for f in step.form if f in stated), None)
        if slot is not None and slot.item is item and call_id in (None, slot.call_id):  # CUSTOM-DELTA-2
            answer = slot.consumer.consume(delta, self.now)
            if answer == _FAILED:  # CUSTOM-FAIL-1
                self.slot = None
                return [*outcomes, _error("consumer_failed", item_id=item.plan.item_id, call_id=slot.call_id)]
            assert not isinstance(answer, str)
            outcomes += [
                {"kind": "diff.update", "item_id": item.plan.item_id, "call_id": slot.call_id, **p}
                for p in answer
            ]
        return outcomes

    def _part_done(self, step: Step) -> list[Outcome]:
        plan = self.plan.items[step.item]
        part = plan.parts[step.part]
        event_type = _channel_type(plan, part, True)
        if not EVENTS[event_type].routed:
            return self._ignored(step)  # CORE-EVT-5: refusal, reasoning and summary dones
        item = self._find(plan, event_type, step.form)
        if isinstance(item, dict):
            return [item]
        text = step.text or part.stated
        if part.channel == "text":
            held = item.parts.setdefault(part.index, _Part())
            if held.state == "DONE" or item.state == "DONE":  # CORE-TEXT-7
                return [_error("duplicate_event")]
            mismatch = [] if held.agrees(text) else [_error("done_mismatch")]  # CORE-TEXT-11
            held.move("done")
            return [
                *mismatch,
                {
                    "kind": "text.done",
                    "item_id": item.plan.item_id,
                    "content_index": part.index,
                    "text": text,
                },
            ]
        if item.arguments.state == "DONE":  # CORE-ARGS-7
            return [_error("duplicate_event")]
        outcomes = [] if item.arguments.agrees(text) else [_error("done_mismatch")]  # CORE-ARGS-6
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
            ids = {"item_id": item.plan.item_id, "call_id": slot.call_id}
            if answer == _REJECTED:  # CUSTOM-FIN-3
                return self._call_error(item, "consumer_rejected")
            if answer == _FAILED:  # CUSTOM-FAIL-1: the call goes on
                outcomes.append(_error("consumer_failed", **ids))
            else:
                assert isinstance(answer, _Finished)
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
        error = {"kind": "tool.error", "item_id": item.plan.item_id, "code": code}
        return [{**error, "call_id": item.call_id} if item.call_id is not None else error]

    def _release(self, item: _Item) -> _Slot | None:
        slot = self.slot
        if slot is None or slot.item is not item:
            return None
        self.slot = None
        return slot


def _has_type(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("type"), str)


def _ignored_type(plan: StreamPlan, step: Step) -> str:
    if step.kind in ("extra", "hosted"):
        return step.text
    item = plan.items[step.item]
    part = item.parts[step.part]
    if step.kind == "part_done":
        return _channel_type(item, part, True)
    group = "reasoning_summary_part" if part.channel == "summary" else "content_part"
    return f"response.{group}.{'added' if step.kind == 'part_added' else 'done'}"


# -- the ground truth of execution: spec/execution.md section 2 as a state machine ---------------

UNFINISHED = ("TOOL_READY", "TOOL_RUNNING")


@dataclass
class _Record:
    """One call id's record in the ledger (EXEC-AUDIT-1)."""

    call: Outcome  # the tool.call that created it
    state: str = "STREAMING"
    started: bool = False
    requires_approval: bool = False
    result: Any = None
    code: str | None = None
    retracted: bool = False

    def outcome(self, kind: str, **fields: Any) -> Outcome:
        call = self.call
        return {
            "kind": kind,
            "item_id": call["item_id"],
            "call_id": call["call_id"],
            "name": call["name"],
            **fields,
        }


class Executor:
    """What a conforming executor adds to a router's outcomes, and answers to control steps."""

    def __init__(self, plan: StreamPlan) -> None:
        self.tools = {(tool.namespace, tool.name): tool for tool in plan.execution_tools}
        self.ledger: dict[str, _Record] = {}  # durable, in the order records were created
        self._new_turn()

    def _new_turn(self) -> None:
        self.turn: dict[str, None] = {}  # the turn's call ids, in the order they first moved
        self.cancelled = False

    def after(self, outcomes: Sequence[Outcome], machine: Machine) -> list[Outcome]:
        """Each router outcome, then the execution outcomes it causes (EXEC-FLOW-1)."""
        answer: list[Outcome] = []
        for outcome in outcomes:
            answer.append(outcome)
            if outcome["kind"] == "tool.call":  # EXEC-FLOW-2
                answer += self._take(outcome, machine.pointers.get(outcome["item_id"]))
            elif outcome["kind"] == "lifecycle" and outcome["event"] == "created":  # EXEC-CANCEL-4
                self._new_turn()
            elif outcome["kind"] == "error" and outcome["code"] == "call_retracted":
                answer += self._retract(outcome)
        return answer

    def _retract(self, retraction: Outcome) -> list[Outcome]:
        """A retraction cancels its call if it has not ended, and marks it (EXEC-RETRACT-1 .. -6)."""
        record = self.ledger.get(retraction["call_id"])
        if record is None or record.call["item_id"] != retraction["item_id"]:
            return []
        record.retracted = True
        if record.state not in UNFINISHED:
            return []
        return self._move(record, "CANCELLED", "tool.cancelled", started=record.started)

    def _take(self, call: Outcome, pointer: str | None) -> list[Outcome]:
        known = self.ledger.get(call["call_id"])
        if known is not None:  # EXEC-ONCE-2
            if known.state in UNFINISHED:
                self.turn[call["call_id"]] = None
            duplicate = {"kind": "tool.duplicate", "item_id": call["item_id"], "call_id": call["call_id"]}
            return [{**duplicate, "name": call["name"], "state": known.state}]
        record = self.ledger[call["call_id"]] = _Record(call)
        self.turn[call["call_id"]] = None
        if self.cancelled:  # EXEC-CANCEL-2
            return self._move(record, "CANCELLED", "tool.cancelled", started=False)
        tool = self.tools.get((call.get("namespace"), call["name"]))
        if tool is None or tool.type != call["tool_type"] or not tool.allow:  # EXEC-CHECK-1
            return self._move(record, "FAILED", "tool.rejected", code="unknown_tool")
        if (
            tool.parameters is not None and call["tool_type"] == "function" and pointer is not None
        ):  # EXEC-CHECK-2
            return self._move(record, "FAILED", "tool.rejected", code="invalid_arguments", pointer=pointer)
        if not tool.permitted:  # EXEC-CHECK-3
            return self._move(record, "FAILED", "tool.rejected", code="not_permitted")
        record.requires_approval = tool.requires_approval
        ready = self._move(record, "TOOL_READY", "tool.ready", requires_approval=tool.requires_approval)
        return ready if tool.requires_approval else ready + self._start(record)  # EXEC-STATE-1

    def _move(self, record: _Record, state: str, kind: str, **fields: Any) -> list[Outcome]:
        record.state = state
        if "code" in fields:
            record.code = fields["code"]
        return [record.outcome(kind, **fields)]

    def _start(self, record: _Record) -> list[Outcome]:
        """EXEC-RUN-1: the tool runs, and returns, fails, or goes on (EXEC-RUN-2)."""
        record.started = True
        outcomes = self._move(record, "TOOL_RUNNING", "tool.started")
        tool = self.tools[(record.call.get("namespace"), record.call["name"])]
        if tool.behaviour == "fails":
            return outcomes + self._move(record, "FAILED", "tool.failed", code="tool_failed")
        if tool.behaviour == "result":
            record.result = tool.result
            return outcomes + self._move(record, "TOOL_SUCCEEDED", "tool.succeeded", result=tool.result)
        return outcomes

    def control(self, step: dict[str, Any]) -> list[Outcome]:
        control = step["control"]
        if control == "cancel":  # EXEC-CANCEL-1, -3
            self.cancelled = True
            outcomes = []
            for call_id in self.turn:
                record = self.ledger[call_id]
                if record.state in UNFINISHED:
                    outcomes += self._move(record, "CANCELLED", "tool.cancelled", started=record.started)
            return outcomes
        if control == "audit":  # EXEC-AUDIT-2
            return [_audit(record) for record in self.ledger.values()]
        if control == "restart":  # EXEC-RESTART-1 .. -4
            self._new_turn()
            outcomes = []
            for record in self.ledger.values():
                if record.state == "TOOL_RUNNING":
                    outcomes += self._move(record, "FAILED", "tool.failed", code="interrupted")
                elif record.state == "TOOL_READY":
                    self.turn[record.call["call_id"]] = None
                    outcomes.append(record.outcome("tool.ready", requires_approval=True))
            return outcomes
        awaiting = self.ledger.get(step["call_id"])
        if (
            awaiting is None or awaiting.state != "TOOL_READY" or not awaiting.requires_approval
        ):  # EXEC-APPROVE-2
            return [_error("not_awaiting_approval")]
        if control == "approve":
            return self._start(awaiting)
        return self._move(awaiting, "FAILED", "tool.rejected", code="denied")


def _audit(record: _Record) -> Outcome:
    call = record.call
    fields = ("call_id", "item_id", "name", "tool_type", "namespace", "arguments", "input")
    audit = {"kind": "tool.audit", **{name: call[name] for name in fields if name in call}}
    audit.update(state=record.state, started=record.started, retracted=record.retracted)
    if record.state == "TOOL_SUCCEEDED":
        audit["result"] = record.result
    if record.state == "FAILED":
        audit["code"] = record.code
    return audit


def _run(plan: StreamPlan, cuts: Cuts, steps: Sequence[Step], point: ToolCallPoint) -> list[Produced]:
    """Every outcome of the steps and of close, each with the step that produced it."""
    machine = Machine(plan, cuts, point)
    executor = Executor(plan) if plan.profile == "execution" else None
    produced: list[Produced] = []
    for at, step in enumerate(steps):
        if step.kind == "control":
            assert executor is not None
            if step.value["control"] == "restart":  # a new process: a new router (EXEC-RESTART-1)
                machine = Machine(plan, cuts, point)
            outcomes = executor.control(step.value)
        else:
            outcomes = machine.feed(step)
            outcomes = executor.after(outcomes, machine) if executor is not None else outcomes
        produced += (Produced(at, outcome) for outcome in outcomes)
    closing = machine.close()
    closing = executor.after(closing, machine) if executor is not None else closing
    return produced + [Produced("close", outcome) for outcome in closing]


# -- the sse profile: events as bytes on the wire ------------------------------------------------

BOM = b"\xef\xbb\xbf"
# Data that is not JSON (SSE-DATA-2), line by line, and what only looks like the sentinel.
_NOT_DATA: tuple[tuple[str, ...], ...] = (
    ("data: hello",),
    ("data: {",),
    ("data: NaN",),
    ("data:",),
    ("data",),  # a line without a colon is a field with an empty value
    ("data: [DONE] ",),
    ("data:  [DONE]",),  # one leading space is removed, not two
    ("data: [done]",),
    ("data: 1", "data: 2"),  # joined with LF: not JSON; without it, a number
    ("data: [DONE", "data: ]"),
)
# Lines that dispatch nothing (SSE-FIELD-1, -2, SSE-EVENT-1).
_SILENT: tuple[tuple[str, ...], ...] = (
    (": ping",),
    (":",),
    ("event: response.output_text.delta",),
    ("id: 7", "retry: 3000"),
    ('Data: {"type": "response.created"}',),  # field names are case-sensitive
    ('data{"type": "response.created"}',),
    (': data: {"type": "response.created"}',),  # a comment, whatever it holds
)
# Byte sequences a UTF-8 decoder turns into one U+FFFD each (SSE-LINE-1).
_ILL_FORMED = (b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98")


@dataclass(frozen=True)
class Record:
    """One SSE event as written: `event` (the index of the core event it carries), `invalid` data,
    the `[DONE]` sentinel, or `silent` lines that dispatch nothing."""

    kind: Literal["event", "invalid", "done", "silent"]
    lines: tuple[str, ...]
    event: int = -1


@dataclass(frozen=True)
class Wire:
    records: tuple[Record, ...]  # in order; the last one may be unfinished
    data: bytes
    unfinished: bool  # the stream ends inside its last record, which never dispatches (SSE-EVENT-2)
    routed: int  # how many of the core events reach the router: the rest follow `[DONE]` or are cut
    cuts: tuple[Any, ...]  # the vector's `cuts`

    def dispatched(self) -> list[Record]:
        records = self.records[:-1] if self.unfinished else self.records
        return [record for record in records if record.kind != "silent"]


def _json_lines(draw: st.DrawFn, event: Any) -> list[str]:
    ensure_ascii = _chance(draw, 4)  # mostly UTF-8 as it is, which the cuts can split
    try:
        json.dumps(event, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: only its escape is UTF-8
        ensure_ascii = True
    if _chance(draw, 5):  # one JSON event over several data lines (SSE-FIELD-3)
        return json.dumps(event, ensure_ascii=ensure_ascii, indent=_pick(draw, [None, 1])).split(
            "\n"
        )  # only LF ends an SSE line; str.splitlines knows more
    return [json.dumps(event, ensure_ascii=ensure_ascii)]


def _event_record(draw: st.DrawFn, index: int, event: Any) -> Record:
    lines = [("data:" if _chance(draw, 4) else "data: ") + line for line in _json_lines(draw, event)]
    if _chance(draw, 6):  # a comment between the data lines (SSE-FIELD-1)
        lines.insert(draw(st.integers(0, len(lines))), ": keep-alive")
    named = event.get("type") if isinstance(event, dict) else None
    line = _pick(draw, ["", "", "", "same", "other", "id"])
    if line == "same" and isinstance(named, str):  # the `event:` line never routes (SSE-FIELD-4)
        lines.insert(0, f"event: {named}")
    elif line == "other":
        lines.insert(0, "event: response.refusal.delta")
    elif line == "id":
        lines += ["id: 41", "retry: 1000", "extension: ignored"]
    return Record("event", tuple(lines), index)


def _noise(draw: st.DrawFn) -> list[Record]:
    count = _pick(draw, [0, 0, 0, 1, 2])
    return [
        Record("silent", _pick(draw, _SILENT))
        if draw(st.booleans())
        else Record("invalid", _pick(draw, _NOT_DATA))
        for _ in range(count)
    ]


@st.composite
def _wire(draw: st.DrawFn, events: Sequence[Any]) -> Wire:
    """The events as one `text/event-stream`, with comments, invalid data, `[DONE]`, and maybe cut."""
    count = len(events)
    stop = _pick(draw, ["end", "end", "end", "done", "done_early", "cut"])
    routed = count
    if stop == "done_early" and count > 1:
        routed = draw(st.integers(1, count - 1))
    elif stop == "cut" and count:
        routed = draw(st.integers(0, count - 1))
    records: list[Record] = []
    bom = _chance(draw, 6)
    if bom and draw(st.booleans()):  # a second byte order mark is part of the first field's name (SSE-LINE-2)
        records.append(Record("silent", ('\ufeffdata: {"type": "acme:never"}',)))
    for index in range(routed):
        records += _noise(draw)
        records.append(_event_record(draw, index, events[index]))
    if stop == "cut" and count:
        records.append(_event_record(draw, routed, events[routed]))
    elif stop != "end" or _chance(draw, 4):
        records.append(Record("done", (_pick(draw, ["data: [DONE]", "data:[DONE]"]),)))
        for _ in range(draw(st.integers(0, 3))):  # after the sentinel: reported, never routed (SSE-DATA-4)
            records.append(
                _pick(
                    draw,
                    [
                        _event_record(draw, -1, events[draw(st.integers(0, count - 1))])
                        if count
                        else Record("done", ("data: [DONE]",)),
                        Record("done", ("data: [DONE]",)),
                        Record("invalid", ("data: oops",)),
                        Record("silent", (": late",)),
                    ],
                )
            )
    data, unfinished = _wire_bytes(draw, records, bom, stop == "cut" and count > 0)
    return Wire(tuple(records), data, unfinished, routed, _cuts(draw, data, bom))


def _wire_bytes(draw: st.DrawFn, records: Sequence[Record], bom: bool, cut: bool) -> tuple[bytes, bool]:
    """The records' bytes: each line with a drawn end (SSE-LINE-3), ill-formed UTF-8 in place of
    some U+FFFD (SSE-LINE-1)."""
    mode = _pick(draw, ["\n", "\n", "\r\n", "\r", "mixed"])
    previous = ""
    chunks = [BOM] if bom else []
    for number, record in enumerate(records):
        text = []
        for line in (*record.lines, ""):
            end = _pick(draw, ["\n", "\r\n", "\r"]) if mode == "mixed" else mode
            if line == "" and previous == "\r" and end == "\n":
                end = "\r\n"  # a CR then an LF is one line end: the blank line would vanish
            text.append(line + end)
            previous = end
        encoded = "".join(text).encode("utf-8")
        if b"\xef\xbf\xbd" in encoded and not _chance(draw, 4):
            encoded = encoded.replace(b"\xef\xbf\xbd", _pick(draw, _ILL_FORMED))
        if cut and number == len(records) - 1:  # unfinished: cut before the byte that would dispatch it
            blank = len(encoded) - len(text[-1].encode("utf-8"))
            encoded = encoded[: draw(st.integers(0, blank))]
        chunks.append(encoded)
    return b"".join(chunks), cut


def _cuts(draw: st.DrawFn, data: bytes, bom: bool) -> tuple[Any, ...]:
    """Ways to cut the bytes, aimed at the places decoders break: after a CR, inside a character,
    inside the byte order mark (SSE-CHUNK-1); empty chunks too."""
    places = [i + 1 for i, byte in enumerate(data) if byte == 0x0D] + [
        i for i, byte in enumerate(data) if 0x80 <= byte < 0xC0
    ]
    places += [1, 2] if bom else []
    offsets = st.sampled_from(places) | st.integers(0, len(data)) if places else st.integers(0, len(data))
    first: Any = (
        "every_byte"
        if len(data) <= 1500 and draw(st.booleans())
        else sorted(draw(st.lists(offsets, max_size=8)))
    )
    return (first, sorted(draw(st.lists(offsets, max_size=8))))


# -- streams: plans cut and rendered -------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GeneratedStream:
    """A plan cut into deltas and rendered: `events[i]` is the entry of `plan.steps[i]`; an sse
    stream also has its bytes (`wire`)."""

    plan: StreamPlan
    cuts: Cuts
    events: tuple[Any, ...]
    wire: Wire | None = None

    @property
    def profile(self) -> Profile:
        return self.plan.profile

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool registry the stream is routed with (a vector's `tools`)."""
        return copy.deepcopy(list(self.plan.tools))


def _cut(draw: st.DrawFn, text: str, count: int) -> tuple[str, ...]:
    if count == 0:
        return ()
    bounds = sorted(draw(st.lists(st.integers(0, len(text)), min_size=count - 1, max_size=count - 1)))
    edges = [0, *bounds, len(text)]
    return tuple(text[start:end] for start, end in itertools.pairwise(edges))


@st.composite
def streams_from(draw: st.DrawFn, plan: StreamPlan) -> GeneratedStream:
    """The plan cut into deltas at drawn positions, and rendered as events (and bytes, for sse)."""
    cuts = tuple(tuple(_cut(draw, part.streamed, part.pieces) for part in item.parts) for item in plan.items)
    events = tuple(render_events(plan, cuts))
    wire = draw(_wire(events)) if plan.profile == "sse" else None
    return GeneratedStream(plan, cuts, events, wire)


def streams(profile: Profile = "core", max_items: int = 5) -> st.SearchStrategy[GeneratedStream]:
    """Generated streams of one profile with their ground truth; see `stream_plans`."""
    return stream_plans(profile, max_items).flatmap(streams_from)


# -- what an implementation must make of it ------------------------------------------------------


def _produced(stream: GeneratedStream, point: ToolCallPoint) -> list[Produced]:
    plan = stream.plan
    wire = stream.wire
    if wire is None:
        produced = _run(plan, stream.cuts, plan.steps, point)
        # The harness compares an arguments_done implementation at the canonical point (spec/vectors.md).
        return to_canonical_point(produced, stream.events, point) if point == "arguments_done" else produced
    routed = _run(plan, stream.cuts, plan.steps[: wire.routed], point)
    by_event: dict[Any, list[Outcome]] = {}
    for entry in routed:
        by_event.setdefault(entry.at, []).append(entry.outcome)
    placed: list[Produced] = []
    after_done = False
    for number, record in enumerate(wire.dispatched()):  # `at` counts dispatched SSE events (spec/sse.md 7)
        if after_done:
            placed.append(Produced(number, _error("event_after_done")))  # SSE-DATA-4
        elif record.kind == "done":
            after_done = True  # SSE-DATA-3
        elif record.kind == "invalid":
            placed.append(Produced(number, _error("invalid_data")))  # SSE-DATA-2
        else:
            placed += (Produced(number, outcome) for outcome in by_event.get(record.event, []))
    return placed + [Produced("close", outcome) for outcome in by_event.get("close", [])]


def expected_outcomes(
    stream: GeneratedStream, tool_call_point: ToolCallPoint = CANONICAL_POINT
) -> list[dict[str, Any]]:
    """The exact outcomes the spec requires for the stream, each with `at`, from its plan alone.

    Under `tool_call_point: arguments_done` they are placed where the harness
    compares them (spec/vectors.md): a call's outcomes at its done item when the
    stream has one, else at its arguments `.done`. An sse stream's `at` counts its
    dispatched SSE events.
    """
    return [{"at": entry.at, **entry.outcome} for entry in _produced(stream, tool_call_point)]


# The requirements an outcome kind or code shows, and those a step's presence shows.
_BY_OUTCOME = {
    "text.delta": ("CORE-TEXT-1", "CORE-TEXT-3"),
    "text.done": ("CORE-TEXT-2",),
    "refusal.delta": ("CORE-TEXT-4",),
    "reasoning.delta": ("CORE-TEXT-5",),
    "tool.arguments.delta": ("CORE-ARGS-1", "CORE-ARGS-2"),
    "tool.call": ("CORE-CALL-1", "CORE-CALL-2", "CORE-ARGS-5"),
    "diff.update": ("CUSTOM-SLOT-2", "CUSTOM-DELTA-2", "CUSTOM-DELTA-4"),
    "diff.finish": ("CUSTOM-FIN-1", "CUSTOM-EXEC-1"),
    "tool.ready": ("EXEC-FLOW-1", "EXEC-FLOW-2", "EXEC-FLOW-3", "EXEC-STATE-1", "EXEC-CHECK-4"),
    "tool.rejected": ("EXEC-CHECK-1", "EXEC-CHECK-2", "EXEC-CHECK-3", "EXEC-CHECK-5"),
    "tool.started": ("EXEC-STATE-2", "EXEC-ONCE-1"),
    "tool.succeeded": ("EXEC-RUN-1",),
    "tool.failed": ("EXEC-RUN-3", "EXEC-RESTART-2"),
    "tool.cancelled": ("EXEC-CANCEL-1", "EXEC-CANCEL-2"),
    "tool.duplicate": ("EXEC-ONCE-2",),
    "tool.audit": ("EXEC-AUDIT-1", "EXEC-AUDIT-2"),
    "malformed_event": ("CORE-EVT-2", "CORE-EVT-9", "CORE-EVT-8"),
    "unknown_item": ("CORE-ITEM-3",),
    "item_type_mismatch": ("CORE-ITEM-4",),
    "duplicate_event": ("CORE-ITEM-5", "CORE-ITEM-14", "CORE-TEXT-7", "CORE-ARGS-7"),
    "late_delta": ("CORE-TEXT-6", "CORE-ARGS-4"),
    "done_mismatch": ("CORE-TEXT-11", "CORE-ARGS-6", "CORE-ARGS-8", "CORE-CALL-17"),
    "event_after_terminal": ("CORE-LIFE-4",),
    "tool.error too_large": ("CORE-LIMIT-1",),
    "error too_large": ("CORE-LIMIT-5", "CORE-LIMIT-3"),
    "too_deep": ("CORE-LIMIT-2",),
    "invalid_json": ("CORE-CALL-3",),
    "invalid_arguments": ("CORE-CALL-15",),
    "incomplete": ("CORE-CALL-5", "CORE-CALL-6"),
    "duplicate_call_id": ("CORE-CALL-7",),
    "call_retracted": ("CORE-CALL-8", "CORE-CALL-12", "CORE-CALL-13", "CORE-CALL-14"),
    "consumer_failed": ("CUSTOM-FAIL-1", "CUSTOM-FAIL-3"),
    "consumer_rejected": ("CUSTOM-FIN-3",),
    "not_awaiting_approval": ("EXEC-APPROVE-2",),
    "invalid_data": ("SSE-DATA-2",),
    "event_after_done": ("SSE-DATA-4",),
}
_BY_PROFILE = {
    "core": ("CORE-EVT-1", "CORE-OUT-1", "CORE-OUT-2", "CORE-LIFE-1", "CORE-LIFE-5"),
    "custom-tools": ("CUSTOM-SLOT-1", "CUSTOM-CAT-1", "CUSTOM-END-1"),
    "execution": ("EXEC-STATE-3",),
    "sse": (
        "SSE-LINE-3",
        "SSE-FIELD-2",
        "SSE-FIELD-3",
        "SSE-EVENT-1",
        "SSE-CHUNK-1",
        "SSE-CHUNK-2",
        "SSE-DATA-1",
    ),
}


@cache
def _requirements() -> dict[str, str]:
    found, _ = read_requirements(SPEC_DIR)
    return {requirement.id: requirement.level for requirement in found.values()}


def spec_ids(stream: GeneratedStream, outcomes: Sequence[Outcome], optioned: bool) -> tuple[list[str], str]:
    """The requirements a generated stream checks, by what it contains and the outcomes it expects,
    and their strongest level. `optioned`: the stream depends on the tool call point."""
    ids = [*_BY_PROFILE["core"], *(_BY_PROFILE[stream.profile] if stream.profile != "core" else ())]
    for outcome in outcomes:
        ids += _BY_OUTCOME.get(outcome["kind"], ())
        ids += _BY_OUTCOME.get(outcome.get("code") or "", ())
        ids += _BY_OUTCOME.get(f"{outcome['kind']} {outcome.get('code')}", ())
        if outcome["kind"] == "lifecycle" and outcome["event"] in TERMINAL_TYPES:
            ids += ["CORE-LIFE-2", "CORE-LIFE-3"] if outcome["event"] == "failed" else ["CORE-LIFE-2"]
        if outcome["kind"] == "ignored":
            kind = outcome["type"]
            ids.append(
                "CORE-EVT-4" if ":" in kind else "CORE-EVT-3" if kind in UNKNOWN_TYPES else "CORE-EVT-5"
            )
    steps = stream.plan.steps
    forms = frozenset().union(*(step.form for step in steps))
    ids += ["CORE-ERR-1"] if any(step.kind == "error" for step in steps) else []
    ids += ["CORE-ITEM-1"] if any(step.kind == "added" for step in steps) else []
    ids += ["CORE-ITEM-2"] if forms & {"no_item_id", "null_item_id"} else []
    ids += ["CORE-ITEM-7"] if forms & {"no_index", "null_index", "no_output_index"} else []
    ids += ["CORE-EVT-7"] if any(form.startswith("null") for form in forms) else []
    ids += ["CORE-ITEM-9"] if "odd_fields" in forms or any("_number" in form for form in forms) else []
    ids += ["CORE-ITEM-8"] if "by_call_id" in forms else []
    ids += ["CORE-EVT-6"] if stream.plan.sequence != "in_order" else []
    ids += ["CORE-CALL-9"] if any(item.kind == "hosted" for item in stream.plan.items) else []
    ids += ["CORE-CALL-8"] if optioned else []
    ids += (
        ["CUSTOM-TIME-1"]
        if any(step.at_ms is not None for step in steps) and stream.profile == "custom-tools"
        else []
    )
    if stream.profile == "execution" and any(o.get("code") == "call_retracted" for o in outcomes):
        ids += ["EXEC-RETRACT-1", "EXEC-RETRACT-2", "EXEC-RETRACT-3", "EXEC-RETRACT-4"]
    controls = {step.value["control"] for step in steps if step.kind == "control"}
    ids += ["EXEC-CANCEL-3", "EXEC-CANCEL-4"] if "cancel" in controls else []
    ids += (
        ["EXEC-RESTART-1", "EXEC-RESTART-3", "EXEC-RESTART-4", "EXEC-RESTART-5", "EXEC-APPROVE-3"]
        if "restart" in controls
        else []
    )
    ids += ["EXEC-APPROVE-1"] if controls & {"approve", "deny"} else []
    if stream.wire is not None:
        kinds = {record.kind for record in stream.wire.records}
        ids += ["SSE-DATA-3", "SSE-DATA-5"] if "done" in kinds else []
        ids += ["SSE-FIELD-1", "SSE-FIELD-4"] if "silent" in kinds else []
        ids += ["SSE-EVENT-2"] if stream.wire.unfinished else []
        ids += ["SSE-LINE-1"] if any(b in stream.wire.data for b in _ILL_FORMED) else []
        ids += ["SSE-LINE-2"] if stream.wire.data.startswith(BOM) else []
    return cited(ids)


def cited(ids: Sequence[str]) -> tuple[list[str], str]:
    """The ids the spec defines, each once, and their strongest level."""
    known = _requirements()
    defined = [i for i in dict.fromkeys(ids) if i in known]
    return defined, max((known[i] for i in defined), key=LEVEL_RANK.__getitem__, default="MUST")


# -- properties, in words ------------------------------------------------------------------------


def _texts_of(outcomes: Sequence[Any]) -> dict[tuple[str, int], str]:
    shown: dict[tuple[str, int], str] = {}
    for outcome in outcomes:
        if outcome["kind"] == "text.delta":
            key = (outcome["item_id"], outcome["content_index"])
            shown[key] = shown.get(key, "") + outcome["delta"]
    return shown


def _calls_of(outcomes: Sequence[Any]) -> dict[str, list[Outcome]]:
    calls: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        if outcome["kind"] in ("tool.call", "tool.error"):
            calls.setdefault(outcome["item_id"], []).append(outcome)
    return calls


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:60]) + f"... ({len(text)} characters)"


def _said(outcome: Outcome) -> str:
    if outcome["kind"] == "tool.error":
        return f"tool.error {outcome.get('code')}"
    value = outcome.get("arguments", outcome.get("input"))
    return f"tool.call {outcome.get('name')}({json.dumps(value, ensure_ascii=False, default=repr)[:60]})"


def check_properties(
    stream: GeneratedStream, outcomes: Sequence[Any], tool_call_point: ToolCallPoint = CANONICAL_POINT
) -> list[str]:
    """How an implementation's outcomes for a generated stream part from its ground truth, in words:
    every outcome valid, each part's answer text, each call's one tool.call or tool.error, the end."""
    for index, outcome in enumerate(outcomes):
        problem = first_error(OUTCOME, outcome)
        if problem is not None:
            return [f"outcome {index} is not valid against the outcome schema: {problem}"]
    expected = expected_outcomes(stream, tool_call_point)
    problems = []
    wanted, shown = _texts_of(expected), _texts_of(outcomes)
    for (item_id, index), text in shown.items():
        if (item_id, index) not in wanted:
            problems.append(
                f"text.delta for {item_id} part {index}, which has no answer text: {_shown(text)}"
            )
        elif text != wanted[item_id, index]:
            truth = _shown(wanted[item_id, index])
            problems.append(f"the text deltas of {item_id} part {index} make {_shown(text)}, not {truth}")
    for (item_id, index), text in wanted.items():
        if (item_id, index) not in shown:
            problems.append(f"no text.delta for {item_id} part {index}, which shows {_shown(text)}")
    want_calls, got_calls = _calls_of(expected), _calls_of(outcomes)
    for item_id in dict.fromkeys([*want_calls, *got_calls]):
        want, got = want_calls.get(item_id, []), got_calls.get(item_id, [])
        same = len(want) == len(got) and all(
            w["kind"] == g["kind"] and all(json_equal(v, g.get(k)) for k, v in w.items() if k != "at")
            for w, g in zip(want, got, strict=False)
        )
        if not same:
            wanted_calls, got_ones = ", ".join(map(_said, want)) or "no call", ", ".join(map(_said, got))
            problems.append(f"{item_id}: expected {wanted_calls}, got {got_ones or 'none'}")
    ends = [o for o in outcomes if o["kind"] == "end"]
    status = expected[-1]["status"]
    if len(ends) != 1 or outcomes[-1]["kind"] != "end" or ends[0]["status"] != status:
        problems.append(f"expected one end {status!r}, last; got {[e.get('status') for e in ends]}")
    return problems


# -- the call catalogue (spec/core.md section 5.1) ----------------------------------------------
#
# Catalogue calls take their input from the done item alone, and their previews are never kept,
# so each event's outcomes follow from the call it belongs to: the ground truth is written beside
# each event as it is drawn, then the calls' events are interleaved.


@dataclass(frozen=True)
class CatalogueStream:
    """A response of catalogue calls, and per event (or "close") the outcomes a router must
    produce, each with the fields a vector would state."""

    events: tuple[dict[str, Any], ...]
    expected: tuple[tuple[int | str, Outcome], ...]

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool registry of its calls' types (a vector's `tools`): a built-in tool is named by its
        type, an approval request's by the MCP tool's name."""
        types = {item_type: tool_type for tool_type, item_type in _CATALOGUE_ITEMS.items()}
        tools: list[dict[str, Any]] = []
        for item in (e["item"] for e in self.events if e["type"] == "response.output_item.added"):
            tool = {"type": types[item["type"]], **({"name": item["name"]} if "name" in item else {})}
            tools += [] if tool in tools else [tool]
        return tools


_CATALOGUE_ITEMS = {
    "apply_patch": "apply_patch_call",
    "shell": "shell_call",
    "local_shell": "local_shell_call",
    "computer": "computer_call",
    "tool_search": "tool_search_call",
    "mcp_approval": "mcp_approval_request",
}
CATALOGUE_CALL_TYPES = tuple(_CATALOGUE_ITEMS)
# What a producer does to a call: the plain case, mostly (CORE-CALLTYPE-1 .. -8).
_CALL_FAULTS: tuple[str, ...] = ("none", "none", "none", "incomplete", "failed", "bad_shape", "no_input")
_CALL_FAULTS += ("open", "duplicate_done", "late_preview")
# An input of the wrong shape for each type (CORE-CALLTYPE-7), and the input field it replaces.
_BAD_SHAPES: dict[str, tuple[str, Any]] = {
    "apply_patch": ("operation", {"type": "update_file", "path": 5, "diff": ""}),
    "shell": ("action", {"commands": "ls"}),
    "local_shell": ("action", {"type": "run", "command": ["ls"]}),
    "computer": ("actions", [5]),
    "tool_search": ("arguments", []),
    "mcp_approval": ("arguments", "{"),
}
_Planned = tuple[dict[str, Any], list[Outcome]]  # an event, and the outcomes it causes


def _pieces(draw: st.DrawFn, text: str) -> tuple[str, ...]:
    """`text` cut anywhere into one to four pieces."""
    return _cut(draw, text, draw(st.integers(1, 4)))


def _input(draw: st.DrawFn, tool_type: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The done item's input fields, and the tool.call fields they give (CORE-CALLTYPE-2)."""
    if tool_type == "apply_patch":
        kind = _pick(draw, ["create_file", "update_file", "delete_file"])
        operation = {"type": kind, "path": _pick(draw, ["a.py", "docs/b.md"])}
        if kind != "delete_file":
            operation["diff"] = draw(texts)
        return {"operation": operation}, {"operation": operation}
    if tool_type == "shell":
        action = {"commands": draw(st.lists(texts, min_size=1, max_size=3)), "timeout_ms": 1000}
        return {"action": action}, {"action": action}
    if tool_type == "local_shell":
        action = {"type": "exec", "command": draw(st.lists(texts, min_size=1, max_size=3)), "env": {}}
        return {"action": action}, {"action": action}
    if tool_type == "computer":
        actions = [{"type": "click", "button": "left", "x": 1, "y": 2}, {"type": "type", "text": draw(texts)}]
        if _chance(draw, 2):  # the preview tool's one action
            return {"action": actions[0], "pending_safety_checks": []}, {"actions": actions[:1]}
        return {"actions": actions}, {"actions": actions}
    arguments = draw(argument_objects)
    if tool_type == "tool_search":
        return {"arguments": arguments}, {"arguments": arguments}
    text = _dumps(draw, arguments)  # mcp_approval: JSON text, parsed as a function's (CORE-CALLTYPE-5)
    return {"arguments": text, "server_label": "srv"}, {"arguments": arguments, "server_label": "srv"}


def _previews(draw: st.DrawFn, item: dict[str, Any], output_index: int) -> list[_Planned]:
    """The preview events of an apply_patch or shell call, as tool.arguments.delta (CORE-CALLTYPE-6)."""
    planned: list[_Planned] = []
    item_id = item["id"]
    if item["type"] == "apply_patch_call" and "diff" in item["operation"]:
        address = {"item_id": item_id, "output_index": output_index}
        for piece in _pieces(draw, item["operation"]["diff"]):
            event = {"type": "response.apply_patch_call_operation_diff.delta", **address, "delta": piece}
            planned.append((event, [{"kind": "tool.arguments.delta", "item_id": item_id, "delta": piece}]))
        done = {"type": "response.apply_patch_call_operation_diff.done", **address}
        planned.append(({**done, "diff": item["operation"]["diff"]}, []))
    if item["type"] == "shell_call":
        for index, command in enumerate(item["action"]["commands"]):
            first, *rest = _pieces(draw, command)
            address = {"output_index": output_index, "command_index": index}  # no item_id (CORE-ITEM-2)
            shown = {"kind": "tool.arguments.delta", "item_id": item_id, "command_index": index}
            added = {"type": "response.shell_call_command.added", **address, "command": first}
            planned.append((added, [{**shown, "delta": first}]))
            for piece in rest:
                delta = {"type": "response.shell_call_command.delta", **address, "delta": piece}
                planned.append((delta, [{**shown, "delta": piece}]))
            planned.append(({"type": "response.shell_call_command.done", **address, "command": command}, []))
    return planned


@st.composite
def _catalogue_call(
    draw: st.DrawFn, position: int, call_types: Sequence[str]
) -> tuple[list[_Planned], Outcome | None]:
    """One catalogue call's events and their outcomes, and the outcome owed if it never completes."""
    tool_type = _pick(draw, call_types)
    item_type = _CATALOGUE_ITEMS[tool_type]
    item_id, call_id = f"cat_{position}", f"call_cat_{position}"
    item: dict[str, Any] = {"id": item_id, "type": item_type, "status": "in_progress"}
    hosted = tool_type in ("shell", "tool_search") and _chance(draw, 3)  # CORE-CALLTYPE-4
    if tool_type == "shell":
        container = {"type": "container_reference", "container_id": "cntr"}
        item["environment"] = container if hosted else {"type": "local"}
    if tool_type == "tool_search":
        item["execution"] = "server" if hosted else "client"
    if tool_type == "mcp_approval":
        item["name"] = "deploy"
    else:
        item["call_id"] = call_id
    stated, fields = _input(draw, tool_type)
    fault = _pick(draw, _CALL_FAULTS)
    done = {**item, **stated, "status": "completed"}
    owner = item_id if tool_type == "mcp_approval" else call_id
    refused: Outcome = {"kind": "tool.error", "item_id": item_id, "call_id": owner, "code": "incomplete"}
    outcome: Outcome = {"kind": "tool.call", "item_id": item_id, "call_id": owner, "tool_type": tool_type}
    outcome |= {"name": item.get("name", tool_type), **fields}
    if fault in ("incomplete", "failed"):  # CORE-CALLTYPE-3
        done["status"] = fault
        outcome = refused
    elif fault == "no_input":
        for name in stated:
            if name != "pending_safety_checks":
                done.pop(name)
        outcome = refused
    elif fault == "bad_shape":  # CORE-CALLTYPE-7
        name, value = _BAD_SHAPES[tool_type]
        done = {key: value for key, value in done.items() if key not in ("action", "actions")} | {name: value}
        outcome = {**refused, "code": "invalid_json" if tool_type == "mcp_approval" else "invalid_arguments"}
    added = {"type": "response.output_item.added", "output_index": position, "item": item}
    planned: list[_Planned] = [(added, [])]
    planned += _previews(draw, {**item, **stated}, position)
    if fault == "open":
        return planned, None if hosted else refused
    said = [] if hosted else [outcome]
    planned.append(({"type": "response.output_item.done", "output_index": position, "item": done}, said))
    if fault == "duplicate_done":  # CORE-ITEM-5
        again = {"type": "response.output_item.done", "output_index": position, "item": done}
        planned.append((again, [{"kind": "error", "code": "duplicate_event"}]))
    late = [event for event, said in planned if said and said[0]["kind"] == "tool.arguments.delta"]
    if fault == "late_preview" and late:  # CORE-CALLTYPE-8
        planned.append(({**late[0]}, [{"kind": "error", "code": "late_delta"}]))
    return planned, None


@st.composite
def catalogue_streams(
    draw: st.DrawFn, max_calls: int = 4, call_types: Sequence[str] = CATALOGUE_CALL_TYPES
) -> CatalogueStream:
    """A response of catalogue calls of `call_types` (spec/core.md section 5.1), interleaved, with the
    outcomes each event must produce."""
    count = draw(st.integers(1, max_calls))
    calls = [draw(_catalogue_call(position, call_types)) for position in range(count)]
    body = _interleave(draw, [planned for planned, _ in calls], 3)
    owed = [refused for _, refused in calls if refused is not None]  # CORE-CALL-6, in announcement order
    response = {"id": "resp_cat", **RESPONSE_STATED, "status": "in_progress", "output": []}
    done = [any(event["type"] == "response.output_item.done" for event, _ in planned) for planned, _ in calls]
    ended = "completed" if all(done) else "incomplete"  # as a producer ends a response it cut off
    terminal = {"type": f"response.{ended}", "response": {**response, "status": ended}}
    lifecycle = {"kind": "lifecycle", "response_id": response["id"]}  # CORE-LIFE-1
    planned = [
        ({"type": "response.created", "response": response}, [{**lifecycle, "event": "created"}]),
        *body,
        (terminal, [{**lifecycle, "event": ended}, *owed]),
    ]
    events = tuple({**event, "sequence_number": index} for index, (event, _) in enumerate(planned))
    expected = [(index, outcome) for index, (_, outcomes) in enumerate(planned) for outcome in outcomes]
    return CatalogueStream(events, (*expected, ("close", {"kind": "end", "status": ended})))
