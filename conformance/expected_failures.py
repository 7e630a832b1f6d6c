"""An implementer's list of vectors known to fail, each pinned to how it fails, kept strict.

The file (docs/ci.md, Expected failures) has one entry a line: a vector id, then the signature of
its failure (conformance/signature.py), then `#` and a comment; `#` alone starts a comment line.

    core/args/only-in-arguments-done  failed CORE-ARGS-4: missing tool.call  # Arguments arrive ...

A listed vector that fails as its signature says is an expected failure; one that fails in
another way is a failure, whose report line names both signatures (`listed_signature`); one that
passes is stale and fails the run, so the list never hides a fix or a new fault; a listed id that
matches no vector is warned about. An entry of the first format, an id alone, accepts any failure
of its vector, with a warning saying how to write the file anew. `streamroute baseline` writes
the file from a report: sorted by id, each entry's comment the vector's title, no path and no time
in it, so that a baseline of an unchanged implementation is the same bytes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .limits import Shown, printable
from .results import Result, Status
from .signature import normalized

HEADER = (
    "# streamroute expected failures: a vector id, how it fails (status, requirements charged, first\n"
    "# difference), then its title; written by `streamroute baseline` (docs/ci.md#expected-failures)\n"
)
_FAILING = (Status.FAILED.value, Status.ERRORED.value, Status.EXPECTED_FAILURE.value)


@dataclass(frozen=True)
class ExpectedFailures:
    path: Path
    signatures: Mapping[str, str | None]  # each listed id, and how it fails (None: any failure)

    @classmethod
    def load(cls, path: Path) -> ExpectedFailures:
        text = path.read_text(encoding="utf-8")
        signatures: dict[str, str | None] = {}
        for line in text.splitlines():
            vector_id, _, shape = line.split("#", 1)[0].strip().partition(" ")
            if vector_id:
                signatures[vector_id] = normalized(shape) or None
        return cls(path, signatures)

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(self.signatures)

    @property
    def warnings(self) -> list[str]:
        unpinned = sum(shape is None for shape in self.signatures.values())
        if not unpinned:
            return []
        entries = "entry names" if unpinned == 1 else "entries name"
        return [
            f"{self.path}: {unpinned} {entries} a vector id alone, which accepts any failure of the "
            f"vector; to pin each to how it fails, run with --report REPORT and write the file anew "
            f"with `streamroute baseline REPORT -o {self.path}`"
        ]

    def apply(self, result: Result) -> Result:
        if result.vector_id not in self.signatures:
            return result
        listed = self.signatures[result.vector_id]
        if result.status.is_failure:
            if listed is None or listed == result.signature:
                return dataclasses.replace(result, status=Status.EXPECTED_FAILURE)
            return result  # failing otherwise: its report line names both signatures
        if result.status is Status.PASSED:
            return dataclasses.replace(  # what it observed stays: the matrix counts the failure by it
                result,
                status=Status.FAILED,
                message=f"stale expected failure: listed in {self.path} but passes; remove it from the list",
            )
        return result

    def unknown(self, known_ids: Iterable[str]) -> list[str]:
        return sorted(self.ids - set(known_ids))


def _stale(line: Mapping[str, Any]) -> bool:
    """A listed vector that passed: failed, with no signature of its own."""
    return bool(line["listed"]) and line["status"] == Status.FAILED.value and not line.get("signature")


def baseline(vector_lines: Sequence[Mapping[str, Any]]) -> str:
    """The expected-failures file of a report's vector lines: each vector that failed or errored
    (an expected failure included, a stale one not: it passed), with its signature and its title,
    which stay the same from run to run where a message may not. A line of a report written before
    signatures has its id alone."""
    lines = []
    for line in sorted(vector_lines, key=lambda line: line["id"]):
        if line["status"] in _FAILING and not _stale(line):
            entry = f"{line['id']}  {line['signature']}" if line.get("signature") else line["id"]
            comment = line.get("title") or line["message"].split("\n", 1)[0]
            lines.append(f"{entry}  # {printable(comment, Shown.LINE)}")
    return HEADER + "".join(line + "\n" for line in lines)
