"""Coverage-guided fuzzing of the byte path: SSE bytes, in any cut, into the reference decoder and router.

For each input (its first byte chooses a stride, the rest is the stream) `check` routes the stream
through `ByteRouter(Router())` whole, one byte at a time, and in reads of that stride, and holds:

* nothing raises (an exception is the fuzzer's crash);
* every outcome is valid against spec/outcome.schema.json;
* every cut gives the same outcomes for each dispatched SSE event, and at close (SSE-CHUNK-1);
* memory is bounded: routed in reads of the stride through a decoder of a small size limit
  (`LIMIT`, SSE-LIMIT-1), the traced peak stays within `memory_bound`.

`python byte_fuzz.py [CORPUS ...] [libFuzzer options]` runs atheris (`tox -e byte-fuzz`);
the corpus kept in the repository, tests/byte-fuzz-corpus/, is its seed and stays small
(`-merge=1` minimizes a grown one into it). `python byte_fuzz.py vector INPUT --id sse/fuzz/NAME
--spec ID ...` writes an sse vector of a crashing input under vectors/: its expected outcomes are
what the independent router (tests/mutants/independent_router.py, written from the spec alone)
routes, never the reference's, and the producer rules the stream breaks are declared as the
producer checker finds them; read both against the spec before the vector is committed.
tests/test_byte_fuzz.py runs `check` over the corpus without atheris.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamroute.conformance.schemas import OUTCOME, first_error
from streamroute.conformance.vector_files import write_vector

if TYPE_CHECKING:
    from streamroute.wire.event_stream import Decoder

LIMIT = 1024  # the decoder's size limit (SSE-LIMIT-1) in the memory check
CORPUS = Path(__file__).resolve().parent / "byte-fuzz-corpus"
VECTORS = Path(__file__).resolve().parents[1] / "vectors"
Routed = tuple[list[list[Any]], list[Any]]  # each dispatched event's outcomes, then close's


class FuzzFailure(AssertionError):
    """An input breaks one of the properties of the module docstring."""


def stream_of(data: bytes) -> tuple[int, bytes]:
    """An input as the stride of its third cut and the stream."""
    return (data[0] % 16 + 2 if data else 2), data[1:]


def cuts(stream: bytes, stride: int) -> dict[str, list[bytes]]:
    return {
        "whole": [stream],
        "every byte": [stream[i : i + 1] for i in range(len(stream))],
        f"every {stride} bytes": [stream[i : i + stride] for i in range(0, len(stream), stride)],
    }


def route(chunks: Iterable[bytes], decoder: Decoder) -> Routed:
    """The reference's answer to the stream in these chunks. The reference is imported here, not
    above, so that `fuzz` can instrument it as it is imported (and nothing else)."""
    from streamroute.reference.router import Router
    from streamroute.reference.sse import ByteRouter

    router = ByteRouter(Router(), decoder)
    events = [outcomes for chunk in chunks for outcomes in router.feed_bytes(chunk)]
    return events, router.close()


def memory_bound(size: int) -> int:
    """The most bytes routing `size` bytes may hold at once: the decoder holds at most `LIMIT` of an
    event, the router what the events it routed built, and the outcomes, a few objects per input
    byte at most."""
    return 256 * 1024 + 64 * size


def _peak(chunks: Iterable[bytes]) -> int:
    """The traced peak while the chunks are routed through a decoder of size limit `LIMIT`."""
    from streamroute.wire.event_stream import Decoder

    tracemalloc.start()
    try:
        route(chunks, Decoder(LIMIT))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def check(data: bytes, decoder: Callable[[], Decoder] | None = None) -> None:
    """Every property of the module docstring for one input; raises FuzzFailure (or whatever the
    reference raised) when one breaks. `decoder` makes the decoder of each cut (the reference's)."""
    if decoder is None:
        from streamroute.wire.event_stream import Decoder

        decoder = Decoder
    stride, stream = stream_of(data)
    chunks = cuts(stream, stride)
    routed = {name: route(cut, decoder()) for name, cut in chunks.items()}
    whole = routed["whole"]
    for events in (whole[0], [whole[1]]):
        for outcomes in events:
            for outcome in outcomes:
                problem = first_error(OUTCOME, outcome)
                if problem is not None:
                    raise FuzzFailure(f"an outcome is not valid against the outcome schema: {problem}")
    for name, answer in routed.items():
        if _stated(answer) != _stated(whole):
            raise FuzzFailure(f"routed {name}, the stream gives other outcomes than whole")
    if (peak := _peak(chunks[f"every {stride} bytes"])) > memory_bound(len(stream)):
        raise FuzzFailure(f"routing {len(stream)} bytes held {peak} bytes at once")


def _stated(routed: Routed) -> Routed:
    """The outcomes without their messages, which the spec leaves to each implementation."""
    events, close = routed
    return [[_without_message(o) for o in outcomes] for outcomes in events], [
        _without_message(o) for o in close
    ]


def _without_message(outcome: Any) -> Any:
    return {k: v for k, v in outcome.items() if k != "message"} if isinstance(outcome, dict) else outcome


# -- a vector of an input ---------------------------------------------------------------------


def vector_of(data: bytes, vector_id: str, spec: Sequence[str], title: str) -> dict[str, Any]:
    """The sse vector of an input, its outcomes as the independent router routes it."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from mutants.independent_router import IndependentAdapter

    _, stream = stream_of(data)
    router = IndependentAdapter()([])
    events = router.feed_bytes(stream)
    outcomes = [{"at": index, **o} for index, answer in enumerate(events) for o in answer]
    outcomes += [{"at": "close", **o} for o in router.close()]
    from streamroute.producer.checker import check_capture

    broken = sorted({violation.requirement for violation in check_capture(stream, "sse").violations})
    try:
        text: dict[str, str] = {"stream": stream.decode("utf-8")}
    except UnicodeDecodeError:
        text = {"stream_base64": base64.b64encode(stream).decode("ascii")}
    return {
        "format": 1,
        "id": vector_id,
        "title": title,
        "description": "A stream the byte fuzzer (tests/byte_fuzz.py) found; its outcomes are the"
        " independent router's, read against the spec.",
        "spec": list(spec),
        "level": "MUST",
        "profile": "sse",
        **({"producer_faults": broken} if broken else {}),
        "tools": [],
        **text,
        "cuts": ["every_byte", []],
        "expect": {
            "dispatched": len(events),
            "outcomes": [_without_message(o) for o in outcomes],
        },
    }


def main(argv: Sequence[str]) -> int:
    if argv[:1] != ["vector"]:  # libFuzzer runs this same command again for -merge and -jobs
        import atheris

        for arg in argv:  # libFuzzer wants its corpora and the folder of its artifacts made
            folder = arg.removeprefix("-artifact_prefix=") if arg.endswith("/") else arg
            if not folder.startswith("-"):
                Path(folder).mkdir(parents=True, exist_ok=True)
        with atheris.instrument_imports(include=["streamroute.reference", "streamroute.wire"]):
            import streamroute.reference.router
            import streamroute.reference.sse
            import streamroute.wire.event_stream  # noqa: F401
        # libFuzzer runs its first argument through the shell for -merge and -jobs: this script, by Python
        command = f"{sys.executable} {Path(__file__).resolve()}"
        atheris.Setup([command, *argv], check)
        atheris.Fuzz()
        return 0
    parser = argparse.ArgumentParser(
        prog="python byte_fuzz.py vector", description="an sse vector of an input"
    )
    parser.add_argument("input", type=Path)
    parser.add_argument("--id", required=True, help="the vector's id, e.g. sse/fuzz/cr-after-bom")
    parser.add_argument("--spec", nargs="+", required=True, help="the requirement ids it checks")
    parser.add_argument("--title", default="A stream the byte fuzzer found")
    parser.add_argument("--vectors", type=Path, default=VECTORS)
    args = parser.parse_args(argv[1:])
    data = vector_of(args.input.read_bytes(), args.id, args.spec, args.title)
    print(f"wrote {write_vector(data, args.vectors)}: {json.dumps(data['expect']['dispatched'])} SSE events")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
