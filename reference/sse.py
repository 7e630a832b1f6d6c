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
fields of the event being received (`_data`, `_event`, `_id`). It works in
two steps. First, bytes to lines: each chunk is scanned for line breaks once
it arrives, the bytes of an unfinished line are appended to a bytearray, and
the lines a chunk completes are decoded together into one text in which
every line ends with one LF, whatever ended it on the wire. CR and LF never
occur inside a UTF-8 sequence, so cutting the bytes at line breaks first and
decoding each line on its own (with replacement) is the same as decoding the
whole stream: a character cut between two reads is simply reassembled in
`_line`. Then, lines to events: each line of the text is a field or the
blank line that dispatches, read in place (a value is the one copy made of
it), and an event's data lines are joined once, at dispatch. So the cost is
linear whatever the cuts. An event is dispatched as soon as the byte ending
its blank line arrives (SSE-CHUNK-2), so `close()` dispatches nothing:
whatever is left then is an unfinished event, and it is discarded
(SSE-EVENT-2).

`ByteRouter` puts a router behind a `Decoder` (spec/sse.md, section 5): the
data of each dispatched event is the `[DONE]` sentinel, or JSON text fed to
the router, or not JSON (one `error`, the stream goes on). After `[DONE]`,
nothing is routed. `feed_bytes` answers one list of outcomes per dispatched
event, which is how the harness attributes outcomes to SSE events whatever
the cuts. Nearly every event of a Responses stream is *plain*: an optional
`event:` line, one `data:` line holding one JSON value, a blank line. Between
events, `ByteRouter` reads a run of plain events straight from the decoded
text, scanning each value where it lies, which gives what the decoder and
the JSON parser would give one after the other; at the first line that is
anything else, the decoder takes over until the next event begins.
"""

from __future__ import annotations

import codecs
import re
from typing import Any, NamedTuple, Protocol

from .fields import loads_strict, scan_value
from .router import Outcome

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"
_SPILL = 1 << 16  # an unfinished line longer than this many bytes is decoded as it comes
DONE = "[DONE]"


class Event(NamedTuple):
    """One dispatched SSE event."""

    data: str  # its `data` lines joined by LF
    event: str = ""  # the value of its last `event:` line; empty when it had none
    id: str = ""  # the last event ID at dispatch (a reconnecting client sends it back)


class Decoder:
    """Bytes in, dispatched SSE events out. See the module docstring."""

    __slots__ = ("_after_cr", "_data", "_event", "_id", "_line", "_pending", "_started", "_utf8")

    def __init__(self) -> None:
        self._line = bytearray()
        self._pending: list[str] = []  # the decoded start of a long line (`_spill`)
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._after_cr = False
        self._started = False
        self._data: list[str] = []  # the values of the event's data lines so far
        self._event = ""
        self._id = ""  # the last event ID: it outlives the event that set it

    def feed(self, chunk: bytes) -> list[Event]:
        """The events this chunk completes, in order."""
        events: list[Event] = []
        self._take_lines(self._complete_lines(chunk), 0, events)
        return events

    def close(self) -> bool:
        """End of stream: True when it ended inside a line or an event, which is discarded."""
        unfinished = bool(self._line or self._pending or self._data)
        self._line.clear()
        self._pending.clear()
        self._utf8.reset()
        self._data.clear()
        return unfinished

    @property
    def idle(self) -> bool:
        """No data line of the event being received has come yet."""
        return not self._data

    # -- bytes to lines --------------------------------------------------------

    def _complete_lines(self, chunk: bytes) -> str:
        """The text of the lines this chunk completes, each ended by one LF whatever ended it
        on the wire (SSE-LINE-1, -2, -3); the unfinished last line is kept."""
        if b"\n" not in chunk and b"\r" not in chunk:  # no line ends here: one byte at a time, often
            if chunk:
                self._after_cr = False
                self._line += chunk
                self._spill()
            return ""
        if self._started and not self._after_cr and b"\r" not in chunk:
            return self._lf_lines(chunk)
        pieces: list[str] = []
        start = 0
        if self._after_cr and chunk[0] == 0x0A:  # the LF of a CRLF cut between two chunks
            start = 1
        self._after_cr = False
        for line_break in _LINE_BREAK.finditer(chunk, start):
            self._line += chunk[start : line_break.start()]
            pieces += (self._finish_line(), "\n")
            start = line_break.end()
        if start == len(chunk):
            self._after_cr = chunk[-1] == 0x0D  # SSE-LINE-3: an LF may follow in the next chunk
        else:
            self._line += chunk[start:]
            self._spill()
        return "".join(pieces)

    def _lf_lines(self, chunk: bytes) -> str:
        """The common case, lines ended by LF alone after the first: the chunk's complete lines
        are decoded at once, which is the same as decoding each line, since an LF never occurs
        inside a UTF-8 sequence."""
        line = self._line
        long_line, text = "", ""
        start, end = 0, chunk.rfind(b"\n") + 1
        with memoryview(chunk) as view:
            if self._pending:  # the end of a long line
                start = chunk.find(b"\n") + 1
                line += view[: start - 1]
                long_line = self._finish_line()
            if start < end:
                if line:
                    line += view[start:end]
                    text = line.decode("utf-8", "replace")  # SSE-LINE-1
                    line.clear()
                else:
                    text = str(view[start:end], "utf-8", "replace")
            line += view[end:]
        self._spill()
        return "".join((long_line, "\n", text)) if long_line else text

    def _spill(self) -> None:
        """Decode the bytes of a long unfinished line as they come, so that the line is never
        held as bytes and as text at once; the incremental decoder keeps a character cut
        between two reads. Not the first line: its byte order mark is not known yet."""
        if self._started and len(self._line) > _SPILL:
            self._pending.append(self._utf8.decode(self._line))
            self._line.clear()

    def _finish_line(self) -> str:
        """The line in `_line` (and `_pending`) is complete: its text."""
        raw = self._line
        if not self._started:
            self._started = True
            if raw.startswith(_BOM):  # SSE-LINE-2: one BOM, at the very start only
                del raw[:3]
        if self._pending:
            self._pending.append(self._utf8.decode(raw, True))
            line = "".join(self._pending)
            self._pending.clear()
        else:
            line = raw.decode("utf-8", "replace")  # SSE-LINE-1
        raw.clear()
        return line

    # -- lines to events -------------------------------------------------------

    def _take_lines(self, text: str, at: int, events: list[Event], *, until_idle: bool = False) -> int:
        """Take the lines of `text` from `at`: all of them, or, `until_idle`, those up to the
        first line after which the decoder is idle. Answers where it stopped."""
        end = len(text)
        while at < end:
            line_end = text.index("\n", at)
            if line_end == at:
                self._dispatch(events)
            else:
                self._take_field(text, at, line_end)
            at = line_end + 1
            if until_idle and not self._data:
                break
        return at

    def _take_field(self, text: str, start: int, end: int) -> None:
        """The line text[start:end], which is not blank; only a value is copied out."""
        if text.startswith("data:", start):  # SSE-FIELD-2, -3
            self._data.append(text[start + 6 if text.startswith(" ", start + 5) else start + 5 : end])
        elif text[start] != ":":  # SSE-FIELD-1: a comment
            name, _, value = text[start:end].partition(":")  # SSE-FIELD-2
            if value.startswith(" "):
                value = value[1:]
            if name == "data":
                self._data.append(value)  # SSE-FIELD-3: `data` without a colon
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
        decoder = self._decoder
        text = decoder._complete_lines(chunk)
        routed: list[list[Outcome]] = []
        at, end = 0, len(text)
        while at < end:
            if decoder.idle and not self._done:
                at = self._route_plain_events(text, at, routed)
            events: list[Event] = []
            at = decoder._take_lines(text, at, events, until_idle=True)
            routed += [self._route(event) for event in events]
        return routed

    def close(self) -> list[Outcome]:
        self._decoder.close()  # an unfinished event is discarded unseen (SSE-EVENT-2)
        return self._router.close()

    def _route_plain_events(self, text: str, at: int, routed: list[list[Outcome]]) -> int:
        """Route the plain events from `at`, the decoder being idle; answer where they stop.

        A plain event is what a Responses stream sends: an optional `event:` line (it may
        have come in an earlier chunk: an event's name does not route it), one `data:` line
        holding one JSON value and nothing else, and the blank line. The value is scanned
        where it lies in `text` and must end exactly at the end of its line: then the
        decoder would have dispatched that line's value as the data, and `loads_strict`
        would have parsed it to the same value. Anything else (another field, a second data
        line, whitespace around the value, `[DONE]`, data that is not JSON) stops the run,
        and the caller takes it line by line.
        """
        feed, end, first = self._router.feed, len(text), len(routed)
        while at < end:
            start = at
            if text.startswith("event:", at):
                at = text.index("\n", at) + 1
            line_end = text.find("\n", at)
            if not (text.startswith("data:", at) and text.startswith("\n", line_end + 1)):  # SSE-EVENT-1
                at = start
                break
            try:
                value, value_end = scan_value(text, at + 6 if text[at + 5] == " " else at + 5)  # SSE-DATA-1
            except (StopIteration, ValueError, RecursionError):
                value_end = -1
            if value_end != line_end:
                at = start
                break
            routed.append(feed(value))
            at = line_end + 2
        if len(routed) > first:  # each was dispatched, which forgets the event line before it
            self._dispatched += len(routed) - first
            self._decoder._event = ""
        return at

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
