"""The sse profile: the reference decoder, the harness under every cut, and checks that can fail."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import re
import shlex
import sys
import tracemalloc
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from broken_decoders import LineByLine
from conftest import calls_made, write_vector
from hypothesis import given
from hypothesis import strategies as st
from streamroute.bench import growth
from streamroute.conformance.fuzz import claimed, draw_streams, tool_call_point
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.options import DEFAULT_ADAPTER
from streamroute.conformance.protocol import ProtocolImplementation
from streamroute.conformance.results import Status
from streamroute.conformance.vectors import Vector, VectorFileError, load_file, load_vectors
from streamroute.reference import Outcome, Router
from streamroute.reference.sse import ByteRouter
from streamroute.wire.event_stream import (
    MAX_EVENT_BYTES,
    Decoder,
    Dropped,
    Event,
    EventRules,
    Plain,
    Receiver,
)

KiB = 1024
MB = 1_000_000
SINGLE_BYTES = [bytes([value]) for value in range(256)]


def _sse(bundled: list[Vector]) -> list[Vector]:
    return [v for v in bundled if v.profile == "sse"]


def _decode(stream: bytes, offsets: Iterable[int]) -> tuple[list[Event], bool]:
    decoder = Decoder()
    bounds = [0, *offsets, len(stream)]
    events = [event for start, end in itertools.pairwise(bounds) for event in decoder.feed(stream[start:end])]
    return events, decoder.close()


# -- the decoder -----------------------------------------------------------------


def test_the_sse_profile_has_at_least_25_vectors_each_cut_two_ways_one_byte_at_a_time(
    bundled: list[Vector],
) -> None:
    """One byte a chunk, but for a stream past 64 KiB (sse/limits), which is cut in small strides:
    one byte a chunk of it would be most of the suite's feeds and shows nothing a short one does not;
    a stream past 64 MiB has a byte a chunk where its limit is passed."""
    vectors = _sse(bundled)
    assert len(vectors) >= 25
    assert all(len(v.cuts()) >= 2 for v in vectors)
    for vector in vectors:
        assert vector.stream is not None
        first = vector.cuts()[0]
        if len(vector.stream) <= 1 << 16:
            assert first.label == "every byte", vector.id
        elif len(vector.stream) <= MAX_EVENT_BYTES:
            assert max(map(len, first.chunks)) < 1024, vector.id
        else:  # a stream past 64 MiB in small strides would be millions of reads: a byte where it counts
            assert any(len(chunk) == 1 for cut in vector.cuts() for chunk in cut.chunks), vector.id


def test_random_cuts_decode_every_bundled_stream_the_same(bundled: list[Vector]) -> None:
    shuffle = random.Random(4)
    for vector in _sse(bundled):
        stream = vector.stream
        assert stream is not None
        whole = _decode(stream, [])
        for _ in range(20):
            offsets = sorted(shuffle.randrange(len(stream) + 1) for _ in range(shuffle.randrange(1, 12)))
            assert _decode(stream, offsets) == whole, (vector.id, offsets)


def test_fields_and_dispatch() -> None:
    stream = (
        b"\xef\xbb\xbfid: 7\r\nevent: x\r\ndata: a\r\ndata:b\r\n: c\r\nretry: 1\r\n\r\n"
        b"id: 8\x00\ndata\n\nevent: y\n\n"  # an id holding NUL is ignored, as WHATWG says
    )
    events, unfinished = _decode(stream, [])
    assert events == [Event("a\nb", "x", "7"), Event("", "", "7")]
    assert not unfinished


@pytest.mark.parametrize("tail", [b"data: x\n", b"data: x", b": ping"])
def test_close_says_when_the_stream_ended_inside_an_event(tail: bytes) -> None:
    events, unfinished = _decode(b"data: 1\n\n" + tail, [3])
    assert events == [Event("1")]
    assert unfinished


# -- one byte at a time, and linear cost -----------------------------------------


def _route(chunks: Iterable[bytes]) -> tuple[str, int]:
    """A digest of every outcome with its SSE event's index, and how many outcomes there were."""
    router = ByteRouter(Router())
    digest = hashlib.sha256()
    count = index = 0
    for chunk in chunks:
        for outcomes in router.feed_bytes(chunk):
            digest.update(json.dumps([index, outcomes], sort_keys=True).encode())
            count += len(outcomes)
            index += 1
    closing = router.close()
    digest.update(json.dumps(["close", closing], sort_keys=True).encode())
    assert closing[-1] == {"kind": "end", "status": "completed"}
    return digest.hexdigest(), count + len(closing)


