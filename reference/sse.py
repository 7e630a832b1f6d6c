"""The reference of the streamroute `sse` profile: bytes on the wire to routed events.

Theory of operation
-------------------
Two layers, both sans-IO: they are handed bytes, in chunks of any size, and
never read, wait or look at a clock.

`Decoder` turns bytes into dispatched SSE events, as the WHATWG event-stream
rules say (spec/sse.md, sections 1 to 4). Its state is four things: the bytes
of the line being received (`_line`), whether the last line ended with a CR
whose LF may still come (`_after_cr`), whether the stream's first line has
been seen (`_started`: a byte order mark is stripped only there), and the
fields of the event being received (`_data`, `_event`, `_id`). The cost is
linear whatever the cuts: each chunk is scanned for line breaks once it
arrives and never again, the bytes of an unfinished line are appended to a
bytearray, a line is decoded only once it is complete, and an event's data
lines are joined once, at dispatch. CR and LF never occur inside a UTF-8
sequence, so cutting the bytes at line breaks first and decoding each line on
its own (with replacement) is the same as decoding the whole stream: a
character cut between two reads is simply reassembled in `_line`. An event is
dispatched as soon as the byte ending its blank line arrives (SSE-CHUNK-2), so
`close()` dispatches nothing: whatever is left then is an unfinished event,
and it is discarded (SSE-EVENT-2).

`ByteRouter` puts a router behind a `Decoder` (spec/sse.md, section 5): the
data of each dispatched event is the `[DONE]` sentinel, or JSON text fed to
the router, or not JSON (one `error`, the stream goes on). After `[DONE]`,
nothing is routed. `feed_bytes` answers one list of outcomes per dispatched
event, which is how the harness attributes outcomes to SSE events whatever
the cuts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from .fields import loads_strict
from .router import Outcome

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"
DONE = "[DONE]"


@dataclass(frozen=True, slots=True)
class Event:
    """One dispatched SSE event."""

    data: str  # its `data` lines joined by LF
    event: str = ""  # the value of its last `event:` line; empty when it had none
    id: str = ""  # the last event ID at dispatch (a reconnecting client sends it back)


class Decoder:
    """Bytes in, dispatched SSE events out. See the module docstring."""

    __slots__ = ("_after_cr", "_data", "_event", "_id", "_line", "_started")

    def __init__(self) -> None:
        self._line = bytearray()
        self._after_cr = False
        self._started = False
        self._data: list[str] = []  # the values of the event's data lines so far
        self._event = ""
        self._id = ""  # the last event ID: it outlives the event that set it

    def feed(self, chunk: bytes) -> list[Event]:
        """The events this chunk completes, in order."""
        if not chunk:
            return []
        if b"\n" not in chunk and b"\r" not in chunk:  # no line ends here: one byte at a time, often
            self._after_cr = False
            self._line += chunk
            return []
        events: list[Event] = []
        start = 0
        if self._after_cr and chunk[0] == 0x0A:  # the LF of a CRLF cut between two chunks
            start = 1
        self._after_cr = False
        for line_break in _LINE_BREAK.finditer(chunk, start):
            self._line += chunk[start : line_break.start()]
            self._take_line(events)
            start = line_break.end()
        if start == len(chunk):
            self._after_cr = chunk[-1] == 0x0D  # SSE-LINE-3: an LF may follow in the next chunk
        else:
            self._line += chunk[start:]
        return events

    def close(self) -> bool:
        """End of stream: True when it ended inside a line or an event, which is discarded."""
        unfinished = bool(self._line or self._data)
        self._line.clear()
        self._data.clear()
        return unfinished

    def _take_line(self, events: list[Event]) -> None:
        raw = self._line
        if not self._started:
            self._started = True
            if raw.startswith(_BOM):  # SSE-LINE-2: one BOM, at the very start only
                del raw[:3]
        line = raw.decode("utf-8", "replace")  # SSE-LINE-1
        raw.clear()
        if not line:
            self._dispatch(events)
        elif line[0] != ":":  # SSE-FIELD-1: a comment
            name, _, value = line.partition(":")  # SSE-FIELD-2
            if value.startswith(" "):
                value = value[1:]
            if name == "data":
                self._data.append(value)  # SSE-FIELD-3
            elif name == "event":
                self._event = value
            elif name == "id" and "\0" not in value:
                self._id = value
            # `retry` and any other field: ignored (this decoder never reconnects)

    def _dispatch(self, events: list[Event]) -> None:
        """SSE-EVENT-1: a blank line; an event without data dispatches nothing."""
        if self._data:
            events.append(Event("\n".join(self._data), self._event, self._id))
            self._data.clear()
        self._event = ""


def _error(code: str, message: str) -> Outcome:
    return {"kind": "error", "code": code, "message": message}


class EventRouter(Protocol):
    """What `ByteRouter` feeds: a `Router`, or anything routing parsed events like one."""

    def feed(self, event: Any) -> list[Outcome]: ...

    def close(self) -> list[Outcome]: ...


class ByteRouter:
    """A router fed from bytes. See the module docstring."""

    def __init__(self, router: EventRouter) -> None:
        self._router = router
        self._decoder = Decoder()
        self._dispatched = 0
        self._done = False  # `[DONE]` was dispatched

    def feed(self, event: object) -> list[Outcome]:
        """One parsed event straight to the router: the `core` contract."""
        return self._router.feed(event)

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        """The outcomes of each SSE event this chunk dispatches, one list per event."""
        return [self._route(event) for event in self._decoder.feed(chunk)]

    def close(self) -> list[Outcome]:
        self._decoder.close()  # an unfinished event is discarded unseen (SSE-EVENT-2)
        return self._router.close()

    def _route(self, event: Event) -> list[Outcome]:
        index = self._dispatched
        self._dispatched += 1
        if self._done:  # SSE-DATA-4
            return [_error("event_after_done", f"SSE event {index} comes after [DONE]")]
        if event.data == DONE:  # SSE-DATA-3
            self._done = True
            return []
        try:
            value: Any = loads_strict(event.data)  # SSE-DATA-1
        except (ValueError, RecursionError) as exc:  # SSE-DATA-2
            return [_error("invalid_data", f"SSE event {index}: data is not JSON: {exc}")]
        return self._router.feed(value)
