"""A `text/event-stream` read as spec/sse.md (sections 1 to 4) says: bytes on the wire to events.

Sans-IO: it is handed bytes, in chunks of any size, and never reads, waits or looks at a clock.
Two parts, each with a state of its own:

`Receiver`, the receive buffer, turns bytes into the text of complete lines, every line ended
by one LF whatever ended it on the wire. Its state is explicit (`State`): it is receiving an
event's lines, or skipping an event that passed the size limit (SSE-LIMIT-1) to the end of its
blank line. While receiving it holds the bytes of the unfinished line, whether the last byte
was a CR whose LF may still come, whether the stream's first line has been seen (a byte order
mark is stripped only there) and the size of the event so far. Bytes that cannot take the event
past the limit (nearly every chunk) are taken at once: their complete lines are decoded
together, which is the same as decoding each line, since CR and LF never occur inside a UTF-8
sequence; a character cut between two reads is simply reassembled in the unfinished line. Only
a chunk that may pass the limit, and the stream's first line, are taken one line at a time. At
the byte that passes the limit, what is held of the event is let go, `DROPPED` takes its place
among the received text, and the receiver skips the bytes up to the end of the event's blank
line unread.

`EventRules` reads those lines (section 2 to 4): each line is a field, a comment or the blank
line that dispatches. Its state is the event being received (its data lines and its name) and
the last event ID. Each line is read in place: a value is the one copy made of it, and an
event's data lines are joined once, at dispatch. So the cost is linear whatever the cuts. An
event is dispatched as soon as the byte ending its blank line arrives (SSE-CHUNK-2), so
`Decoder.close()` dispatches nothing: whatever is left then is an unfinished event, and it is
discarded (SSE-EVENT-2).

The speed seam: nearly every event of a Responses stream is *plain*, an optional `event:`
line, one `data:` line holding one JSON value, a blank line. While `Decoder.plain` is set,
`EventRules.take` reads such an event's value where it lies in the text (one pattern matches
its lines, one scan parses its value) and hands it to `plain`, which is what dispatching the
event and parsing its data with `loads_strict` would give one after the other; at the first
line that is anything else, the rules take over until the next event begins. Both answer
through the same `Decoder.dispatch`; tests/test_sse.py holds them equal on every bundled and
generated stream.
"""

from __future__ import annotations

import codecs
import enum
import re
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, TypeVar

from .strict_json import scan_value

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
# A line break followed by another: the end of a blank line. A CR followed by LF is one break.
_BLANK = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r|\n)")
# The lines of a plain event before its value: an `event:` line or none, and `data:` with the
# one space `_field` skips (the speed seam; tests/test_sse.py holds it to the rules).
_PLAIN_HEAD = re.compile(r"(?:event:[^\n]*\n)?data: ?")
SPILL_BYTES = 1 << 16  # an unfinished line longer than this many bytes is decoded as it comes
# SSE-LIMIT-1: the most bytes of one event's lines, line ends not counted, that a decoder holds.
MAX_EVENT_BYTES = 64 << 20
DONE = "[DONE]"
R = TypeVar("R")  # what a caller of `Decoder.dispatch` makes of each dispatched event


class Event(NamedTuple):
    """One dispatched SSE event."""

    data: str  # its `data` lines joined by LF
    event: str = ""  # the value of its last `event:` line; empty when it had none
    id: str = ""  # the last event ID at dispatch (a reconnecting client sends it back)
    dropped: bool = False  # it passed the size limit (SSE-LIMIT-1): no data, no event name


class Dropped(enum.Enum):
    """What stands, among the text `Receiver.receive` answers, for an event dropped for its size."""

    DROPPED = "dropped"


DROPPED: Final = Dropped.DROPPED


class State(enum.Enum):
    """What the receiver does with the bytes that come."""

    RECEIVING = "receiving"  # they are an event's lines, kept
    SKIPPING = "skipping"  # inside a line of a dropped event: skipped to the end of its blank line
    SKIPPING_AT_LINE_START = "skipping at line start"  # as SKIPPING, a line of it just ended


# -- bytes to lines ----------------------------------------------------------------------------


