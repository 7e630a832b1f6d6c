"""The sse profile: a stream's events as bytes on the wire, and the ways to cut them.

`wire(c, events)` writes the events as one `text/event-stream` (`Wire`): with
comments, CRLF, CR, multi-line data, `[DONE]`, data that is not JSON, bytes that
are not UTF-8, a byte order mark, an unfinished last event; and the cuts a
vector states, aimed at the places decoders break.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .choices import Choices

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
    ('data: {"type": "keepalive", "note": "a\tb"}',),  # a raw control character inside a string
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
ILL_FORMED = (b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98")


class RecordKind(Enum):
    EVENT = "event"  # carries a core event
    INVALID = "invalid"  # data that is not JSON
    DONE = "done"  # the `[DONE]` sentinel
    SILENT = "silent"  # lines that dispatch nothing


@dataclass(frozen=True)
class Record:
    """One SSE event as written; `event`: the index of the core event an EVENT record carries."""

    kind: RecordKind
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
        return [record for record in records if record.kind is not RecordKind.SILENT]


def _json_lines(c: Choices, event: Any) -> list[str]:
    ensure_ascii = c.chance(4)  # mostly UTF-8 as it is, which the cuts can split
    if c.chance(5):  # one JSON event over several data lines (SSE-FIELD-3)
        indent = c.pick([None, 1])
        # Only LF ends an SSE line; str.splitlines knows more.
        return _dumps(event, ensure_ascii, indent).split("\n")
    return [_dumps(event, ensure_ascii, None)]


def _dumps(event: Any, ensure_ascii: bool, indent: int | None) -> str:
    """The event's JSON text, its strings as they are unless escaped to ASCII; a lone surrogate is
    escaped either way, since only its escape has UTF-8 bytes. Written once (an event may hold MiB)."""
    if not ensure_ascii:
        text = json.dumps(event, ensure_ascii=False, indent=indent)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            return text
    return json.dumps(event, indent=indent)


def _event_record(c: Choices, index: int, event: Any) -> Record:
    lines = [("data:" if c.chance(4) else "data: ") + line for line in _json_lines(c, event)]
    if c.chance(6):  # a comment between the data lines (SSE-FIELD-1)
        lines.insert(c.integer(0, len(lines)), ": keep-alive")
    named = event.get("type") if isinstance(event, dict) else None
    line = c.pick(["", "", "", "same", "other", "id"])
    if line == "same" and isinstance(named, str):  # the `event:` line never routes (SSE-FIELD-4)
        lines.insert(0, f"event: {named}")
    elif line == "other":
        lines.insert(0, "event: response.refusal.delta")
    elif line == "id":
        lines += ["id: 41", c.pick(("retry: 1000", "retry: 1.5s")), "extension: ignored"]  # one no number
    return Record(RecordKind.EVENT, tuple(lines), index)


def _noise(c: Choices) -> list[Record]:
    return [
        Record(RecordKind.SILENT, c.pick(_SILENT))
        if c.coin()
        else Record(RecordKind.INVALID, c.pick(_NOT_DATA))
        for _ in range(c.pick([0, 0, 0, 1, 2]))
    ]


_SENTINEL = Record(RecordKind.DONE, ("data: [DONE]",))
_LATE = (_SENTINEL, Record(RecordKind.INVALID, ("data: oops",)), Record(RecordKind.SILENT, (": late",)))


def wire(c: Choices, events: Sequence[Any]) -> Wire:
    """The events as one `text/event-stream`, with comments, invalid data, `[DONE]`, and maybe cut."""
    count = len(events)
    stop = c.pick(["end", "end", "end", "done", "done_early", "cut"])
    routed = count
    if stop == "done_early" and count > 1:
        routed = c.integer(1, count - 1)
    elif stop == "cut" and count:
        routed = c.integer(0, count - 1)
    records: list[Record] = []
    bom = c.chance(6)
    if bom and c.coin():  # a second byte order mark is part of the first field's name (SSE-LINE-2)
        records.append(Record(RecordKind.SILENT, ('\ufeffdata: {"type": "acme:never"}',)))
    for index in range(routed):
        records += _noise(c)
        records.append(_event_record(c, index, events[index]))
    if stop == "cut" and count:
        records.append(_event_record(c, routed, events[routed]))
    elif stop != "end" or c.chance(4):
        records.append(Record(RecordKind.DONE, (c.pick(["data: [DONE]", "data:[DONE]"]),)))
        for _ in range(c.integer(0, 3)):  # after the sentinel: reported, never routed (SSE-DATA-4)
            late = c.below(4)
            if late == 0:
                records.append(_event_record(c, -1, events[c.below(count)]) if count else _SENTINEL)
            else:
                records.append(_LATE[late - 1])
    data, unfinished = _wire_bytes(c, records, bom, stop == "cut" and count > 0)
    return Wire(tuple(records), data, unfinished, routed, _cuts(c, data, bom))


def _wire_bytes(c: Choices, records: Sequence[Record], bom: bool, cut: bool) -> tuple[bytes, bool]:
    """The records' bytes: each line with a drawn end (SSE-LINE-3), ill-formed UTF-8 in place of
    some U+FFFD (SSE-LINE-1)."""
    mode = c.pick(["\n", "\n", "\r\n", "\r", "mixed"])
    previous = ""
    chunks = [BOM] if bom else []
    for number, record in enumerate(records):
        text = []
        for line in (*record.lines, ""):
            end = c.pick(["\n", "\r\n", "\r"]) if mode == "mixed" else mode
            if line == "" and previous == "\r" and end == "\n":
                end = "\r\n"  # a CR then an LF is one line end: the blank line would vanish
            text.append(line + end)
            previous = end
        encoded = "".join(text).encode("utf-8")
        if b"\xef\xbf\xbd" in encoded and not c.chance(4):
            encoded = encoded.replace(b"\xef\xbf\xbd", c.pick(ILL_FORMED))
        if cut and number == len(records) - 1:  # unfinished: cut before the byte that would dispatch it
            blank = len(encoded) - len(text[-1].encode("utf-8"))
            encoded = encoded[: c.integer(0, blank)]
        chunks.append(encoded)
    return b"".join(chunks), cut


_CR = re.compile(b"\r")
_CONTINUATION = re.compile(b"[\x80-\xbf]")


def _cuts(c: Choices, data: bytes, bom: bool) -> tuple[Any, ...]:
    """Ways to cut the bytes, aimed at the places decoders break: after a CR, inside a character,
    inside the byte order mark (SSE-CHUNK-1); empty chunks too."""
    places = [match.end() for match in _CR.finditer(data)]
    places += [match.start() for match in _CONTINUATION.finditer(data)]
    places += [1, 2] if bom else []

    def offsets() -> list[int]:
        drawn = [
            c.pick(places) if places and c.coin() else c.integer(0, len(data)) for _ in range(c.below(9))
        ]
        return sorted(drawn)

    first: Any = "every_byte" if len(data) <= 1500 and c.chance(4) else offsets()
    return (first, offsets())
