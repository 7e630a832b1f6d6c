"""The differential mode: generated streams against any implementation, judged by their ground truth.

`fuzz(implementation, examples)` draws streams with `strategies.streams()`,
turns each into an in-memory vector whose expected outcomes come from the
stream's plan (`strategies.expected_outcomes`), and runs it through the same
harness as the YAML vectors (`results.run_vector`: schema check of every
outcome, the canonical tool call point, the outcome-by-outcome comparison).
It also checks the ground-truth properties (`strategies.check_properties`),
which say in words what went wrong. At the first failure Hypothesis shrinks
the stream to a minimal one; `write_vector` saves that as a ready YAML vector
file, which `streamroute lint` accepts and the run command replays.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

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
    GeneratedStream,
    ToolCallPoint,
    check_properties,
    expected_outcomes,
    needs_option,
    streams,
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
        return self.implementation.produce_stream(vector, chunks)

    def close(self) -> None:
        self.implementation.close()


def tool_call_point(implementation: Implementation) -> ToolCallPoint:
    point = implementation.options.get("tool_call_point", "output_item_done")
    return "arguments_done" if point == "arguments_done" else "output_item_done"


def _spec_ids(stream: GeneratedStream) -> list[str]:
    """The requirements a generated stream checks, by what it contains."""
    kinds = {event["type"] for event in stream.events}
    truth = stream.truth
    ids = ["CORE-EVT-1", "CORE-ITEM-1", "CORE-LIFE-1", "CORE-LIFE-5", "CORE-OUT-1"]
    if truth.texts:
        ids += ["CORE-TEXT-1", "CORE-TEXT-2", "CORE-TEXT-3"]
    if "response.reasoning_summary_text.delta" in kinds:
        ids.append("CORE-TEXT-5")
    if truth.calls:
        ids += ["CORE-ARGS-1", "CORE-ARGS-2", "CORE-ARGS-5", "CORE-CALL-1", "CORE-CALL-2", "CORE-CALL-3"]
    if any(not call.done for call in truth.calls):
        ids.append("CORE-CALL-6")
    if any(":" in kind for kind in kinds):
        ids.append("CORE-EVT-4")
    if kinds & {"response.future_feature.delta"}:
        ids.append("CORE-EVT-3")
    if any(step.kind in ("part_added", "part_done", "summary_done") for step in stream.plan.steps) or any(
        kind.startswith(("response.output_text.annotation", "response.web_search", "response.audio"))
        for kind in kinds
    ):
        ids.append("CORE-EVT-5")
    duplicates = {step.kind for step in stream.plan.steps if step.kind.endswith("_again")}
    ids += ["CORE-TEXT-7"] if "text_done_again" in duplicates else []
    ids += ["CORE-ARGS-7"] if "arguments_done_again" in duplicates else []
    ids += ["CORE-ITEM-5"] if "item_done_again" in duplicates else []
    if truth.status != "truncated":
        ids.append("CORE-LIFE-2")
    if truth.status == "failed":
        ids.append("CORE-LIFE-3")
    if needs_option(stream):
        ids.append("CORE-CALL-8")
    if stream.plan.consumer and any(item.kind == "custom" for item in stream.plan.items):
        ids += ["CUSTOM-SLOT-2", "CUSTOM-DELTA-2", "CUSTOM-DELTA-4", "CUSTOM-FIN-1", "CUSTOM-CAT-2"]
        ids += ["CUSTOM-EXEC-1"]
    return ids


def vector_data(
    stream: GeneratedStream,
    point: ToolCallPoint = "output_item_done",
    vector_id: str | None = None,
    description: str = "",
) -> dict[str, Any]:
    """The stream as a complete vector (spec/vector.schema.json), its outcomes from the ground truth."""
    events = [dict(event) for event in stream.events]
    digest = hashlib.sha256(json.dumps(events, sort_keys=True).encode("utf-8")).hexdigest()[:12]
    truth = stream.truth
    items = ", ".join(f"{len(group)} {kind}" for kind, group in _items_by_kind(stream).items()) or "no items"
    data: dict[str, Any] = {
        "format": 1,
        "id": vector_id or f"{FUZZ_PREFIX}/{digest}",
        "title": f"Generated stream ({items}), {truth.status}",
    }
    if description:
        data["description"] = description
    data.update(spec=_spec_ids(stream), level="MUST", profile=stream.profile)
    if needs_option(stream):  # the two tool call points differ on this stream (CORE-CALL-8)
        data["options"] = {"tool_call_point": point}
    data.update(tools=stream.tools, events=events, expect={"outcomes": expected_outcomes(stream, point)})
    return data


def _items_by_kind(stream: GeneratedStream) -> dict[str, list[Any]]:
    names = {
        "message": "message",
        "function": "function call",
        "custom": "custom call",
        "reasoning": "reasoning",
    }
    grouped: dict[str, list[Any]] = {}
    for item in stream.plan.items:
        grouped.setdefault(names[item.kind], []).append(item)
    return grouped


def _dump(data: dict[str, Any], allow_unicode: bool) -> str:
    return yaml.safe_dump(
        data, sort_keys=False, allow_unicode=allow_unicode, width=120, default_flow_style=None
    )


def write_vector(data: dict[str, Any], root: Path) -> Path:
    """Write a vector under `root` at its id's path; it must read back exactly as it was."""
    path = root / f"{data['id']}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    for allow_unicode in (True, False):
        path.write_text(_dump(data, allow_unicode), encoding="utf-8")
        loaded = load_file(path, root)
        if isinstance(loaded, Vector) and loaded.data == data:
            return path
    raise ValueError(f"{path}: the vector does not read back as it was written")


