"""Checking a recorded stream as its producer must emit it (spec/producer.md).

A capture is read into events (SSE, or JSON Lines), then one pass checks
each event against the PROD-* requirements and keeps the state they need in
one place, `_Checker`: the sequence number so far, the terminal event, and
per item its type, output index, parts and texts. Every violation names the
event's index (or the end of the stream) and the requirement.

This is a producer tool, not part of the harness that tests implementations:
it decodes SSE with the decoder the reference routes through
(streamroute.wire.event_stream), which passes every `sse` vector under every
cut, rather than with any implementation under test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from streamroute.conformance.arguments import MAX_ARGUMENTS_DEPTH, nests_deeper
from streamroute.conformance.event_types import EventType, event_types
from streamroute.conformance.limits import TooDeep, loads, loads_noting_duplicates
from streamroute.conformance.schemas import EVENT, first_error
from streamroute.wire.event_stream import DONE, MAX_EVENT_BYTES, Decoder

Format = Literal["sse", "jsonl"]

# What each event type is, from the event schema's `x-routing` annotations (PROD-EVT-2). Only
# the fields of these types are known to be there.
EVENTS: dict[str, EventType] = event_types()
# The families whose text an `.added` event begins (PROD-CALLTYPE-1).
STARTED = frozenset(event.family for event in EVENTS.values() if event.step == "added" and event.text)
# The part families: the ones texts belong to (section 6).
PARTS = frozenset(event.part for event in EVENTS.values() if event.part)
# A part's type -> the family of the text it holds, and the field holding it in the part as in the
# text's `.done` (PROD-DONE-1).
PART_TEXTS = {
    event.part_type: (event.family, event.text)
    for event in EVENTS.values()
    if event.part_type and event.text and event.step == "done"
}
# An item type -> the `.done` event of the text its done item states again (PROD-DONE-1, PROD-CALLTYPE-2).
ITEM_TEXTS = {
    event.item_types[0]: event for event in EVENTS.values() if event.item_field and event.step == "done"
}
# The call items whose done item states the call id of their announcement (PROD-DONE-2); a client
# tool search's may differ (PROD-DONE-1).
CALL_ID_KEPT = frozenset({"function_call", "custom_tool_call"})
# The texts whose deltas a router buffers, and the most bytes of UTF-8 they may spell (PROD-LIMIT-1:
# the bound of core.md CORE-LIMIT-1 and CORE-LIMIT-3).
BOUNDED = frozenset(
    {"response.output_text", "response.function_call_arguments", "response.custom_tool_call_input"}
)
MAX_TEXT_BYTES = 1 << 20


def _stated_text(part: object) -> str | None:
    """The text a part of a done item states, when it is a part of a known type with one."""
    if not isinstance(part, dict) or part.get("type") not in PART_TEXTS:
        return None
    text = part.get(PART_TEXTS[part["type"]][1])
    return text if isinstance(text, str) else None


def _ends(event_type: str) -> bool:
    """A terminal event type (PROD-LIFE-2)."""
    kind = EVENTS.get(event_type)
    return kind is not None and kind.terminal


def _unstated(response: dict[str, Any]) -> list[str]:
    """What a lifecycle event's response object misstates of `object`, `created_at` and `model`
    (PROD-LIFE-6), each as it stands."""
    created_at = response.get("created_at")
    expected = {
        "object": ("'response'", response.get("object") == "response"),
        "created_at": ("a number", isinstance(created_at, int | float) and not isinstance(created_at, bool)),
        "model": ("a string", isinstance(response.get("model"), str)),
    }
    return [
        f"{member} {response[member]!r}, not {wanted}" if member in response else f"no {member}"
        for member, (wanted, stated) in expected.items()
        if not stated
    ]


# What the final response states again of an item that was done (PROD-LIFE-7): what a client acts on.
_RESTATED = ("type", "status", "call_id", "name", "namespace")
_IF_BOTH_STATE = frozenset({"status"})  # compared only where the done item and the output both state it
_NOTHING = object()  # a member not stated, or stated null


def _member(item: dict[str, Any], member: str) -> object:
    value = item.get(member)
    return _NOTHING if value is None else value


def _text_member(item_type: str) -> tuple[str, ...]:
    """The member of an item of this type that holds what its events stream: a call's `arguments` or
    `input`, an apply_patch call's `operation`, a shell call's `action`."""
    return (ITEM_TEXTS[item_type].item_path[0],) if item_type in ITEM_TEXTS else ()


def _stated(item: dict[str, Any], member: str) -> str:
    return "no " + member if _member(item, member) is _NOTHING else repr(item[member])


def _at(value: object, path: tuple[str, ...]) -> object:
    """The value at `path` in `value`, or None when there is none."""
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


@dataclass(frozen=True)
class Violation:
    at: int | None  # the event's index; None: the end of the stream
    requirement: str
    message: str

    @property
    def where(self) -> str:
        return "end of stream" if self.at is None else f"event {self.at}"


@dataclass(frozen=True)
class Captured:
    """One event as recorded, not yet parsed."""

    data: str  # its JSON text
    sse_event: str | None = None  # SSE: the value of its `event:` line, if it had one
    done: bool = False  # SSE: the `[DONE]` sentinel
    dropped: bool = False  # SSE: larger than a router takes (SSE-LIMIT-1), so never read


# -- reading a capture -------------------------------------------------------

_ESCAPED_BYTES = re.compile("[\udc80-\udcff]+")


def _not_utf8(data: bytes) -> Iterator[int]:
    """The offset of each run of bytes that are not UTF-8, in one linear pass."""
    text = data.decode("utf-8", "surrogateescape")  # each such byte becomes one lone surrogate
    char = offset = 0
    for run in _ESCAPED_BYTES.finditer(text):
        offset += len(text[char : run.start()].encode("utf-8", "surrogateescape"))
        char = run.start()
        yield offset


def read_sse(data: bytes) -> tuple[list[Captured], list[Violation]]:
    decoder = Decoder()
    events = []
    violations: list[Violation] = []
    position = 0
    for offset in _not_utf8(data):  # PROD-SSE-1: once per event, at its first such byte
        events += decoder.feed(data[position:offset])  # the decoder takes any cut: stop right there
        position = offset
        if not violations or violations[-1].at != len(events):
            violations.append(Violation(len(events), "PROD-SSE-1", f"byte {offset} is not UTF-8"))
    events += decoder.feed(data[position:])
    if decoder.close():
        violations.append(Violation(None, "PROD-SSE-2", "the stream ends inside an event"))
    captured = [Captured(e.data, e.event or None, e.data == DONE, e.dropped) for e in events]
    # A byte that is not UTF-8 in the unfinished last event belongs to no event.
    return captured, [
        v if v.at is None or v.at < len(captured) else Violation(None, v.requirement, v.message)
        for v in violations
    ]


_BOM = "\ufeff".encode()


def read_jsonl(data: bytes) -> tuple[list[Captured], list[Violation]]:
    # Not str.splitlines(): U+2028 may appear raw inside a JSON string.
    lines = data.removeprefix(_BOM).decode("utf-8", "replace").split("\n")  # an editor's BOM aside
    return [Captured(line) for line in lines if line.strip()], []


def guess_format(data: bytes) -> Format:
    """JSON Lines start with `{`; an SSE stream with a field name, a comment or a BOM."""
    return "jsonl" if data.removeprefix(_BOM).lstrip()[:1] == b"{" else "sse"


# -- checking the events -----------------------------------------------------


@dataclass
class _Text:
    part: str | None  # the part family it belongs to, if any
    deltas: list[str] = field(default_factory=list)
    complete: str | None = None  # the `.done` value, once seen
    size: int = 0  # bytes of UTF-8 its deltas spell, a lone surrogate 3 (PROD-LIMIT-1)


@dataclass
class _Item:
    type: str
    output_index: int
    announced: dict[str, Any]
    done: bool = False
    stated: dict[str, Any] | None = None  # its done item, once done
    opened: dict[str, int] = field(default_factory=dict)  # part family -> parts opened so far
    open: dict[str, int] = field(default_factory=dict)  # part family -> index of the open part
    texts: dict[tuple[str, int | None], _Text] = field(default_factory=dict)


class _Checker:
    def __init__(self) -> None:
        self.violations: list[Violation] = []
        self.index = 0  # of the event being checked
        self.first = True  # no event object seen yet
        self.sequence: int | None = None  # the highest sequence_number so far
        self.terminal: int | None = None  # the index of the terminal event
        self.error: int | None = None  # the index of the first valid error event (PROD-LIFE-8)
        self.after_done = False
        self.response_id: str | None = None
        self.items: dict[str, _Item] = {}
        self.call_ids: dict[str, str] = {}  # each call item's call id, by item id (PROD-ITEM-6)

    def report(self, requirement: str, message: str) -> None:
        self.violations.append(Violation(self.index, requirement, message))

    def take(self, index: int, captured: Captured) -> None:
        self.index = index
        if self.after_done:
            self.report("PROD-SSE-4", "an event after [DONE]")
            return
        if captured.done:
            self.after_done = True
            if self.terminal is None:
                self.report("PROD-SSE-4", "[DONE] before the terminal event")
            return
        if captured.dropped:
            self.report("PROD-EVT-1", f"larger than {MAX_EVENT_BYTES} bytes: a router drops it unread")
            return
        try:
            event, repeated = loads_noting_duplicates(captured.data)
        except TooDeep as exc:
            self.report("PROD-EVT-1", f"the event {exc}, the most this checker reads")
            return
        except ValueError as exc:
            self.report("PROD-EVT-1", f"not JSON: {exc}")
            return
        if repeated:  # checked on, as a parser that keeps the last of them reads it
            names = ", ".join(repr(name) for name in dict.fromkeys(repeated))
            self.report("PROD-EVT-3", f"an object of the event names {names} more than once")
        if not isinstance(event, dict):
            self.report("PROD-EVT-1", f"a JSON {type(event).__name__}, not an object")
            return
        event_type = event.get("type")
        if (
            captured.sse_event is not None
            and isinstance(event_type, str)
            and captured.sse_event != event_type
        ):
            self.report("PROD-SSE-3", f"`event: {captured.sse_event}` for an event of type {event_type}")
        problem = first_error(EVENT, event)
        if problem is not None:
            self.report("PROD-EVT-2", problem)
        placed = isinstance(event_type, str) and self._in_place(event_type, event.get("sequence_number"))
        if placed and problem is None and event_type in EVENTS:  # its fields are as its type says
            self._route(event["type"], event)

    def finish(self) -> None:
        if self.terminal is None:
            self.violations.append(Violation(None, "PROD-LIFE-2", "no terminal event"))

    # -- the event's place in the stream: sections 3 and 4 -------------------

    def _in_place(self, event_type: str, sequence: object) -> bool:
        """Check what needs only the type and sequence number; False after the terminal event."""
        if self.first:
            self.first = False
            if event_type != "response.created":
                self.report("PROD-LIFE-1", f"the first event is {event_type}, not response.created")
        if self.terminal is not None:
            if _ends(event_type):
                self.report("PROD-LIFE-2", f"a second terminal event, after event {self.terminal}")
            else:
                self.report("PROD-LIFE-3", f"{event_type} after the terminal event {self.terminal}")
            return False
        if self.error is not None:
            self._after_error(event_type)
        if isinstance(sequence, int) and not isinstance(sequence, bool):
            if self.sequence is not None and sequence <= self.sequence:
                self.report("PROD-SEQ-1", f"sequence_number {sequence} does not exceed {self.sequence}")
            elif self.sequence is not None and sequence != self.sequence + 1:
                missing = sequence - self.sequence - 1
                self.report(
                    "PROD-SEQ-2", f"sequence_number {sequence} follows {self.sequence}: {missing} missing"
                )
            self.sequence = sequence if self.sequence is None else max(self.sequence, sequence)
        if _ends(event_type):
            self.terminal = self.index
        return True

    def _after_error(self, event_type: str) -> None:
        """PROD-LIFE-8: an error event is followed by its response.failed, and nothing else."""
        if event_type != "response.failed":
            self.report("PROD-LIFE-8", f"{event_type} after the error event {self.error}")

    # -- what the event says: sections 4 to 7 (valid events only) ------------

    def _route(self, event_type: str, event: dict[str, Any]) -> None:
        if event_type == "error" and self.error is None:
            self.error = self.index
        elif EVENTS[event_type].lifecycle:
            self._lifecycle(event_type, event["response"])
        elif event_type == "response.output_item.added":
            self._item_added(event["item"], event["output_index"])
        elif event_type == "response.output_item.done":
            self._item_done(event["item"], event["output_index"])
        elif EVENTS[event_type].item_types:
            item = self._item(event_type, self._named(event))
            if item is not None:
                self._item_event(item, event_type, event)

    def _lifecycle(self, event_type: str, response: dict[str, Any]) -> None:
        if self.response_id is None:
            self.response_id = response["id"]
        elif response["id"] != self.response_id:  # PROD-LIFE-4
            self.report("PROD-LIFE-4", f"response id {response['id']!r}, not {self.response_id!r}")
        unstated = _unstated(response)
        if unstated:
            self.report("PROD-LIFE-6", f"the response object: {'; '.join(unstated)}")
        if EVENTS[event_type].terminal:
            self._restated(response.get("output"))
        if event_type != "response.completed":
            return
        open_items = [item_id for item_id, item in self.items.items() if not item.done]
        if open_items:
            self.report("PROD-LIFE-5", f"response.completed while {', '.join(open_items)} is not done")
        done = sorted(self.items, key=lambda item_id: self.items[item_id].output_index)
        listed = [item.get("id") for item in response["output"]]
        if listed != done:
            self.report("PROD-LIFE-5", f"response.output lists {listed}, the stream's items are {done}")

    def _restated(self, output: object) -> None:
        """PROD-LIFE-7: the final response states each item that was done as its done item did."""
        for listed in output if isinstance(output, list) else []:
            item_id = listed.get("id") if isinstance(listed, dict) else None
            item = self.items.get(item_id) if isinstance(item_id, str) else None
            if item is None or item.stated is None:
                continue
            differs = [
                f"{member} {_stated(listed, member)} (its done item: {_stated(item.stated, member)})"
                for member in _RESTATED + _text_member(item.type)
                if _member(listed, member) != _member(item.stated, member)
                and not (
                    member in _IF_BOTH_STATE
                    and _NOTHING in (_member(listed, member), _member(item.stated, member))
                )
            ]
            if differs:
                self.report("PROD-LIFE-7", f"response.output states {item_id!r} with {'; '.join(differs)}")

    def _item_added(self, item: dict[str, Any], output_index: int) -> None:
        if item["id"] in self.items:
            self.report("PROD-ITEM-1", f"item {item['id']!r} is announced again")
            return
        if output_index != len(self.items):
            self.report(
                "PROD-ITEM-2", f"item {item['id']!r} has output_index {output_index}, not {len(self.items)}"
            )
        self._own_call_id(item)
        self.items[item["id"]] = _Item(item["type"], output_index, item)

    def _own_call_id(self, item: dict[str, Any]) -> None:
        """PROD-ITEM-6: no two call items of a response have one call id; an item's is the one its
        announcement states, then the one its done item restates (PROD-DONE-1)."""
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or item["type"].endswith("_output"):  # an output names its call
            return
        others = {other for item_id, other in self.call_ids.items() if item_id != item["id"]}
        if self.call_ids.get(item["id"]) != call_id and call_id in others:
            self.report(
                "PROD-ITEM-6", f"item {item['id']!r} states call_id {call_id!r}, as another item does"
            )
        self.call_ids[item["id"]] = call_id

    def _named(self, event: dict[str, Any]) -> dict[str, Any]:
        """A shell command event names no item: it is the one at its output_index (PROD-ITEM-3)."""
        if "item_id" in event:
            return event
        at = event["output_index"]
        found = [item_id for item_id, item in self.items.items() if item.output_index == at]
        return {**event, "item_id": found[-1] if found else f"(none at output_index {at})"}

    def _item(self, event_type: str, event: dict[str, Any]) -> _Item | None:
        """The item an item event names, or None when it is not in a state to take events."""
        item = self.items.get(event["item_id"])
        if item is None:
            self.report("PROD-ITEM-1", f"{event_type} for item {event['item_id']!r}, never announced")
            return None
        if item.done:
            self.report("PROD-ITEM-4", f"{event_type} for item {event['item_id']!r}, already done")
            return None
        if event["output_index"] != item.output_index:
            self.report(
                "PROD-ITEM-3",
                f"output_index {event['output_index']} for item {event['item_id']!r} at {item.output_index}",
            )
        if item.type not in EVENTS[event_type].item_types:
            self.report("PROD-ITEM-5", f"{event_type} for {item.type} item {event['item_id']!r}")
            return None
        return item

    def _item_event(self, item: _Item, event_type: str, event: dict[str, Any]) -> None:
        kind = EVENTS[event_type]
        if kind.family in PARTS and kind.index is not None:
            index = event[kind.index]
            if kind.step == "added":
                self._part_added(item, kind.family, index)
            else:
                self._part_done(item, kind.family, index, event["part"])
        elif kind.text is not None:
            self._text_event(item, kind, event, event[kind.text])

    def _part_added(self, item: _Item, family: str, index: int) -> None:
        expected = item.opened.get(family, 0)
        if family in item.open:
            self.report("PROD-PART-1", f"part {index} opens while part {item.open[family]} is open")
        elif index != expected:
            self.report("PROD-PART-1", f"part {index} opens, part {expected} was next")
        item.opened[family] = max(expected, index + 1)
        item.open[family] = index

    def _part_done(self, item: _Item, family: str, index: int, part: dict[str, Any]) -> None:
        if item.open.get(family) != index:
            self.report("PROD-PART-1", f"part {index} closes but is not open")
            return
        del item.open[family]
        for (text_family, text_index), text in item.texts.items():
            if text.part == family and text_index == index and text.complete is None:
                self.report("PROD-TEXT-1", f"part {index} closes before its {text_family}.done")
        self._agrees(item, part, f"the done part {index}", index)

    def _text_event(self, item: _Item, kind: EventType, event: dict[str, Any], value: str) -> None:
        """`value`: the event's text (`kind.text`), a piece of it or the whole."""
        family, event_type = kind.family, kind.name
        index = None if kind.index is None else event.get(kind.index, 0)
        if kind.part is not None and kind.part_required and item.open.get(kind.part) != index:
            self.report("PROD-PART-2", f"{event_type} for part {index}, which is not open")
            return
        begun = (family, index) in item.texts
        if family in STARTED and begun == (kind.step == "added"):
            where = "again after" if begun else "before"
            self.report("PROD-CALLTYPE-1", f"{event_type} {where} {family}.added of {kind.index} {index}")
            if begun:  # a second beginning: its text is not taken
                return
        text = item.texts.setdefault((family, index), _Text(kind.part))
        if kind.step == "added":
            text.deltas.append(value)
        elif kind.step == "delta":
            if text.complete is not None:
                self.report("PROD-TEXT-1", f"{event_type} after {family}.done")
                return
            text.deltas.append(value)
            self._measure(text, family, value)
        elif kind.step == "done":
            if text.complete is not None:
                self.report("PROD-TEXT-1", f"a second {event_type}")
                return
            text.complete = value
            if family == "response.function_call_arguments":
                self._nesting(value, event_type)
            joined = "".join(text.deltas)
            if text.deltas and joined != text.complete:
                self.report("PROD-TEXT-2", f"{event_type} states {text.complete!r}, the deltas {joined!r}")

    def _measure(self, text: _Text, family: str, delta: str) -> None:
        """PROD-LIMIT-1, reported at the delta that takes the text past the bound."""
        if family not in BOUNDED:
            return
        before = text.size
        text.size += len(delta.encode("utf-8", "surrogatepass"))
        if before <= MAX_TEXT_BYTES < text.size:
            self.report(
                "PROD-LIMIT-1", f"the deltas of this {family} text pass {MAX_TEXT_BYTES} bytes of UTF-8"
            )

    def _nesting(self, arguments: object, what: str) -> None:
        """PROD-LIMIT-2, for each complete source of a function call's arguments."""
        if isinstance(arguments, str) and nests_deeper(arguments):
            self.report(
                "PROD-LIMIT-2", f"the arguments of {what} nest deeper than {MAX_ARGUMENTS_DEPTH} levels"
            )

    def _item_done(self, done: dict[str, Any], output_index: int) -> None:
        item = self.items.get(done["id"])
        if item is None:
            self.report("PROD-ITEM-1", f"output_item.done for item {done['id']!r}, never announced")
            return
        if item.done:
            self.report("PROD-ITEM-4", f"item {done['id']!r} is done again")
            return
        item.done = True
        item.stated = done
        self._own_call_id(done)
        if done.get("status") == "in_progress":
            self.report("PROD-ITEM-7", f"item {done['id']!r} is done with status 'in_progress'")
        if output_index != item.output_index or done["type"] != item.type:
            self.report(
                "PROD-ITEM-3",
                f"done as {done['type']} at output_index {output_index}, "
                f"announced as {item.type} at {item.output_index}",
            )
        for index in item.open.values():
            self.report("PROD-PART-1", f"item {done['id']!r} is done while its part {index} is open")
        for (family, _), text in item.texts.items():
            if text.deltas and text.complete is None:
                self.report("PROD-TEXT-1", f"item {done['id']!r} is done before its {family}.done")
        if done["type"] != item.type:  # reported above; its fields are not those of the item announced
            return
        if item.type == "message":
            for index, part in enumerate(done["content"]):
                self._agrees(item, part, f"content part {index} of the done item", index)
        elif item.type == "reasoning":  # fields the schema leaves open: only well-formed parts are read
            for key in ("summary", "content"):
                parts = done.get(key)
                for index, part in enumerate(parts if isinstance(parts, list) else []):
                    if _stated_text(part) is not None:
                        self._agrees(item, part, f"{key} part {index} of the done item", index)
        elif item.type in ITEM_TEXTS and not ITEM_TEXTS[item.type].preview:  # a call's arguments or input
            stated = ITEM_TEXTS[item.type]
            if item.type == "function_call":
                self._nesting(done.get("arguments"), "the done item")
            self._compare(
                item,
                stated.family,
                None,
                _at(done, stated.item_path),
                f"the done item's {'.'.join(stated.item_path)}",
            )
            if done["name"] != item.announced["name"]:  # a restated call_id is the call's (CORE-CALL-17)
                self.report(
                    "PROD-DONE-1",
                    f"the done item's name is {done['name']!r}, announced {item.announced['name']!r}",
                )
            self._call_id_kept(item, done)
        elif item.type in ITEM_TEXTS:
            self._catalogue_done(item, done)

    def _call_id_kept(self, item: _Item, done: dict[str, Any]) -> None:
        """PROD-DONE-2: a function or custom call's done item states the call id it was announced with."""
        announced, stated = item.announced.get("call_id"), done.get("call_id")
        if (
            item.type in CALL_ID_KEPT
            and isinstance(announced, str)
            and isinstance(stated, str)
            and stated != announced
        ):
            self.report("PROD-DONE-2", f"the done item's call_id is {stated!r}, announced {announced!r}")

    def _catalogue_done(self, item: _Item, done: dict[str, Any]) -> None:
        """PROD-CALLTYPE-2: a done apply_patch or shell call states what its previews streamed."""
        preview = ITEM_TEXTS[item.type]
        family, value = preview.family, _at(done, preview.item_path)
        for (text_family, index), text in item.texts.items():
            if text_family != family or text.complete is None:
                continue
            if isinstance(value, list):  # the shell action's commands, by command_index
                shown = value[index] if isinstance(index, int) and index < len(value) else None
            else:
                shown = value
            if shown != text.complete:
                what = ".".join(preview.item_path) + ("" if index is None else f"[{index}]")
                self.report(
                    "PROD-CALLTYPE-2",
                    f"the done item's {what} is {shown!r}, {family}.done stated {text.complete!r}",
                )

    def _agrees(self, item: _Item, part: dict[str, Any], what: str, index: int) -> None:
        if part["type"] in PART_TEXTS:
            text_family, name = PART_TEXTS[part["type"]]
            self._compare(item, text_family, index, part[name], f"{what}'s {name}")

    def _compare(self, item: _Item, family: str, index: int | None, stated: object, what: str) -> None:
        """PROD-DONE-1: a complete state against the text's `.done`, when it came."""
        text = item.texts.get((family, index))
        if text is not None and text.complete is not None and stated != text.complete:
            self.report("PROD-DONE-1", f"{what} is {stated!r}, {family}.done stated {text.complete!r}")


