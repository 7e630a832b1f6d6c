"""`streamroute bench`: what routing a stream costs, measured against its floor and a peer.

A router sits on the hot path of every streamed token, so the benchmark asks
three questions of the same streams, in one process and one run:

* floor (a): `json.loads` of every event's data payload, and nothing else.
  Any router fed JSON text pays at least this. Beside it (a'), the C scanner
  the reference decodes each payload with (`scan_value`), without the
  checks `json.loads` wraps around it.
* reference (b): the full path, SSE bytes in 16 KiB reads through the
  reference decoder and router to outcomes (`ByteRouter(Router(...))`).
  Beside it, two parts of it: JSON text to outcomes (`Router.feed` of each
  payload decoded as the reference decodes it, the SSE framing left out),
  and the router alone (`Router.feed` of events already decoded).
* SDK (c): the openai Python SDK, the same SSE bytes in the same reads as
  its `Stream` handles them: its `SSEDecoder`, `json.loads` of each event's
  data, `construct_type` into its pydantic event model, and
  `ResponseStreamState.handle_event`. Needs the `openai` package (`pip
  install streamroute[bench]`); without it, (c) is reported as unavailable.

The streams are built the way the Responses API emits them (compact JSON,
`event:` lines, `sequence_number`, the full item at `output_item.done` and
the full output at `response.completed`): a long text answer; several calls
with large arguments cut into token-sized deltas; a long apply_patch custom
call, with stream time (`at_ms`) advancing 20 ms a delta. The apply_patch
stream is routed twice: as the SDK routes it, and with the catalogue's
`patch` preview consumer, so that the throttled preview is really built. The
SDK previews nothing, so that row does more work than (c) and is left out of
the `all` row. Each is measured at 1x and 10x its size (d), since nothing
may grow faster than linearly; so are the shapes of bench/growth.py (e), the
inputs a careless decoder or depth check pays for quadratically, at 1x and 4x.

Every time is CPU time (`time.process_time`), so that what other processes
do on a shared machine counts as little as it can. Each repeat runs every
path of every workload in turn; a ratio is taken within each repeat and
reported as its median and spread (min-max) over the repeats, and a rate is
of the median time.
Peak memory is the `tracemalloc` peak while the full path routes a stream of
calls carrying 10 MiB of arguments; the stream's bytes exist before it
starts, and outcomes are dropped as they come, as a client that acts on them
does.

The fuzzer's own cost: `streamroute fuzz`'s loop without shrinking, in this
process: drawing the same generated cases in each repeat (`draw_streams`, of
every source the reference declares, in turn; 500 at scale 1, fewer below)
and judging each against the reference (`first_failure`), reported as
generated streams a second, with drawing and judging apart; beside it, the
reference routing those cases' entries by itself, and the ratios, paired per
repeat.

The suite's own cost: `streamroute run` over the bundled vectors (or
`--vectors`), in a process of its own each time and measured by its CPU time
(`getrusage` of the child, start-up included), against parsing the same
files' YAML as the harness reads them (`read_yaml`), in each repeat; the
target is at most 3 times. A run after the first finds each file's checked
content in its cache (a run not measured fills it first); the first run,
with an empty cache, is reported beside it.

The pytest plugin's cost to every test run of a project that has streamroute
installed and does not use it: importing its `pytest11` entry point
(conformance/plugin.py) in a process of its own each repeat, pytest already
imported as a test run has it, measured by that process's CPU time around
the import, with the streamroute and Hypothesis modules it loaded; the
target is at most 20 ms.
"""

from __future__ import annotations

import gc
import importlib
import json
import math
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from streamroute.bench import growth
from streamroute.conformance.fuzz import Case, claimed, draw_streams, first_failure
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.options import DEFAULT_ADAPTER
from streamroute.conformance.schemas import BUNDLED_VECTORS
from streamroute.conformance.vectors import SUFFIX, read_yaml
from streamroute.reference.consumers import consumers_for
from streamroute.reference.router import Router
from streamroute.reference.sse import ByteRouter
from streamroute.wire.strict_json import loads_strict, scan_value