def _one_byte_equals_64k(size: int) -> None:
    stream = growth.many_events(size)
    by_chunks = _route(growth.in_chunks(stream, 64 * KiB))
    assert by_chunks[1] > size // 300  # it did route: about 4 text deltas and 1 extension a KB
    assert _route(growth.one_byte_at_a_time(stream)) == by_chunks


@pytest.mark.slow
def test_5_mb_one_byte_at_a_time_and_in_64_kib_chunks_route_the_same() -> None:
    _one_byte_equals_64k(5 * MB)


@pytest.mark.skipif(
    not os.environ.get("STREAMROUTE_STRESS"), reason="set STREAMROUTE_STRESS=1 (tox -e stress)"
)
def test_50_mb_one_byte_at_a_time_and_in_64_kib_chunks_route_the_same() -> None:
    _one_byte_equals_64k(50 * MB)


class _Counted:
    taken = 0  # bytes and characters taken by the reference decoder's steps


class _CountingReceiver(Receiver):
    """Counting each chunk's bytes, and the bytes of complete lines it decodes at once, which a
    receiver that decodes what it has decoded again counts again."""

    def receive(self, chunk: bytes) -> Sequence[str | Dropped]:
        _Counted.taken += len(chunk)
        return super().receive(chunk)

    def _text(self, lines: bytes | bytearray | memoryview) -> str:
        _Counted.taken += len(lines)
        return super()._text(lines)


class _CountingRules(EventRules):
    """Counting the characters each reader takes: a field's line, a blank line, and a run of
    plain events from where it starts to where it stops, which rules that take what they have
    taken again count again."""

    def _take_field(self, text: str, start: int, end: int) -> None:
        _Counted.taken += end - start + 1
        super()._take_field(text, start, end)

    def _dispatch(self) -> Event | None:
        _Counted.taken += 1
        return super()._dispatch()

    def _take_plain(self, text: str, at: int, plain: Plain, routed: list[Any]) -> int:
        stop = super()._take_plain(text, at, plain, routed)
        _Counted.taken += stop - at
        return stop


def _decoding_work(shape: growth.Shape, size: int) -> tuple[int, int]:
    """The calls made and the characters taken to route the shape's stream of about `size` bytes."""
    stream = shape.make(size)

    def run() -> None:
        router = ByteRouter(Router(), Decoder(receiver=_CountingReceiver, rules=_CountingRules))
        for chunk in shape.cut(stream):
            router.feed_bytes(chunk)
        router.close()

    _Counted.taken = 0
    calls = calls_made(run)
    return calls, _Counted.taken


@pytest.mark.parametrize("shape", growth.SHAPES)
def test_the_work_is_linear(shape: str) -> None:
    """Four times the bytes take at most about four times the calls, and each byte and character is
    taken a bounded number of times: a quadratic decoder would do sixteen times the work. Counted,
    not timed; `streamroute bench` reports the times (bench/growth.py)."""
    size = 10_000
    small_calls, small_taken = _decoding_work(growth.SHAPES[shape], size)
    large_calls, large_taken = _decoding_work(growth.SHAPES[shape], 4 * size)
    assert large_calls < 4.5 * small_calls, (
        f"{shape}: 4x the input took {large_calls / small_calls:.1f}x the calls"
    )
    assert large_taken < 4.5 * small_taken, f"{shape}: 4x the input took {large_taken / small_taken:.1f}x"
    # Each byte is received, decoded once and read once: three times, and a little more.
    assert large_taken < 4 * len(growth.SHAPES[shape].make(4 * size))


