"""Mutants of the `sse` profile (spec/sse.md): each is the reference byte router (or its decoder's
receiver or event rules) with one piece changed, the way a hand-written SSE client gets it wrong."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import broken_decoders
from broken_decoders import LineByLine
from streamroute.reference import Outcome, Router
from streamroute.reference.sse import ByteRouter, EventRouter
from streamroute.wire.event_stream import DONE, DROPPED, MAX_EVENT_BYTES, Dropped, Event, EventRules, Receiver
from streamroute.wire.strict_json import loads_strict

from . import mutant

Tools = Sequence[Mapping[str, Any]]


class Sse(ByteRouter):
    """The reference byte router, claiming sse, every event through the decoder: what each mutant changes.

    Its decoders have no speed seam (`LineByLine`): the seam reads plain events past the pieces a
    mutant changes."""

    profiles = ("core", "sse")
    receiver: ClassVar[type[Receiver]] = Receiver
    rules: ClassVar[type[EventRules]] = EventRules
    max_event_bytes = MAX_EVENT_BYTES

    def __init__(self, tools: Tools) -> None:
        super().__init__(Router(), LineByLine(self.max_event_bytes, self.receiver, self.rules))


def _error(code: str, message: str) -> Outcome:
    return {"kind": "error", "code": code, "message": message}


# -- bytes to lines (section 1) ---------------------------------------------------


class _DropsInvalidBytes(Receiver):
    def _text(self, lines: bytes | bytearray | memoryview) -> str:
        return str(lines, "utf-8", "ignore")


class DropsInvalidBytes(Sse):
    """Decodes with errors="ignore": bytes that are not UTF-8 vanish instead of becoming U+FFFD."""

    receiver = _DropsInvalidBytes


def _latin_1_fallback(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("latin-1")


class _Latin1Fallback(Receiver):
    def _text(self, lines: bytes | bytearray | memoryview) -> str:
        return "".join(map(_latin_1_fallback, bytes(lines).splitlines(keepends=True)))


class Latin1Fallback(Sse):
    """Decodes a line that is not UTF-8 as Latin-1, as clients guessing an encoding do."""

    receiver = _Latin1Fallback


class _StripsEveryBom(Receiver):
    def _text(self, lines: bytes | bytearray | memoryview) -> str:
        return "\n".join(line.lstrip("\ufeff") for line in super()._text(lines).split("\n"))


class StripsEveryBom(Sse):
    """Strips every U+FEFF that starts a line, not one byte order mark at the start of the stream."""

    receiver = _StripsEveryBom


# -- lines to fields (section 2) ----------------------------------------------------


class _DataInComment(EventRules):
    def _take_field(self, text: str, start: int, end: int) -> None:
        found = text.find("data:", start, end)
        super()._take_field(text, found if text[start] == ":" and found > start else start, end)


class DataInComment(Sse):
    """Searches a line for `data:` instead of matching its start: a comment holding one is read as data."""

    rules = _DataInComment


class _KeepsSpace(EventRules):
    def _take_field(self, text: str, start: int, end: int) -> None:
        if text.startswith("data:", start):
            self._data.append(text[start + 5 : end])
        else:
            super()._take_field(text, start, end)


class KeepsSpaceAfterColon(Sse):
    """Takes a data value as it follows the colon, leading space included: `data: [DONE]` is no sentinel.

    So a stream's `[DONE]` produces an outcome: SSE-DATA-3 as well."""

    rules = _KeepsSpace


class _NamesAnyCase(EventRules):
    def _take_field(self, text: str, start: int, end: int) -> None:
        name, colon, value = text[start:end].partition(":")
        super()._take_field(name.lower() + colon + value, 0, end - start)


class FieldNamesAnyCase(Sse):
    """Compares field names case-insensitively: `Data:` is a data line."""

    rules = _NamesAnyCase


class _DataByPrefix(EventRules):
    def _take_field(self, text: str, start: int, end: int) -> None:
        name, colon, value = text[start:end].partition(":")
        if name.startswith("data") and colon:
            text, start, end = "data:" + value, 0, 5 + len(value)
        super()._take_field(text, start, end)


