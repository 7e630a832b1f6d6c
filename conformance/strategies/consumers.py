"""The catalogue's diff consumers as the ground truth runs them (spec/custom-tools.md sections 6-9).

Each answers `consume(delta, now)` with its previews (or FAILED, a consumer that
raised) and `finish(text, now)` with its `Finished` result, REJECTED or FAILED.
The patch consumer previews a text whose previews were decided when it was drawn
(patches.py), line by line, throttled by stream time.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from .plans import PatchText, StreamPlan
from .vocabulary import PREVIEW_INTERVAL_MS, ConsumerKind


class Refusal(Enum):
    FAILED = "failed"  # a consumer that raised (CUSTOM-FAIL-1)
    REJECTED = "rejected"  # its finish rejects the input (CUSTOM-FIN-3)


@dataclass(frozen=True)
class Finished:
    updates: tuple[dict[str, Any], ...]
    result: dict[str, Any]


Consumed = list[dict[str, Any]] | Refusal
FinishAnswer = Finished | Refusal


class Echo:
    """CUSTOM-CAT-2 and, `silent`, CUSTOM-CAT-3."""

    def __init__(self, silent: bool) -> None:
        self.silent = silent
        self.buffer = ""

    def consume(self, delta: str, now: int) -> Consumed:
        self.buffer += delta
        return [] if self.silent else [{"delta": delta, "buffer": self.buffer}]

    def finish(self, text: str, now: int) -> FinishAnswer:
        return Finished((), {"buffer": self.buffer})


class Refuses:
    """CUSTOM-CAT-4 (`reject`), CUSTOM-CAT-5 and CUSTOM-CAT-7 (`raise`)."""

    def __init__(self, answer: Refusal) -> None:
        self.answer = answer

    def consume(self, delta: str, now: int) -> Consumed:
        return Refusal.FAILED if self.answer is Refusal.FAILED else []

    def finish(self, text: str, now: int) -> FinishAnswer:
        return self.answer


def patch_of(plan: StreamPlan, text: str) -> PatchText:
    """The drawn patch this text is, or free text: a parse error at its first line."""
    return plan.patch(text) or PatchText(text, ([],), (), 1, False)


class Patch:
    """CUSTOM-PATCH-4 to -6 over a text whose previews were decided when it was drawn."""

    def __init__(self, plan: StreamPlan, streamed: str) -> None:
        self.plan = plan
        self.streamed = patch_of(plan, streamed)
        self.taken = ""
        self.lines = 0  # complete lines taken
        self.pending = False
        self.stopped = False  # a parse error: no preview ever again
        self.last: int | None = None  # when the last update was emitted

    def consume(self, delta: str, now: int) -> Consumed:
        self.taken += delta
        assert self.streamed.text.startswith(self.taken), "a patch consumer takes its call's planned deltas"
        lines = self.taken.count("\n")
        for line in range(self.lines + 1, lines + 1):
            if line == self.streamed.error_line:
                self.stopped = True
            elif not self.stopped and self.streamed.changes[line - 1]:
                self.pending = True
        self.lines = lines
        if (
            self.stopped
            or not self.pending
            or (self.last is not None and now - self.last < PREVIEW_INTERVAL_MS)
        ):
            return []
        self.pending, self.last = False, now
        return [{"files": self.streamed.previews[lines]}]

    def finish(self, text: str, now: int) -> FinishAnswer:
        complete = patch_of(self.plan, text)
        if not complete.valid:
            return Refusal.REJECTED
        result = complete.previews[-1]
        shown = result if self.taken == text else self.streamed.previews[self.lines]
        updates = ({"files": shown},) if self.pending and not self.stopped else ()
        return Finished(updates, {"files": result})


Consumer = Echo | Refuses | Patch


def consumer(plan: StreamPlan, kind: ConsumerKind, streamed: str) -> Consumer:
    if kind in ("echo", "silent"):
        return Echo(kind == "silent")
    if kind == "patch":
        return Patch(plan, streamed)
    return Refuses(Refusal.REJECTED if kind == "reject" else Refusal.FAILED)
