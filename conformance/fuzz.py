"""The differential mode: generated streams against any implementation, judged by their ground truth.

`fuzz(implementation, examples)` draws streams with `strategies.streams()`
for every profile the implementation declares (`core` events; `custom-tools`
streams whose custom tools have catalogue consumers; `execution` streams with
declared tools and control steps; `sse` streams as bytes, cut anywhere),
turns each into an in-memory vector whose expected outcomes come from the
stream's plan (`strategies.expected_outcomes`, at the tool call point the
implementation declares), and runs it through the same harness as the YAML
vectors (`results.run_vector`: schema check of every outcome, the canonical
tool call point, the outcome-by-outcome comparison, every cut of an sse
stream). It also checks the ground-truth properties
(`strategies.check_properties`), which say in words what went wrong. At the
first failure Hypothesis shrinks the stream to a minimal one; `write_vector`
saves that as a ready YAML vector file, which `streamroute lint` accepts and
the run command replays.

To measure rather than to report, `fuzz(..., shrink=False)` stops at the
first failure as it is; it is `first_failure(implementation,
draw_streams(profiles, examples, seed))`, and the streams of one seed can be
drawn once and judged against many implementations that declare the same
profiles.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import random
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import HypothesisWarning

from .implementation import (
    AdapterFailure,
    AdapterLoadError,
    AdapterSkipped,
    Implementation,
    Produced,
    PythonImplementation,
    Streamed,
)
from .protocol import ProtocolImplementation
from .results import Status, run_vector
from .strategies import (
    PROFILES,
    GeneratedStream,
    Profile,
    ToolCallPoint,
    check_properties,
    expected_outcomes,
    spec_ids,
    streams,
    well_formed,
)
from .suite import DEFAULT_ADAPTER, UsageError
from .vectors import Vector, load_file

FUZZ_PREFIX = "fuzz"


class _Recording:
    """An implementation that remembers the outcomes of its last run."""

    def __init__(self, implementation: Implementation) -> None:
        self.implementation = implementation
        self.last: list[Produced] | None = None

    @property
    def name(self) -> str:
        return self.implementation.name

    @property
    def profiles(self) -> frozenset[str]:
        return self.implementation.profiles

    @property
    def options(self) -> dict[str, Any]:
        return self.implementation.options

    @property
    def info(self) -> dict[str, Any]:
        return self.implementation.info

    def produce(self, vector: Vector) -> list[Produced]:
        self.last = None
        self.last = self.implementation.produce(vector)
        return self.last

    def produce_stream(self, vector: Vector, chunks: Sequence[bytes]) -> Streamed:
        self.last = None
        streamed = self.implementation.produce_stream(vector, chunks)
        self.last = streamed.produced
        return streamed

    def close(self) -> None:
        self.implementation.close()


def tool_call_point(implementation: Implementation) -> ToolCallPoint:
    point = implementation.options.get("tool_call_point", "output_item_done")
    return "arguments_done" if point == "arguments_done" else "output_item_done"


def claimed(implementation: Implementation) -> tuple[Profile, ...]:
    """The profiles generated streams are drawn for: those the implementation declares."""
    profiles = tuple(profile for profile in PROFILES if profile in implementation.profiles)
    if not profiles:
        raise ValueError(f"{implementation.name} declares none of the profiles generated streams cover")
    return profiles


def generated(profiles: Sequence[Profile], max_items: int = 5) -> st.SearchStrategy[GeneratedStream]:
    """Streams of each profile, as often as each other."""
    return st.one_of(*(streams(profile, max_items) for profile in profiles))


_KINDS = {"message": "message", "function": "function call", "custom": "custom call"}
_KINDS.update(reasoning="reasoning", hosted="hosted tool item")


def digest(stream: GeneratedStream) -> str:
    """A short name of the stream, from what an implementation is given: its tools and events or bytes."""
    fed = stream.wire.data if stream.wire is not None else json.dumps(stream.events, sort_keys=True).encode()
    return hashlib.sha256(json.dumps(stream.tools, sort_keys=True).encode() + fed).hexdigest()[:12]


def vector_data(
    stream: GeneratedStream,
    point: ToolCallPoint = "output_item_done",
    vector_id: str | None = None,
    description: str = "",
) -> dict[str, Any]:
    """The stream as a complete vector (spec/vector.schema.json), its outcomes from the ground truth."""
    wire = stream.wire
    counts: dict[str, int] = {}
    for item in stream.plan.items:
        counts[_KINDS[item.kind]] = counts.get(_KINDS[item.kind], 0) + 1
    items = ", ".join(f"{count} {kind}" for kind, count in counts.items()) or "no items"
    data: dict[str, Any] = {
        "format": 1,
        "id": vector_id or f"{FUZZ_PREFIX}/{digest(stream)}",
        "title": f"Generated {stream.profile} stream ({items}), {stream.plan.status}",
    }
    if description:
        data["description"] = description
    canonical = expected_outcomes(stream)
    other = expected_outcomes(stream, "arguments_done")
    optioned = canonical != other  # the two tool call points differ on this stream (CORE-CALL-8)
    outcomes = other if point == "arguments_done" else canonical
    cited, level = spec_ids(stream, outcomes, optioned)
    data.update(spec=cited, level=level, profile=stream.profile)
    if optioned:
        data["options"] = {"tool_call_point": point}
    data["tools"] = stream.tools
    if wire is None:
        data.update(events=[_plain(event) for event in stream.events], expect={"outcomes": outcomes})
        return data
    try:
        data["stream"] = wire.data.decode("utf-8")
    except UnicodeDecodeError:  # bytes that are not UTF-8 (SSE-LINE-1)
        data["stream_base64"] = base64.b64encode(wire.data).decode("ascii")
    data.update(cuts=[cut if isinstance(cut, str) else list(cut) for cut in wire.cuts])
    data["expect"] = {"dispatched": len(wire.dispatched()), "outcomes": outcomes}
    return data


def _plain(value: Any) -> Any:
    """A copy of an event made of plain JSON containers, as a loaded vector holds it."""
    return json.loads(json.dumps(value))


@dataclass(frozen=True)
class _JsonText:
    """An event written as `!json` JSON text (conformance/vectors.py): YAML states no lone surrogate."""

    text: str


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    pass


_Dumper.add_representer(
    _JsonText, lambda dumper, value: dumper.represent_scalar("!json", value.text, style="'")
)


def _has_surrogate(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _well_formed(value: Any) -> Any:
    """The value with each lone surrogate of its strings as U+FFFD, as the harness compares outcomes (D9)."""
    if isinstance(value, str):
        return well_formed(value)
    if isinstance(value, list):
        return [_well_formed(item) for item in value]
    if isinstance(value, dict):
        return {key: _well_formed(item) for key, item in value.items()}
    return value


def _savable(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The vector as YAML can state it, and as it reads back: an event holding a lone surrogate as
    `!json` text, a lone surrogate of an expected outcome as the U+FFFD it is compared as."""
    if not _has_surrogate(data):
        return data, data
    read = {**data, "expect": {**data["expect"], "outcomes": _well_formed(data["expect"]["outcomes"])}}
    written = dict(read)
    if "events" in data:
        written["events"] = [_JsonText(json.dumps(e)) if _has_surrogate(e) else e for e in data["events"]]
    return written, read