READ_SIZE = 16 * 1024  # bytes per network read fed to the decoder
MEMORY_CALLS = 16  # the memory stream's calls: 640 KiB of arguments each, under CORE-LIMIT-1
MIB = 1024 * 1024
_VOCABULARY = (
    "the of and to in is that for it with as on be at by this from or have an are not but which "
    "stream router event delta call item response arguments output index tool buffer json "
    "café naïve façade déjà señor über"  # some text is not ASCII
)
_WORDS = _VOCABULARY.split()


@dataclass(frozen=True)
class Workload:
    name: str
    tools: list[dict[str, Any]]
    payloads: list[str]  # each event's JSON text, as its `data:` line carries it

    @property
    def previews(self) -> bool:
        """A tool has a diff consumer: the reference does more than route."""
        return any(tool.get("consumer") for tool in self.tools)

    @property
    def sse(self) -> bytes:
        parts = []
        for text in self.payloads:
            event_type = text[9 : text.index('"', 9)]  # each payload starts {"type":"...
            parts.append(f"event: {event_type}\ndata: {text}\n\n")
        parts.append("data: [DONE]\n\n")
        return "".join(parts).encode("utf-8")

    @property
    def events(self) -> list[Any]:
        return [json.loads(text) for text in self.payloads]


class _Stream:
    """Builds one response's events, numbering them as the API does."""

    def __init__(self, response_id: str) -> None:
        self.response_id = response_id
        self.payloads: list[str] = []
        self.output: list[dict[str, Any]] = []

    def emit(self, event_type: str, **fields: Any) -> None:
        event = {"type": event_type, "sequence_number": len(self.payloads), **fields}
        self.payloads.append(json.dumps(event, ensure_ascii=False, separators=(",", ":")))

    def response(self, status: str) -> dict[str, Any]:
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": 1767225600,
            "status": status,
            "model": "gpt-5",
            "output": self.output if status == "completed" else [],
            "usage": None,
        }

    def start(self) -> None:
        self.emit("response.created", response=self.response("in_progress"))
        self.emit("response.in_progress", response=self.response("in_progress"))

    def finish(self) -> list[str]:
        self.emit("response.completed", response=self.response("completed"))
        return self.payloads

    def call(self, kind: str, item_id: str, call_id: str, name: str, text: str, cuts: list[str]) -> None:
        """One function call (kind `arguments`) or custom call (kind `input`), streamed in `cuts`."""
        index = len(self.output)
        item_type, family = (
            ("function_call", "response.function_call_arguments")
            if kind == "arguments"
            else ("custom_tool_call", "response.custom_tool_call_input")
        )
        item = {"id": item_id, "type": item_type, "status": "in_progress", "call_id": call_id, "name": name}
        self.emit("response.output_item.added", output_index=index, item={**item, kind: ""})
        for at, delta in enumerate(cuts):
            extra = {"at_ms": 20 * at} if kind == "input" else {}
            self.emit(f"{family}.delta", item_id=item_id, output_index=index, delta=delta, **extra)
        self.emit(f"{family}.done", item_id=item_id, output_index=index, **{kind: text})
        done = {**item, "status": "completed", kind: text}
        self.emit("response.output_item.done", output_index=index, item=done)
        self.output.append(done)


def _cut(text: str, rng: random.Random, smallest: int = 2, largest: int = 12) -> list[str]:
    """Token-sized deltas: pieces of 2 to 12 characters."""
    cuts, start = [], 0
    while start < len(text):
        end = start + rng.randint(smallest, largest)
        cuts.append(text[start:end])
        start = end
    return cuts


def _prose(rng: random.Random, characters: int) -> str:
    words: list[str] = []
    length = 0
    while length < characters:
        word = rng.choice(_WORDS)
        if rng.random() < 0.08:
            word += ".\n" if rng.random() < 0.3 else ","
        words.append(word)
        length += len(word) + 1
    return " ".join(words)


