"""The reference of the streamroute `sse` profile: bytes on the wire to routed events.

Theory of operation
-------------------
Two layers, both sans-IO: they are handed bytes, in chunks of any size, and
never read, wait or look at a clock.

`Decoder` turns bytes into dispatched SSE events, as the WHATWG event-stream
rules say (spec/sse.md, sections 1 to 4). Its state is five things: the bytes
of the line being received (`_line`), whether the last line ended with a CR
whose LF may still come (`_after_cr`), whether the stream's first line has
been seen (`_started`: a byte order mark is stripped only there), the size of
the event being received (`_size`, and `_skipping` once it passed the limit),
and the fields of that event (`_data`, `_event`, `_id`). It works in
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

The size limit (SSE-LIMIT-1) lives in the first step, which counts the bytes
of each event's lines as they come. While a chunk cannot take the event being
received past the limit (nearly always), that costs one comparison and, for a
chunk that completes lines, a search for its last blank line; otherwise the
chunk is taken line by line. At the byte that passes the limit, what is held
of the event is let go, the text gets a line of one CR in its place (no line
of decoded text can hold a CR, which always ends a line), which the second
step dispatches as the dropped event, and the bytes up to the end of the
event's blank line are skipped unread.

`feed` is the whole decoder; its two steps are public too, `lines` (bytes to
the text of complete lines) and `take_lines` (that text to events), for a
reader that takes some events its own way, as `ByteRouter` does.

`ByteRouter` puts a router behind a `Decoder` (spec/sse.md, section 5): the
data of each dispatched event is the `[DONE]` sentinel, or JSON text fed to
the router, or not JSON (one `error`, the stream goes on). After `[DONE]`,
nothing is routed. `feed_bytes` answers one list of outcomes per dispatched
event, which is how the harness attributes outcomes to SSE events whatever
the cuts.

The speed seam
--------------
Nearly every event of a Responses stream is *plain*: an optional `event:`
line, one `data:` line holding one JSON value, a blank line. Taken by the
rules, such an event's value is copied out of its line, joined into the data,
wrapped in an `Event` and then parsed. `Decoder.take_plain_events` instead
reads a run of plain events straight from the text of step one, scanning each
value where it lies, and gives what `take_lines` and `loads_strict` would
give one after the other. It is the one way the reference leaves the rules'
order for speed: `ByteRouter` calls it whenever the decoder is idle, and at
the first line that is anything else, `take_lines` takes over until the next
event begins. tests/test_sse.py holds the two paths equal.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol, TypeVar

from streamroute.wire.strict_json import loads_strict, scan_value

from .types import Outcome, error_outcome

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
# A line break followed by another: the end of a blank line. A CR followed by LF is one break.
_BLANK = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r|\n)")
_BOM = b"\xef\xbb\xbf"
SPILL_BYTES = 1 << 16  # an unfinished line longer than this many bytes is decoded as it comes
# SSE-LIMIT-1: the most bytes of one event's lines, line ends not counted, that a decoder holds.
MAX_EVENT_BYTES = 64 << 20
_DROPPED = "\r"  # the line of text that stands for an event dropped for its size
DONE = "[DONE]"
R = TypeVar("R")  # what a caller of `take_plain_events` makes of each plain event's value


class Event(NamedTuple):
    """One dispatched SSE event."""

    data: str  # its `data` lines joined by LF
    event: str = ""  # the value of its last `event:` line; empty when it had none
    id: str = ""  # the last event ID at dispatch (a reconnecting client sends it back)
    dropped: bool = False  # it passed the size limit (SSE-LIMIT-1): no data, no event name


class Decoder:
    """Bytes in, dispatched SSE events out: `feed`, or its two steps `lines` and `take_lines`.
    See the module docstring."""

    __slots__ = (
        "_after_cr",
        "_data",
        "_event",
        "_id",
        "_line",
        "_line_empty",
        "_max",
        "_pending",
        "_size",
        "_skipping",
        "_started",
        "_utf8",
    )

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._line = bytearray()
        self._pending: list[str] = []  # the decoded start of a long line (`_spill`)
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._after_cr = False
        self._started = False
        self._max = max_event_bytes
        self._size = 0  # bytes of the lines of the event being received, line ends not counted
        self._skipping = False  # that event passed the limit: skip to the end of its blank line
        self._line_empty = True  # while skipping: no byte has come since the last line break
        self._data: list[str] = []  # the values of the event's data lines so far
        self._event = ""
        self._id = ""  # the last event ID: it outlives the event that set it

    def feed(self, chunk: bytes) -> list[Event]:
        """The events this chunk completes, in order."""
        events: list[Event] = []
        self.take_lines(self.lines(chunk), 0, events)
        return events

    def close(self) -> bool:
        """End of stream: True when it ended inside a line or an event, which is discarded."""
        unfinished = bool(self._line or self._pending or self._data or self._skipping)
        self._line.clear()
        self._pending.clear()
        self._utf8.reset()
        self._data.clear()
        self._size = 0
        self._skipping = False
        return unfinished

    @property
    def idle(self) -> bool:
        """No data line of the event being received has come yet."""
        return not self._data

    @property
    def max_event_bytes(self) -> int:
        """The size limit of SSE-LIMIT-1 this decoder keeps."""
        return self._max

    # -- bytes to lines --------------------------------------------------------

    def lines(self, chunk: bytes) -> str:
        """Step one: the text of the lines this chunk completes, each ended by one LF whatever
        ended it on the wire (SSE-LINE-1, -2, -3); the unfinished last line is kept. A line of
        one CR stands for an event dropped for its size. The text is for `take_lines` (or
        `take_plain_events`) of this decoder, which take all of it before the next chunk."""
        if self._skipping or self._size + len(chunk) > self._max:  # SSE-LIMIT-1 may be passed here
            return self._lines(chunk)
        if b"\n" not in chunk and b"\r" not in chunk:  # no line ends here: one byte at a time, often
            if chunk:
                self._after_cr = False
                self._size += len(chunk)
                self._line += chunk
                self._spill()
            return ""
        if self._started and not self._after_cr and b"\r" not in chunk:
            return self._lf_lines(chunk)
        return self._lines(chunk)

    def _lines(self, chunk: bytes) -> str:
        """The general case, line by line: any line ends, a CRLF cut between two chunks, the
        stream's first line, and an event that passes the size limit (SSE-LIMIT-1)."""
        pieces: list[str] = []
        start, end = 0, len(chunk)
        while start < end:
            if self._skipping:
                start = self._skip(chunk, start)
                continue
            if self._after_cr:
                self._after_cr = False
                if chunk[start] == 0x0A:  # the LF of a CRLF cut between two chunks
                    start += 1
                    continue
            line_break = _LINE_BREAK.search(chunk, start)
            stop = end if line_break is None else line_break.start()
            self._size += stop - start
            if self._size > self._max:
                self._drop(pieces, at_line_start=line_break is not None)
            elif line_break is None:
                self._line += chunk[start:]
                self._spill()
            else:
                self._line += chunk[start:stop]
                line = self._finish_line()
                if not line:  # a blank line: the next event starts after it
                    self._size = 0
                pieces += (line, "\n")
            start = end if line_break is None else line_break.end()
            self._after_cr = start == end and chunk[-1] == 0x0D  # SSE-LINE-3: an LF may follow
        return "".join(pieces)

    def _drop(self, pieces: list[str], at_line_start: bool) -> None:
        """SSE-LIMIT-1: the event being received passed the limit. What is held of it is let go,
        and the text layer gets the line that stands for it."""
        self._line.clear()
        self._pending.clear()
        self._utf8.reset()
        self._started = True
        self._skipping = True
        self._line_empty = at_line_start
        pieces += (_DROPPED, "\n")

    def _skip(self, chunk: bytes, start: int) -> int:
        """Skip the bytes of a dropped event from `start` to the end of the blank line that ends
        it: where that is, or the end of the chunk."""
        if self._after_cr:
            self._after_cr = False
            if chunk[start] == 0x0A:  # the LF of a CRLF cut between two chunks
                start += 1
        blank = _LINE_BREAK.match(chunk, start) if self._line_empty else None
        blank = blank or _BLANK.search(chunk, start)
        end = len(chunk)
        if blank is None:
            if start < end:
                self._line_empty = chunk[-1] in (0x0A, 0x0D)
                self._after_cr = chunk[-1] == 0x0D
            return end
        self._skipping = False
        self._size = 0
        self._after_cr = blank.end() == end and chunk[-1] == 0x0D
        return blank.end()

    def _lf_lines(self, chunk: bytes) -> str:
        """The common case, lines ended by LF alone after the first: the chunk's complete lines
        are decoded at once, which is the same as decoding each line, since an LF never occurs
        inside a UTF-8 sequence."""
        # SSE-LIMIT-1: the event being received starts after the chunk's last blank line; 1, when
        # there is none, is also where it starts if the chunk starts with a blank line.
        after_blank = chunk.rfind(b"\n\n") + 2
        if after_blank == 1 and (chunk[0] != 0x0A or self._line or self._pending):
            self._size += len(chunk) - chunk.count(b"\n")
        else:
            self._size = len(chunk) - after_blank - chunk.count(b"\n", after_blank)
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
        if self._started and len(self._line) > SPILL_BYTES:
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

    def take_lines(self, text: str, at: int, events: list[Event], *, until_idle: bool = False) -> int:
        """Step two: take the lines of `text` (from `lines`) from `at`, appending the events they
        dispatch to `events`: all of them, or, `until_idle`, those up to the first line after
        which the decoder is idle. Answers where it stopped."""
        end = len(text)
        while at < end:
            line_end = text.index("\n", at)
            if line_end == at:
                self._dispatch(events)
            elif text[at] == _DROPPED:
                self._dispatch_dropped(events)
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

    def _dispatch_dropped(self, events: list[Event]) -> None:
        """SSE-LIMIT-1: an event that passed the limit is dispatched as dropped, its fields
        forgotten."""
        events.append(Event("", "", self._id, dropped=True))
        self._data.clear()
        self._event = ""

    # -- the speed seam: plain events read in place ----------------------------

    def take_plain_events(self, text: str, at: int, route: Callable[[Any], R], routed: list[R]) -> int:
        """Take the plain events of `text` (from `lines`) from `at`, appending `route(value)` for
        each to `routed`; answer where they stop. Nothing is taken unless the decoder is idle.

        A plain event is what a Responses stream sends: an optional `event:` line (it may
        have come in an earlier chunk: an event's name does not route it), one `data:` line
        holding one JSON value and nothing else, and the blank line. The value is scanned
        where it lies in `text` and must end exactly at the end of its line: then
        `take_lines` would have dispatched that line's value as the data, and `loads_strict`
        would have parsed it to the same value. Anything else (another field, a second data
        line, whitespace around the value, `[DONE]`, data that is not JSON) stops the run,
        for `take_lines` to take.
        """
        if self._data:
            return at
        end, first = len(text), len(routed)
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
            routed.append(route(value))
            at = line_end + 2
        if len(routed) > first:  # each was dispatched, which forgets the event line before it
            self._event = ""
        return at


