"""`streamroute bench`: what routing a stream costs, measured against its floor and a peer.

A router sits on the hot path of every streamed token, so the benchmark asks
three questions of the same streams, in one process and one run:

* floor (a): `json.loads` of every event's data payload, and nothing else.
  Any router fed JSON text pays at least this.
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
may grow faster than linearly. Every figure is the median of the repeats.
Peak memory is the `tracemalloc` peak while the full path routes a stream of
calls carrying 10 MiB of arguments; the stream's bytes exist before it
starts, and outcomes are dropped as they come, as a client that acts on them
does.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from streamroute.reference.consumers import consumers_for
from streamroute.reference.fields import loads_strict
from streamroute.reference.router import Router
from streamroute.reference.sse import ByteRouter

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


def _median_seconds(runs: Sequence[Callable[[], int]], repeats: int) -> list[float]:
    """Each run's median time over `repeats`, the runs interleaved so drift hits them alike."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for run, sample in zip(runs, times, strict=True):
            gc.collect()
            start = time.perf_counter()
            run()
            sample.append(time.perf_counter() - start)
    return [statistics.median(sample) for sample in times]


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


def _rate(events: int, seconds: float) -> float:
    return events / seconds if seconds > 0 else float("inf")


_PATHS = ("floor", "full", "json", "router")


def run(scale: float = 1.0, repeats: int = 5, memory_bytes: int = 10 * MIB) -> dict[str, Any]:
    """Measure every workload at `scale` and 10 times that; see the module docstring."""
    rows = []
    totals: dict[str, float] = dict.fromkeys(("events", *_PATHS, "sdk", "full_10x", "json_10x"), 0.0)
    sdk_available = True
    for make in WORKLOADS:
        small, large = make(scale), make(scale * 10)
        paths = [floor(small), full_path(small), json_path(small), router_alone(small)]
        paths += [full_path(large), json_path(large)]
        sdk = sdk_path(small)
        if sdk is not None:
            paths.append(sdk)
        seconds = _median_seconds(paths, repeats)
        measured = dict(zip((*_PATHS, "full_10x", "json_10x", "sdk"), seconds, strict=False))  # sdk: maybe
        sdk_available = sdk_available and sdk is not None
        events = len(small.payloads)
        row = {"workload": small.name, **_figures(events, measured), "bytes": len(small.sse)}
        rows.append({**row, "previews": small.previews})
        if not small.previews:  # `all` is each stream once, routed as the SDK routes it
            totals["events"] += events
            for name, value in measured.items():
                totals[name] += value
    events = int(totals["events"])
    if not sdk_available:
        del totals["sdk"]
    return {
        "machine": {
            "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "openai": sdk_version() if sdk_available else None,
        },
        "scale": scale,
        "repeats": repeats,
        "read_size": READ_SIZE,
        "workloads": rows,
        "all": {"workload": "all", **_figures(events, totals)},
        "memory": peak_memory(memory_bytes),
    }


def _figures(events: int, seconds: dict[str, float]) -> dict[str, Any]:
    """Events a second on each path, and the ratios (of throughput: time a over time b is b/a)."""
    sdk = seconds.get("sdk")
    return {
        "events": events,
        "seconds": {name: value for name, value in seconds.items() if name != "events"},
        "eps": {name: _rate(events, seconds[name]) for name in (*_PATHS, "sdk") if name in seconds},
        "full_over_floor": seconds["floor"] / seconds["full"],
        "json_over_floor": seconds["floor"] / seconds["json"],
        "router_over_floor": seconds["floor"] / seconds["router"],
        "full_over_sdk": None if sdk is None else sdk / seconds["full"],
        "json_over_sdk": None if sdk is None else sdk / seconds["json"],
        "growth_10x": seconds["full_10x"] / seconds["full"],
        "json_growth_10x": seconds["json_10x"] / seconds["json"],
    }


def _number(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _eps(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def table(result: dict[str, Any]) -> str:
    """The result as a Markdown table and a few lines around it."""
    machine = result["machine"]
    sdk = f"openai {machine['openai']}" if machine["openai"] else "openai not installed: (c) unavailable"
    lines = [
        f"Python {machine['python']} ({machine['implementation']}) on {machine['platform']}, "
        f"{machine['cpus']} CPUs; {sdk}; scale {result['scale']:g}, median of {result['repeats']}",
        "",
        "events a second:",
        "",
        "| workload | events | (a) json.loads | (b) SSE bytes to outcomes | JSON text to outcomes "
        "| router alone | (c) openai SDK |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    routed = [row for row in result["workloads"] if not row["previews"]]
    rows = [*routed, result["all"], *(row for row in result["workloads"] if row["previews"])]
    for row in rows:
        eps = row["eps"]
        lines.append(
            f"| {row['workload']} | {row['events']:,} | {_eps(eps['floor'])} | {_eps(eps['full'])} "
            f"| {_eps(eps['json'])} | {_eps(eps['router'])} | {_eps(eps.get('sdk'))} |"
        )
    lines += [
        "",
        "ratios (throughput; 10x/1x is time):",
        "",
        "| workload | b/a | JSON/a | router/a | b/c | JSON/c | 10x/1x (b) | 10x/1x (JSON) |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['workload']} | {_number(row['full_over_floor'])} | {_number(row['json_over_floor'])} "
            f"| {_number(row['router_over_floor'])} | {_number(row['full_over_sdk'], 1)} "
            f"| {_number(row['json_over_sdk'], 1)} | {_number(row['growth_10x'])} "
            f"| {_number(row['json_growth_10x'])} |"
        )
    memory = result["memory"]
    lines += [
        "",
        f"`all` is {', '.join(row['workload'] for row in routed)}. The rows after it also run a diff "
        "consumer, which the SDK has no counterpart of: their b/c compares unequal work.",
        "",
        f"Peak memory (tracemalloc) routing the SSE bytes of {MEMORY_CALLS} calls carrying "
        f"{memory['arguments_bytes'] / MIB:g} MiB of arguments ({memory['stream_bytes'] / MIB:.1f} MiB "
        f"on the wire): {memory['peak_bytes'] / MIB:.1f} MiB, {memory['ratio']:.2f} times the arguments.",
    ]
    return "\n".join(lines) + "\n"


def main(scale: float, repeats: int, output: str | None, memory_mib: float = 10) -> int:
    result = run(scale, repeats, int(memory_mib * MIB))
    sys.stdout.write(table(result))
    if output is not None:
        with open(output, "w", encoding="utf-8") as file:
            json.dump(result, file, indent=2)
            file.write("\n")
    return 0