class DataFieldByPrefix(Sse):
    """Takes every field whose name starts with `data` for a data line: `datas:` too.

    So an event's data holds a line that is no data line: SSE-FIELD-3 as well."""

    rules = _DataByPrefix


class _KeepsLastDataLine(EventRules):
    def _take_field(self, text: str, start: int, end: int) -> None:
        if text[start:end].partition(":")[0] == "data":
            self._data.clear()
        super()._take_field(text, start, end)


class KeepsLastDataLine(Sse):
    """Keeps only an event's last data line: each one replaces the data instead of adding a line."""

    rules = _KeepsLastDataLine


class ReportsEventLineMismatch(Sse):
    """Reports an `event:` line that names another type than the data's as an error."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        outcomes = super()._route(event, index)
        try:
            value = loads_strict(event.data)
        except (ValueError, RecursionError):
            return outcomes
        if event.event and isinstance(value, dict) and value.get("type") != event.event:
            outcomes.append(_error("event_mismatch", f"event line {event.event!r} for {value.get('type')!r}"))
        return outcomes


# -- fields to events, chunks (sections 3, 4) ------------------------------------------


class HoldsOnly64KiB(Sse):
    """Holds at most 64 KiB of one event, the default buffer of Go's bufio.Scanner."""

    max_event_bytes = 64 << 10


class HoldsAnyEvent(Sse):
    """Holds whatever arrives of an event, as a line reader with no bound does: no event is too
    large, and a producer's stream decides the client's memory."""

    max_event_bytes = 1 << 62


class DropsAtTheLimit(Sse):
    """Drops an event that reaches 64 MiB rather than one that passes it (`>=` for `>`)."""

    max_event_bytes = MAX_EVENT_BYTES - 1


class DropsAByteLate(Sse):
    """Holds a byte past 64 MiB before it drops an event (`>` tested after the byte is kept)."""

    max_event_bytes = MAX_EVENT_BYTES + 1


class _EmptyDataNotDispatched(EventRules):
    def _dispatch(self) -> Event | None:
        if not "\n".join(self._data):
            self._data.clear()
        return super()._dispatch()


class EmptyDataNotDispatched(Sse):
    """Dispatches an event only when its data is not empty: `data:` alone dispatches nothing."""

    rules = _EmptyDataNotDispatched


class _ChunkEndsLine(Receiver):
    def receive(self, chunk: bytes) -> Sequence[str | Dropped]:
        received = super().receive(chunk)
        return [*received, *super().receive(b"\n")] if self._line else received


class ChunkEndsLine(Sse):
    """Ends a line at the end of every chunk: a line split across two reads becomes two lines."""

    receiver = _ChunkEndsLine


# -- events to the router (section 5) -------------------------------------------------


class AcceptsNanAndInfinity(Sse):
    """Parses data with json.loads' defaults, which take NaN and Infinity for numbers."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        outcomes = super()._route(event, index)
        if [outcome.get("code") for outcome in outcomes] != ["invalid_data"]:
            return outcomes
        try:
            value = json.loads(event.data)
        except ValueError:
            return outcomes
        return self._router.feed(value)


class _ObjectsOnly:
    """A router in front of which only JSON objects pass."""

    def __init__(self, router: EventRouter) -> None:
        self._router = router

    def feed(self, event: object) -> list[Outcome]:
        if isinstance(event, dict):
            return self._router.feed(event)
        return [_error("invalid_data", f"data is a JSON {type(event).__name__}, not an object")]

    def close(self) -> list[Outcome]:
        return self._router.close()


class ObjectsOnly(Sse):
    """Takes only a JSON object for an event: any other JSON value is invalid data, never routed."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._parsed, self._router = self._router, _ObjectsOnly(self._router)

    def feed(self, event: object) -> list[Outcome]:
        return self._parsed.feed(event)  # a parsed event reaches the router as it is


class BadDataEndsStream(Sse):
    """Stops routing at the first data that is not JSON, taking the stream for broken.

    So it ends the stream at data that only begins with `[DONE]`: SSE-DATA-6 as well (spec/core.md 12.5)."""

    broken = False

    def _route(self, event: Event, index: int) -> list[Outcome]:
        outcomes = [] if self.broken else super()._route(event, index)
        self.broken = self.broken or any(outcome.get("code") == "invalid_data" for outcome in outcomes)
        return outcomes