class EventRouter(Protocol):
    """What `ByteRouter` feeds: a `Router`, or anything routing parsed events like one."""

    def feed(self, event: Any) -> list[Outcome]: ...

    def close(self) -> list[Outcome]: ...


class ByteRouter:
    """A router fed from bytes. See the module docstring."""

    def __init__(self, router: EventRouter, decoder: Decoder | None = None) -> None:
        self._router = router
        self._decoder = Decoder() if decoder is None else decoder  # one of another size limit, say
        self._dispatched = 0  # SSE events dispatched by the chunks before
        self._done = False  # `[DONE]` was dispatched

    def feed(self, event: object) -> list[Outcome]:
        """One parsed event straight to the router: the `core` contract."""
        return self._router.feed(event)

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        """The outcomes of each SSE event this chunk dispatches, one list per event."""
        decoder = self._decoder
        text = decoder.lines(chunk)
        routed: list[list[Outcome]] = []  # one entry per event dispatched, in order
        at, end = 0, len(text)
        while at < end:
            if not self._done:  # the speed seam; after `[DONE]`, every event is an error
                at = decoder.take_plain_events(text, at, self._router.feed, routed)
            events: list[Event] = []
            at = decoder.take_lines(text, at, events, until_idle=True)
            for event in events:
                routed.append(self._route(event, self._dispatched + len(routed)))
        self._dispatched += len(routed)
        return routed

    def close(self) -> list[Outcome]:
        self._decoder.close()  # an unfinished event is discarded unseen (SSE-EVENT-2)
        return self._router.close()

    def _route(self, event: Event, index: int) -> list[Outcome]:
        """The outcomes of the event the stream dispatched `index`-th, counting from 0."""
        if self._done:  # SSE-DATA-4
            return [error_outcome("event_after_done", f"SSE event {index} comes after [DONE]")]
        if event.dropped:  # SSE-LIMIT-1
            limit = self._decoder.max_event_bytes
            return [
                error_outcome("event_too_large", f"SSE event {index} passes {limit} bytes: dropped unread")
            ]
        if event.data == DONE:  # SSE-DATA-3
            self._done = True
            return []
        try:
            value: Any = loads_strict(event.data)  # SSE-DATA-1
        except (ValueError, RecursionError) as exc:  # SSE-DATA-2
            return [error_outcome("invalid_data", f"SSE event {index}: data is not JSON: {exc}")]
        return self._router.feed(value)