def text_answer(scale: float = 1.0) -> Workload:
    """A long text answer: about 4,000 deltas at 1x."""
    rng = random.Random(1)
    text = _prose(rng, int(28_000 * scale))
    stream = _Stream("resp_text")
    stream.start()
    item = {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    stream.emit("response.output_item.added", output_index=0, item=item)
    stream.emit(
        "response.content_part.added", **where, part={"type": "output_text", "annotations": [], "text": ""}
    )
    for delta in _cut(text, rng, 1, 12):
        stream.emit("response.output_text.delta", **where, delta=delta, logprobs=[])
    stream.emit("response.output_text.done", **where, text=text, logprobs=[])
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    stream.emit("response.content_part.done", **where, part=part)
    done = {**item, "status": "completed", "content": [part]}
    stream.emit("response.output_item.done", output_index=0, item=done)
    stream.output.append(done)
    return Workload("text answer", [], stream.finish())


def parallel_calls(scale: float = 1.0, *, calls: int = 4, arguments_bytes: int | None = None) -> Workload:
    """Several function calls with large arguments (a file to write each), cut into small deltas.

    About 40 KB of arguments a call at 1x; `arguments_bytes` sets their total instead.
    """
    rng = random.Random(2)
    each = arguments_bytes // calls if arguments_bytes is not None else int(40_000 * scale)
    stream = _Stream("resp_calls")
    stream.start()
    for number in range(calls):
        content = _prose(rng, each)
        arguments = json.dumps({"path": f"docs/part-{number}.md", "content": content}, ensure_ascii=False)
        cuts = _cut(arguments, rng)
        stream.call("arguments", f"fc_{number}", f"call_{number}", "write_file", arguments, cuts)
    tools = [{"name": "write_file", "type": "function"}]
    return Workload(f"{calls} calls, large arguments", tools, stream.finish())


def _patch_text(rng: random.Random, characters: int) -> str:
    lines = ["*** Begin Patch"]
    length, number = 0, 0
    while length < characters:
        number += 1
        if number % 3:
            lines.append(f"*** Update File: src/module_{number}.py")
            for hunk in range(rng.randint(1, 4)):
                lines.append(f"@@ def function_{hunk}():")
                for _ in range(rng.randint(3, 12)):
                    lines.append(rng.choice(" +-") + _prose(rng, rng.randint(10, 70)).replace("\n", " "))
        else:
            lines.append(f"*** Add File: src/new_{number}.py")
            for _ in range(rng.randint(10, 60)):
                lines.append("+" + _prose(rng, rng.randint(10, 70)).replace("\n", " "))
        length = sum(len(line) + 1 for line in lines)
    lines.append("*** End Patch")
    return "\n".join(lines) + "\n"


def patch_call(scale: float = 1.0, *, preview: bool = False) -> Workload:
    """A long apply_patch custom call (about 60 KB at 1x); `preview`: with the catalogue's `patch`
    preview consumer."""
    rng = random.Random(3)
    patch = _patch_text(rng, int(60_000 * scale))
    stream = _Stream("resp_patch")
    stream.start()
    stream.call("input", "ctc_1", "call_patch", "apply_patch", patch, _cut(patch, rng))
    tool = {"name": "apply_patch", "type": "custom"}
    if preview:
        return Workload("apply_patch, streamed preview", [{**tool, "consumer": "patch"}], stream.finish())
    return Workload("apply_patch", [tool], stream.finish())


def patch_preview(scale: float = 1.0) -> Workload:
    return patch_call(scale, preview=True)


WORKLOADS: tuple[Callable[[float], Workload], ...] = (text_answer, parallel_calls, patch_call, patch_preview)


# -- the measured paths ------------------------------------------------------


def floor(workload: Workload) -> Callable[[], int]:
    """(a) json.loads of each payload."""
    payloads = workload.payloads
    loads = json.loads

    def run() -> int:
        for text in payloads:
            loads(text)
        return len(payloads)

    return run


def scanner_floor(workload: Workload) -> Callable[[], int]:
    """(a') the C scanner the reference decodes each payload with (`scan_value`, what
    `loads_strict` calls), and nothing else: the floor without `json.loads`'s wrapping."""
    payloads = workload.payloads

    def run() -> int:
        for text in payloads:
            scan_value(text, 0)
        return len(payloads)

    return run


def _reads(data: bytes) -> list[bytes]:
    return [data[start : start + READ_SIZE] for start in range(0, len(data), READ_SIZE)]


def full_path(workload: Workload) -> Callable[[], int]:
    """(b) SSE bytes in 16 KiB reads, through the reference decoder and router, to outcomes."""
    reads = _reads(workload.sse)
    consumers = consumers_for(workload.tools)

    def run() -> int:
        stream = ByteRouter(Router(consumers))
        count = 0
        for read in reads:
            for outcomes in stream.feed_bytes(read):
                count += len(outcomes)
        return count + len(stream.close())

    return run


def json_path(workload: Workload) -> Callable[[], int]:
    """(b) without the SSE framing: each payload decoded as the reference does, then routed."""
    payloads = workload.payloads
    consumers = consumers_for(workload.tools)

    def run() -> int:
        router = Router(consumers)
        count = 0
        for text in payloads:
            count += len(router.feed(loads_strict(text)))
        return count + len(router.close())

    return run


def router_alone(workload: Workload) -> Callable[[], int]:
    """(b') parsed events through the reference router, to outcomes."""
    events = workload.events
    consumers = consumers_for(workload.tools)

    def run() -> int:
        router = Router(consumers)
        count = 0
        for event in events:
            count += len(router.feed(event))
        return count + len(router.close())

    return run


def sdk_path(workload: Workload) -> Callable[[], int] | None:
    """(c) the openai SDK's ResponseStreamState, or None when the package is not installed."""
    try:  # the SDK's own modules, as its `Stream` and `ResponseStream` use them
        models = importlib.import_module("openai._models")
        streaming = importlib.import_module("openai._streaming")
        types = importlib.import_module("openai._types")
        responses = importlib.import_module("openai.lib.streaming.responses")
        events = importlib.import_module("openai.types.responses")
    except ImportError:
        return None
    reads = _reads(workload.sse)
    loads = json.loads
    construct_type, event_type = models.construct_type, events.ResponseStreamEvent

    def run() -> int:
        state = responses.ResponseStreamState(input_tools=types.omit, text_format=types.omit)
        count = 0
        for sse in streaming.SSEDecoder().iter_bytes(iter(reads)):
            if sse.data == "[DONE]":
                break
            event = construct_type(type_=event_type, value=loads(sse.data))
            count += len(state.handle_event(event))
        return int(count)

    return run


def sdk_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("openai")
    except Exception:
        return None


def _cpu_seconds(runs: Sequence[Callable[[], object]], repeats: int) -> list[list[float]]:
    """Each run's CPU time (`time.process_time`) in each repeat. Every repeat runs all of them in
    turn, so that whatever else the machine does falls on each alike, and a ratio of two runs is
    taken within one repeat."""
    samples: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for run, sample in zip(runs, samples, strict=True):
            gc.collect()
            start = time.process_time()
            run()
            sample.append(time.process_time() - start)
    return samples


def paired(numerator: Sequence[float], denominator: Sequence[float]) -> dict[str, Any]:
    """numerator/denominator in each repeat, with their median and spread (min and max)."""
    ratios = [a / b if b > 0 else math.inf for a, b in zip(numerator, denominator, strict=True)]
    return {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios), "per_repeat": ratios}