# -- plain events: read in place, the same as through the decoder -----------------


def _sse_event(event: dict[str, Any], named: bool = True) -> bytes:
    head = f"event: {event['type']}\n" if named else ""
    return f"{head}data: {json.dumps(event, separators=(',', ':'))}\n\n".encode()


_WHERE = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
ROUTED = [
    _sse_event({"type": "response.created", "response": {"id": "resp_1"}}),
    _sse_event(
        {"type": "response.output_item.added", "output_index": 0, "item": {"id": "msg_1", "type": "message"}}
    ),
    _sse_event({"type": "response.output_text.delta", **_WHERE, "delta": "héllo\u2028 😀"}),
    _sse_event({"type": "response.output_text.delta", **_WHERE, "delta": " world"}, named=False),
    _sse_event({"type": "response.output_text.done", **_WHERE, "text": "héllo\u2028 😀 world"}),
    _sse_event({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
]
# Lines that look almost plain, each read differently by the decoder than by a careless reader.
ALMOST_PLAIN = [
    b"data: [1,\n2]\n\n",  # the value goes on past its line: `2]` is a field, the data is `[1,`
    b'data: {"type":"x"} \n\n',  # whitespace after the value
    b'data:  {"type":"x"}\n\n',  # and before it
    b'data:{"type":"x"}\n\n',  # no space after the colon
    b"data:x{}\n\n",  # not JSON, though one is in it
    b'data: {"type":"x"}\r\n\r\n',
    b'event: a\ndata: {"type":"x"}\ndata: {"type":"y"}\n\n',  # two data lines
    b'data: {"type":"x"}\n: keep-alive\n\n',
    b'data: {"type":"x"}\nevent: y\n\n',
    b'id: 7\ndata: {"type":"x"}\n\n',
    b'event:\ndata: {"type":"x"}\n\n',
    b"event: x\n\n",
    b"data: {}{}\n\n",
    b"data: NaN\n\n",
    b"data: " + b"[" * 3000 + b"]" * 3000 + b"\n\n",
    b"data: [DONE]\n\n",
    b": ping\n\n\n",
    b'data: "a\n\n',
]


def _routed_per_event(decoder: Decoder, stream: bytes, offsets: Iterable[int]) -> list[Any]:
    """Each chunk's outcomes, one list per event, and whether the decoder is idle after it; at
    the end, the event a probe completes shows the decoder's data, event name and id."""
    router = ByteRouter(Router(), decoder)
    bounds = [0, *offsets, len(stream)]
    routed: list[Any] = []
    for start, end in itertools.pairwise(bounds):
        routed += [*router.feed_bytes(stream[start:end]), decoder.idle]
    return [*routed, decoder.feed(b"data: probe\n\n"), router.close()]


@given(
    fragments=st.lists(st.sampled_from(ROUTED + ALMOST_PLAIN), max_size=24),
    cuts=st.lists(st.floats(0, 1), max_size=6),
)
def test_plain_events_route_as_the_decoder_reads_them(fragments: list[bytes], cuts: list[float]) -> None:
    stream = b"".join(fragments)
    offsets = sorted(int(cut * len(stream)) for cut in cuts)
    expected = _routed_per_event(LineByLine(), stream, offsets)
    assert _routed_per_event(Decoder(), stream, offsets) == expected


def _the_seam_agrees_with_the_rules(vectors: Iterable[Vector]) -> int:
    """Each stream under each of its cuts routes the same through the speed seam as through the
    rules alone; answers how many cuts were compared."""
    compared = 0
    for vector in vectors:
        assert vector.stream is not None
        for cut in vector.cuts():
            offsets = list(itertools.accumulate(map(len, cut.chunks)))[:-1]
            expected = _routed_per_event(LineByLine(), vector.stream, offsets)
            assert _routed_per_event(Decoder(), vector.stream, offsets) == expected, (vector.id, cut.label)
            compared += 1
    return compared


def test_the_speed_seam_routes_every_bundled_stream_as_the_rules_do(bundled: list[Vector]) -> None:
    streams = [vector for vector in bundled if vector.stream is not None]
    assert _the_seam_agrees_with_the_rules(streams) >= 2 * len(streams)


def test_the_speed_seam_routes_every_generated_stream_as_the_rules_do() -> None:
    reference = PythonImplementation.load(DEFAULT_ADAPTER)
    point = tool_call_point(reference)
    cases = draw_streams(claimed(reference), 240, seed=5)
    streams = [vector for vector in (case.vector(point) for case in cases) if vector.stream is not None]
    assert len(streams) >= 30  # the generated sse streams, beside the core ones
    _the_seam_agrees_with_the_rules(streams)


def test_a_plain_event_may_take_its_name_from_an_earlier_chunk() -> None:
    decoder = Decoder()
    router = ByteRouter(Router(), decoder)
    assert router.feed_bytes(b"event: response.created\n") == []
    assert router.feed_bytes(b'data: {"type":"acme.x"}\n\n') == [[{"kind": "ignored", "type": "acme.x"}]]
    assert decoder.feed(b"data: x\n\n") == [Event("x")]  # the name went with its event


# -- the harness -----------------------------------------------------------------


@pytest.mark.slow
def test_the_reference_passes_every_sse_vector_over_the_adapter_protocol(bundled: list[Vector]) -> None:
    command = shlex.join([sys.executable, "-m", "streamroute.reference.serve"])
    implementation = ProtocolImplementation.start(command, timeout=30)
    in_process = PythonImplementation.load("streamroute.reference.adapter:router")
    try:
        for vector in _sse(bundled):
            assert run_vector(implementation, vector).status is Status.PASSED, vector.id
            for cut in vector.cuts():
                assert implementation.produce_stream(vector, cut.chunks) == in_process.produce_stream(
                    vector, cut.chunks
                )
    finally:
        implementation.close()


BROKEN = {
    "DecodesEachChunk": {
        "chunks/function-call-arguments-cut-everywhere",
        "lines/bom-stripped",
        "utf8/invalid-bytes-in-a-line-past-64-kib",
        "utf8/invalid-bytes-replaced",
        "utf8/multibyte-cut-between-reads",
    },
    "IgnoresCr": {"chunks/dispatch-on-final-cr", "lines/cr-line-endings", "lines/mixed-line-endings"},
    "ForgetsCrBetweenChunks": {
        "lines/crlf-split-inside-multi-line-data",
        "chunks/empty-chunk-between-cr-and-lf",
        "limits/dropped-event-skipped-to-its-end",
        "limits/dropped-event-skipped-past-two-lines",
    },
    "KeepsBom": {"lines/bom-stripped", "limits/lines-past-64-kib-at-both-ends"},
    "WaitsForLf": {"chunks/dispatch-on-final-cr", "lines/cr-line-endings"},
    "FlushesAtClose": {
        "events/partial-last-line-dropped",
        "limits/lines-past-64-kib-at-both-ends",
        "events/unterminated-event-dropped",
        "chunks/empty-chunk-between-cr-and-lf",
    },
    "JoinsDataWithoutLf": {"fields/multi-line-data"},
    "DispatchesEventsWithoutData": {
        "events/blank-lines-between-events",
        "events/empty-data-dispatches",
        "fields/comments-as-keep-alives",
        "fields/id-and-retry-change-nothing",
        "fields/unknown-and-nameless-fields",
        "lines/bom-after-a-blank-first-line",
        "lines/bom-only-once",
        "limits/event-of-exactly-64-mib-decoded",
    },
    "DoesNotKnowDone": {
        "data/done-lookalikes",
        "data/done-sentinel",
        "data/done-without-terminal-event",
        "data/events-after-done",
    },
    "RoutesByEventLine": {"fields/event-line-disagrees-with-type"},
    "StopsAtBadData": {
        "data/data-that-is-not-json",
        "data/done-lookalikes",
        "data/events-after-done",
        "events/empty-data-dispatches",
        "fields/data-lines-each-holding-json",
        "fields/multi-line-data",
        "utf8/invalid-bytes-outside-strings",
        "limits/event-past-64-mib-dropped",
        "limits/dropped-event-skipped-to-its-end",
        "limits/dropped-event-skipped-past-two-lines",
    },
}


@pytest.mark.parametrize("name", BROKEN)
def test_each_broken_decoder_fails_exactly_the_vectors_that_check_its_mistake(
    name: str, bundled: list[Vector]
) -> None:
    implementation = PythonImplementation.load(f"broken_decoders:{name}")
    results = {v.id.removeprefix("sse/"): run_vector(implementation, v) for v in _sse(bundled)}
    assert {vector_id for vector_id, r in results.items() if r.status.is_failure} == BROKEN[name]


class _OneEventTooMany(ByteRouter):
    """Dispatches a phantom event without outcomes after each real one."""

    profiles = ("sse",)

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(Router())

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        return [entry for outcomes in super().feed_bytes(chunk) for entry in (outcomes, [])]


def test_a_wrong_number_of_dispatched_events_fails_and_names_the_cut(bundled: list[Vector]) -> None:
    vector = next(v for v in bundled if v.id == "sse/data/done-sentinel")
    implementation = PythonImplementation("phantom", _OneEventTooMany, frozenset({"sse"}))
    result = run_vector(implementation, vector)
    assert result.status is Status.FAILED
    second = vector.expected[1]  # each event after the first now comes one dispatch late per event
    assert result.message.startswith(
        f"every byte: outcome 1: {second['kind']} expected from event {second['at']}, "
        f"produced by event {2 * second['at']}"
    )
    end = {"at": "close", "kind": "end", "status": "completed"}
    end_only = {"dispatched": vector.dispatched, "compare": ["end"], "outcomes": [end]}
    only_the_count_differs = Vector(vector.path, {**vector.data, "expect": end_only, "cuts": [[]]})
    assert run_vector(implementation, only_the_count_differs).message == (
        f"one chunk: dispatched {2 * vector.dispatched} SSE events; the stream has {vector.dispatched}"
    )


# -- vector files ----------------------------------------------------------------


def _sse_vector(**changes: Any) -> dict[str, Any]:
    return {
        "format": 1,
        "id": "sse/one",
        "title": "One event",
        "spec": ["SSE-EVENT-1"],
        "level": "MUST",
        "profile": "sse",
        "tools": [],
        "stream": 'data: {"type":"response.created","sequence_number":0}\n\n',
        "cuts": ["every_byte", [10]],
        "expect": {
            "dispatched": 1,
            "outcomes": [{"at": 0, "kind": "lifecycle", "event": "created", "response_id": None}],
        },
        **changes,
    }


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"events": []}, "does not match the vector schema"),
        ({"cuts": ["every_byte"]}, "does not match the vector schema"),
        ({"expect": {"outcomes": []}}, "'dispatched' is a required property"),
        ({"stream_base64": "AAAA"}, "does not match the vector schema"),
        ({"cuts": ["every_byte", [20, 10]]}, "cut 1 must be offsets in order"),
        ({"cuts": ["every_byte", [99]]}, "at most the stream's length"),
    ],
)
def test_a_broken_sse_vector_file_is_reported(tmp_path: Path, changes: dict[str, Any], problem: str) -> None:
    path = write_vector(tmp_path, _sse_vector(**changes))
    loaded = load_file(path, tmp_path)
    assert isinstance(loaded, VectorFileError)
    assert problem in loaded.message


