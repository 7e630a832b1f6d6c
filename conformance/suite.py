"""One conformance run's setup, shared by the CLI and the pytest plugin."""

from __future__ import annotations

import hashlib
import json
import shlex
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import worker
from .expected_failures import ExpectedFailures
from .gate import Gate
from .implementation import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT  # the front ends' default, from here
from .implementation import (
    MAX_TIMEOUT,
    AdapterLoadError,
    Implementation,
    PythonImplementation,
    unknown_profiles,
)
from .progress import Progress
from .report import Record, SuiteRun, Totals, vector_record
from .results import Result, Status, run_vector
from .schemas import BUNDLED_VECTORS
from .selection import Selection, SelectionError
from .vector_cache import VectorCache, enabled
from .vectors import Vector, VectorFileError, load_vectors

# The harness reaches the reference only through this adapter string.
DEFAULT_ADAPTER = "streamroute.reference.adapter:router"


class UsageError(Exception):
    """Bad options: reported in one line before any vector runs."""


def check_implementation(adapter: str | None, adapter_command: str | None, timeout: float) -> None:
    """UsageError for a choice of implementation that cannot be meant: both kinds, an empty one (an
    unset variable in CI), a command that cannot be split into words, a timeout that is no duration."""
    if adapter is not None and adapter_command is not None:
        raise UsageError("give a Python adapter or an adapter command, not both")
    if adapter is not None and not adapter.strip():
        raise UsageError("the adapter is empty; give it as module:callable")
    if adapter_command is not None:
        try:
            words = shlex.split(adapter_command)
        except ValueError as exc:
            problem = f"the adapter command {adapter_command!r} cannot be split into words: {exc}"
            raise UsageError(problem) from None
        if not words:
            raise UsageError("the adapter command is empty")
    if not timeout > 0:  # nan too
        raise UsageError(f"the timeout must be a positive number of seconds, not {timeout:g}")
    if not timeout <= MAX_TIMEOUT:
        raise UsageError(f"the timeout must be at most {MAX_TIMEOUT:g} seconds (a day), not {timeout:g}")


def load_implementation(adapter: str | None, adapter_command: str | None, timeout: float) -> Implementation:
    """The implementation a front end tests: an adapter command, or a Python adapter (the reference
    by default) in a worker process (conformance/worker.py); UsageError when it cannot be had."""
    check_implementation(adapter, adapter_command, timeout)
    try:
        if adapter_command is not None:
            from .protocol import ProtocolImplementation  # only a run over the protocol needs it

            return ProtocolImplementation.start(adapter_command, timeout)
        if worker.AVAILABLE:
            return worker.WorkerImplementation.load(adapter or DEFAULT_ADAPTER, timeout)
        return PythonImplementation.load(adapter or DEFAULT_ADAPTER, timeout)
    except AdapterLoadError as exc:
        raise UsageError(str(exc)) from exc


def vector_roots(vector_dirs: Sequence[Path]) -> list[Path]:
    """The directories to read vectors from (the bundled ones by default); UsageError for one that is not."""
    for root in vector_dirs:
        if not root.is_dir():
            raise UsageError(f"{root} is not a directory of vectors")
    return list(vector_dirs) or [BUNDLED_VECTORS]


def vector_set(roots: Sequence[Path], vectors: Sequence[Vector]) -> dict[str, Any]:
    """What a run's vectors were, as its report header says (spec/report.schema.json
    `$defs/vector_set`): their roots, whether they are the bundled ones, how many, and a digest of
    their ids and contents that tells two sets apart."""
    entries = sorted(f"{v.id}\0{json.dumps(v.data, sort_keys=True)}" for v in vectors)
    digest = hashlib.sha256("\n".join(entries).encode("utf-8", "surrogatepass")).hexdigest()
    bundled = [root.resolve() for root in roots] == [BUNDLED_VECTORS.resolve()]
    shown = ["bundled"] if bundled else [str(root) for root in roots]
    return {"roots": shown, "bundled": bundled, "count": len(vectors), "digest": f"sha256:{digest}"}