class Receiver:
    """The receive buffer: bytes in, the text of complete lines out. See the module docstring."""

    __slots__ = ("_after_cr", "_line", "_max", "_size", "_spilled", "_started", "_state", "_utf8")

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._state = State.RECEIVING
        self._line = bytearray()  # the bytes of the unfinished line
        self._spilled: list[str] = []  # the decoded start of a long unfinished line (`_spill`)
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._after_cr = False  # the last byte was a CR: an LF starting the next chunk ends no line
        self._started = False  # the stream's first line was seen
        self._max = max_event_bytes
        self._size = 0  # bytes of the lines of the event being received, line ends not counted

    @property
    def max_event_bytes(self) -> int:
        """The size limit of SSE-LIMIT-1 this receiver keeps."""
        return self._max

    def receive(self, chunk: bytes) -> Sequence[str | Dropped]:
        """The text of the lines this chunk completes, each ended by one LF (SSE-LINE-1, -2, -3),
        with `DROPPED` where an event passed the size limit; the unfinished last line is kept."""
        received: list[str | Dropped] = []
        at, end = 0, len(chunk)
        while at < end:
            if self._after_cr:
                self._after_cr = False
                if chunk[at] == 0x0A:  # the LF of a CRLF cut between two chunks
                    at += 1
                    continue
            if self._state is not State.RECEIVING:
                at = self._skip(chunk, at)
            elif self._started and self._size + end - at <= self._max:  # nearly always: all at once
                self._receive(chunk[at:] if at else chunk, received)
                at = end
            else:  # the first line, or the limit may be passed: one line at a time
                line_break = _LINE_BREAK.search(chunk, at)
                stop = end if line_break is None else line_break.start()
                if self._size + stop - at > self._max:  # SSE-LIMIT-1: passed at byte at + room
                    self._drop(received)
                    at += self._max - self._size
                else:
                    stop = end if line_break is None else line_break.end()
                    self._receive(chunk[at:stop], received)
                    at = stop
        return received

    def close(self) -> bool:
        """End of stream: True when it ended inside a line or a dropped event; that is let go."""
        unfinished = bool(self._line or self._spilled) or self._state is not State.RECEIVING
        self._forget_line()
        self._state = State.RECEIVING
        self._size = 0
        return unfinished

    def _receive(self, run: bytes, received: list[str | Dropped]) -> None:
        """Bytes that cannot take the event past the limit, after the LF of any CRLF cut between
        chunks; the stream's first line is given alone. Their complete lines go to `received`."""
        if b"\n" not in run and b"\r" not in run:  # no line ends here: one byte at a time, often
            self._after_cr = False
            self._size += len(run)
            self._line += run
            self._spill()
            return
        self._after_cr = run.endswith(b"\r")  # SSE-LINE-3: its LF may start the next chunk
        if b"\r" in run:  # SSE-LINE-3: CRLF, CR and LF each end a line
            run = run.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        # SSE-LIMIT-1: the event being received starts after the run's last blank line; 1, when
        # there is none, is also where it starts if the run starts with a blank line.
        after_blank = run.rfind(b"\n\n") + 2
        if after_blank == 1 and (run[:1] != b"\n" or self._line or self._spilled):
            self._size += len(run) - run.count(b"\n")
        else:
            self._size = len(run) - after_blank - run.count(b"\n", after_blank)
        line = self._line
        end = run.rfind(b"\n") + 1  # the complete lines are run[:end]
        with memoryview(run) as view:
            start = 0
            if self._spilled:  # the end of a long line
                start = run.find(b"\n") + 1
                line += view[: start - 1]
                self._spilled.append(self._utf8.decode(line, True))
                line.clear()
            if line:
                line += view[start:end]
                text = self._text(line)
                line.clear()
            else:
                text = self._text(view[start:end])
            line += view[end:]
        if not self._started:  # the first line, alone in the run
            self._started = True
            text = text.removeprefix("\ufeff")  # SSE-LINE-2: one byte order mark, there only
            if text == "\n":  # a blank line, once its byte order mark is gone
                self._size = 0
        if self._spilled:  # the long line and the lines after it, joined once
            self._spilled += ("\n", text)
            text = "".join(self._spilled)
            self._spilled.clear()
        received.append(text)
        self._spill()

    def _text(self, lines: bytes | bytearray | memoryview) -> str:
        """Complete lines, LF-ended, as text (SSE-LINE-1)."""
        return str(lines, "utf-8", "replace")

    def _spill(self) -> None:
        """Decode the bytes of a long unfinished line as they come, so that the line is never
        held as bytes and as text at once; the incremental decoder keeps a character cut
        between two reads. Not the first line: its byte order mark is not known yet."""
        if self._started and len(self._line) > SPILL_BYTES:
            self._spilled.append(self._utf8.decode(self._line))
            self._line.clear()

    def _drop(self, received: list[str | Dropped]) -> None:
        """SSE-LIMIT-1: the event being received passed the limit. What is held of it is let go,
        `DROPPED` takes its place, and its bytes are skipped from here."""
        self._forget_line()
        self._started = True
        self._state = State.SKIPPING
        received.append(DROPPED)

    def _forget_line(self) -> None:
        self._line.clear()
        self._spilled.clear()
        self._utf8.reset()

    def _skip(self, chunk: bytes, start: int) -> int:
        """Skip the bytes of a dropped event from `start` to the end of the blank line that ends
        it: answer where that is, or the end of the chunk."""
        at_line_start = self._state is State.SKIPPING_AT_LINE_START
        blank = _LINE_BREAK.match(chunk, start) if at_line_start else None
        blank = blank or _BLANK.search(chunk, start)
        end = len(chunk)
        if blank is None:
            self._after_cr = chunk[-1] == 0x0D
            at_line_start = chunk[-1] in (0x0A, 0x0D)
            self._state = State.SKIPPING_AT_LINE_START if at_line_start else State.SKIPPING
            return end
        self._state = State.RECEIVING
        self._size = 0
        self._after_cr = blank.end() == end and chunk[-1] == 0x0D
        return blank.end()