def test_stream_base64_ignores_whitespace_and_cuts_are_byte_offsets(tmp_path: Path) -> None:
    data = _sse_vector(stream_base64="ZGF0YTogMQoK\n  ZGF0YTogMgoK", cuts=["every_byte", [0, 3, 3, 12]])
    del data["stream"]
    write_vector(tmp_path, data)
    vectors, errors = load_vectors([tmp_path])
    assert not errors
    assert vectors[0].stream == b"data: 1\n\ndata: 2\n\n"
    assert [cut.chunks for cut in vectors[0].cuts()][1] == [b"", b"dat", b"", b"a: 1\n\ndat", b"a: 2\n\n"]


# -- SSE-LIMIT-1: the size of an event -------------------------------------------

LIMIT = 64  # bytes, for the tests: SSE-LIMIT-1's 64 MiB is no size for a test
TOO_LARGE = {"kind": "error", "code": "event_too_large"}


def _per_event(router: ByteRouter, stream: bytes, offsets: Iterable[int]) -> list[list[Outcome]]:
    """The outcomes of each dispatched event, `message` left out, then close's."""
    bounds = [0, *offsets, len(stream)]
    routed = [o for start, end in itertools.pairwise(bounds) for o in router.feed_bytes(stream[start:end])]
    routed.append(router.close())
    return [[{k: v for k, v in outcome.items() if k != "message"} for outcome in o] for o in routed]