class DoneClosesRouter(Sse):
    """Closes the router at `[DONE]`, so the stream's end comes with it rather than at close."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        done = event.data == DONE and not self._done
        outcomes = super()._route(event, index)
        return outcomes + self._router.close() if done else outcomes


class DoneByPrefix(Sse):
    """Takes any data starting with `[DONE]` for the sentinel."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        return super()._route(Event(DONE) if event.data.startswith(DONE) else event, index)


class SilentAfterDone(Sse):
    """Drops every event after `[DONE]` without a word."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        after_done = self._done
        outcomes = super()._route(event, index)
        return [] if after_done else outcomes


# -- more shapes of the same requirements ------------------------------------------------


class _StripsLeadingBoms(Receiver):
    def _text(self, lines: bytes | bytearray | memoryview) -> str:
        text = super()._text(lines)
        return text if self._started else text.lstrip("\ufeff")  # the stream's first line


class StripsLeadingBoms(Sse):
    """Strips every U+FEFF that starts the stream, `text.lstrip("\\ufeff")`, not the one byte order mark."""

    receiver = _StripsLeadingBoms


class _CrlfIsTwoBreaks(Receiver):
    def receive(self, chunk: bytes) -> Sequence[str | Dropped]:
        self._after_cr = False  # an LF after a CR is a break of its own, wherever the bytes were cut
        return super().receive(chunk.replace(b"\r\n", b"\n\n"))


class CrlfIsTwoBreaks(Sse):
    """Splits lines at every CR and every LF, so a CR LF is two line breaks: the event ends early."""

    receiver = _CrlfIsTwoBreaks


class _CommentClearsEvent(EventRules):
    def _take_field(self, text: str, start: int, end: int) -> None:
        if text[start] == ":":
            self._data.clear()  # a line it does not read as a field starts the event over
        super()._take_field(text, start, end)


class CommentClearsEvent(Sse):
    """Takes a comment line for the start of a new event: the data lines read before it are dropped."""

    rules = _CommentClearsEvent


class _CommentInEventIsData(EventRules):
    in_event = False  # a field of the event being received has been read

    def _take_field(self, text: str, start: int, end: int) -> None:
        if text[start] == ":" and self.in_event:
            self._data.append(text[start + 1 : end])
        else:
            super()._take_field(text, start, end)
        self.in_event = True

    def _dispatch(self) -> Event | None:
        self.in_event = False
        return super()._dispatch()


class CommentInEventIsData(Sse):
    """Ignores comments between events only: one among an event's lines is read as a data line."""

    rules = _CommentInEventIsData


class _KeepsFinalLf(EventRules):
    def _dispatch(self) -> Event | None:
        if self._data:
            self._data.append("")  # each value plus LF, and the last LF never removed
        return super()._dispatch()


class KeepsFinalLf(Sse):
    """Appends an LF after each data value and never removes the last: `data: [DONE]` is `[DONE]` LF."""

    rules = _KeepsFinalLf


class _BadRetryDropsEvent(EventRules):
    bad = False  # the event being received has a retry that is no number

    def _take_field(self, text: str, start: int, end: int) -> None:
        name, _, value = text[start:end].partition(":")
        self.bad = self.bad or (name == "retry" and not value.strip().isdigit())
        super()._take_field(text, start, end)

    def _dispatch(self) -> Event | None:
        if self.bad:
            self._data.clear()
        self.bad = False
        return super()._dispatch()


class BadRetryDropsEvent(Sse):
    """Drops an event whose retry field is not a number, as a parser that reads retry with int() does."""

    rules = _BadRetryDropsEvent


class _DataNotForgotten(EventRules):
    def _dispatch(self) -> Event | None:
        data = list(self._data)
        event = super()._dispatch()
        self._data[:] = data  # the buffer is never reset
        return event


class DataNotForgotten(Sse):
    """Never resets its data buffer after a dispatch: each event's data holds every data line before it."""

    rules = _DataNotForgotten


