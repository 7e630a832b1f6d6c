"""What can come of running one vector against one implementation: its status and its result,
as the judge (conformance/judge.py) decides them and the report keeps them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .limits import MAX_DETAILS_CHARS, MAX_MESSAGE_CHARS, clip
from .schemas import VECTOR, schema

CLASSES = tuple(schema(VECTOR + "#/$defs/class")["enum"])  # the conformance classes, routing first

# A failing comparison, as JSON data (spec/report.schema.json `$defs/comparison`).
Comparison = dict[str, Any]


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


@dataclass(frozen=True)
class Result:
    vector_id: str
    status: Status
    message: str = ""
    details: str = ""
    # Each failing comparison (of each failing cut of an sse vector), as the report keeps it.
    comparisons: tuple[Comparison, ...] = ()
    # The requirements the vector checks that the implementation's API shows (spec/observation.md);
    # None when it declares no `observes`, and so shows them all.
    observed: tuple[str, ...] | None = None
    # The requirements a failure charges (spec/vectors.md section 5); empty unless it failed or errored.
    charged: tuple[str, ...] = ()
    # How it failed, as an expected-failures file pins it (conformance/signature.py); empty unless it
    # failed or errored on its own (a stale expected failure has none).
    signature: str = ""

    def __post_init__(self) -> None:  # what an implementation said is kept within the report's limits
        object.__setattr__(self, "message", clip(self.message, MAX_MESSAGE_CHARS))
        object.__setattr__(self, "details", clip(self.details, MAX_DETAILS_CHARS))