def _every_cut(stream: bytes) -> Iterable[list[int]]:
    shuffle = random.Random(len(stream))
    yield from ([], list(range(1, len(stream))))
    for _ in range(20):
        yield sorted(shuffle.randrange(len(stream) + 1) for _ in range(shuffle.randrange(1, 6)))


_OK = b'data: {"type":"acme.x"}\n\n'
_IGNORED = [{"kind": "ignored", "type": "acme.x"}]


@pytest.mark.parametrize(
    ("stream", "dropped"),
    [
        (b"data: " + b"x" * (LIMIT - 6) + b"\n\n", False),  # exactly the limit: line ends do not count
        (b"data: " + b"x" * (LIMIT - 5) + b"\n\n", True),
        (b"data: " + b"x" * (LIMIT - 5) + b"\r\n\r\n", True),
        (b"data: " + b"x" * (LIMIT - 5) + b"\r\r", True),
        (b"data: " + b"x" * (LIMIT - 5) + b"\n\r\n", True),
        (b"data: " + b"x" * LIMIT * 9, True),  # never ends: dropped at once all the same
        (b": ping\n" * 10 + b"data: x\n\n", True),  # every line of the event counts
        (b"data: 1\n" * 9 + b"data: 1\n\n", True),  # each data line fits, together they do not
        (b"event: " + b"e" * LIMIT + b"\ndata: x\n\n", True),
        (b"\xef\xbb\xbfdata: " + b"x" * (LIMIT - 8) + b"\n\n", True),  # the byte order mark counts
        (b"\xef\xbb\xbf\ndata: " + b"x" * (LIMIT - 6) + b"\n\n", False),  # not before an empty line
        # an event starts after the last empty line before it, however many came in one read
        (b": ka\n\n" * 3 + b"event: e\ndata: " + b"x" * (LIMIT - 14) + b"\n\n", False),
        (b": ka\n\n" * 3 + b"event: e\ndata: " + b"x" * (LIMIT - 13) + b"\n\n", True),
        # bytes as received: each byte that is no UTF-8 counts 1, though its U+FFFD takes 3
        (b'data: "' + b"\xff" * (LIMIT - 8) + b'"\n\n', False),
        (b'data: "' + b"\xff" * (LIMIT - 7) + b'"\n\n', True),
    ],
)
def test_an_event_past_the_limit_is_one_error_and_decoding_goes_on(stream: bytes, dropped: bool) -> None:
    """The same under every cut: the error comes at the byte that passes the limit."""
    whole = stream + _OK if stream.endswith((b"\n\n", b"\r\r", b"\r\n\r\n", b"\n\r\n")) else stream
    outcomes = {
        json.dumps(_per_event(ByteRouter(Router(), Decoder(LIMIT)), whole, cut)) for cut in _every_cut(whole)
    }
    assert len(outcomes) == 1
    [events] = map(json.loads, outcomes)
    assert (events[0] == [TOO_LARGE]) is dropped
    if whole != stream:
        assert events[-2] == _IGNORED


