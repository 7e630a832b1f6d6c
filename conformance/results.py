"""Running one vector against one implementation, and what can come of it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum

from .compare import compare, to_canonical_point
from .implementation import AdapterFailure, Implementation
from .schemas import OUTCOME, first_error
from .vectors import Vector


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"  # the implementation did not answer: never a pass
    NOT_APPLICABLE = "not applicable"  # a profile or option value it does not declare
    EXPECTED_FAILURE = "expected failure"  # failed or errored, and listed as such

    @property
    def is_failure(self) -> bool:
        return self in (Status.FAILED, Status.ERRORED)


@dataclass(frozen=True)
class Result:
    vector_id: str
    status: Status
    message: str = ""
    details: str = ""


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
    try:
        produced = implementation.produce(vector)
    except AdapterFailure as failure:
        return Result(vector.id, Status.ERRORED, failure.message, failure.details)
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
    if implementation.options.get("tool_call_point") == "arguments_done":
        produced = to_canonical_point(produced, vector.events)
    mismatch = compare(vector.expected, produced, vector.compare)
    if mismatch is not None:
        return Result(
            vector.id, Status.FAILED, f"outcome {mismatch.index}: {mismatch.reason}", mismatch.table
        )
    return Result(vector.id, Status.PASSED)