def peak_memory(arguments_bytes: int) -> dict[str, Any]:
    """tracemalloc's peak while the full path routes calls carrying `arguments_bytes` of arguments."""
    workload = parallel_calls(calls=MEMORY_CALLS, arguments_bytes=arguments_bytes)
    reads = _reads(workload.sse)
    del workload
    gc.collect()
    tracemalloc.start()
    try:
        stream = ByteRouter(Router())
        for read in reads:
            for _ in stream.feed_bytes(read):
                pass
        stream.close()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {
        "arguments_bytes": arguments_bytes,
        "stream_bytes": sum(map(len, reads)),
        "peak_bytes": peak,
        "ratio": peak / arguments_bytes,
    }


def growth_ratios(scale: float, repeats: int) -> dict[str, dict[str, Any]]:
    """Each growth case's CPU time at 4n over its time at n (bench/growth.py), paired per repeat."""
    cases = growth.runs(scale)
    samples = _cpu_seconds([run for pair in cases.values() for run in pair], repeats)
    return {name: paired(samples[2 * i + 1], samples[2 * i]) for i, name in enumerate(cases)}


def _rate(events: int, seconds: float) -> float:
    return events / seconds if seconds > 0 else math.inf


# Each path of a workload, built from it; `sdk` only when the openai package is there.
_PATHS: dict[str, Callable[[Workload], Callable[[], int]]] = {
    "floor": floor,
    "scanner": scanner_floor,
    "full": full_path,
    "json": json_path,
    "router": router_alone,
}
# The ratios: name, numerator, denominator. Of throughput (b/a is the time of a over the time
# of b), except growth, which is of time.
_RATIOS = (
    ("full_over_floor", "floor", "full"),
    ("full_over_scanner", "scanner", "full"),
    ("json_over_floor", "floor", "json"),
    ("router_over_floor", "floor", "router"),
    ("full_over_sdk", "sdk", "full"),
    ("json_over_sdk", "sdk", "json"),
    ("growth_10x", "full_10x", "full"),
    ("json_growth_10x", "json_10x", "json"),
)