@dataclass
class Suite:
    implementation: Implementation
    vectors: list[Vector]
    file_errors: list[VectorFileError]
    expected_failures: ExpectedFailures | None
    deselected: int
    warnings: list[str]
    reference_by_default: bool = False  # no implementation was named: the run tests the reference
    gate: Gate = field(default_factory=Gate)
    vector_set: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def prepare(
        cls,
        adapter: str | None = None,
        vector_dirs: Sequence[Path] = (),
        profiles: Sequence[str] = (),
        expected_failures: Path | None = None,
        *,
        adapter_command: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        gate: Gate | None = None,
        no_cache: bool = False,
        selection: Selection | None = None,
    ) -> Suite:
        problem = unknown_profiles(profiles)
        if problem is not None:
            raise UsageError(problem)
        check_implementation(adapter, adapter_command, timeout)
        roots = vector_roots(vector_dirs)
        by_default = adapter is None and adapter_command is None
        try:
            listed = ExpectedFailures.load(expected_failures) if expected_failures else None
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read the expected failures file {expected_failures}: {exc}") from exc
        cache = VectorCache() if enabled(no_cache) else None
        vectors, file_errors = load_vectors(roots, cache)
        try:
            chosen = (selection or Selection()).select(vectors)
        except SelectionError as exc:
            raise UsageError(str(exc)) from None
        selected = [v for v in chosen if not profiles or v.profile in profiles]
        unknown_ids = listed.unknown(v.id for v in vectors) if listed else []
        warnings = [] if cache is None else list(cache.warnings)
        warnings += [f"{expected_failures}: {vector_id} matches no vector" for vector_id in unknown_ids]
        warnings += listed.warnings if listed else []
        # Last: nothing above can fail and leave the implementation's process running.
        implementation = load_implementation(adapter, adapter_command, timeout)
        deselected = len(vectors) - len(selected)
        return cls(
            implementation,
            selected,
            file_errors,
            listed,
            deselected,
            warnings,
            by_default,
            gate or Gate(),
            vector_set(roots, vectors),
        )

    def run(self, vector: Vector) -> Result:
        result = run_vector(self.implementation, vector)
        return self.expected_failures.apply(result) if self.expected_failures else result

    def listed(self, vector: Vector) -> bool:
        """The vector is in the expected-failures list."""
        return self.expected_failures is not None and vector.id in self.expected_failures.ids

    def listed_signature(self, vector: Vector) -> str | None:
        """How the expected-failures list says the vector fails; None when it does not say."""
        return None if self.expected_failures is None else self.expected_failures.signatures.get(vector.id)

    def close(self) -> None:
        self.implementation.close()


def timed(suite: Suite, vector: Vector) -> tuple[Result, float]:
    clock = time.perf_counter()
    result = suite.run(vector)
    return result, time.perf_counter() - clock


def run_suite(
    suite: Suite,
    each: Callable[[Record], None] | None = None,
    maxfail: int | None = None,
    progress: Progress | None = None,
) -> SuiteRun:
    """Run every selected vector, in order, or until `maxfail` have failed or errored; `each` sees
    each vector's report line as it comes, and `progress` each vector start and end."""
    started, clock = datetime.now(timezone.utc), time.perf_counter()
    counts: Counter[Status] = Counter()
    records: list[Record] = []
    for vector in suite.vectors:
        if maxfail is not None and sum(counts[status] for status in Status if status.is_failure) >= maxfail:
            break
        if progress is not None:
            progress.step(vector.id)
        result, seconds = timed(suite, vector)
        if progress is not None:
            progress.finished(result.status.is_failure)
        counts[result.status] += 1
        records.append(vector_record(suite, vector, result, seconds))
        if each is not None:
            each(records[-1])
    not_run = len(suite.vectors) - len(records)
    totals = Totals(counts, len(suite.file_errors), suite.deselected, not_run)
    return SuiteRun(records, totals, started, time.perf_counter() - clock)