def judge(implementation: Implementation, stream: GeneratedStream) -> str | None:
    """None when the implementation routes the stream as its ground truth says; else what went wrong."""
    point = tool_call_point(implementation)
    data = vector_data(stream, point)
    recording = _Recording(implementation)
    result = run_vector(recording, Vector(Path("<generated>"), data))
    if result.status is Status.PASSED:
        return None
    lines = []
    if recording.last is not None and result.status is Status.FAILED:
        lines += check_properties(stream.truth, [entry.outcome for entry in recording.last], point)
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


def fuzz(
    implementation: Implementation,
    examples: int = 200,
    seed: int | None = None,
    save_to: Path | None = None,
    max_items: int = 4,
) -> FuzzResult:
    """Run up to `examples` generated streams; shrink the first failure and save it as a vector."""
    if "core" not in implementation.profiles:
        raise ValueError(
            f"{implementation.name} does not declare the core profile; generated streams are core"
        )
    result = FuzzResult(0)
    found: list[tuple[GeneratedStream, str]] = []
    generated = streams(max_items)
    if "custom-tools" in implementation.profiles:  # also with diff consumers
        generated |= streams(max_items, consumer=True)

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
    )
    @given(generated)
    def check(stream: GeneratedStream) -> None:
        result.examples += 1
        try:
            verdict = judge(implementation, stream)
        except (AdapterFailure, AdapterSkipped) as exc:  # run_vector reports these; never expected here
            verdict = f"{type(exc).__name__}: {exc}"
        if verdict is not None:
            found.append((stream, verdict))
            raise _Found

    test = hypothesis_seed(seed)(check) if seed is not None else check
    try:
        test()
    except Exception as exc:  # _Found, or Hypothesis's report of it (flaky when the adapter is)
        if not found:
            raise
        if not isinstance(exc, _Found):
            result.notes.append(f"Hypothesis: {type(exc).__name__}")
    if found:
        stream, message = found[-1]  # the last failure Hypothesis ran is the shrunk one
        point = tool_call_point(implementation)
        description = (
            f"Found by `streamroute fuzz` against {implementation.name}; its outcomes come from the"
            " stream's ground truth (conformance/strategies.py). What failed:\n" + message.splitlines()[0]
        )
        data = vector_data(stream, point, description=description)
        failure = FuzzFailure(stream, message, data)
        if save_to is not None:
            failure.path = write_vector(data, save_to)
        result.failure = failure
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
