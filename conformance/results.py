"""Running one vector against one implementation, and what can come of it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum

from .compare import compare, to_canonical_point
from .implementation import AdapterFailure, AdapterSkipped, Implementation, Produced
from .limits import MAX_DETAILS_CHARS, MAX_MESSAGE_CHARS, clip
from .schemas import OUTCOME, first_error, schema
from .vectors import Vector

# Compared only in execution vectors, so that an implementation can claim
# `core` and `execution` with its executor always on (spec/execution.md section 10).
EXECUTION_KINDS = frozenset(schema(OUTCOME + "#/$defs/execution_kind")["enum"])


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"  # the implementation did not answer: never a pass
    SKIPPED = "skipped"  # the implementation declined it, with a reason: neither a pass nor a failure
    NOT_APPLICABLE = "not applicable"  # a profile or option value it does not declare
    EXPECTED_FAILURE = "expected failure"  # failed or errored, and listed as such

    @property
    def is_failure(self) -> bool:
        return self in (Status.FAILED, Status.ERRORED)

    @property
    def executed(self) -> bool:
        """The vector ran: the implementation answered it, or failed to."""
        return self in (Status.PASSED, Status.FAILED, Status.ERRORED, Status.EXPECTED_FAILURE)


def executed(counts: Mapping[Status, int]) -> int:
    """How many vectors ran, of those counted by status."""
    return sum(counts.get(status, 0) for status in Status if status.executed)


def run_failed(counts: Mapping[Status, int], bad_files: int, *, allow_empty: bool = False) -> bool:
    """What fails a run: a failed or errored vector (a stale expected failure is failed), a bad vector
    file, or no vector executed at all (none selected, or each not applicable or skipped) unless the
    user allows that."""
    if bad_files or any(counts.get(status, 0) for status in Status if status.is_failure):
        return True
    return not allow_empty and not executed(counts)


@dataclass(frozen=True)
class Result:
    vector_id: str
    status: Status
    message: str = ""
    details: str = ""

    def __post_init__(self) -> None:  # what an implementation said is kept within the report's limits
        object.__setattr__(self, "message", clip(self.message, MAX_MESSAGE_CHARS))
        object.__setattr__(self, "details", clip(self.details, MAX_DETAILS_CHARS))


def not_applicable_reason(implementation: Implementation, vector: Vector) -> str | None:
    if vector.profile not in implementation.profiles:
        return f"profile {vector.profile!r} is not among those {implementation.name} declares"
    for name, needed in vector.options.items():
        declared = implementation.options.get(name)
        if declared != needed:
            return f"needs option {name}={needed}; {implementation.name} declares {name}={declared}"
    return None


def run_vector(implementation: Implementation, vector: Vector) -> Result:
    reason = not_applicable_reason(implementation, vector)
    if reason is not None:
        return Result(vector.id, Status.NOT_APPLICABLE, reason)
    if vector.stream is not None:
        return _run_stream(implementation, vector)
    try:
        produced = implementation.produce(vector)
    except AdapterFailure as failure:
        return Result(vector.id, Status.ERRORED, failure.message, failure.details)
    except AdapterSkipped as skipped:
        return Result(vector.id, Status.SKIPPED, skipped.reason)
    return _check(implementation, vector, produced)


def _run_stream(implementation: Implementation, vector: Vector) -> Result:
    """An sse vector runs once per cut, and every run must meet it (spec/sse.md section 7)."""
    for cut in vector.cuts():
        try:
            streamed = implementation.produce_stream(vector, cut.chunks)
        except AdapterFailure as failure:
            return Result(vector.id, Status.ERRORED, f"{cut.label}: {failure.message}", failure.details)
        except AdapterSkipped as skipped:
            return Result(vector.id, Status.SKIPPED, skipped.reason)
        result = _check(implementation, vector, streamed.produced)
        if result.status is Status.PASSED and len(streamed.events) != vector.dispatched:
            message = f"dispatched {len(streamed.events)} SSE events; the stream has {vector.dispatched}"
            result = Result(vector.id, Status.FAILED, message)
        if result.status is not Status.PASSED:
            return replace(result, message=f"{cut.label}: {result.message}")
    return Result(vector.id, Status.PASSED)


def _check(implementation: Implementation, vector: Vector, produced: list[Produced]) -> Result:
    for index, entry in enumerate(produced):
        problem = first_error(OUTCOME, entry.outcome)
        if problem is not None:
            shown = json.dumps(entry.outcome, ensure_ascii=False, default=repr)
            return Result(
                vector.id,
                Status.FAILED,
                f"outcome {index} (from event {entry.at}) is not a valid outcome: {problem}",
                shown,
            )
    if vector.profile != "execution":
        produced = [entry for entry in produced if entry.outcome["kind"] not in EXECUTION_KINDS]
    # A stream vector has no events to move outcomes along; none needs it (spec/sse.md section 7).
    if implementation.options.get("tool_call_point") == "arguments_done" and vector.stream is None:
        produced = to_canonical_point(produced, vector.events)
    mismatch = compare(vector.expected, produced, vector.compare)
    if mismatch is not None:
        return Result(
            vector.id, Status.FAILED, f"outcome {mismatch.index}: {mismatch.reason}", mismatch.table
        )
    return Result(vector.id, Status.PASSED)