def write_vector(data: dict[str, Any], root: Path) -> Path:
    """Write a vector under `root` at its id's path; it must read back as it was (a lone surrogate
    of an expected outcome aside, which reads back as the U+FFFD it is compared as)."""
    path = root / f"{data['id']}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    written, read = _savable(data)
    for allow_unicode in (True, False):
        text = yaml.dump(
            written,
            Dumper=_Dumper,
            sort_keys=False,
            allow_unicode=allow_unicode,
            width=120,
            default_flow_style=None,
        )
        path.write_text(text, encoding="utf-8")
        loaded = load_file(path, root)
        if isinstance(loaded, Vector) and loaded.data == read:
            return path
    raise ValueError(f"{path}: the vector does not read back as it was written")


@dataclass
class Case:
    """A generated stream, and its vector at each tool call point, made once however often it runs."""

    stream: GeneratedStream
    vectors: dict[ToolCallPoint, Vector] = field(default_factory=dict)

    def vector(self, point: ToolCallPoint) -> Vector:
        if point not in self.vectors:
            self.vectors[point] = Vector(Path("<generated>"), vector_data(self.stream, point))
        return self.vectors[point]


def judge(implementation: Implementation, case: Case) -> str | None:
    """None when the implementation routes the stream as its ground truth says; else what went wrong."""
    point = tool_call_point(implementation)
    stream = case.stream
    recording = _Recording(implementation)
    try:
        result = run_vector(recording, case.vector(point))
    except (AdapterFailure, AdapterSkipped) as exc:  # run_vector reports these; never expected here
        return f"{type(exc).__name__}: {exc}"
    if result.status is Status.PASSED:
        return None
    lines = []
    if recording.last is not None and result.status is Status.FAILED:
        lines += check_properties(stream, [entry.outcome for entry in recording.last], point)
    lines.append(f"{result.status.value}: {result.message}")
    if result.details:
        lines.append(result.details)
    return "\n".join(lines)


class _Found(Exception):
    pass