class FlushesCompleteJsonAtClose(Sse):
    """At the end of the stream, dispatches an unfinished event whose data is already complete JSON."""

    def close(self) -> list[Outcome]:
        data = "\n".join(self._decoder.rules._data)
        try:
            loads_strict(data)
        except (ValueError, RecursionError):
            return super().close()
        return self._route(Event(data), self._decoder._dispatched) + super().close()


class ReportsUnfinishedEvent(Sse):
    """Reports an event the stream ended inside as an error, instead of discarding it silently."""

    def close(self) -> list[Outcome]:
        unfinished = self._decoder.close()
        said = [_error("truncated_event", "the stream ended inside an event")] if unfinished else []
        return said + self._router.close()


def _each_line(received: Sequence[str | Dropped], read_line: Callable[[str], str]) -> list[str | Dropped]:
    """The text a receiver received, each of its lines made by `read_line`."""
    return [
        text if text is DROPPED else "".join(read_line(line) + "\n" for line in text[:-1].split("\n"))
        for text in received
    ]


def _first_fragment(line: str) -> str:
    return line[: 64 << 10]  # bufio.Reader.ReadLine's first fragment only


class _TruncatesLongLines(Receiver):
    def receive(self, chunk: bytes) -> Sequence[str | Dropped]:
        return _each_line(super().receive(chunk), _first_fragment)


class TruncatesLongLines(Sse):
    """Keeps the first 64 KiB of a longer line, as a Go decoder that ignores ReadLine's isPrefix does."""

    receiver = _TruncatesLongLines


def _readline(line: str) -> str:
    if len(line) > 64 << 10:
        raise ValueError("Separator is not found, and chunk exceed the limit")
    return line


class _RaisesPastLineLimit(Receiver):
    def receive(self, chunk: bytes) -> Sequence[str | Dropped]:
        return _each_line(super().receive(chunk), _readline)


class RaisesPastLineLimit(Sse):
    """Reads lines with asyncio's StreamReader.readline, whose 64 KiB limit raises out of the stream."""

    receiver = _RaisesPastLineLimit


class EmptyChunkEndsStream(Sse):
    """Takes an empty read for the end of the stream (`if not chunk: break`): nothing after it is decoded."""

    ended = False

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        self.ended = self.ended or chunk == b""
        return [] if self.ended else super().feed_bytes(chunk)


class HoldsLastEvent(Sse):
    """Holds each chunk's last event back until the next chunk comes, in case more of it follows."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self.held: list[list[Outcome]] = []  # the outcomes of the last event dispatched, not handed over

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        routed = self.held + super().feed_bytes(chunk)
        self.held = routed[-1:]
        return routed[:-1]

    def close(self) -> list[Outcome]:
        return [outcome for outcomes in self.held for outcome in outcomes] + super().close()


class BuffersTheWholeStream(Sse):
    """Reads the whole body before decoding it, so every event comes at close."""

    body = b""

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        self.body += chunk
        return []

    def close(self) -> list[Outcome]:
        routed = super().feed_bytes(self.body)
        return [outcome for outcomes in routed for outcome in outcomes] + super().close()


class ArraysAreBatches(Sse):
    """Takes data that is a JSON array for a batch of events and feeds each: an empty one feeds nothing."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        try:
            value = loads_strict(event.data)
        except (ValueError, RecursionError):
            value = None
        if self._done or not isinstance(value, list):
            return super()._route(event, index)
        return [outcome for each in value for outcome in self._router.feed(each)]


class AcceptsControlCharacters(Sse):
    """Parses data with json.loads(strict=False), which takes a raw line break inside a string."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        outcomes = super()._route(event, index)
        if [outcome.get("code") for outcome in outcomes] != ["invalid_data"]:
            return outcomes
        try:
            value = json.loads(event.data, strict=False, parse_constant=_refused_constant)
        except ValueError:
            return outcomes
        return self._router.feed(value)


def _refused_constant(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


class DoneReportedAsIgnored(Sse):
    """Reports `[DONE]` as an ignored event of type `[DONE]`."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        first = event.data == DONE and not self._done
        outcomes = super()._route(event, index)
        return [{"kind": "ignored", "type": DONE}] if first else outcomes