# -- lines to events ---------------------------------------------------------------------------


def _field(text: str, start: int, end: int) -> tuple[str, int]:
    """SSE-FIELD-2, -3: the name of the field on the line text[start:end], and where its value
    starts: after the first colon and one space after it. A line without a colon is a name
    alone, its value empty."""
    colon = text.find(":", start, end)
    if colon < 0:
        return text[start:end], end
    return text[start:colon], colon + 2 if text.startswith(" ", colon + 1) else colon + 1


Route = Callable[[Event, int], R]  # what becomes of a dispatched event, given its index
Plain = Callable[[Any], Any]  # what becomes of a plain event, given the value of its data


class EventRules:
    """Lines in, dispatched events out (sections 2 to 4). See the module docstring."""

    __slots__ = ("_data", "_event", "_id", "plain")

    def __init__(self) -> None:
        self._data: list[str] = []  # the values of the event's data lines so far
        self._event = ""  # the value of the event's last `event:` line
        self._id = ""  # the last event ID: it outlives the event that set it
        self.plain: Plain | None = None  # the speed seam, when it is taken: see `take`

    @property
    def idle(self) -> bool:
        """No data line of the event being received has come yet."""
        return not self._data

    def take(self, text: str, route: Route[R], routed: list[R], dispatched: int) -> None:
        """Take the lines of `text` (from `Receiver.receive`), appending to `routed`, for each
        event they dispatch, `route(event, index)` (`dispatched` events came before `routed`'s
        first), or, while `plain` is set, `plain(value)` of each plain event. `route` may unset
        `plain`: it is read again after each event `route` takes."""
        at, end = 0, len(text)
        while at < end:
            if self.plain is not None and not self._data:
                at = self._take_plain(text, at, self.plain, routed)
                if at == end:
                    break
            line_end = text.index("\n", at)
            if line_end == at:
                event = self._dispatch()
                if event is not None:
                    routed.append(route(event, dispatched + len(routed)))
            else:
                self._take_field(text, at, line_end)
            at = line_end + 1

    def drop(self) -> Event:
        """SSE-LIMIT-1: the event that passed the limit, dispatched as dropped, its fields forgotten."""
        self._data.clear()
        self._event = ""
        return Event("", "", self._id, dropped=True)

    def close(self) -> bool:
        """End of stream: True when an event with data was being received; it is discarded."""
        unfinished = bool(self._data)
        self._data.clear()
        return unfinished

    def _take_field(self, text: str, start: int, end: int) -> None:
        """The line text[start:end], which is not blank; only a value is copied out."""
        if text[start] == ":":  # SSE-FIELD-1: a comment
            return
        name, value_start = _field(text, start, end)
        if name == "data":  # SSE-FIELD-3
            self._data.append(text[value_start:end])
        elif name == "event":
            self._event = text[value_start:end]
        elif name == "id" and "\0" not in text[value_start:end]:
            self._id = text[value_start:end]
        # `retry` and any other field: ignored (this decoder never reconnects)

    def _dispatch(self) -> Event | None:
        """SSE-EVENT-1: a blank line dispatches the event received; one without data, nothing."""
        event = Event("\n".join(self._data), self._event, self._id) if self._data else None
        self._data.clear()
        self._event = ""
        return event

    def _take_plain(self, text: str, at: int, plain: Plain, routed: list[Any]) -> int:
        """Take the plain events of `text` from `at`, appending `plain(value)` for each to
        `routed`; answer where they stop. The decoder is idle.

        A plain event: an optional `event:` line (it may have come in an earlier chunk: an
        event's name does not route it), one `data:` line holding one JSON value and nothing
        else, and the blank line. The value is scanned where it lies and must end exactly at
        the end of its line: then `_take_field` would have taken that line's value as the
        data, `_dispatch` dispatched it, and `loads_strict` parsed it to the same value.
        Anything else (another field, a second data line, whitespace around the value,
        `[DONE]`, data that is not JSON) stops the run, for the rules to take.
        """
        end, first = len(text), len(routed)
        starts, find, append, head = text.startswith, text.find, routed.append, _PLAIN_HEAD.match
        while at < end:
            start = at
            data = head(text, at)
            if data is None:
                return self._stopped(start, routed, first)
            value_start = data.end()
            line_end = find("\n", value_start)
            if not starts("\n", line_end + 1):  # SSE-EVENT-1
                return self._stopped(start, routed, first)
            try:
                value, value_end = scan_value(text, value_start)  # SSE-DATA-1
            except (StopIteration, ValueError, RecursionError):
                value_end = -1
            if value_end != line_end:
                return self._stopped(start, routed, first)
            append(plain(value))
            at = line_end + 2
        return self._stopped(at, routed, first)

    def _stopped(self, at: int, routed: list[Any], first: int) -> int:
        """Where a run of plain events stopped; each it took was dispatched, which forgets the
        event line before it."""
        if len(routed) > first:
            self._event = ""
        return at


