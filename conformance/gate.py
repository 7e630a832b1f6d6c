"""What fails a run, as one rule for every front end (spec/README.md, Conformance classes).

A run fails when a vector failed or errored (a stale expected failure is failed), when a vector
file is bad, when no vector ran (unless `--allow-empty`), when a claim is partial and its profile
is not named with `--allow-partial` (a claim the API cannot show is no pass), and when more
vectors were skipped than `--max-skipped` allows. The gate is recorded in the report's header,
so that `summary` of a report fails exactly when `run` did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .results import Status, executed


@dataclass(frozen=True)
class Gate:
    allow_empty: bool = False
    allow_partial: tuple[str, ...] = ()  # profiles whose partial claims pass
    max_skipped: int | None = None

    def record(self) -> dict[str, Any]:
        """As the report's header keeps it (spec/report.schema.json `$defs/gate`)."""
        return {
            "allow_empty": self.allow_empty,
            "allow_partial": sorted(self.allow_partial),
            "max_skipped": self.max_skipped,
        }

    @classmethod
    def of(cls, record: Mapping[str, Any] | None) -> Gate:
        if record is None:  # a report written before the gate was recorded
            return cls()
        return cls(bool(record["allow_empty"]), tuple(record["allow_partial"]), record["max_skipped"])

    def problems(
        self, counts: Mapping[Status, int], bad_files: int, claims: Sequence[Mapping[str, Any]]
    ) -> list[str]:
        """Why the run fails, one line each; empty when it passes."""
        problems = []
        failing = sum(counts.get(status, 0) for status in Status if status.is_failure)
        if failing:
            problems.append(f"{failing} vector{'s' * (failing != 1)} failed or errored")
        if bad_files:
            problems.append(f"{bad_files} bad vector file{'s' * (bad_files != 1)}")
        if not self.allow_empty and not executed(counts):
            problems.append("no vector ran; --allow-empty accepts that")
        for claim in claims:
            if claim["verdict"] == "partial" and claim["profile"] not in self.allow_partial:
                problems.append(
                    f"{claim['profile']} ({claim['class']}) is partial: {claim['must_passed']} of "
                    f"{claim['must']} MUST requirements observed and passed; --allow-partial "
                    f"{claim['profile']} accepts that"
                )
        skipped = counts.get(Status.SKIPPED, 0)
        if self.max_skipped is not None and skipped > self.max_skipped:
            problems.append(f"{skipped} vectors skipped, more than --max-skipped {self.max_skipped}")
        return problems