class DoneFedAsString(Sse):
    """Hands `[DONE]` to its router as the string it is, the way a callback gets every message."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        first = event.data == DONE and not self._done
        outcomes = super()._route(event, index)
        return self._router.feed(DONE) if first else outcomes


class DoneEndsCompleted(Sse):
    """Takes `[DONE]` for a normal end: a stream that ends with it, without a terminal event, is completed.

    The `end` it gives such a stream has a status no terminal event decided, so it breaks
    CORE-LIFE-8 (`truncated` without a terminal event) as well as SSE-DATA-5, which restates it."""

    def close(self) -> list[Outcome]:
        outcomes = super().close()
        if not self._done:
            return outcomes
        return [
            {**o, "status": "completed"} if o == {"kind": "end", "status": "truncated"} else o
            for o in outcomes
        ]


class DoneSettlesOpenCalls(Sse):
    """Ends the response at `[DONE]`: the calls still open are told incomplete there, not at close."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        first = event.data == DONE and not self._done
        outcomes = super()._route(event, index)
        return outcomes + self._router._end_response() if first else outcomes


class DoneStripped(Sse):
    """Compares data with `[DONE]` after stripping it: `[DONE] ` is the sentinel."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        return super()._route(Event(DONE) if event.data.strip() == DONE else event, index)


class DoneAnyCase(Sse):
    """Compares data with `[DONE]` whatever its case: `[done]` is the sentinel."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        return super()._route(Event(DONE) if event.data.upper() == DONE else event, index)