def run(
    scale: float = 1.0,
    repeats: int = 5,
    memory_bytes: int = 10 * MIB,
    vectors: Sequence[Path] = (BUNDLED_VECTORS,),
) -> dict[str, Any]:
    """Measure every workload at `scale` and 10 times that, and the suite's run over `vectors`;
    see the module docstring."""
    smalls = [make(scale) for make in WORKLOADS]
    runs: list[tuple[int, str, Callable[[], int]]] = []
    for index, make in enumerate(WORKLOADS):
        small, large = smalls[index], make(scale * 10)
        runs += [(index, name, build(small)) for name, build in _PATHS.items()]
        runs += [(index, "full_10x", full_path(large)), (index, "json_10x", json_path(large))]
        sdk = sdk_path(small)
        if sdk is not None:
            runs.append((index, "sdk", sdk))
    samples = _cpu_seconds([path for _, _, path in runs], repeats)
    seconds: list[dict[str, list[float]]] = [{} for _ in WORKLOADS]
    for (index, name, _), sample in zip(runs, samples, strict=True):
        seconds[index][name] = sample
    rows = [
        {"workload": small.name, **_figures(len(small.payloads), measured), "bytes": len(small.sse)}
        | {"previews": small.previews}
        for small, measured in zip(smalls, seconds, strict=True)
    ]
    routed = [measured for small, measured in zip(smalls, seconds, strict=True) if not small.previews]
    totals = {  # `all` is each stream once, routed as the SDK routes it, repeat by repeat
        name: [sum(values) for values in zip(*(measured[name] for measured in routed), strict=True)]
        for name in routed[0]
    }
    events = sum(len(small.payloads) for small in smalls if not small.previews)
    sdk_available = "sdk" in totals
    return {
        "machine": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "openai": sdk_version() if sdk_available else None,
        },
        "clock": "CPU time of this process (time.process_time); the suite's run: of its process",
        "scale": scale,
        "repeats": repeats,
        "read_size": READ_SIZE,
        "workloads": rows,
        "all": {"workload": "all", **_figures(events, totals)},
        "growth": growth_ratios(scale, repeats),
        "memory": peak_memory(memory_bytes),
        "fuzz": fuzz_cost(repeats, max(10, round(FUZZ_CASES * min(scale, 1.0)))),
        "suite": suite_cost(vectors, repeats),
        "plugin": plugin_cost(repeats),
    }


