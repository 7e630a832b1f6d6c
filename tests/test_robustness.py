"""Robustness fuzzing of the reference: nothing escapes, memory stays bounded.

Arbitrary JSON values as events, generated streams with mutated events,
arbitrary bytes into the SSE decoder: `feed`, `feed_bytes` and `close` never
raise, every outcome is valid, `end` comes once and last. The volume test
feeds 20,000 mutated events by default and 1,000,000 under the `thorough`
profile (`tox -e fuzz`).
"""

from __future__ import annotations

import itertools
import json
import random
import tracemalloc
from typing import Any

import pytest
from conftest import THOROUGH
from hypothesis import given, settings
from hypothesis import strategies as st
from streamroute.conformance.schemas import OUTCOME, first_error
from streamroute.conformance.strategies import GeneratedStream, streams
from streamroute.conformance.vectors import Vector
from streamroute.reference import Router
from streamroute.reference.router import MAX_BUFFERED_BYTES, Part
from streamroute.reference.sse import ByteRouter

ROUTED_TYPES = sorted(
    {
        "response.created",
        "response.completed",
        "response.failed",
        "response.incomplete",
        "error",
        "response.output_item.added",
        "response.output_item.done",
        "response.output_text.delta",
        "response.output_text.done",
        "response.refusal.delta",
        "response.reasoning_summary_text.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
    }
)
any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# Objects that look like events: a routed type (or another value) and fields of any JSON value.
event_like = st.fixed_dictionaries(
    {"type": st.sampled_from(ROUTED_TYPES) | any_json},
    optional={
        name: any_json | st.sampled_from(["msg_0", "fc_0", "call_0", 0, 1])
        for name in (
            "item_id",
            "output_index",
            "content_index",
            "call_id",
            "delta",
            "text",
            "arguments",
            "item",
        )
    },
)


def _route_all(events: list[Any]) -> list[dict[str, Any]]:
    router = Router()
    produced = [outcome for event in events for outcome in router.feed(event)]
    return produced + router.close()


def _check(outcomes: list[dict[str, Any]]) -> None:
    for outcome in outcomes:
        assert first_error(OUTCOME, outcome) is None, outcome
    assert [o["kind"] for o in outcomes].count("end") == 1
    assert outcomes[-1]["kind"] == "end"


@given(st.lists(any_json | event_like, max_size=20))
def test_arbitrary_json_values_as_events_never_raise(events: list[Any]) -> None:
    _check(_route_all(events))


def _mutate(rng: random.Random, event: Any, values: list[Any]) -> Any:
    """One change to an event: a field dropped, replaced or added, or the whole event replaced."""
    if not isinstance(event, dict) or not event or rng.random() < 0.05:
        return rng.choice(values)
    event = dict(event)
    name = rng.choice(sorted(event))
    choice = rng.random()
    if choice < 0.3:
        del event[name]
    elif choice < 0.8:
        event[name] = rng.choice(values)
    elif isinstance(event.get("item"), dict):
        item = dict(event["item"])
        item[rng.choice(sorted(item) or ["id"])] = rng.choice(values)
        event["item"] = item
    else:
        event["type"] = rng.choice(ROUTED_TYPES)
    return event


VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    "",
    "msg_0",
    "fc_0",
    "call_0",
    "{",
    "}",
    [],
    {},
    {"id": 1},
    "x" * 40,
]


@given(streams(), st.randoms(use_true_random=False), st.integers(1, 6))
def test_mutated_generated_streams_never_raise(
    stream: GeneratedStream, rng: random.Random, count: int
) -> None:
    events: list[Any] = list(stream.events)
    for _ in range(count):
        if events:
            index = rng.randrange(len(events))
            events[index] = _mutate(rng, events[index], VALUES)
        if events and rng.random() < 0.3:  # a duplicate or a reordering
            events.insert(rng.randrange(len(events) + 1), rng.choice(events))
    _check(_route_all(events))


@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=6))
def test_arbitrary_bytes_into_the_sse_decoder_never_raise(data: bytes, cuts: list[int]) -> None:
    stream = ByteRouter(Router())
    bounds = [0, *sorted(c for c in cuts if c <= len(data)), len(data)]
    outcomes = [
        o for a, b in itertools.pairwise(bounds) for event in stream.feed_bytes(data[a:b]) for o in event
    ]
    _check(outcomes + stream.close())