class RoutesAfterDone(Sse):
    """Knows `[DONE]` and answers it with nothing, but keeps routing the events after it."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        return [] if event.data == DONE else super()._route(event, index)


MUTANTS = [
    mutant(DropsInvalidBytes, "sse.drops-invalid-bytes", "SSE-LINE-1"),
    mutant(Latin1Fallback, "sse.latin-1-fallback", "SSE-LINE-1"),
    mutant(broken_decoders.KeepsBom, "sse.keeps-bom", "SSE-LINE-2"),
    mutant(StripsEveryBom, "sse.strips-every-bom", "SSE-LINE-2"),
    mutant(broken_decoders.IgnoresCr, "sse.ignores-cr", "SSE-LINE-3"),
    mutant(
        broken_decoders.ForgetsCrBetweenChunks,
        "sse.crlf-across-reads-is-two-lines",
        "SSE-LINE-3",
        "SSE-CHUNK-1",
    ),
    mutant(DataInComment, "sse.data-in-comment", "SSE-FIELD-1"),
    mutant(KeepsSpaceAfterColon, "sse.keeps-space-after-colon", "SSE-FIELD-2", "SSE-DATA-3"),
    mutant(FieldNamesAnyCase, "sse.field-names-any-case", "SSE-FIELD-2"),
    mutant(DataFieldByPrefix, "sse.data-field-by-prefix", "SSE-FIELD-2", "SSE-FIELD-3"),
    mutant(broken_decoders.JoinsDataWithoutLf, "sse.joins-data-without-lf", "SSE-FIELD-3"),
    mutant(KeepsLastDataLine, "sse.keeps-last-data-line", "SSE-FIELD-3"),
    mutant(broken_decoders.RoutesByEventLine, "sse.routes-by-event-line", "SSE-FIELD-4"),
    mutant(ReportsEventLineMismatch, "sse.reports-event-line-mismatch", "SSE-FIELD-4"),
    mutant(broken_decoders.DispatchesEventsWithoutData, "sse.dispatches-events-without-data", "SSE-EVENT-1"),
    mutant(EmptyDataNotDispatched, "sse.empty-data-not-dispatched", "SSE-EVENT-1"),
    mutant(broken_decoders.FlushesAtClose, "sse.flushes-at-close", "SSE-EVENT-2"),
    mutant(HoldsOnly64KiB, "sse.holds-only-64-kib", "SSE-LIMIT-1"),
    mutant(HoldsAnyEvent, "sse.holds-any-event", "SSE-LIMIT-1"),
    mutant(DropsAtTheLimit, "sse.drops-at-the-limit", "SSE-LIMIT-1"),
    mutant(DropsAByteLate, "sse.drops-a-byte-late", "SSE-LIMIT-1"),
    mutant(broken_decoders.DecodesEachChunk, "sse.decodes-each-chunk", "SSE-CHUNK-1", "SSE-LINE-1"),
    mutant(ChunkEndsLine, "sse.chunk-ends-line", "SSE-CHUNK-1"),
    mutant(broken_decoders.WaitsForLf, "sse.waits-for-lf", "SSE-CHUNK-2"),
    mutant(AcceptsNanAndInfinity, "sse.accepts-nan-and-infinity", "SSE-DATA-1"),
    mutant(ObjectsOnly, "sse.objects-only", "SSE-DATA-1"),
    mutant(broken_decoders.StopsAtBadData, "sse.stops-at-bad-data", "SSE-DATA-2", "CORE-EVT-2"),
    mutant(BadDataEndsStream, "sse.bad-data-ends-stream", "SSE-DATA-2", "SSE-DATA-6"),
    mutant(broken_decoders.DoesNotKnowDone, "sse.does-not-know-done", "SSE-DATA-3", "SSE-DATA-4"),
    mutant(DoneClosesRouter, "sse.done-closes-router", "SSE-DATA-5"),
    mutant(DoneByPrefix, "sse.done-by-prefix", "SSE-DATA-6"),
    mutant(SilentAfterDone, "sse.silent-after-done", "SSE-DATA-4"),
    mutant(StripsLeadingBoms, "sse.strips-leading-boms", "SSE-LINE-2"),
    mutant(CrlfIsTwoBreaks, "sse.crlf-is-two-breaks", "SSE-LINE-3"),
    mutant(CommentClearsEvent, "sse.comment-clears-event", "SSE-FIELD-1"),
    mutant(CommentInEventIsData, "sse.comment-in-event-is-data", "SSE-FIELD-1"),
    mutant(KeepsFinalLf, "sse.keeps-final-lf", "SSE-FIELD-3"),
    mutant(BadRetryDropsEvent, "sse.bad-retry-drops-event", "SSE-FIELD-4"),
    mutant(DataNotForgotten, "sse.data-not-forgotten", "SSE-EVENT-1"),
    mutant(FlushesCompleteJsonAtClose, "sse.flushes-complete-json-at-close", "SSE-EVENT-2"),
    mutant(ReportsUnfinishedEvent, "sse.reports-unfinished-event", "SSE-EVENT-2"),
    mutant(TruncatesLongLines, "sse.truncates-long-lines", "SSE-LIMIT-1"),
    # Raising out of the stream, it breaks CORE-EVT-2 (feed MUST NOT raise) as well.
    mutant(RaisesPastLineLimit, "sse.raises-past-line-limit", "SSE-LIMIT-1", "CORE-EVT-2"),
    mutant(EmptyChunkEndsStream, "sse.empty-chunk-ends-stream", "SSE-CHUNK-1"),
    mutant(HoldsLastEvent, "sse.holds-last-event", "SSE-CHUNK-2"),
    mutant(BuffersTheWholeStream, "sse.buffers-the-whole-stream", "SSE-CHUNK-2"),
    mutant(ArraysAreBatches, "sse.arrays-are-batches", "SSE-DATA-1"),
    mutant(AcceptsControlCharacters, "sse.accepts-control-characters", "SSE-DATA-2"),
    mutant(DoneReportedAsIgnored, "sse.done-reported-as-ignored", "SSE-DATA-3"),
    mutant(DoneFedAsString, "sse.done-fed-as-string", "SSE-DATA-3"),
    mutant(DoneEndsCompleted, "sse.done-ends-completed", "SSE-DATA-5", "CORE-LIFE-8"),
    mutant(DoneSettlesOpenCalls, "sse.done-settles-open-calls", "SSE-DATA-5"),
    mutant(DoneStripped, "sse.done-stripped", "SSE-DATA-6"),
    mutant(DoneAnyCase, "sse.done-any-case", "SSE-DATA-6"),
    mutant(RoutesAfterDone, "sse.routes-after-done", "SSE-DATA-4"),
]
