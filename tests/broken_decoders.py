"""Deliberately broken SSE decoders: each makes one mistake hand-written parsers make.

Each is the reference `ByteRouter` (or the receiver or the event rules of the
`Decoder` it is given) with one behaviour changed, so it fails exactly the `sse` vectors that check that
behaviour and passes the rest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from streamroute.reference import Outcome, Router
from streamroute.reference.sse import ByteRouter
from streamroute.wire.event_stream import DONE, Decoder, Dropped, Event, EventRules, Plain, Receiver


class LineByLine(Decoder):
    """The reference decoder without its speed seam: every event is taken by the rules."""

    @property
    def plain(self) -> Plain | None:
        return None

    @plain.setter
    def plain(self, plain: Plain | None) -> None:
        """Not taken."""


class _Miniature(ByteRouter):
    profiles = ("sse",)
    decoder: type[Decoder] = Decoder
    receiver: type[Receiver] = Receiver
    rules: type[EventRules] = EventRules

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(Router(), self.decoder(receiver=self.receiver, rules=self.rules))


class DecodesEachChunk(_Miniature):
    """Decodes every chunk as UTF-8 on its own: a character cut between two reads becomes U+FFFD."""

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        return super().feed_bytes(chunk.decode("utf-8", "replace").encode("utf-8"))


class IgnoresCr(_Miniature):
    """Splits lines at LF only and drops every CR: a lone CR ends no line."""

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        return super().feed_bytes(chunk.replace(b"\r", b""))


class _ForgetsCr(Receiver):
    def receive(self, chunk: bytes) -> Sequence[str | Dropped]:
        self._after_cr = False
        return super().receive(chunk)


class ForgetsCrBetweenChunks(_Miniature):
    """A CR at the end of one chunk and the LF starting the next are two line breaks.

    So what it dispatches depends on where the bytes were cut: SSE-CHUNK-1 as well as SSE-LINE-3."""

    receiver = _ForgetsCr


class _KeepsBom(Receiver):
    def __init__(self, max_event_bytes: int) -> None:
        super().__init__(max_event_bytes)
        self._started = True


class KeepsBom(_Miniature):
    """Never strips the byte order mark."""

    receiver = _KeepsBom


class WaitsForLf(_Miniature):
    """Holds a chunk's final CR until it knows whether an LF follows: the last event waits for close."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(tools)
        self.held = b""

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        chunk, self.held = self.held + chunk, b""
        if chunk.endswith(b"\r"):
            chunk, self.held = chunk[:-1], b"\r"
        return super().feed_bytes(chunk)

    def close(self) -> list[Outcome]:
        late = [outcome for outcomes in super().feed_bytes(self.held) for outcome in outcomes]
        return late + super().close()


class FlushesAtClose(_Miniature):
    """Dispatches the unterminated last event at the end of the stream."""

    def close(self) -> list[Outcome]:
        late = [outcome for outcomes in super().feed_bytes(b"\n\n") for outcome in outcomes]
        return late + super().close()


class _JoinsWithoutLf(EventRules):
    def _dispatch(self) -> Event | None:
        self._data[:] = ["".join(self._data)] if self._data else []
        return super()._dispatch()


class JoinsDataWithoutLf(_Miniature):
    """Concatenates an event's data lines without the LF between them."""

    rules = _JoinsWithoutLf


class _DispatchesEmpty(EventRules):
    def _dispatch(self) -> Event | None:
        event = super()._dispatch()
        return Event("") if event is None else event


class DispatchesEventsWithoutData(_Miniature):
    """Dispatches at every empty line, data or not: keep-alives become events."""

    rules = _DispatchesEmpty


class DoesNotKnowDone(_Miniature):
    """Parses `[DONE]` as JSON like any data, and routes what follows."""

    def _route(self, event: Event, index: int) -> list[Outcome]:
        return super()._route(Event("[DONE] ") if event.data == DONE else event, index)


class RoutesByEventLine(_Miniature):
    """Takes the type from the SSE `event:` line when there is one."""

    decoder = LineByLine  # every event goes through `_route`, which makes the mistake

    def _route(self, event: Event, index: int) -> list[Outcome]:
        parsed = json.loads(event.data) if event.event and event.data.startswith("{") else None
        if isinstance(parsed, dict):
            event = Event(json.dumps({**parsed, "type": event.event}), event.event, event.id)
        return super()._route(event, index)


class StopsAtBadData(_Miniature):
    """Raises on data that is not JSON, as `json.loads` does when nobody catches it.

    Feed raises, so it breaks CORE-EVT-2 as well as SSE-DATA-2, and claims core with sse."""

    profiles = ("core", "sse")

    def _route(self, event: Event, index: int) -> list[Outcome]:
        if event.data != DONE:
            json.loads(event.data)
        return super()._route(event, index)