# -- both ------------------------------------------------------------------------------------


def _itself(event: Event, index: int) -> Event:
    return event


class Decoder:
    """Bytes in, dispatched SSE events out: a `Receiver` feeding `EventRules`."""

    __slots__ = ("_dispatched", "receiver", "rules")

    def __init__(
        self,
        max_event_bytes: int = MAX_EVENT_BYTES,
        receiver: type[Receiver] = Receiver,
        rules: type[EventRules] = EventRules,
    ) -> None:
        self.receiver = receiver(max_event_bytes)
        self.rules = rules()
        self._dispatched = 0  # events dispatched by the chunks before

    def feed(self, chunk: bytes) -> list[Event]:
        """The events this chunk completes, in order."""
        return self.dispatch(chunk, _itself)

    def dispatch(self, chunk: bytes, route: Route[R]) -> list[R]:
        """`route(event, index)` of each event this chunk completes, in order, the stream's
        first event's index 0; while `plain` is set, `plain(value)` of each plain event instead
        (the speed seam: see the module docstring)."""
        routed: list[R] = []
        for text in self.receiver.receive(chunk):
            if text is DROPPED:
                routed.append(route(self.rules.drop(), self._dispatched + len(routed)))
            else:
                self.rules.take(text, route, routed, self._dispatched)
        self._dispatched += len(routed)
        return routed

    @property
    def plain(self) -> Plain | None:
        """Where the values of plain events go, read in place; None: every event to `route`."""
        return self.rules.plain

    @plain.setter
    def plain(self, plain: Plain | None) -> None:
        self.rules.plain = plain

    def close(self) -> bool:
        """End of stream: True when it ended inside a line or an event, which is discarded."""
        return self.receiver.close() | self.rules.close()

    @property
    def idle(self) -> bool:
        """No data line of the event being received has come yet."""
        return self.rules.idle

    @property
    def max_event_bytes(self) -> int:
        """The size limit of SSE-LIMIT-1 this decoder keeps."""
        return self.receiver.max_event_bytes