@dataclass
class FuzzFailure:
    stream: GeneratedStream
    message: str
    vector: dict[str, Any]
    path: Path | None = None


@dataclass
class FuzzResult:
    examples: int  # streams run, shrinking included
    failure: FuzzFailure | None = None
    notes: list[str] = field(default_factory=list)


def _settings(examples: int, phases: tuple[Phase, ...]) -> settings:
    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
    )


def draw_streams(
    profiles: Sequence[Profile], examples: int, seed: int | None, max_items: int = 5
) -> list[Case]:
    """`examples` distinct streams, each drawn afresh, the profiles in turn, without running
    anything: the same for the same seed. Left to run, Hypothesis spends most of its examples on
    variations of the few streams it drew first, which is right for finding one failure and
    shrinking it, not for measuring how much streams find: here stream i is the first random
    example of a Hypothesis run seeded with "seed:i" (the one before it is the simplest stream,
    drawn in every run)."""
    base = seed if seed is not None else random.getrandbits(64)
    last: list[GeneratedStream] = []

    def collector(profile: Profile) -> Callable[[], None]:
        @_settings(2, (Phase.generate,))
        @given(streams(profile, max_items))
        def collect(stream: GeneratedStream) -> None:
            last[:] = [stream]

        return collect

    collectors = [collector(profile) for profile in profiles]
    drawn: dict[str, Case] = {}
    for run in itertools.count():
        if len(drawn) == examples:
            break
        hypothesis_seed(f"{base}:{run}")(collectors[run % len(collectors)])()
        drawn.setdefault(digest(last[0]), Case(last[0]))
    return list(drawn.values())


def first_failure(implementation: Implementation, drawn: Sequence[Case]) -> tuple[int, str] | None:
    """The first stream the implementation fails, by its index, and what went wrong."""
    for index, case in enumerate(drawn):
        verdict = judge(implementation, case)
        if verdict is not None:
            return index, verdict
    return None


def fuzz(
    implementation: Implementation,
    examples: int = 200,
    seed: int | None = None,
    save_to: Path | None = None,
    max_items: int = 5,
    shrink: bool = True,
) -> FuzzResult:
    """Run up to `examples` generated streams; shrink the first failure and save it as a vector."""
    profiles = claimed(implementation)
    if not shrink:
        drawn = draw_streams(profiles, examples, seed, max_items)
        found = first_failure(implementation, drawn)
        if found is None:
            return FuzzResult(len(drawn))
        index, message = found
        return _failed(FuzzResult(index + 1), implementation, drawn[index].stream, message, save_to)
    result = FuzzResult(0)
    failures: list[tuple[GeneratedStream, str]] = []

    @_settings(examples, (Phase.generate, Phase.shrink))
    @given(generated(profiles, max_items))
    def check(stream: GeneratedStream) -> None:
        result.examples += 1
        verdict = judge(implementation, Case(stream))
        if verdict is not None:
            failures.append((stream, verdict))
            raise _Found

    try:
        with warnings.catch_warnings():  # the repr of a stream past the 1 MiB limit is long, and never shown
            warnings.simplefilter("ignore", HypothesisWarning)
            (hypothesis_seed(seed)(check) if seed is not None else check)()
    except Exception as exc:  # _Found, or Hypothesis's report of it (flaky when the adapter is)
        if not failures:
            raise
        if not isinstance(exc, _Found):
            result.notes.append(f"Hypothesis: {type(exc).__name__}")
    if not failures:
        return result
    stream, message = failures[-1]  # the last failure Hypothesis ran is the shrunk one
    return _failed(result, implementation, stream, message, save_to)


def _failed(
    result: FuzzResult,
    implementation: Implementation,
    stream: GeneratedStream,
    message: str,
    save_to: Path | None,
) -> FuzzResult:
    description = (
        f"Found by `streamroute fuzz` against {implementation.name}; its outcomes come from the"
        " stream's ground truth (conformance/strategies.py). What failed:\n" + message.splitlines()[0]
    )
    data = vector_data(stream, tool_call_point(implementation), description=description)
    result.failure = FuzzFailure(stream, message, data)
    if save_to is not None:
        result.failure.path = write_vector(data, save_to)
    return result


def load_implementation(adapter: str | None, adapter_command: str | None, timeout: float) -> Implementation:
    """The implementation to fuzz: a Python adapter (default: the reference) or an adapter command."""
    if adapter is not None and adapter_command is not None:
        raise UsageError("give a Python adapter or an adapter command, not both")
    try:
        if adapter_command is not None:
            return ProtocolImplementation.start(adapter_command, timeout)
        return PythonImplementation.load(adapter or DEFAULT_ADAPTER)
    except AdapterLoadError as exc:
        raise UsageError(str(exc)) from exc
