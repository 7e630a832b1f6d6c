"""A run's totals, and its JSON Lines report (spec/report.schema.json).

A report is a header (suite, protocol and implementation), one line per vector
run and per vector file that could not be used, and a footer with the totals.
It is the one record of a run: what `streamroute run` prints as each vector
runs is rendered from the vector's line (conformance/render.py), and so are
JUnit XML, `streamroute summary`, `badge` and `baseline`, which read it back.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .claims import claims
from .gate import Gate
from .limits import MAX_DETAILS_CHARS, MAX_MESSAGE_CHARS, TooDeep, clip, loads
from .requirements import requirement_levels
from .results import Result, Status
from .schemas import REPORT, first_error, protocol_version
from .vectors import Vector, VectorFileError

if TYPE_CHECKING:  # a run's records name its suite; the suite runs and records (suite.py)
    from .suite import Suite


@dataclass(frozen=True)
class Totals:
    counts: Counter[Status]
    bad_files: int
    deselected: int
    not_run: int = 0  # selected, but the run stopped first (`--maxfail`)

    @property
    def vectors(self) -> int:
        return sum(self.counts.values())

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
        if self.not_run:
            parts.append(f"{self.not_run} not run")
        return ", ".join(parts)


class ReportError(Exception):
    """A report that cannot be read: reported in one line."""


Record = dict[str, Any]  # one line of a report, as JSON data


@dataclass(frozen=True)
class SuiteRun:
    records: list[Record]  # a vector line per vector run, in order
    totals: Totals
    started: datetime
    seconds: float


def header_record(suite: Suite, started: datetime) -> Record:
    return {
        "line": "header",
        "suite": {"name": "streamroute", "version": version("streamroute")},
        "protocol": protocol_version(),
        "implementation": suite.implementation.info,
        "started": started.isoformat(timespec="seconds"),
        "vectors": suite.vector_set,
        "gate": suite.gate.record(),
    }


def vector_record(suite: Suite, vector: Vector, result: Result, seconds: float) -> Record:
    depth = len(Path(vector.id).parts)  # a vector's id is its path under its root, less `.yaml`
    return {
        "line": "vector",
        "id": vector.id,
        "profile": vector.profile,
        "level": vector.level,
        "class": vector.conformance_class,
        "status": result.status.value,
        "message": clip(result.message, MAX_MESSAGE_CHARS),
        "details": clip(result.details, MAX_DETAILS_CHARS),
        "listed": suite.listed(vector),
        "title": vector.title,
        "spec": vector.spec,
        "path": Path(*vector.path.parts[-depth:]).as_posix(),
        "file": str(vector.path.absolute()),
        "seconds": round(seconds, 3),
        "comparisons": list(result.comparisons),
        **({} if result.observed is None else {"observed_requirements": list(result.observed)}),
        **({"charged": list(result.charged)} if result.charged else {}),
        **({"signature": result.signature} if result.signature else {}),
        **({"listed_signature": listed} if (listed := suite.listed_signature(vector)) else {}),
    }


def file_error_record(error: VectorFileError) -> Record:
    return {"line": "file_error", "path": str(error.path), "message": clip(error.message, MAX_MESSAGE_CHARS)}


def footer_record(totals: Totals, seconds: float, claims: Sequence[Record]) -> Record:
    return {
        "line": "footer",
        "totals": {status.value: totals.counts[status] for status in Status},
        "bad_files": totals.bad_files,
        "deselected": totals.deselected,
        "not_run": totals.not_run,
        "seconds": round(seconds, 3),
        "claims": list(claims),
    }


def report_of(suite: Suite, run: SuiteRun) -> Report:
    header = header_record(suite, run.started)
    judged = [claim.record() for claim in claims(header, run.records, requirement_levels())]
    return Report(
        header,
        run.records,
        [file_error_record(error) for error in suite.file_errors],
        footer_record(run.totals, run.seconds, judged),
    )


def write_report(path: Path, suite: Suite, run: SuiteRun) -> None:
    report_of(suite, run).write(path)


def unwritable(path: Path) -> str | None:
    """Why a file cannot be written where it is asked, told before any work; None if it can be tried."""
    if path.is_dir():
        return f"cannot write {path}: it is a directory"
    if not path.parent.is_dir():
        return f"cannot write {path}: there is no directory {path.parent}"
    return None


def write_text(path: Path, text: str, what: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot write the {what}: {exc}") from exc


def read_lines(path: Path, schema: str, what: str, error: type[Exception]) -> list[dict[str, Any]]:
    """The lines of a JSON-lines report, each valid against `schema`; else `error`, naming the file,
    the line and what is wrong with it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read the {what} {path}: {exc}") from None
    lines: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            data = loads(line)
        except TooDeep as exc:
            raise error(f"{path}:{number}: not a {what} line: it {exc}") from None
        except ValueError as exc:
            raise error(f"{path}:{number}: not JSON: {exc}") from None
        problem = first_error(schema, data)
        if problem is not None:
            raise error(f"{path}:{number}: not a {what} line: {problem}")
        lines.append(data)
    return lines


@dataclass(frozen=True)
class Report:
    header: dict[str, Any]
    vectors: list[dict[str, Any]]
    file_errors: list[dict[str, Any]]
    footer: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> Report:
        lines = read_lines(path, REPORT, "report", ReportError)
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
    def claims(self) -> list[dict[str, Any]]:
        """Each claim's verdict (conformance/claims.py), routing class first."""
        return list(self.footer.get("claims", []))

    @property
    def problems(self) -> list[str]:
        """Why the run failed, one line each (conformance/gate.py); empty when it passed."""
        totals = self.totals
        return Gate.of(self.header.get("gate")).problems(totals.counts, totals.bad_files, self.claims)

    @property
    def failed(self) -> bool:
        return bool(self.problems)

    @property
    def totals(self) -> Totals:
        counts = Counter({Status(name): count for name, count in self.footer["totals"].items()})
        footer = self.footer
        return Totals(
            counts,
            footer["bad_files"],
            footer["deselected"],
            footer.get("not_run", 0),
        )

    def write(self, path: Path) -> None:
        lines = [self.header, *self.vectors, *self.file_errors, self.footer]
        write_text(path, "".join(json.dumps(line) + "\n" for line in lines), "report")
