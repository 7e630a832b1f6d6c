"""The events an sse vector's bytes decode to, and whether an implementation's decoder did its part
in a failure (spec/attribution.md section 1.5).

The stream is read as spec/sse.md has it, by the decoder the harness and the reference share
(streamroute.wire.event_stream), each SSE event's data parsed as strict JSON: an event routes its
value; the `[DONE]` sentinel, data that is not JSON, an event past the size limit and every event
after `[DONE]` route nothing. Run on the routed values as a core vector, an implementation shows
what its router makes of the events; when that is what it made of the bytes, its decoder did its
part, and a failure is its router's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from streamroute.wire.event_stream import DONE, Decoder
from streamroute.wire.strict_json import loads_strict

from .implementation import AdapterFailure, AdapterSkipped, Implementation, Produced
from .vectors import Vector


class Unrouted:
    """What stands for an SSE event that routes nothing, among the events a stream decodes to."""

    def __repr__(self) -> str:
        return "UNROUTED"


UNROUTED: Final = Unrouted()
_STREAM_ONLY = ("stream", "stream_base64", "cuts")


def decoded_events(stream: bytes) -> list[Any]:
    """Each SSE event the stream dispatches, in order: the JSON value it routes, or `UNROUTED`."""
    decoder = Decoder()
    dispatched = decoder.feed(stream)
    decoder.close()
    events: list[Any] = []
    done = False
    for event in dispatched:
        if done or event.dropped or event.data == DONE:
            done = done or (not event.dropped and event.data == DONE)
            events.append(UNROUTED)
            continue
        try:
            events.append(loads_strict(event.data))
        except (ValueError, RecursionError):  # data that is not JSON (SSE-DATA-2)
            events.append(UNROUTED)
    return events


def routed_outcomes(
    implementation: Implementation, vector: Vector, events: Sequence[Any]
) -> list[Produced] | None:
    """What the implementation produces from the routed `events` as a core vector, each outcome at
    the SSE event it comes from; None when it takes no core vector or fails on this one."""
    if "core" not in implementation.profiles:
        return None
    positions = [index for index, event in enumerate(events) if event is not UNROUTED]
    data = {key: value for key, value in vector.data.items() if key not in _STREAM_ONLY}
    data["events"] = [events[index] for index in positions]
    try:
        produced = implementation.produce(Vector(vector.path, data))
    except (AdapterFailure, AdapterSkipped):
        return None
    return [Produced(positions[e.at] if e.at != "close" else e.at, e.outcome) for e in produced]


def decoder_did_its_part(
    events: Sequence[Any], from_bytes: Sequence[Produced], from_events: Sequence[Produced]
) -> bool:
    """Whether what the bytes made, at the events that route something and at close, is what the
    routed events made (the bytes dispatched as many SSE events as they decode to)."""
    if any(entry.at != "close" and entry.at >= len(events) for entry in from_bytes):
        return False
    routed = [entry for entry in from_bytes if entry.at == "close" or events[entry.at] is not UNROUTED]
    return [(e.at, e.outcome) for e in routed] == [(e.at, e.outcome) for e in from_events]