@given(streams(max_items=2), st.binary(max_size=8), st.integers(0, 10_000))
def test_generated_streams_as_sse_bytes_with_garbage_never_raise(
    stream: GeneratedStream, garbage: bytes, where: int
) -> None:
    wire = (
        b"".join(b"data: " + json.dumps(e).encode("utf-8") + b"\n\n" for e in stream.events)
        + b"data: [DONE]\n\n"
    )
    where = where % (len(wire) + 1)
    wire = wire[:where] + garbage + wire[where:]
    router = ByteRouter(Router())
    outcomes = [
        o for chunk in (wire[:where], wire[where:]) for event in router.feed_bytes(chunk) for o in event
    ]
    _check(outcomes + router.close())


def test_deep_json_data_is_invalid_data_not_a_crash() -> None:
    router = ByteRouter(Router())
    (outcomes,) = router.feed_bytes(b"data: " + b"[" * 100_000 + b"\n\n")
    assert [o["code"] for o in outcomes] == ["invalid_data"]


def test_an_exception_inside_routing_is_an_error_and_routing_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """CORE-EVT-2: a bug of the router, injected into the handling of a text delta, is
    contained by `feed` as one `error`, and the next event is routed as usual."""

    def broken(part: Part, delta: str) -> bool:
        raise RuntimeError("injected")

    router = Router()
    router.feed({"type": "response.output_item.added", "item": {"id": "msg", "type": "message"}})
    delta = {"type": "response.output_text.delta", "item_id": "msg", "content_index": 0, "delta": "hi"}
    with monkeypatch.context() as patch:
        patch.setattr(Part, "append", broken)
        outcomes = router.feed(delta)
    message = "event 1: the router failed: RuntimeError: injected"
    assert outcomes == [{"kind": "error", "code": "internal_error", "message": message}]
    assert [o["kind"] for o in router.feed(delta)] == ["text.delta"]
    _check(router.feed({"type": "response.completed", "response": {"status": "completed"}}) + router.close())


def test_a_runaway_call_holds_at_most_the_limit() -> None:
    """16 MiB of deltas for one call: the router keeps less than the 1 MiB limit and a little more."""
    router = Router()
    router.feed({"type": "response.output_item.added", "item": {"id": "fc", "type": "function_call"}})
    codes = []
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(256):  # a fresh 64 KiB string each time, dropped by the caller after feed
            event = {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc",
                "delta": f"{i:02x}" * 32768,
            }
            codes += [o.get("code") for o in router.feed(event)]
        del event
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < MAX_BUFFERED_BYTES // 4  # the buffer was dropped at the limit
    assert codes.count("too_large") == 256 - MAX_BUFFERED_BYTES // (1 << 16)  # one tool.error, then errors


def test_a_million_fuzzed_events(bundled: list[Vector]) -> None:
    """Mutations of generated events and of the bundled vectors' events, in streams of up to 60, seeded."""
    target = 1_000_000 if THOROUGH else 20_000
    rng = random.Random(20261130)
    base = [e for s in _seed_streams() for e in s]
    base += [e for v in bundled if v.stream is None and v.profile != "execution" for e in v.events]
    fed = streams_run = 0
    while fed < target:
        events = [rng.choice(base) for _ in range(rng.randint(1, 60))]
        events = [_mutate(rng, e, VALUES) if rng.random() < 0.3 else e for e in events]
        router = Router()
        for event in events:
            router.feed(event)
        last = router.close()
        assert last[-1]["kind"] == "end"
        fed += len(events)
        streams_run += 1
    print(f"fed {fed} fuzzed events in {streams_run} streams")


def _seed_streams() -> list[tuple[Any, ...]]:
    """A few hundred well-formed generated streams to mutate."""
    drawn: list[tuple[Any, ...]] = []

    @settings(max_examples=300 if THOROUGH else 40, database=None)
    @given(streams())
    def collect(stream: GeneratedStream) -> None:
        drawn.append(stream.events)

    collect()
    return drawn