@dataclass(frozen=True)
class CaptureReport:
    format: Format
    events: int
    violations: list[Violation]


def check_events(events: Iterable[Any], cut: bool = False) -> list[Violation]:
    """Every violation of sections 2 to 7 in a stream of parsed events, as a vector holds them.
    `cut`: the reader stopped before the stream's end (a restart), so its end is not checked.
    A session (spec/session.md section 10) is checked per lane and turn."""
    from .session_checker import check_session, is_session

    events = list(events)
    if is_session(events):
        return check_session(events)
    checker = _Checker()
    for index, event in enumerate(events):
        checker.take(index, Captured(json.dumps(event)))
    if not cut:
        checker.finish()
    return checker.violations


def starts_a_response(captured: Captured) -> bool:
    """A `response.created`: after a terminal event, a recording's next response begins."""
    if captured.done or captured.dropped or "response.created" not in captured.data:
        return False
    try:
        event = loads(captured.data)
    except ValueError:
        return False
    return isinstance(event, dict) and event.get("type") == "response.created"


def check_capture(data: bytes, format: Format | None = None) -> CaptureReport:
    """Every violation of spec/producer.md in a capture, in stream order."""
    chosen = format or guess_format(data)
    captured, violations = read_sse(data) if chosen == "sse" else read_jsonl(data)
    from .session_checker import check_session_capture, is_session_capture

    if is_session_capture(captured):  # checked per lane and turn (spec/session.md section 10)
        found = violations + check_session_capture(captured)
    else:
        checker, found = _Checker(), list(violations)
        for index, event in enumerate(captured):
            if checker.terminal is not None and starts_a_response(event):  # the recording's next one
                checker.finish()
                found += checker.violations
                checker = _Checker()
            checker.take(index, event)
        checker.finish()
        found += checker.violations
    found.sort(key=lambda v: (v.at is None, v.at or 0))  # stable: one event's in the order found
    return CaptureReport(chosen, len(captured), found)
