"""Growth: how the reference's cost grows with its input, as `streamroute bench` measures it.

Each *shape* is a way a stream grows (many events, one long line, one event of many data lines)
and a way it is cut into reads, with a size n. The benchmark routes each shape at n and at 4n
bytes and reports the CPU time of 4n over n, paired within each repeat: about 4 is linear, a
quadratic decoder costs about 16. So do a done call's arguments holding n and 4n `[` inside one
string, which the depth limit (CORE-LIMIT-2) must not pay for.

Times belong here, never in a test: tests/test_sse.py and tests/test_reference.py count the work
of the same shapes instead (calls made, bytes handed over), which no load on the machine changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from streamroute.reference.router import Router
from streamroute.reference.sse import ByteRouter

KIB = 1024
MB = 1_000_000
GROWTH = 4  # the larger input is this many times the smaller
_SINGLE_BYTES = [bytes([value]) for value in range(256)]


def _block(number: int) -> bytes:
    """About 1 KB of a response: CRLF, CR and LF lines, keep-alives, multi-line data, multi-byte text."""
    delta = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0}
    texts = [f"Block {number}: ", "naïve café, ", "日本語 🎉 ", 'and a "quote"\n']
    lines = [f": keep-alive {number}\r\n"]
    for index, text in enumerate(texts):
        event = json.dumps({**delta, "sequence_number": 4 * number + index + 2, "delta": text})
        head, tail = event[: len(event) // 2], event[len(event) // 2 :]
        ending = ("\r\n", "\n", "\r", "\n")[index]
        lines.append(f"event: {delta['type']}{ending}data: {head}{ending}data: {tail}{ending}{ending}")
    arguments = json.dumps({"type": "acme:usage", "sequence_number": 0, "note": "x" * 200})
    lines.append(f"data: {arguments}\n\n")
    return "".join(lines).encode("utf-8")


def many_events(size: int) -> bytes:
    """A response of about `size` bytes: a message whose text comes in blocks of `_block`."""
    created = {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}}
    added = {
        "type": "response.output_item.added",
        "sequence_number": 1,
        "output_index": 0,
        "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
    }
    completed = {"type": "response.completed", "sequence_number": 9, "response": {"id": "resp_1"}}
    head = f"data: {json.dumps(created)}\n\ndata: {json.dumps(added)}\n\n".encode()
    tail = f"data: {json.dumps(completed)}\n\n".encode()
    blocks, number = [], 0
    length = len(head) + len(tail)
    while length < size:
        blocks.append(_block(number))
        length += len(blocks[-1])
        number += 1
    return head + b"".join(blocks) + tail


def long_line(size: int) -> bytes:
    event = {"type": "acme:blob", "sequence_number": 0, "blob": "é" * (size // 2)}
    return f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode()


def many_data_lines(size: int) -> bytes:
    return b"data: [\n" + b"data: 1,\n" * (size // 9) + b"data: 1]\n\n"


def one_byte_at_a_time(stream: bytes) -> Iterable[bytes]:
    return (_SINGLE_BYTES[value] for value in stream)


def in_chunks(stream: bytes, size: int) -> Iterable[bytes]:
    view = memoryview(stream)
    return (bytes(view[start : start + size]) for start in range(0, len(stream), size))


@dataclass(frozen=True)
class Shape:
    make: Callable[[int], bytes]  # a stream of about n bytes
    cut: Callable[[bytes], Iterable[bytes]]  # the reads it arrives in
    size: int  # n, for the benchmark; a test counting work may take less


SHAPES: dict[str, Shape] = {
    "many events, one byte a chunk": Shape(many_events, one_byte_at_a_time, 100_000),
    "many events, 64 KiB chunks": Shape(many_events, lambda stream: in_chunks(stream, 64 * KIB), 2 * MB),
    "one long line, one byte a chunk": Shape(long_line, one_byte_at_a_time, 100_000),
    "one event of many data lines, 7-byte chunks": Shape(
        many_data_lines, lambda stream: in_chunks(stream, 7), 100_000
    ),
}


def decoding(shape: Shape, size: int) -> Callable[[], int]:
    """Routing the shape's stream of about `size` bytes, read by read; answers the outcomes."""
    stream = shape.make(size)

    def run() -> int:
        router = ByteRouter(Router())
        outcomes = sum(len(entry) for chunk in shape.cut(stream) for entry in router.feed_bytes(chunk))
        return outcomes + len(router.close())

    return run


BRACKETS = 1 << 20  # n for the brackets inside a string


def brackets_in_a_string(count: int) -> dict[str, Any]:
    """A done function call whose arguments hold `count` `[` inside one string value."""
    arguments = '{"a":"' + "[" * count + '"}'
    item = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_fc_1",
        "name": "f",
        "arguments": arguments,
    }
    return {"type": "response.output_item.done", "item": item}


def resolving(count: int) -> Callable[[], int]:
    """Routing the done call of `brackets_in_a_string(count)`; answers the outcomes."""
    event = brackets_in_a_string(count)
    return lambda: len(Router().feed(event))


def runs(scale: float = 1.0) -> dict[str, tuple[Callable[[], int], Callable[[], int]]]:
    """Each growth case: its run at n and at `GROWTH` n (n times `scale`)."""
    cases = {
        name: (decoding(shape, int(shape.size * scale)), decoding(shape, int(GROWTH * shape.size * scale)))
        for name, shape in SHAPES.items()
    }
    count = max(1, int(BRACKETS * scale))
    cases["brackets inside a string"] = (resolving(count), resolving(GROWTH * count))
    return cases
