"""Generated captures for the producer checker, each with planted faults and their ground truth.

The bundled captures of tests/captures are finite; these strategies check
`streamroute check-capture` (checker.py) on captures nobody wrote down.
`captures()` draws one in three steps:

1. A well-formed response (`Draft`): its lifecycle events; its items (messages
   of text and refusal parts, reasoning summaries and text, function and custom
   tool calls, hosted tool calls, apply_patch and shell calls of the call
   catalogue, whose shell commands each begin with an `.added`), each cut into
   deltas and interleaved with the others; vendor-prefixed, unknown and `error`
   events between them. A response that fails or ends incomplete may leave
   items unfinished.
2. Zero or more planted faults, at most one per requirement. Each breaks one
   PROD-* requirement as a producer, gateway or proxy does and records where a
   checker must report it: the requirement on the event it lands on, or on the
   end of the stream. A fault that necessarily breaks a second requirement
   records both. Faults keep out of one another's way: each item takes at most
   one of the item faults, and every event is inserted where the stream still
   checks it.
3. Two renderings of the same events: JSON Lines, and SSE bytes (event lines,
   comments, `id:` lines, LF, CRLF or CR line ends, a byte order mark, JSON over
   several data lines, `[DONE]`), into which the SSE faults (PROD-SSE-*) are
   planted. Whether a span of SSE bytes is UTF-8 is decided by Python's strict
   decoder, the definition PROD-SSE-1 refers to.

A `GeneratedCapture` holds both renderings and, for each, the exact violations
a correct checker reports, as (event index or None for the end, requirement).
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from streamroute.conformance.arguments import MAX_ARGUMENTS_DEPTH
from streamroute.conformance.drivers import without_local_constants
from streamroute.conformance.event_types import event_types, lifecycle_types, terminal_types
from streamroute.wire.event_stream import DONE

from .checker import MAX_TEXT_BYTES, Format

Report = tuple[int | None, str]  # an event's index (None: the end of the stream), a requirement id


@dataclass(eq=False)
class Entry:
    """One event of a capture, and what a checker must report at it."""

    event: dict[str, Any] | None  # None: data that is not a JSON object, `raw`
    raw: str = ""
    rules: list[str] = field(default_factory=list)
    numbered: bool = True  # it takes the next sequence_number: it has a string type and an integer one
    decoy: str = ""  # a member written before the event's own of its name (PROD-EVT-3), as JSON text

    def text(self, style: dict[str, Any], indent: int | None = None) -> str:
        """The event as its producer writes it: its JSON, or the data that is not a JSON object."""
        if self.event is None:
            return self.raw
        text = json.dumps(self.event, **style, indent=indent)
        return "{" + self.decoy + "," + text[1:] if self.decoy else text

    @property
    def type(self) -> str | None:
        value = None if self.event is None else self.event.get("type")
        return value if isinstance(value, str) else None


def _entry(event_type: str, **fields: Any) -> Entry:
    return Entry({"type": event_type, "sequence_number": 0, **fields})


@dataclass(eq=False)
class Text:
    """A text (section 7): its deltas and its `.done`, which states `value` in its field `complete`."""

    family: str  # its events are `<family>.delta` and `<family>.done`
    where: dict[str, Any]  # the fields naming it: item_id (if its events have one), output_index, its index
    complete: str
    value: str
    deltas: list[Entry]
    done: Entry | None
    part: Part | None = None  # the part that must be open for its events (PROD-PART-2)
    added: Entry | None = None  # the `.added` that begins it, stating its first piece (PROD-CALLTYPE-1)

    @property
    def streamed(self) -> list[Entry]:
        """Its events before its `.done`."""
        return self.deltas if self.added is None else [self.added, *self.deltas]


@dataclass(eq=False)
class Part:
    family: str  # response.content_part or response.reasoning_summary_part
    index_field: str
    index: int
    added: Entry
    done: Entry
    text: Text


@dataclass(eq=False)
class Item:
    kind: str
    id: str
    output_index: int
    entries: list[Entry]  # its events in order, output_item.added first and output_item.done last
    parts: list[Part]
    texts: list[Text]
    done: Entry
    claimed: bool = False  # an item fault was planted in it

    @property
    def added(self) -> Entry:
        return self.entries[0]


@dataclass(eq=False)
class Draft:
    """A capture being built: its events in order, its items, and what is reported at its end."""

    entries: list[Entry]
    items: list[Item]
    response_id: str
    end: set[str] = field(default_factory=set)

    def index(self, entry: Entry) -> int:
        return self.entries.index(entry)  # by identity: entries compare by identity

    def has(self, entry: Entry | None) -> bool:
        return entry is not None and entry in self.entries

    def terminal(self) -> Entry | None:
        """The first terminal event, if any."""
        return next((e for e in self.entries if e.type in terminal_types()), None)

    def checked_until(self) -> int:
        """The index of the terminal event: the events up to it are checked (PROD-LIFE-3)."""
        terminal = self.terminal()
        return len(self.entries) if terminal is None else self.index(terminal)

    def placeable_until(self) -> int:
        """Where an event may go without following an error event (PROD-LIFE-8): the first
        error event, else the terminal event."""
        until = self.checked_until()
        return next((n for n, e in enumerate(self.entries[:until]) if e.type == "error"), until)

    def place(
        self,
        draw: st.DrawFn,
        entry: Entry,
        after: Entry | None = None,
        before: Entry | None = None,
        past_terminal: bool = False,
    ) -> bool:
        """Insert `entry` at a drawn place after `after` (else after the first event: the first
        event stays first) and before `before`, and before the terminal event unless
        `past_terminal`. False when there is no such place."""
        low = 1 if after is None else self.index(after) + 1
        high = len(self.entries) if before is None or not self.has(before) else self.index(before)
        if not past_terminal:
            high = min(high, self.placeable_until())
        if low > high:
            return False
        self.entries.insert(draw(st.integers(low, high)), entry)
        return True

    def open_until(self, item: Item) -> Entry | None:
        """The event an item is open until: its output_item.done, if sent."""
        return item.done if self.has(item.done) else None


# -- a well-formed response --------------------------------------------------------------------

TEXTS = st.text(max_size=10)
_json_values = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=6)
ARGUMENTS = st.dictionaries(
    st.text(max_size=5), _json_values | st.lists(_json_values, max_size=2), max_size=3
)


@st.composite
def _pieces(draw: st.DrawFn, text: str) -> list[str]:
    """The text cut into zero to four deltas."""
    count = draw(st.integers(0, 4))
    if count == 0:
        return []
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), min_size=count - 1, max_size=count - 1)))
    bounds = [0, *cuts, len(text)]
    return [text[start:end] for start, end in itertools.pairwise(bounds)]


def _field(event_type: str, member: str) -> str:
    """The field an event type's `x-routing` annotation names as its `text` or `index`."""
    named = getattr(event_types()[event_type], member)
    if not isinstance(named, str):
        raise ValueError(f"spec/event.schema.json: {event_type} has no {member}")
    return named


class _Timeline:
    """The events of one item, built in order."""

    def __init__(
        self, item_id: str, output_index: int, announced: dict[str, Any], by_index: bool = False
    ) -> None:
        self.id = item_id
        self.output_index = output_index
        # The fields naming the item in its events: a shell call's name it by output_index alone.
        self.names = (
            {"output_index": output_index} if by_index else {"item_id": item_id, "output_index": output_index}
        )
        self.entries = [_entry("response.output_item.added", output_index=output_index, item=announced)]
        self.parts: list[Part] = []
        self.texts: list[Text] = []

    def event(self, event_type: str, **fields: Any) -> Entry:
        entry = _entry(event_type, **self.names, **fields)
        self.entries.append(entry)
        return entry

    def text(self, draw: st.DrawFn, family: str, value: str, **index: int) -> Text:
        complete = _field(f"{family}.done", "text")
        pieces = draw(_pieces(value))
        deltas = [self.event(f"{family}.delta", **index, delta=piece) for piece in pieces]
        # A text without deltas may come only in its complete states.
        sent = bool(pieces) or draw(st.booleans())
        done = self.event(f"{family}.done", **index, **{complete: value}) if sent else None
        return self._keep(Text(family, {**self.names, **index}, complete, value, deltas, done))

    def command(self, draw: st.DrawFn, value: str, index: int) -> Text:
        """A shell command: its `.added` states its first piece (or nothing), its deltas the rest."""
        family = "response.shell_call_command"
        first, *rest = ([""] if draw(st.booleans()) else []) + (draw(_pieces(value)) or [value])
        added = self.event(f"{family}.added", command_index=index, command=first)
        deltas = [self.event(f"{family}.delta", command_index=index, delta=piece) for piece in rest]
        done = self.event(f"{family}.done", command_index=index, command=value)
        where = {**self.names, "command_index": index}
        return self._keep(Text(family, where, "command", value, deltas, done, added=added))

    def _keep(self, text: Text) -> Text:
        self.texts.append(text)
        return text

    def part(self, draw: st.DrawFn, family: str, empty: dict[str, Any], text_family: str) -> Part:
        """A part whose text is stated in its field of the same name as the `.done`'s."""
        index_field = _field(f"{family}.added", "index")
        index = sum(part.family == family for part in self.parts)
        name = next(key for key in empty if key != "type")
        added = self.event(f"{family}.added", **{index_field: index}, part=empty)
        text = self.text(draw, text_family, draw(TEXTS), **{index_field: index})
        done = self.event(f"{family}.done", **{index_field: index}, part={**empty, name: text.value})
        part = Part(family, index_field, index, added, done, text)
        text.part = part
        self.parts.append(part)
        return part

    def finish(self, kind: str, done: dict[str, Any]) -> Item:
        entry = _entry("response.output_item.done", output_index=self.output_index, item=done)
        self.entries.append(entry)
        return Item(kind, self.id, self.output_index, self.entries, self.parts, self.texts, entry)


