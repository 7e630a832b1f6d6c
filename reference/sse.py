"""The reference of the streamroute `sse` profile: bytes on the wire to routed events.

The bytes become SSE events through streamroute.wire.event_stream's `Decoder` (spec/sse.md,
sections 1 to 4), the one reading of an event stream that the reference and the harness share.
`ByteRouter` puts a router behind it (section 5): the data of each dispatched event is the
`[DONE]` sentinel, or JSON text fed to the router, or not JSON (one `error`, the stream goes
on). After `[DONE]`, nothing is routed. `feed_bytes` answers one list of outcomes per
dispatched event, which is how the harness attributes outcomes to SSE events whatever the cuts.

It takes the decoder's speed seam: the value of a plain event, parsed where it lies, goes
straight to the router, which is what `_route` would do with the event (tests/test_sse.py
holds the two equal).
"""

from __future__ import annotations

from typing import Any, Protocol

from streamroute.wire.event_stream import DONE, Decoder, Event
from streamroute.wire.strict_json import loads_strict

from .types import Outcome, error_outcome


class EventRouter(Protocol):
    """What `ByteRouter` feeds: a `Router`, or anything routing parsed events like one."""

    def feed(self, event: Any) -> list[Outcome]: ...

    def close(self) -> list[Outcome]: ...


class ByteRouter:
    """A router fed from bytes. See the module docstring."""

    def __init__(self, router: EventRouter, decoder: Decoder | None = None) -> None:
        self._router = router
        self._decoder = Decoder() if decoder is None else decoder  # one of another size limit, say
        self._decoder.plain = router.feed  # the speed seam, until `[DONE]`
        self._done = False  # `[DONE]` was dispatched

    def feed(self, event: object) -> list[Outcome]:
        """One parsed event straight to the router: the `core` contract."""
        return self._router.feed(event)

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        """The outcomes of each SSE event this chunk dispatches, one list per event."""
        return self._decoder.dispatch(chunk, self._route)

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
            self._decoder.plain = None  # every event after it is an error, through here
            return []
        try:
            value: Any = loads_strict(event.data)  # SSE-DATA-1
        except (ValueError, RecursionError) as exc:  # SSE-DATA-2
            return [error_outcome("invalid_data", f"SSE event {index}: data is not JSON: {exc}")]
        return self._router.feed(value)