def test_after_done_a_dropped_event_is_an_event_after_done() -> None:
    stream = b"data: [DONE]\n\ndata: " + b"x" * LIMIT + b"\n\n"
    assert _per_event(ByteRouter(Router(), Decoder(LIMIT)), stream, [])[1] == [
        {"kind": "error", "code": "event_after_done"}
    ]


@given(
    fragments=st.lists(
        st.sampled_from([*ROUTED, *ALMOST_PLAIN, b"data: " + b"y" * 300 + b"\n\n"]), max_size=12
    ),
    cuts=st.lists(st.floats(0, 1), max_size=6),
    limit=st.integers(1, 400),
)
def test_a_limit_drops_the_same_events_however_the_stream_is_cut(
    fragments: list[bytes], cuts: list[float], limit: int
) -> None:
    stream = b"".join(fragments)
    offsets = sorted(int(cut * len(stream)) for cut in cuts)
    whole = _per_event(ByteRouter(Router(), LineByLine(limit)), stream, [])
    assert _per_event(ByteRouter(Router(), Decoder(limit)), stream, offsets) == whole
    assert _per_event(ByteRouter(Router(), LineByLine(limit)), stream, offsets) == whole


def _peak_feeding(stream: bytes, size: int) -> int:
    router = ByteRouter(Router(), Decoder(64 * KiB))
    tracemalloc.start()
    try:
        for chunk in growth.in_chunks(stream, size):
            router.feed_bytes(chunk)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("size", [1 * KiB, 64 * KiB])