def _message(draw: st.DrawFn, item_id: str, output_index: int) -> Item:
    message = {"id": item_id, "type": "message", "role": "assistant"}
    timeline = _Timeline(item_id, output_index, {**message, "status": "in_progress", "content": []})
    content = []
    for kind in draw(
        st.lists(st.sampled_from(("output_text", "output_text", "refusal")), min_size=1, max_size=3)
    ):
        family = "response.output_text" if kind == "output_text" else "response.refusal"
        name = "text" if kind == "output_text" else "refusal"
        part = timeline.part(draw, "response.content_part", {"type": kind, name: ""}, family)
        if kind == "output_text" and draw(st.booleans()):  # inside the part, before it closes
            annotation = {
                "annotation_index": 0,
                "annotation": {"type": "url_citation", "url": "https://x.y/"},
            }
            where = {"item_id": item_id, "output_index": output_index, "content_index": part.index}
            entry = _entry("response.output_text.annotation.added", **where, **annotation)
            timeline.entries.insert(timeline.entries.index(part.done), entry)
        content.append({"type": kind, name: part.text.value})
    return timeline.finish("message", {**message, "status": "completed", "content": content})


def _reasoning(draw: st.DrawFn, item_id: str, output_index: int) -> Item:
    timeline = _Timeline(item_id, output_index, {"id": item_id, "type": "reasoning", "summary": []})
    summary = []
    for _ in range(draw(st.integers(0, 2))):
        empty = {"type": "summary_text", "text": ""}
        part = timeline.part(
            draw, "response.reasoning_summary_part", empty, "response.reasoning_summary_text"
        )
        summary.append({"type": "summary_text", "text": part.text.value})
    done: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": summary}
    if draw(st.booleans()):
        text = timeline.text(draw, "response.reasoning_text", draw(TEXTS), content_index=0)
        done["content"] = [{"type": "reasoning_text", "text": text.value}]
    return timeline.finish("reasoning", done)


def _call(draw: st.DrawFn, item_id: str, output_index: int, kind: str) -> Item:
    if kind == "function_call":
        name = draw(st.sampled_from(("get_weather", "search_docs")))
        family, value = "response.function_call_arguments", json.dumps(draw(ARGUMENTS))
    else:
        name, family, value = "apply_patch", "response.custom_tool_call_input", draw(TEXTS)
    stated = event_types()[f"{family}.done"].item_path[0]  # the item's field stating the call's text
    call = {"id": item_id, "type": kind, "call_id": f"call_{output_index}", "name": name}
    timeline = _Timeline(item_id, output_index, {**call, stated: "", "status": "in_progress"})
    text = timeline.text(draw, family, value)
    return timeline.finish(kind, {**call, stated: text.value, "status": "completed"})


def _hosted(draw: st.DrawFn, item_id: str, output_index: int, kind: str) -> Item:
    """A hosted tool call: its status events, and the text of its code or arguments, if it has one."""
    hosted = {"id": item_id, "type": kind} | (
        {"name": "fetch", "server_label": "docs"} if kind == "mcp_call" else {}
    )
    timeline = _Timeline(item_id, output_index, {**hosted, "status": "in_progress"})
    timeline.event(f"response.{kind}.in_progress")
    done: dict[str, Any] = {**hosted, "status": "completed"}
    if kind == "web_search_call":
        timeline.event("response.web_search_call.searching")
    elif kind == "code_interpreter_call":
        done["code"] = timeline.text(draw, "response.code_interpreter_call_code", draw(TEXTS)).value
        timeline.event("response.code_interpreter_call.interpreting")
    else:
        value = json.dumps(draw(ARGUMENTS))
        done["arguments"] = timeline.text(draw, "response.mcp_call_arguments", value).value
    timeline.event(f"response.{kind}.completed")
    return timeline.finish(kind, done)


def _apply_patch(draw: st.DrawFn, item_id: str, output_index: int) -> Item:
    call = {"id": item_id, "type": "apply_patch_call", "call_id": f"call_{output_index}"}
    operation = {"type": draw(st.sampled_from(("create_file", "update_file"))), "path": "src/app.py"}
    timeline = _Timeline(
        item_id, output_index, {**call, "status": "in_progress", "operation": {**operation, "diff": ""}}
    )
    diff = timeline.text(draw, "response.apply_patch_call_operation_diff", draw(TEXTS)).value
    return timeline.finish(
        "apply_patch_call", {**call, "status": "completed", "operation": {**operation, "diff": diff}}
    )


def _shell(draw: st.DrawFn, item_id: str, output_index: int) -> Item:
    environment = draw(
        st.sampled_from(({"type": "local"}, {"type": "container_reference", "container_id": "cntr_1"}))
    )
    call = {
        "id": item_id,
        "type": "shell_call",
        "call_id": f"call_{output_index}",
        "environment": environment,
    }
    limits = {"timeout_ms": 60000, "max_output_length": 4096}
    timeline = _Timeline(
        item_id,
        output_index,
        {**call, "status": "in_progress", "action": {"commands": [], **limits}},
        by_index=True,
    )
    commands = [
        timeline.command(draw, command, index).value
        for index, command in enumerate(draw(st.lists(TEXTS, min_size=1, max_size=3)))
    ]
    return timeline.finish(
        "shell_call", {**call, "status": "completed", "action": {"commands": commands, **limits}}
    )


# Each kind of item: the prefix of its ids, and how its events are drawn.
ITEM_KINDS: dict[str, tuple[str, Callable[[st.DrawFn, str, int], Item]]] = {
    "message": ("msg", _message),
    "reasoning": ("rs", _reasoning),
    "function_call": ("fc", functools.partial(_call, kind="function_call")),
    "custom_tool_call": ("ctc", functools.partial(_call, kind="custom_tool_call")),
    "web_search_call": ("ws", functools.partial(_hosted, kind="web_search_call")),
    "code_interpreter_call": ("ci", functools.partial(_hosted, kind="code_interpreter_call")),
    "mcp_call": ("mcp", functools.partial(_hosted, kind="mcp_call")),
    "apply_patch_call": ("apc", _apply_patch),
    "shell_call": ("sh", _shell),
}
# Messages, function calls and reasoning are the most common items, and the richest in faults (a
# call's done item and its size bear PROD-DONE-* and PROD-LIMIT-*);
# the catalogue calls are the only items checked by PROD-CALLTYPE-*.
_KINDS = st.sampled_from(
    (
        *ITEM_KINDS,
        "message",
        "message",
        "message",
        "function_call",
        "function_call",
        "custom_tool_call",
        "reasoning",
        "shell_call",
        "shell_call",
        "apply_patch_call",
        "apply_patch_call",
    )
)