def _figures(events: int, seconds: dict[str, list[float]]) -> dict[str, Any]:
    """The median CPU time of each path, its events a second, and the ratios paired per repeat."""
    medians = {name: statistics.median(sample) for name, sample in seconds.items()}
    return {
        "events": events,
        "seconds": medians,
        "eps": {name: _rate(events, medians[name]) for name in (*_PATHS, "sdk") if name in medians},
        **{
            name: paired(seconds[top], seconds[bottom]) if top in seconds else None
            for name, top, bottom in _RATIOS
        },
    }


# -- the fuzzer's cost: drawing and judging generated cases --------------------------

FUZZ_CASES = 500  # the generated cases of each repeat, at scale 1 and above
FUZZ_SEED = 1


def _routed_alone(reference: PythonImplementation, drawn: Sequence[Case]) -> Callable[[], int]:
    """The reference routing each case's entries (or, sse, its bytes) by itself, as an adapter does."""

    def run() -> int:
        count = 0
        for case in drawn:
            router = reference.factory(case.generated.tools)
            wire = case.generated.wire
            if wire is not None:
                count += sum(len(outcomes) for outcomes in router.feed_bytes(wire.data))
            else:
                count += sum(len(router.feed(entry)) for entry in case.generated.events)
            count += len(router.close())
        return count

    return run


def fuzz_cost(repeats: int, cases: int = FUZZ_CASES) -> dict[str, Any]:
    """The fuzzer's loop over `cases` generated cases, each repeat: drawing them, judging them
    against the reference, and the reference routing them by itself; CPU time."""
    reference = PythonImplementation.load(DEFAULT_ADAPTER)
    sources = claimed(reference)
    drawing, judging, routing = [], [], []
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        drawn = draw_streams(sources, cases, FUZZ_SEED)
        drawing.append(time.process_time() - start)
        gc.collect()
        start = time.process_time()
        failed = first_failure(reference, drawn)
        judging.append(time.process_time() - start)
        if failed is not None:  # the ground truth and the reference disagree: nothing to measure
            raise RuntimeError(f"the reference fails generated case {failed[0]}: {failed[1].splitlines()[0]}")
        routing.append(_cpu_seconds([_routed_alone(reference, drawn)], 1)[0][0])
    fuzzing = [draw + judge for draw, judge in zip(drawing, judging, strict=True)]
    names = [name for name, _ in sources.strategies()]
    return {
        "cases": cases,
        "sources": names,
        "draw_seconds": drawing,
        "judge_seconds": judging,
        "route_seconds": routing,
        "streams_per_second": _rate(cases, statistics.median(fuzzing)),
        "rate": paired([cases] * len(fuzzing), fuzzing),  # streams a second in each repeat
        "drawn_per_second": _rate(cases, statistics.median(drawing)),
        "judged_per_second": _rate(cases, statistics.median(judging)),
        "fuzz_over_route": paired(fuzzing, routing),
        "draw_over_judge": paired(drawing, judging),
    }


# -- the suite's cost: `streamroute run` against parsing the vectors' YAML -----------

SUITE_TARGET = 3.0  # `streamroute run` costs at most this many times the parse of its YAML