def test_memory_is_bounded_by_the_limit_whatever_arrives(size: int) -> None:
    """A line without end, four times as long, takes no more memory: the limit's worth at most."""
    peaks = [_peak_feeding(b"data: " + b"x" * length, size) for length in (MB, 4 * MB)]
    assert peaks[1] < 2 * peaks[0], f"4 times the bytes took {peaks[1] / peaks[0]:.1f} times the memory"
    assert peaks[1] < 4 * 64 * KiB + 2 * size


class _HoldsOnly64KiB(ByteRouter):
    """Holds at most 64 KiB of an event, as Go's `bufio.Scanner` holds a line by default."""

    profiles = ("sse",)

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(Router(), Decoder(64 * KiB))


def _largest_event(stream: bytes) -> int:
    """The most bytes of lines, line ends not counted, between two empty lines."""
    size = largest = 0
    for line in re.split(rb"\r\n|\r|\n", stream):
        size = size + len(line) if line else 0
        largest = max(largest, size)
    return largest


def test_a_decoder_that_holds_less_than_the_limit_fails_the_vectors_of_long_events(
    bundled: list[Vector],
) -> None:
    implementation = PythonImplementation("64 KiB", _HoldsOnly64KiB, frozenset({"sse"}))
    streams = [v for v in bundled if v.stream is not None]
    failed = {v.id for v in streams if run_vector(implementation, v).status.is_failure}
    assert "sse/limits/event-past-64-kib" in failed
    # An event past SSE-LIMIT-1's 64 MiB is dropped by both, at one limit or the other.
    assert failed == {v.id for v in streams if 64 * KiB < _largest_event(v.stream or b"") <= MAX_EVENT_BYTES}