# Events that name no announced item: every checker must let them pass (PROD-EVT-2: unknown and
# vendor-prefixed types need only `type` and `sequence_number`).
EXTRAS: tuple[dict[str, Any], ...] = (
    {"type": "acme:trace", "span": "think"},
    {"type": "acme:response.output_text.delta", "item_id": "msg_acme", "output_index": 0, "delta": "x"},
    {"type": "response.future_feature.delta", "item_id": "ff_1", "output_index": 9, "delta": "{"},
    {"type": "response.audio.transcript.delta", "delta": "hi"},
)
# An error event, in each shape: only `response.failed` may follow it (PROD-LIFE-8).
ERRORS: tuple[dict[str, Any], ...] = (
    {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.", "param": None},
    {
        "type": "error",
        "error": {"type": "server_error", "code": None, "message": "Overloaded.", "param": None},
    },
)


def _extra(draw: st.DrawFn, events: Sequence[dict[str, Any]] = EXTRAS) -> Entry:
    event = draw(st.sampled_from(events))
    return _entry(event["type"], **copy.deepcopy({k: v for k, v in event.items() if k != "type"}))


def _lifecycle(event_type: str, response_id: str, status: str, output: list[Any] | None = None) -> Entry:
    response: dict[str, Any] = {
        "id": response_id,
        "object": "response",
        "created_at": 1764505140,
        "status": status,
        "model": "gpt-5.1",
        "output": output or [],
    }
    if status == "failed":
        response["error"] = {"code": "server_error", "message": "The model failed."}
    if status == "incomplete":
        response["incomplete_details"] = {"reason": "max_output_tokens"}
    return _entry(event_type, response=response)


def _interleave(draw: st.DrawFn, timelines: Sequence[Sequence[Entry]]) -> list[Entry]:
    """The items' events merged, each item's in its order, each item announced after the one before.

    Every event gets a drawn key, non-decreasing along its item and no lower than the key of the
    previous item's announcement; merging by key, then item, then place gives the stream (all
    keys equal, as a shrunk example has them: one item after the other)."""
    keyed: list[tuple[int, int, int, Entry]] = []
    lowest = 0
    for number, timeline in enumerate(timelines):
        size = len(timeline)
        keys = sorted(draw(st.lists(st.integers(lowest, 48), min_size=size, max_size=size)))
        lowest = keys[0]
        pairs = enumerate(zip(keys, timeline, strict=True))
        keyed += [(key, number, place, entry) for place, (key, entry) in pairs]
    return [entry for *_, entry in sorted(keyed, key=lambda k: k[:3])]


@st.composite
def drafts(draw: st.DrawFn) -> Draft:
    """A well-formed response, not yet numbered or rendered."""
    response_id = f"resp_{draw(st.integers(0, 99))}"
    status = draw(st.sampled_from(("completed", "completed", "completed", "failed", "incomplete")))
    queued = draw(st.booleans())
    start = [_lifecycle("response.created", response_id, "queued" if queued else "in_progress")]
    start += [_lifecycle("response.queued", response_id, "queued")] if queued else []
    start += [_lifecycle("response.in_progress", response_id, "in_progress")] if draw(st.booleans()) else []
    kinds = draw(st.lists(_KINDS, max_size=4))
    items = []
    for output_index, kind in enumerate(kinds):
        prefix, build = ITEM_KINDS[kind]
        items.append(build(draw, f"{prefix}_{output_index}", output_index))
    timelines = []
    for item in items:
        cut = status != "completed" and draw(st.integers(0, 3)) == 0  # left unfinished by the failure
        timelines.append(item.entries[: draw(st.integers(1, len(item.entries) - 1))] if cut else item.entries)
    middle = _interleave(draw, timelines)
    for _ in range(draw(st.integers(0, 3))):
        middle.insert(draw(st.integers(0, len(middle))), _extra(draw))
    terminal = _lifecycle("response." + status, response_id, status)
    if status == "failed" and draw(st.booleans()):  # the error event a failure may come with
        middle.append(_extra(draw, ERRORS))
    entries = [*start, *middle, terminal]
    for entry in entries:  # no two events share a mutable part: faults change one at a time
        entry.event = copy.deepcopy(entry.event)
    # But the final response states each done item as that item's done event does: they are the one
    # object, so a fault planted in a done item is stated again there, as a producer that gets an
    # item wrong sends it (PROD-LIFE-7 holds unless planted).
    assert terminal.event is not None
    terminal.event["response"]["output"] = [
        item.done.event["item"] for item in items if item.done in middle and item.done.event
    ]
    return Draft(entries, items, response_id)


# -- the faults --------------------------------------------------------------------------------

T = TypeVar("T")


def _pick(draw: st.DrawFn, candidates: Sequence[tuple[str, Item, T]]) -> tuple[str, Item, T] | None:
    """A way to plant a fault (each way equally likely), and an item it fits, which it claims."""
    ways = sorted({way for way, item, _ in candidates if not item.claimed})
    if not ways:
        return None
    way = draw(st.sampled_from(ways))
    item, target = draw(st.sampled_from([(i, t) for w, i, t in candidates if w == way and not i.claimed]))
    item.claimed = True
    return way, item, target


def _other_text(draw: st.DrawFn, text: str) -> str:
    """A different text, as a producer garbles one: trimmed, re-cased, an accent or space added."""
    others = [text + " ", text[:-1], text.swapcase(), text + "\u00e9", "x" + text]
    return draw(st.sampled_from([other for other in others if other != text]))


# One valid event of each item event family, less item_id and output_index; the item types each
# may name are the event schema's (PROD-ITEM-5).
ITEM_EVENTS: dict[str, dict[str, Any]] = {
    "response.output_text.delta": {"content_index": 0, "delta": "x"},
    "response.output_text.annotation.added": {
        "content_index": 0,
        "annotation_index": 0,
        "annotation": {"type": "url_citation", "url": "https://x.y/"},
    },
    "response.refusal.delta": {"content_index": 0, "delta": "no"},
    "response.content_part.added": {"content_index": 0, "part": {"type": "output_text", "text": ""}},
    "response.reasoning_summary_part.added": {
        "summary_index": 0,
        "part": {"type": "summary_text", "text": ""},
    },
    "response.reasoning_summary_text.delta": {"summary_index": 0, "delta": "x"},
    "response.reasoning_text.delta": {"content_index": 0, "delta": "x"},
    "response.function_call_arguments.delta": {"delta": "{"},
    "response.custom_tool_call_input.delta": {"delta": "x"},
    "response.mcp_call_arguments.delta": {"delta": "{"},
    "response.code_interpreter_call_code.delta": {"delta": "x"},
    "response.apply_patch_call_operation_diff.delta": {"delta": "@@"},
    "response.web_search_call.searching": {},
    "response.file_search_call.searching": {},
    "response.mcp_call.completed": {},
}


def _item_event(event_type: str, item_id: str, output_index: int) -> Entry:
    return _entry(
        event_type, item_id=item_id, output_index=output_index, **copy.deepcopy(ITEM_EVENTS[event_type])
    )


def _any_item_event(draw: st.DrawFn, item_id: str, output_index: int) -> Entry:
    return _item_event(draw(st.sampled_from(sorted(ITEM_EVENTS))), item_id, output_index)


def _copy(entry: Entry) -> Entry:
    return Entry(copy.deepcopy(entry.event), entry.raw)


def _middle(draft: Draft, item: Item) -> list[Entry]:
    """The item's events between its announcement and its done event, as sent."""
    return [entry for entry in item.entries[1:-1] if draft.has(entry)]


Planter = Callable[[st.DrawFn, Draft], "str | None"]  # plants a fault; says what, or None: no place for it


def _late_copies(draft: Draft) -> list[Entry]:
    """The events a fault may copy past the response's end: not `response.created`, which there
    begins the capture's next response (spec/producer.md)."""
    return [entry for entry in draft.entries if entry.event is not None and entry.type != "response.created"]


def _first_event(draw: st.DrawFn, draft: Draft) -> str | None:
    entries = draft.entries
    ways = ["no response.created", "an event before it"]
    ways += ["swapped with the next"] if entries[1].type not in terminal_types() else []
    way = draw(st.sampled_from(ways))
    if way == "no response.created":
        del entries[0]
    elif way == "an event before it":
        entries.insert(0, _extra(draw))
    else:
        entries[0], entries[1] = entries[1], entries[0]
    entries[0].rules.append("PROD-LIFE-1")
    return f"PROD-LIFE-1: {way}"


def _terminal_events(draw: st.DrawFn, draft: Draft) -> str | None:
    terminal = draft.terminal()
    assert terminal is not None  # only LIFE-1 ran before, which keeps it
    if draft.index(terminal) > 0 and draw(st.booleans()):
        draft.entries.remove(terminal)
        if draw(st.booleans()):  # an error event is not terminal: the stream is still truncated
            draft.entries.append(_entry("error", code="server_error", message="Connection lost.", param=None))
        draft.end.add("PROD-LIFE-2")
        return "PROD-LIFE-2: no terminal event"
    second = _copy(terminal)
    status = draw(st.sampled_from(sorted(terminal_types())))
    assert second.event is not None
    second.event["type"] = status
    second.event["response"]["status"] = status.removeprefix("response.")
    draft.place(draw, second, after=terminal, past_terminal=True)
    second.rules.append("PROD-LIFE-2")
    return f"PROD-LIFE-2: a second terminal event, {status}"


def _completed_output(draw: st.DrawFn, draft: Draft) -> str | None:
    terminal = draft.terminal()
    if terminal is None or terminal.type != "response.completed" or terminal.event is None:
        return None
    output: list[dict[str, Any]] = terminal.event["response"]["output"]
    ways = ["lists an item the stream never had"]
    ways += ["leaves an item out", "lists an item twice"] if output else []
    ways += ["lists two items swapped"] if len(output) > 1 else []
    unfinished = [item for item in draft.items if not item.claimed and draft.has(item.done)]
    ways += ["comes before an item's output_item.done"] if unfinished else []
    way = draw(st.sampled_from(ways))
    if way == "comes before an item's output_item.done":  # the item never finishes
        item = draw(st.sampled_from(unfinished))
        item.claimed = True
        draft.entries.remove(item.done)
    elif way == "leaves an item out":
        del output[draw(st.integers(0, len(output) - 1))]
    elif way == "lists an item twice":  # the same object: whatever is planted in it is in both
        output.insert(draw(st.integers(0, len(output))), draw(st.sampled_from(output)))
    elif way == "lists two items swapped":
        first = draw(st.integers(0, len(output) - 2))
        second = draw(st.integers(first + 1, len(output) - 1))
        output[first], output[second] = output[second], output[first]
    else:
        extra = {"id": "msg_other", "type": "message", "role": "assistant", "content": []}
        output.insert(draw(st.integers(0, len(output))), extra)
    terminal.rules.append("PROD-LIFE-5")
    return f"PROD-LIFE-5: response.completed {way}"


def _final_output(draw: st.DrawFn, draft: Draft) -> str | None:
    """PROD-LIFE-7: the terminal event's output states a done item otherwise than its done event."""
    terminal = draft.terminal()
    if terminal is None or terminal.event is None:
        return None
    output: list[Any] = terminal.event["response"]["output"]
    # (way, item, (its place in the output, the member changed))
    candidates: list[tuple[str, Item, tuple[int, str]]] = []
    for item in draft.items:
        stated = item.done.event["item"] if draft.has(item.done) and item.done.event else None
        place = next((n for n, listed in enumerate(output) if listed is stated), None)
        if stated is None or place is None:
            continue
        members = ["type", *(m for m in ("status", "call_id", "name", "arguments", "input") if m in stated)]
        candidates += [(f"another {member}", item, (place, member)) for member in members]
    picked = _pick(draw, candidates)
    if picked is None:
        return None
    way, item, (place, member) = picked
    listed = dict(output[place])
    if member == "status":
        listed["status"] = "incomplete" if listed["status"] == "completed" else "completed"
    elif member == "type":
        listed["type"] = "output_" + item.kind
    else:
        listed[member] = _other_text(draw, listed[member])
    output[place] = listed
    terminal.rules.append("PROD-LIFE-7")
    return f"PROD-LIFE-7: {terminal.type} states {item.id} with {way}"


def _response_ids(draw: st.DrawFn, draft: Draft) -> str | None:
    checked = draft.entries[: draft.checked_until() + 1]
    lifecycle = [entry for entry in checked if entry.type in lifecycle_types() and entry.event is not None]
    if len(lifecycle) < 2:
        return None
    target = draw(st.sampled_from(lifecycle[1:]))  # the first one states the id
    assert target.event is not None
    target.event["response"]["id"] = draw(st.sampled_from((draft.response_id + "_2", "resp_other")))
    target.rules.append("PROD-LIFE-4")
    return f"PROD-LIFE-4: {target.type} carries another response id"


# How a producer misstates a member of the response object (PROD-LIFE-6); ABSENT: leaves it out.
ABSENT = object()
MISSTATED: dict[str, tuple[object, ...]] = {
    "object": (ABSENT, "chat.completion", None),
    "created_at": (ABSENT, "2025-12-01T12:19:00Z", None, True),
    "model": (ABSENT, None, 5),
}


def _response_fields(draw: st.DrawFn, draft: Draft) -> str | None:
    checked = draft.entries[: draft.checked_until() + 1]
    lifecycle = [entry for entry in checked if entry.type in lifecycle_types() and entry.event is not None]
    if not lifecycle:
        return None
    target = draw(st.sampled_from(lifecycle))
    assert target.event is not None
    response = target.event["response"]
    members = draw(st.lists(st.sampled_from(sorted(MISSTATED)), min_size=1, max_size=3, unique=True))
    for member in members:
        value = draw(st.sampled_from(MISSTATED[member]))
        if value is ABSENT:
            del response[member]
        else:
            response[member] = value
    target.rules.append("PROD-LIFE-6")
    return f"PROD-LIFE-6: {target.type} misstates {', '.join(members)}"


def _after_terminal(draw: st.DrawFn, draft: Draft) -> str | None:
    terminal = draft.terminal()
    if terminal is None:
        return None
    sources = [entry for entry in _late_copies(draft) if entry.type not in terminal_types()]
    late = [
        _copy(draw(st.sampled_from(sources))) if bool(sources) and draw(st.booleans()) else _extra(draw)
        for _ in range(draw(st.integers(1, 2)))
    ]
    for entry in late:
        draft.place(draw, entry, after=terminal, past_terminal=True)
        entry.rules.append("PROD-LIFE-3")
    return f"PROD-LIFE-3: {', '.join(str(entry.type) for entry in late)} after the terminal event"


def _announcements(draw: st.DrawFn, draft: Draft) -> str | None:
    ways = ["an event names an item never announced"]
    ways += (
        ["an item is announced twice", "an event names an item before its announcement"]
        if draft.items
        else []
    )
    way = draw(st.sampled_from(ways))
    if way == "an event names an item never announced":
        entry = _any_item_event(draw, "item_lost", draw(st.integers(0, 4)))
        placed = draft.place(draw, entry)
    else:
        item = draw(st.sampled_from(draft.items))
        if way == "an item is announced twice":
            entry = _copy(item.added)
            placed = draft.place(draw, entry, after=item.added)
        else:
            sources = [e for e in item.entries[1:] if draft.has(e)]
            entry = _copy(draw(st.sampled_from(sources))) if sources else _any_item_event(draw, item.id, 0)
            placed = draft.place(draw, entry, before=item.added)
    if not placed:
        return None
    entry.rules.append("PROD-ITEM-1")
    return f"PROD-ITEM-1: {way}"


def _output_indexes(draw: st.DrawFn, draft: Draft) -> str | None:
    # Every event of the item carries the index it was announced with: only the announcement is
    # wrong, and the items keep their order (PROD-LIFE-5 sorts them by index, stably). A shell
    # call shares its index with no item: its command events name it by output_index alone.
    items = draft.items

    def apart(number: int, onto: int) -> bool:
        return onto >= len(items) or "shell_call" not in (items[number].kind, items[onto].kind)

    ways = [("one too high", 1), ("one too low", -1)]
    picked = _pick(
        draw,
        [
            (way, item, shift)
            for number, item in enumerate(items)
            for way, shift in ways
            if number + shift >= 0 and apart(number, number + shift)
        ],
    )
    if picked is None:
        return None
    way, item, shift = picked
    for entry in item.entries:
        if entry.event is not None and "output_index" in entry.event:
            entry.event["output_index"] += shift
    item.output_index += shift
    item.added.rules.append("PROD-ITEM-2")
    return f"PROD-ITEM-2: {item.id} is announced at an output_index {way}"


def _item_output_index(draw: st.DrawFn, draft: Draft) -> str | None:
    candidates: list[tuple[str, Item, Entry]] = []
    for item in draft.items:
        # A shell command event names its item by output_index: another index names another item.
        named = [entry for entry in _middle(draft, item) if entry.event and "item_id" in entry.event]
        candidates += [("an event's output_index", item, entry) for entry in named]
        if draft.has(item.done):
            candidates += [
                (way, item, item.done) for way in ("the done item's output_index", "the done item's type")
            ]
    picked = _pick(draw, candidates)
    if picked is None:
        return None
    way, item, entry = picked
    assert entry.event is not None
    if way == "the done item's type":  # a type of its own, with the announced type's fields kept
        entry.event["item"]["type"] = "output_" + item.kind
    else:
        entry.event["output_index"] = draw(
            st.integers(0, item.output_index + 3).filter(lambda n: n != item.output_index)
        )
    entry.rules.append("PROD-ITEM-3")
    return f"PROD-ITEM-3: {way} of {item.id} is not the announced one"


def _after_item_done(draw: st.DrawFn, draft: Draft) -> str | None:
    done = [item for item in draft.items if draft.has(item.done)]
    picked = _pick(draw, [(way, i, i) for i in done for way in ("done twice", "an event after its done")])
    if picked is None:
        return None
    way, item, _ = picked
    if way == "done twice":
        entry = _copy(item.done)
    else:
        middle = _middle(draft, item)
        entry = (
            _copy(draw(st.sampled_from(middle)))
            if middle
            else _any_item_event(draw, item.id, item.output_index)
        )
    if not draft.place(draw, entry, after=item.done):
        return None
    entry.rules.append("PROD-ITEM-4")
    return f"PROD-ITEM-4: {item.id}: {way}"


def _shared_call_id(draw: st.DrawFn, draft: Draft) -> str | None:
    """PROD-ITEM-6: a call item states the call id of an earlier one."""

    def call_id(item: Item) -> Any:
        stated = item.added.event["item"] if item.added.event else {}
        return stated.get("call_id") if not item.kind.endswith("_output") else None

    calls = [item for item in draft.items if isinstance(call_id(item), str)]
    picked = _pick(draw, [("", later, earlier) for n, later in enumerate(calls) for earlier in calls[:n]])
    if picked is None:
        return None
    _, later, earlier = picked
    for entry in later.entries:
        stated = entry.event.get("item") if entry.event else None
        for holder in (entry.event, stated):
            if isinstance(holder, dict) and "call_id" in holder:
                holder["call_id"] = call_id(earlier)
    later.added.rules.append("PROD-ITEM-6")
    return f"PROD-ITEM-6: {later.id} states the call id of {earlier.id}"


def _wrong_item_type(draw: st.DrawFn, draft: Draft) -> str | None:
    picked = _pick(draw, [("", item, item) for item in draft.items])
    if picked is None:
        return None
    _, item, _ = picked
    event_type = draw(
        st.sampled_from([t for t in ITEM_EVENTS if item.kind not in event_types()[t].item_types])
    )
    entry = _item_event(event_type, item.id, item.output_index)
    if not draft.place(draw, entry, after=item.added, before=draft.open_until(item)):
        return None
    entry.rules.append("PROD-ITEM-5")
    return f"PROD-ITEM-5: {event_type} names the {item.kind} {item.id}"


def _part_order(draw: st.DrawFn, draft: Draft) -> str | None:
    candidates: list[tuple[str, Item, tuple[Part, Part | None]]] = []
    for item in draft.items:
        for part in item.parts:
            after = next(
                (p for p in item.parts if p.family == part.family and p.index == part.index + 1), None
            )
            if after is None and draft.has(part.added):
                candidates.append(("a part skips an index", item, (part, None)))
            if draft.has(part.done):
                candidates.append(("a part closes twice", item, (part, None)))
            if after is not None and draft.has(part.done) and draft.has(after.added):
                candidates.append(("a part opens before the one before closes", item, (part, after)))
            if draft.has(part.done) and (draft.has(after.added) if after else draft.has(item.done)):
                candidates.append(("a part never closes", item, (part, after)))
    picked = _pick(draw, candidates)
    if picked is None:
        return None
    way, item, (part, after) = picked
    if way == "a part skips an index":  # the last part of its kind: no later part or content clashes
        for entry in item.entries:
            if entry.event is not None and entry.event.get(part.index_field) == part.index:
                entry.event[part.index_field] += 1
        part.added.rules.append("PROD-PART-1")
    elif way == "a part closes twice":
        entry = _copy(part.done)
        if not draft.place(draw, entry, after=part.done, before=draft.open_until(item)):
            return None
        entry.rules.append("PROD-PART-1")
    elif way == "a part opens before the one before closes":
        assert after is not None
        closing, opening = draft.index(part.done), draft.index(after.added)
        draft.entries[closing], draft.entries[opening] = after.added, part.done
        after.added.rules.append("PROD-PART-1")
        part.done.rules.append("PROD-PART-1")  # then it closes a part that is not the open one
    else:
        draft.entries.remove(part.done)
        (after.added if after else item.done).rules.append("PROD-PART-1")
    return f"PROD-PART-1: {way} ({part.family} {part.index} of {item.id})"


def _text_outside_part(draw: st.DrawFn, draft: Draft) -> str | None:
    candidates: list[tuple[str, Item, tuple[Part, int]]] = []
    for item in draft.items:
        for part in item.parts:
            if draft.has(part.done):
                candidates.append(("after its part closed", item, (part, part.index)))
            opened = sum(p.family == part.family for p in item.parts)
            candidates.append(("for a part never opened", item, (part, opened)))
    picked = _pick(draw, candidates)
    if picked is None:
        return None
    way, item, (part, index) = picked
    entry = _entry(f"{part.text.family}.delta", **{**part.text.where, part.index_field: index}, delta="late")
    after = part.done if way == "after its part closed" else item.added
    if not draft.place(draw, entry, after=after, before=draft.open_until(item)):
        return None
    entry.rules.append("PROD-PART-2")
    return f"PROD-PART-2: a {part.text.family}.delta of {item.id} {way}"


def _text_done(draw: st.DrawFn, draft: Draft) -> str | None:
    candidates: list[tuple[str, Item, tuple[Text, list[Entry]]]] = []
    for item in draft.items:
        for text in item.texts:
            if not draft.has(text.done):
                continue
            part_done = text.part.done if text.part is not None and draft.has(text.part.done) else None
            until = part_done if text.part is not None else draft.open_until(item)
            candidates += [
                (way, item, (text, [until] if until else [])) for way in ("done twice", "a delta after done")
            ]
            # A text with deltas is still open when its part closes and when its item does.
            reported = [e for e in (part_done, draft.open_until(item)) if e is not None]
            if reported and any(draft.has(entry) for entry in text.streamed):
                candidates.append(("done never sent", item, (text, reported)))
    picked = _pick(draw, candidates)
    if picked is None:
        return None
    way, item, (text, bounds) = picked
    assert text.done is not None
    if way == "done never sent":
        draft.entries.remove(text.done)
        for entry in bounds:
            entry.rules.append("PROD-TEXT-1")
    else:
        entry = (
            _copy(text.done)
            if way == "done twice"
            else _entry(f"{text.family}.delta", **text.where, delta="!")
        )
        if not draft.place(draw, entry, after=text.done, before=bounds[0] if bounds else None):
            return None
        entry.rules.append("PROD-TEXT-1")
    return f"PROD-TEXT-1: {text.family} of {item.id}: {way}"


def _deltas_disagree(draw: st.DrawFn, draft: Draft) -> str | None:
    candidates: list[tuple[str, Item, tuple[Text, Entry]]] = []
    for item in draft.items:
        for text in item.texts:
            sent = [delta for delta in text.deltas if draft.has(delta)]
            if not draft.has(text.done) or not sent:
                continue
            spelled = [delta for delta in sent if delta.event and delta.event["delta"]]
            candidates += [("a delta changed", item, (text, delta)) for delta in sent]
            candidates += [("a delta sent twice", item, (text, delta)) for delta in spelled]
            candidates += [("a delta lost", item, (text, delta)) for delta in spelled if len(sent) > 1]
    picked = _pick(draw, candidates)
    if picked is None:
        return None
    way, item, (text, delta) = picked
    assert text.done is not None
    assert delta.event is not None
    if way == "a delta changed":
        delta.event["delta"] = _other_text(draw, delta.event["delta"])
    elif way == "a delta sent twice":
        draft.place(draw, _copy(delta), after=delta, before=text.done)
    else:
        draft.entries.remove(delta)
    text.done.rules.append("PROD-TEXT-2")
    return f"PROD-TEXT-2: {text.family} of {item.id}: {way}"


def _complete_states(draw: st.DrawFn, draft: Draft) -> str | None:
    # (way, item, (the event stating it, the path to the field in it))
    candidates: list[tuple[str, Item, tuple[Entry, tuple[str | int, ...]]]] = []
    for item in draft.items:
        done = draft.has(item.done)
        for part in item.parts:
            if part.family != "response.content_part" or not draft.has(part.text.done):
                continue
            if draft.has(part.done):
                candidates.append(("the part's done text", item, (part.done, ("part", part.text.complete))))
            if done:
                content: tuple[str | int, ...] = ("item", "content", part.index, part.text.complete)
                candidates.append(("the done item's content part", item, (item.done, content)))
        if item.kind in ("function_call", "custom_tool_call") and done:
            text = item.texts[0]
            if draft.has(text.done):
                candidates.append(
                    ("the done call's " + text.complete, item, (item.done, ("item", text.complete)))
                )
            # Its name only: a restated call_id is the call's, no fault (PROD-DONE-1, CORE-CALL-17).
            candidates.append(("the done call's name", item, (item.done, ("item", "name"))))
    picked = _pick(draw, candidates)
    if picked is None:
        return None
    way, item, (entry, path) = picked
    _garble(draw, entry, path)
    entry.rules.append("PROD-DONE-1")
    return f"PROD-DONE-1: {way} of {item.id} disagrees"


def _garble(draw: st.DrawFn, entry: Entry, path: tuple[str | int, ...]) -> None:
    """Change the text at `path` in the entry's event to another."""
    holder: Any = entry.event
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = _other_text(draw, holder[path[-1]])


def _command_beginnings(draw: st.DrawFn, draft: Draft) -> str | None:
    candidates: list[tuple[str, Item, Text]] = []
    for item in draft.items:
        for text in item.texts:
            if text.added is None or not draft.has(text.added):
                continue
            candidates.append(("is begun twice", item, text))
            if any(draft.has(entry) for entry in [*text.deltas, text.done]):
                candidates.append(("is never begun", item, text))
    picked = _pick(draw, candidates)
    if picked is None:
        return None
    way, item, text = picked
    assert text.added is not None
    assert text.added.event is not None
    if way == "is begun twice":
        entry = _copy(text.added)
        if not draft.place(draw, entry, after=text.added, before=draft.open_until(item)):
            return None
        entry.rules.append("PROD-CALLTYPE-1")
    else:
        draft.entries.remove(text.added)
        following = [entry for entry in [*text.deltas, text.done] if entry is not None and draft.has(entry)]
        following[0].rules.append("PROD-CALLTYPE-1")
        # The piece it stated is lost with it: the deltas no longer spell the command.
        lost = text.added.event["command"] != "" and any(draft.has(delta) for delta in text.deltas)
        if lost and text.done is not None and draft.has(text.done):
            text.done.rules.append("PROD-TEXT-2")
    return f"PROD-CALLTYPE-1: command {text.where['command_index']} of {item.id} {way}"


def _catalogue_done(draw: st.DrawFn, draft: Draft) -> str | None:
    # (way, item, the path to the field of the done event it changes; None: the last command is left out)
    candidates: list[tuple[str, Item, tuple[str | int, ...] | None]] = []
    for item in draft.items:
        if item.kind not in ("apply_patch_call", "shell_call") or not draft.has(item.done):
            continue
        stated = [text for text in item.texts if draft.has(text.done)]
        if item.kind == "apply_patch_call":
            candidates += [("another operation.diff", item, ("item", "operation", "diff")) for _ in stated]
            continue
        commands = [text.where["command_index"] for text in stated]
        candidates += [("another command", item, ("item", "action", "commands", n)) for n in commands]
        if draft.has(item.texts[-1].done):
            candidates.append(("its last command left out", item, None))
    picked = _pick(draw, candidates)
    if picked is None:
        return None
    way, item, path = picked
    if path is None:
        assert item.done.event is not None
        item.done.event["item"]["action"]["commands"].pop()
    else:
        _garble(draw, item.done, path)
    item.done.rules.append("PROD-CALLTYPE-2")
    return f"PROD-CALLTYPE-2: the done {item.kind} {item.id}: {way}"


def _call_texts(draft: Draft) -> list[tuple[str, Item, Text]]:
    """The calls whose text a fault may add to, everywhere it is stated: each function or custom
    call whose done item was sent, with its text."""
    return [
        (item.kind, item, item.texts[0])
        for item in draft.items
        if item.kind in ("function_call", "custom_tool_call") and draft.has(item.done)
    ]


def _add_to_text(draft: Draft, item: Item, text: Text, added: str) -> Entry | None:
    """Add `added` to a call's text where it is stated: its last delta sent (returned), its `.done`
    and its done item, so that they still agree."""
    sent = [entry for entry in text.deltas if draft.has(entry)]
    if sent:
        sent[-1].event["delta"] += added  # type: ignore[index]
    if draft.has(text.done):
        text.done.event[text.complete] += added  # type: ignore[index, union-attr]
    item.done.event["item"][text.complete] += added  # type: ignore[index]
    return sent[-1] if sent else None


def _text_too_large(draw: st.DrawFn, draft: Draft) -> str | None:
    """PROD-LIMIT-1: a call's deltas spell more than 1 MiB."""
    calls = [(way, item, text) for way, item, text in _call_texts(draft) if any(map(draft.has, text.deltas))]
    picked = _pick(draw, calls)
    if picked is None:
        return None
    _, item, text = picked
    delta = _add_to_text(draft, item, text, "x" * MAX_TEXT_BYTES)
    assert delta is not None
    delta.rules.append("PROD-LIMIT-1")
    return f"PROD-LIMIT-1: the deltas of {item.id} pass {MAX_TEXT_BYTES} bytes"


def _nested_too_deep(draw: st.DrawFn, draft: Draft) -> str | None:
    """PROD-LIMIT-2: a function call's arguments end with more arrays open than 128."""
    calls = [(way, item, text) for way, item, text in _call_texts(draft) if way == "function_call"]
    picked = _pick(draw, calls)
    if picked is None:
        return None
    _, item, text = picked
    _add_to_text(draft, item, text, "[" * (MAX_ARGUMENTS_DEPTH + 1))
    for entry in (text.done, item.done):
        if draft.has(entry):
            entry.rules.append("PROD-LIMIT-2")  # type: ignore[union-attr]
    return f"PROD-LIMIT-2: the arguments of {item.id} nest too deep"


def _restated_call_id(draw: st.DrawFn, draft: Draft) -> str | None:
    """PROD-DONE-2: a function or custom call's done item states another call id."""
    picked = _pick(draw, _call_texts(draft))
    if picked is None:
        return None
    _, item, _ = picked
    item.done.event["item"]["call_id"] += "_restated"  # type: ignore[index]
    item.done.rules.append("PROD-DONE-2")
    return f"PROD-DONE-2: the done item of {item.id} restates its call id"


def _done_in_progress(draw: st.DrawFn, draft: Draft) -> str | None:
    """PROD-ITEM-7: a done item still says it is in progress."""
    done = [
        ("", item, item.done)
        for item in draft.items
        if draft.has(item.done) and item.done.event and "status" in item.done.event["item"]
    ]
    picked = _pick(draw, done)
    if picked is None:
        return None
    _, item, entry = picked
    entry.event["item"]["status"] = "in_progress"  # type: ignore[index]
    entry.rules.append("PROD-ITEM-7")
    return f"PROD-ITEM-7: the done item of {item.id} says in_progress"


def _wrong_type(value: object) -> object:
    """A value of another JSON type than `value`'s, which no field of the event schema accepts."""
    if isinstance(value, str) or value is None:
        return 5
    return "0" if isinstance(value, int) else "x"


def _invalid_event(draw: st.DrawFn, draft: Draft) -> str | None:
    item_ids = [item.id for item in draft.items] + ["item_lost"]
    kind = draw(st.sampled_from(("an item event", "output_item.added", "error")))
    if kind == "an item event":  # of any item, announced or not, open or done: it is not routed
        base = _any_item_event(draw, draw(st.sampled_from(item_ids)), draw(st.integers(0, 4)))
    elif kind == "output_item.added":
        item = {"id": "msg_new", "type": "message", "role": "assistant", "content": []}
        base = _entry("response.output_item.added", output_index=len(draft.items), item=item)
    else:
        base = _entry("error", code="server_error", message="Overloaded.", param=None)
    event = base.event
    assert event is not None
    fields = [key for key in event if key not in ("type", "sequence_number")]
    way = draw(
        st.sampled_from(
            ["a field missing", "a field of the wrong type", "no integer sequence_number", "no string type"]
        )
    )
    if way == "a field missing":
        del event[draw(st.sampled_from(fields))]
    elif way == "a field of the wrong type":
        key = draw(st.sampled_from(fields))
        event[key] = _wrong_type(event[key])
    else:
        key = "sequence_number" if way == "no integer sequence_number" else "type"
        values = ["7", 2.5, True, None] if key == "sequence_number" else [7, None, ["response.created"]]
        if draw(st.booleans()):
            event[key] = draw(st.sampled_from(values))
        else:
            del event[key]
        base.numbered = False  # no sequence number a checker compares
    if not draft.place(draw, base):
        return None
    base.rules.append("PROD-EVT-2")
    return f"PROD-EVT-2: {event.get('type')!r} with {way}"


def _after_error(draw: st.DrawFn, draft: Draft) -> str | None:
    """PROD-LIFE-8: an error event before events that are not its response.failed. Planted last,
    so that every event after it is one the stream has."""
    until = draft.checked_until()
    places = [n for n in range(1, until) if draft.entries[n].type is not None]
    if not places:
        return None
    at = draw(st.sampled_from(places))
    error = _extra(draw, ERRORS)
    draft.entries.insert(at, error)
    terminal = draft.terminal()
    later = draft.entries[at + 1 : draft.checked_until()]
    if terminal is not None and terminal.type != "response.failed":
        later.append(terminal)
    for entry in later:
        if entry.type is not None:  # an event with a type: its place is checked (PROD-EVT-2)
            entry.rules.append("PROD-LIFE-8")
    return f"PROD-LIFE-8: an error event before {draft.entries[at + 1].type}"


# Data that is not one JSON object. Those that start with `{` may open a JSON Lines capture,
# which is then still told from SSE.
NOT_OBJECTS_LIKE_OBJECTS = (
    '{"type":"response.output_text.delta","sequence_number":',
    "{'type': 'response.in_progress'}",
    '{"type":"acme:trace",}',
    '{"type":"acme:trace"}{"type":"acme:trace"}',
    '{"type":"acme:trace","sequence_number":NaN}',
)
NOT_OBJECTS = (
    *NOT_OBJECTS_LIKE_OBJECTS,
    '[{"type":"response.created"}]',
    '"response.in_progress"',
    "42",
    "null",
    "Infinity",
    "<html><body>502 Bad Gateway</body></html>",
    "[DONE] ",
    "[done]",
)


def _repeated_member(draw: st.DrawFn, draft: Draft) -> str | None:
    """PROD-EVT-3: an event names a member twice, another value first (a parser that keeps the last
    reads the event as it was)."""
    objects = [entry for entry in draft.entries if entry.event]
    if not objects:
        return None
    entry = draw(st.sampled_from(objects))
    assert entry.event is not None
    name = draw(st.sampled_from(sorted(entry.event)))
    entry.decoy = json.dumps(name) + ":" + json.dumps(_wrong_type(entry.event[name]))
    entry.rules.append("PROD-EVT-3")
    return f"PROD-EVT-3: {entry.type} names {name!r} twice"


def _not_an_object(draw: st.DrawFn, draft: Draft) -> str | None:
    at = draw(st.integers(0, len(draft.entries)))
    raw = draw(st.sampled_from(NOT_OBJECTS_LIKE_OBJECTS if at == 0 else NOT_OBJECTS))
    draft.entries.insert(at, Entry(None, raw, ["PROD-EVT-1"], numbered=False))
    return f"PROD-EVT-1: {raw!r}"


# The event faults, in the order they are planted: those that change the lifecycle first, then
# the item faults, then the events inserted where the stream stands by then, and last the error
# event that every later event follows.
EVENT_FAULTS: dict[str, Planter] = {
    "PROD-LIFE-1": _first_event,
    "PROD-LIFE-2": _terminal_events,
    "PROD-LIFE-5": _completed_output,
    "PROD-LIFE-7": _final_output,
    "PROD-LIFE-4": _response_ids,
    "PROD-LIFE-6": _response_fields,
    "PROD-LIFE-3": _after_terminal,
    "PROD-ITEM-2": _output_indexes,
    "PROD-ITEM-3": _item_output_index,
    "PROD-ITEM-4": _after_item_done,
    "PROD-ITEM-5": _wrong_item_type,
    "PROD-ITEM-6": _shared_call_id,
    "PROD-PART-1": _part_order,
    "PROD-PART-2": _text_outside_part,
    "PROD-TEXT-1": _text_done,
    "PROD-TEXT-2": _deltas_disagree,
    "PROD-DONE-1": _complete_states,
    "PROD-LIMIT-1": _text_too_large,
    "PROD-LIMIT-2": _nested_too_deep,
    "PROD-DONE-2": _restated_call_id,
    "PROD-CALLTYPE-1": _command_beginnings,
    "PROD-CALLTYPE-2": _catalogue_done,
    "PROD-ITEM-7": _done_in_progress,
    "PROD-ITEM-1": _announcements,
    "PROD-EVT-2": _invalid_event,
    "PROD-EVT-1": _not_an_object,
    "PROD-EVT-3": _repeated_member,
    "PROD-LIFE-8": _after_error,
}
SEQUENCE_FAULTS = ("PROD-SEQ-1", "PROD-SEQ-2")
SSE_FAULTS = ("PROD-SSE-1", "PROD-SSE-2", "PROD-SSE-3", "PROD-SSE-4")
RULES = (*EVENT_FAULTS, *SEQUENCE_FAULTS, *SSE_FAULTS)
# How often each fault is planted, in eighths: more often those that need what a stream may not
# have (a completed response, an item of some kind, a part, a text with deltas, a shell call).
WEIGHTS = {rule: 1 for rule in RULES} | {
    **dict.fromkeys(("PROD-ITEM-2", "PROD-ITEM-3", "PROD-ITEM-4", "PROD-ITEM-5", "PROD-ITEM-6"), 2),
    **dict.fromkeys(("PROD-LIFE-4", "PROD-LIFE-7", "PROD-EVT-2"), 2),
    **dict.fromkeys(("PROD-TEXT-1", "PROD-TEXT-2", "PROD-PART-1", "PROD-PART-2"), 3),
    **dict.fromkeys(("PROD-DONE-1", "PROD-LIFE-5", "PROD-CALLTYPE-2"), 3),
    "PROD-CALLTYPE-1": 4,  # it needs a shell call, and one with a command whose beginning can change
    "PROD-LIMIT-1": 5,  # it needs a call with deltas left unclaimed
    "PROD-DONE-2": 3,  # it needs a call left unclaimed
    "PROD-LIMIT-2": 5,  # it needs a function call left unclaimed
    "PROD-ITEM-7": 3,  # it needs a done item left unclaimed
}


def _number(draw: st.DrawFn, draft: Draft, planted: set[str]) -> list[str]:
    """Give every numbered event its sequence_number, planting PROD-SEQ-1 and -2 faults."""
    numbered = [entry for entry in draft.entries if entry.numbered]
    until = draft.checked_until()
    compared = [entry for entry in numbered[1:] if draft.index(entry) <= until]  # with the one before
    targets = (
        st.lists(st.sampled_from(compared), min_size=1, max_size=2, unique_by=id) if compared else st.just([])
    )
    lowered = draw(targets) if "PROD-SEQ-1" in planted else []
    raised = [entry for entry in draw(targets) if entry not in lowered] if "PROD-SEQ-2" in planted else []
    highest: int | None = None
    for entry in numbered:
        assert entry.event is not None
        if highest is None:
            number = draw(st.sampled_from((0, 1, 40)))
        elif entry in lowered:
            number = draw(st.integers(max(0, highest - 3), highest))
            entry.rules.append("PROD-SEQ-1")
        elif entry in raised:
            number = highest + 1 + draw(st.integers(1, 3))
            entry.rules.append("PROD-SEQ-2")
        else:
            number = highest + 1
        entry.event["sequence_number"] = number
        highest = number if highest is None else max(highest, number)
    return [f"PROD-SEQ-1: {e.type} repeats a sequence_number" for e in lowered] + [
        f"PROD-SEQ-2: {e.type} skips sequence numbers" for e in raised
    ]


# -- rendering ---------------------------------------------------------------------------------


@dataclass(eq=False)
class _SseEvent:
    entry: Entry | None  # None: the [DONE] sentinel
    name: str | None = None  # the value of its `event:` line
    rules: list[str] = field(default_factory=list)  # the SSE faults planted in it
    bad_comment: bytes = b""  # bytes that are not UTF-8: in a comment before it,
    bad_id: bytes = b""  # in an `id:` line,
    bad_member: bytes = b""  # in a JSON member of their own


BAD_BYTES = (
    b"\xff",
    b"\x80",
    b"\xe9t\xe9",
    b"\xc3(",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
)


def _type_of(event: _SseEvent) -> str | None:
    return None if event.entry is None else event.entry.type


def _other_name(draw: st.DrawFn, event_type: str, names: Sequence[str]) -> str:
    """An `event:` line a proxy gets wrong: another event's, re-cased, cut short, padded."""
    others = {*names, event_type.upper(), event_type.rsplit(".", 1)[0], event_type + " ", "message"}
    return draw(st.sampled_from(sorted(others - {"", event_type})))


def _plant_done(draw: st.DrawFn, draft: Draft, events: list[_SseEvent]) -> str:
    terminal = draft.terminal()
    if terminal is None or draw(st.booleans()):
        limit = len(events) if terminal is None else [event.entry for event in events].index(terminal)
        events.insert(draw(st.integers(0, limit)), _SseEvent(None))
        return "PROD-SSE-4: [DONE] before the terminal event"
    if events[-1].entry is not None:
        events.append(_SseEvent(None))
    sources = _late_copies(draft)
    after = [
        draw(st.sampled_from(("[DONE]", "an event", "not JSON"))) for _ in range(draw(st.integers(1, 2)))
    ]
    for what in after:
        if what == "[DONE]":
            events.append(_SseEvent(None))
        elif what == "an event":
            events.append(_SseEvent(_copy(draw(st.sampled_from(sources)))))
        else:
            events.append(_SseEvent(Entry(None, draw(st.sampled_from(NOT_OBJECTS)), numbered=False)))
    return f"PROD-SSE-4: {', '.join(after)} after [DONE]"


def _plant_bytes(draw: st.DrawFn, events: list[_SseEvent], checked: int) -> tuple[str, bytes]:
    """PROD-SSE-1: bytes that are not UTF-8 where they change no event's meaning, in an event up to
    `checked` (the first [DONE]: what follows is not checked further); or, answered, after the last."""
    bad = draw(st.sampled_from(BAD_BYTES))
    where = draw(st.sampled_from(("a comment", "an id line", "a JSON member")))
    objects = [
        event for event in events[:checked] if event.entry is not None and event.entry.event is not None
    ]
    if where == "a JSON member" and objects:
        draw(st.sampled_from(objects)).bad_member = bad
        return "PROD-SSE-1: bytes that are not UTF-8 in a JSON member", b""
    at = draw(st.integers(0, min(checked, len(events))))
    if at == len(events):
        return "PROD-SSE-1: bytes that are not UTF-8 in a comment after the last event", bad
    if where == "an id line":
        events[at].bad_id = bad
    else:
        events[at].bad_comment = bad
    return f"PROD-SSE-1: bytes that are not UTF-8 in {where}", b""


@dataclass(frozen=True)
class _Rendered:
    data: bytes
    ends: tuple[int, ...]  # per dispatched event, the offset just past the blank line that ends it
    cut: bool  # the stream ends inside an event or a line (PROD-SSE-2)


def _render_sse(
    draw: st.DrawFn, events: Sequence[_SseEvent], style: dict[str, Any], tail: bytes, cut: bool
) -> tuple[_Rendered, str]:
    line_end = draw(st.sampled_from((b"\n", b"\r\n", b"\r")))
    data_field = draw(st.sampled_from((b"data: ", b"data:")))
    name_last = draw(st.booleans())  # the `event:` line after the data lines
    indent = draw(st.sampled_from((None, None, None, 1)))  # 1: each event's JSON over several data lines
    ids = draw(st.booleans())
    out = bytearray(b"\xef\xbb\xbf" if draw(st.booleans()) else b"")
    ends = []
    last_data = (0, 0)  # where the text of the last data line starts and ends

    def line(text: bytes) -> None:
        out.extend(text + line_end)

    for number, event in enumerate(events):
        if event.bad_comment or draw(st.integers(0, 7)) == 0:
            line(b": keep-alive" + event.bad_comment)
        if event.entry is None:
            data = [DONE.encode()]
        elif event.entry.event is None:
            data = [event.entry.raw.encode()]
        else:
            text = event.entry.text(style, indent).encode()
            if event.bad_member:
                text = b'{"x_relay":"' + event.bad_member + b'",' + text[1:]
            data = text.split(b"\n")
        name = [b"event: " + event.name.encode()] if event.name is not None else []
        for text in [] if name_last else name:
            line(text)
        if ids or event.bad_id:
            line(b"id: " + event.bad_id + str(number).encode())
        for text in data:
            last_data = (len(out), len(out) + len(data_field) + len(text))
            line(data_field + text)
        for text in name if name_last else []:
            line(text)
        line(b"")
        ends.append(len(out))
    if not cut:
        if tail or draw(st.integers(0, 3)) == 0:
            line(b": done" + tail)
        return _Rendered(bytes(out), tuple(ends), False), ""
    how = draw(
        st.sampled_from(("a comment cut short", "no blank line after the last event", "the last line cut"))
    )
    if how == "a comment cut short" or not events:
        return _Rendered(
            bytes(out) + b": keep-al" + tail, tuple(ends), True
        ), "PROD-SSE-2: a comment cut short"
    if how == "no blank line after the last event":
        end = len(out) - len(line_end)
    else:
        end = draw(st.integers(last_data[0] + 1, last_data[1]))
    return _Rendered(bytes(out[:end]), tuple(ends[:-1]), True), f"PROD-SSE-2: {how}"


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _sse_reports(draft: Draft, events: Sequence[_SseEvent], rendered: _Rendered) -> list[Report]:
    """What a checker reports about the SSE rendering: the events' own faults up to the first
    [DONE], PROD-SSE-4 from there, and PROD-SSE-1 wherever the bytes of an event are not UTF-8."""
    reports: list[Report] = []
    end = set(draft.end)
    dispatched = len(rendered.ends)
    terminal = draft.terminal()
    routed = done = False  # the terminal event was checked; [DONE] was dispatched
    for number, event in enumerate(events[:dispatched]):
        if done or event.entry is None:
            if done or not routed:  # after [DONE], or [DONE] before the terminal event
                reports.append((number, "PROD-SSE-4"))
            done = True
            continue
        reports += [(number, rule) for rule in event.entry.rules + event.rules]
        routed = routed or event.entry is terminal
    if not routed:
        end.add("PROD-LIFE-2")
    bounds = (0, *rendered.ends, len(rendered.data))
    for number in range(dispatched + 1):  # each event's bytes, from the end of the one before
        if not _utf8(rendered.data[bounds[number] : bounds[number + 1]]):
            reports.append((number if number < dispatched else None, "PROD-SSE-1"))
    if rendered.cut:
        end.add("PROD-SSE-2")
    return reports + [(None, rule) for rule in sorted(end)]


def _sse(
    draw: st.DrawFn, draft: Draft, planted: set[str], style: dict[str, Any]
) -> tuple[bytes, list[Report], list[str]]:
    events = [_SseEvent(entry) for entry in draft.entries]
    if draft.terminal() is not None and draw(st.booleans()):
        events.append(_SseEvent(None))
    notes = [_plant_done(draw, draft, events)] if "PROD-SSE-4" in planted else []
    checked = next((n for n, event in enumerate(events) if event.entry is None), len(events))
    typed = {event: event_type for event in events[:checked] if (event_type := _type_of(event)) is not None}
    lines = draw(st.sampled_from(("on every event", "on no event", "on some events")))
    for event, event_type in typed.items():
        if lines == "on every event" or (lines == "on some events" and draw(st.booleans())):
            event.name = event_type
    if "PROD-SSE-3" in planted and typed:
        event = draw(st.sampled_from(list(typed)))
        event.name = _other_name(draw, typed[event], sorted(set(typed.values())))
        event.rules.append("PROD-SSE-3")
        notes.append(f"PROD-SSE-3: `event: {event.name}` for a {typed[event]}")
    tail = b""
    if "PROD-SSE-1" in planted:
        for _ in range(draw(st.integers(1, 2))):
            note, after_last = _plant_bytes(draw, events, checked)
            tail += after_last
            notes.append(note)
    cut = "PROD-SSE-2" in planted and "PROD-SSE-4" not in planted  # no events after [DONE] to cut
    rendered, how = _render_sse(draw, events, style, tail, cut)
    return rendered.data, _sse_reports(draft, events, rendered), [*notes, *([how] if how else [])]


def _jsonl(draw: st.DrawFn, draft: Draft, style: dict[str, Any]) -> bytes:
    line_end = draw(st.sampled_from(("\n", "\r\n")))
    lines = []
    for entry in draft.entries:
        if draw(st.integers(0, 7)) == 0:
            lines.append("")  # a blank line is no event
        lines.append(entry.text(style))
    return (line_end.join(lines) + (line_end if draw(st.booleans()) else "")).encode()


@dataclass(frozen=True)
class GeneratedCapture:
    """A capture in both formats, with what a correct checker reports about each."""

    sse: bytes
    jsonl: bytes
    sse_reports: tuple[Report, ...]
    jsonl_reports: tuple[Report, ...]
    planted: tuple[str, ...]  # the faults, in words

    def data(self, format: Format) -> bytes:
        return self.sse if format == "sse" else self.jsonl

    def expected(self, format: Format) -> tuple[Report, ...]:
        return self.sse_reports if format == "sse" else self.jsonl_reports


@st.composite
def captures(draw: st.DrawFn, faults: bool = True) -> GeneratedCapture:
    """A generated capture with up to three planted faults (none unless `faults`); see the module."""
    draft = draw(drafts())
    # Each fault is planted when a value drawn from 0 to 7 falls in a window of its weight in the
    # middle of the range, not at its ends: Hypothesis draws those more often.
    chances = {rule: draw(st.integers(0, 7)) for rule in RULES} if faults else {}
    planted = {rule for rule, chance in chances.items() if 3 <= chance < 3 + WEIGHTS[rule]}
    notes = [
        note
        for rule, plant in EVENT_FAULTS.items()
        if rule in planted
        for note in [plant(draw, draft)]
        if note
    ]
    notes += _number(draw, draft, planted)
    style = {
        "ensure_ascii": draw(st.booleans()),
        "separators": draw(st.sampled_from(((",", ":"), (", ", ": ")))),
    }
    sse, sse_reports, sse_notes = _sse(draw, draft, planted, style)
    jsonl_reports: list[Report] = [(n, rule) for n, entry in enumerate(draft.entries) for rule in entry.rules]
    jsonl_reports += [(None, rule) for rule in sorted(draft.end)]
    return GeneratedCapture(
        sse, _jsonl(draw, draft, style), tuple(sse_reports), tuple(jsonl_reports), tuple(notes + sse_notes)
    )


@functools.cache
def sample(count: int, seed: int) -> tuple[GeneratedCapture, ...]:
    """`count` generated captures, the same ones for the same seed, whatever modules are loaded
    (Hypothesis draws no constants from them here)."""
    drawn: list[GeneratedCapture] = []

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis_seed(seed)
    @given(captures())
    def collect(capture: GeneratedCapture) -> None:
        drawn.append(capture)

    with without_local_constants():
        collect()
    return tuple(drawn)


def _where(report: Report) -> tuple[bool, int]:
    return report[0] is None, report[0] or 0


def difference(expected: Sequence[Report], reported: Sequence[Report]) -> str | None:
    """How the reported violations differ from the expected ones, in words; None when they are the same.

    Compared as multisets: the order of two violations at one event is no requirement."""
    missed = Counter(expected) - Counter(reported)
    wrong = Counter(reported) - Counter(expected)
    if not missed and not wrong:
        return None

    def said(report: Report) -> str:
        return f"{report[1]} at {'the end' if report[0] is None else f'event {report[0]}'}"

    return "; ".join(
        [f"missed {said(r)}" for r in sorted(missed.elements(), key=_where)]
        + [f"reported {said(r)} wrongly" for r in sorted(wrong.elements(), key=_where)]
    )