def _child_seconds(command: Sequence[str], env: dict[str, str]) -> float:
    """The CPU time (user and system) of `command`, run to its end as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: some vector failed, which costs the same to find
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        raise RuntimeError(f"{' '.join(command)} exited with {done.returncode}: {''.join(tail)}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def suite_cost(roots: Sequence[Path], repeats: int) -> dict[str, Any]:
    """`streamroute run` over the vector files in `roots`, each time in a new process, against
    parsing their YAML in this one, and the ratio of the two in each repeat. `run` is measured
    as a user finds it after the first run, whose checks of each file's content it remembers
    (a run not measured comes first), and as that first run, with an empty cache of its own."""
    texts = [path.read_text(encoding="utf-8") for root in roots for path in sorted(root.rglob("*" + SUFFIX))]
    command = [sys.executable, "-m", "streamroute.conformance.cli", "run"]
    command += [part for root in roots for part in ("--vectors", str(root))]
    # As a user's machine runs it, with the cache that CI turns off (conformance/vector_cache.py).
    warm = {name: value for name, value in os.environ.items() if name != "CI"}
    _child_seconds(command, warm)
    parse, runs, first_runs = [], [], []
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        for text in texts:
            read_yaml(text)
        parse.append(time.process_time() - start)
        runs.append(_child_seconds(command, warm))
        with tempfile.TemporaryDirectory() as empty:
            first_runs.append(_child_seconds(command, {**warm, "XDG_CACHE_HOME": empty}))
    ratio = paired(runs, parse)
    return {
        "files": len(texts),
        "vectors": [str(root) for root in roots],
        "yaml_seconds": parse,
        "run_seconds": runs,
        "first_run_seconds": first_runs,
        "run_over_yaml": ratio,
        "first_run_over_yaml": paired(first_runs, parse),
        "target": SUITE_TARGET,
        "within_target": ratio["median"] <= SUITE_TARGET,
    }


# -- the pytest plugin's cost to a test run that does not use it -------------------------------------

PLUGIN_TARGET = 0.020  # CPU seconds importing the entry point may add to any pytest run
_PLUGIN_IMPORT = (
    "import sys, time, pytest; start = time.process_time(); import streamroute.conformance.plugin; "
    "seconds = time.process_time() - start; "
    "print(seconds, sum(m.split('.')[0] in ('streamroute', 'hypothesis') for m in sys.modules))"
)


def plugin_cost(repeats: int) -> dict[str, Any]:
    """The CPU time of importing the pytest11 entry point in a new process each repeat, after
    pytest, and how many streamroute and Hypothesis modules that import loaded."""
    seconds, modules = [], 0
    for _ in range(repeats):
        command = [sys.executable, "-c", _PLUGIN_IMPORT]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        spent, loaded = done.stdout.split()
        seconds.append(float(spent))
        modules = int(loaded)
    median = statistics.median(seconds)
    return {
        "import_seconds": seconds,
        "median_seconds": median,
        "modules": modules,
        "target_seconds": PLUGIN_TARGET,
        "within_target": median <= PLUGIN_TARGET,
    }


def _number(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _spread(ratio: dict[str, Any] | None, digits: int = 2) -> str:
    """A paired ratio as `median (min-max)`."""
    if ratio is None:
        return "n/a"
    return f"{ratio['median']:.{digits}f} ({ratio['min']:.{digits}f}-{ratio['max']:.{digits}f})"


def _eps(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def table(result: dict[str, Any]) -> str:
    """The result as Markdown tables and a few lines around them."""
    machine = result["machine"]
    sdk = f"openai {machine['openai']}" if machine["openai"] else "openai not installed: (c) unavailable"
    lines = [
        f"Python {machine['python']} ({machine['implementation']}) on {machine['platform']}, "
        f"{machine['cpus']} CPUs; {sdk}; scale {result['scale']:g}; CPU time, {result['repeats']} "
        "repeats, every path in each",
        "",
        "events a second (median CPU time):",
        "",
        "| workload | events | (a) json.loads | (a') C scanner | (b) SSE bytes to outcomes "
        "| JSON text to outcomes | router alone | (c) openai SDK |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    routed = [row for row in result["workloads"] if not row["previews"]]
    rows = [*routed, result["all"], *(row for row in result["workloads"] if row["previews"])]
    for row in rows:
        eps = row["eps"]
        lines.append(
            f"| {row['workload']} | {row['events']:,} | {_eps(eps['floor'])} | {_eps(eps['scanner'])} "
            f"| {_eps(eps['full'])} | {_eps(eps['json'])} | {_eps(eps['router'])} | {_eps(eps.get('sdk'))} |"
        )
    lines += [
        "",
        "ratios, paired per repeat: median (min-max); of throughput, 10x/1x of time:",
        "",
        "| workload | b/a | b/a' | JSON/a | router/a | b/c | JSON/c | 10x/1x (b) | 10x/1x (JSON) |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['workload']} | {_spread(row['full_over_floor'])} | {_spread(row['full_over_scanner'])} "
            f"| {_spread(row['json_over_floor'])} | {_spread(row['router_over_floor'])} "
            f"| {_spread(row['full_over_sdk'], 1)} | {_spread(row['json_over_sdk'], 1)} "
            f"| {_spread(row['growth_10x'])} | {_spread(row['json_growth_10x'])} |"
        )
    lines += [
        "",
        f"growth (e): CPU time at {growth.GROWTH}x the input over 1x, paired per repeat: median (min-max);"
        f" linear is about {growth.GROWTH}:",
        "",
        "| input | time ratio |",
        "|---|--:|",
        *(f"| {name} | {_spread(ratio)} |" for name, ratio in result["growth"].items()),
    ]
    memory, suite, fuzzed, plugin = result["memory"], result["suite"], result["fuzz"], result["plugin"]
    run_seconds, yaml_seconds = (
        statistics.median(suite["run_seconds"]),
        statistics.median(suite["yaml_seconds"]),
    )
    lines += [
        "",
        f"`all` is {', '.join(row['workload'] for row in routed)}. The rows after it also run a diff "
        "consumer, which the SDK has no counterpart of: their b/c compares unequal work.",
        "",
        f"Peak memory (tracemalloc) routing the SSE bytes of {MEMORY_CALLS} calls carrying "
        f"{memory['arguments_bytes'] / MIB:g} MiB of arguments ({memory['stream_bytes'] / MIB:.1f} MiB "
        f"on the wire): {memory['peak_bytes'] / MIB:.1f} MiB, {memory['ratio']:.2f} times the arguments.",
        "",
        f"The fuzzer (`streamroute fuzz` without shrinking), {fuzzed['cases']} generated cases of "
        f"{', '.join(fuzzed['sources'])}, drawn and judged against the reference: "
        f"{_eps(fuzzed['streams_per_second'])} generated streams a second ({_eps(fuzzed['rate']['min'])} to "
        f"{_eps(fuzzed['rate']['max'])} in a repeat; drawing "
        f"{_eps(fuzzed['drawn_per_second'])} a second, judging {_eps(fuzzed['judged_per_second'])}); "
        f"drawing costs {_spread(fuzzed['draw_over_judge'])} times judging, and a case "
        f"{_spread(fuzzed['fuzz_over_route'], 1)} times the reference routing it by itself.",
        "",
        f"`streamroute run` over {suite['files']} vector files ({', '.join(suite['vectors'])}), CPU time of "
        f"its process, start-up included, against parsing their YAML: "
        f"{run_seconds:.2f} s against {yaml_seconds:.2f} s (medians), "
        f"{_spread(suite['run_over_yaml'])} times; the first run, its cache empty: "
        f"{_spread(suite['first_run_over_yaml'])} times. Within {suite['target']:g}x: "
        f"{'yes' if suite['within_target'] else 'no'}.",
        "",
        f"The pytest plugin's import (its entry point, after pytest), CPU time of a process of its own: "
        f"{plugin['median_seconds'] * 1000:.1f} ms (median), loading {plugin['modules']} streamroute and "
        f"Hypothesis modules. Within {plugin['target_seconds'] * 1000:g} ms: "
        f"{'yes' if plugin['within_target'] else 'no'}.",
    ]
    return "\n".join(lines) + "\n"


def main(
    scale: float,
    repeats: int,
    output: TextIO | None,
    memory_mib: float = 10,
    vectors: Sequence[Path] = (BUNDLED_VECTORS,),
) -> int:
    """Run the benchmark and print its tables; `output`, opened before any work (so that a file
    that cannot be written fails at once), receives the figures as JSON. With stdout as the
    output, the tables go to stderr."""
    result = run(scale, repeats, int(memory_mib * MIB), vectors)
    (sys.stderr if output is sys.stdout else sys.stdout).write(table(result))
    if output is not None:
        output.truncate(0)  # the file was opened to append, so that nothing was lost before now
        json.dump(result, output, indent=2)
        output.write("\n")
        output.flush()
    return 0
