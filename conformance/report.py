"""A run's totals, and its JSON Lines report (spec/report.schema.json).

A report is a header (suite, protocol and implementation), one line per vector
run and per vector file that could not be used, and a footer with the totals.
`streamroute summary`, `badge` and `baseline` read it back.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

from .limits import MAX_DETAILS_CHARS, MAX_MESSAGE_CHARS, TooDeep, clip, loads
from .results import Result, Status, run_failed
from .schemas import REPORT, first_error, protocol_version
from .suite import Suite
from .vectors import Vector


@dataclass(frozen=True)
class Totals:
    counts: Counter[Status]
    bad_files: int
    deselected: int

    @property
    def vectors(self) -> int:
        return sum(self.counts.values())

    @property
    def failed(self) -> bool:
        """What fails a run (`results.run_failed`): a failed or errored vector, a bad vector file, or no
        vector executed at all."""
        return run_failed(self.counts, self.bad_files)

    def describe(self) -> str:
        parts = [
            f"{self.counts[status]} {status.value}"
            for status in Status
            if self.counts[status] or status in (Status.PASSED, Status.FAILED, Status.ERRORED)
        ]
        if self.bad_files:
            parts.append(f"{self.bad_files} bad vector files")
        if self.deselected:
            parts.append(f"{self.deselected} deselected")
        return ", ".join(parts)


class ReportError(Exception):
    """A report that cannot be read: reported in one line."""


@dataclass(frozen=True)
class SuiteRun:
    results: list[tuple[Vector, Result]]
    totals: Totals
    started: datetime
    seconds: float


def run_suite(suite: Suite, each: Callable[[Vector, Result], None] | None = None) -> SuiteRun:
    """Run every selected vector, in order; `each` sees every result as it comes."""
    started, clock = datetime.now(timezone.utc), time.perf_counter()
    counts: Counter[Status] = Counter()
    results: list[tuple[Vector, Result]] = []
    for vector in suite.vectors:
        result = suite.run(vector)
        counts[result.status] += 1
        results.append((vector, result))
        if each is not None:
            each(vector, result)
    totals = Totals(counts, len(suite.file_errors), suite.deselected)
    return SuiteRun(results, totals, started, time.perf_counter() - clock)


def write_report(path: Path, suite: Suite, run: SuiteRun) -> None:
    header = {
        "line": "header",
        "suite": {"name": "streamroute", "version": version("streamroute")},
        "protocol": protocol_version(),
        "implementation": suite.implementation.info,
        "started": run.started.isoformat(timespec="seconds"),
    }
    vectors = [
        {
            "line": "vector",
            "id": vector.id,
            "profile": vector.profile,
            "level": vector.level,
            "status": result.status.value,
            "message": clip(result.message, MAX_MESSAGE_CHARS),
            "details": clip(result.details, MAX_DETAILS_CHARS),
            "listed": suite.listed(vector),
        }
        for vector, result in run.results
    ]
    file_errors = [
        {"line": "file_error", "path": str(error.path), "message": clip(error.message, MAX_MESSAGE_CHARS)}
        for error in suite.file_errors
    ]
    footer = {
        "line": "footer",
        "totals": {status.value: run.totals.counts[status] for status in Status},
        "bad_files": run.totals.bad_files,
        "deselected": run.totals.deselected,
        "seconds": round(run.seconds, 3),
    }
    lines = [header, *vectors, *file_errors, footer]
    try:
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot write the report: {exc}") from exc


@dataclass(frozen=True)
class Report:
    header: dict[str, Any]
    vectors: list[dict[str, Any]]
    file_errors: list[dict[str, Any]]
    footer: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> Report:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ReportError(f"cannot read the report: {exc}") from exc
        lines: list[dict[str, Any]] = []
        for number, line in enumerate(text.splitlines(), 1):
            try:
                data = loads(line)
            except TooDeep as exc:
                raise ReportError(f"{path}:{number}: not a report line: it {exc}") from None
            except ValueError as exc:
                raise ReportError(f"{path}:{number}: not JSON: {exc}") from None
            problem = first_error(REPORT, data)
            if problem is not None:
                raise ReportError(f"{path}:{number}: not a report line: {problem}")
            lines.append(data)
        kinds = [line["line"] for line in lines]
        if not kinds or kinds[0] != "header" or "header" in kinds[1:]:
            raise ReportError(f"{path}: a report starts with its one header line")
        if kinds[-1] != "footer" or "footer" in kinds[:-1]:
            raise ReportError(f"{path}: incomplete report: it must end with its one footer line")
        body = lines[1:-1]
        return cls(
            lines[0],
            [line for line in body if line["line"] == "vector"],
            [line for line in body if line["line"] == "file_error"],
            lines[-1],
        )

    @property
    def totals(self) -> Totals:
        counts = Counter({Status(name): count for name, count in self.footer["totals"].items()})
        return Totals(counts, self.footer["bad_files"], self.footer["deselected"])
