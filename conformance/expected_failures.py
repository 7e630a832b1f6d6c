"""An implementer's list of vectors known to fail, kept strict.

One vector id per line; `#` starts a comment. A listed vector that fails is an
expected failure; a listed vector that passes is stale and fails the run, so
the list never hides a fix; a listed id that matches no vector is warned about.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .results import Result, Status


@dataclass(frozen=True)
class ExpectedFailures:
    path: Path
    ids: frozenset[str]

    @classmethod
    def load(cls, path: Path) -> ExpectedFailures:
        text = path.read_text(encoding="utf-8")
        ids = (line.split("#", 1)[0].strip() for line in text.splitlines())
        return cls(path, frozenset(vector_id for vector_id in ids if vector_id))

    def apply(self, result: Result) -> Result:
        if result.vector_id not in self.ids:
            return result
        if result.status.is_failure:
            return dataclasses.replace(result, status=Status.EXPECTED_FAILURE)
        if result.status is Status.PASSED:
            return dataclasses.replace(  # what it observed stays: the matrix counts the failure by it
                result,
                status=Status.FAILED,
                message=f"stale expected failure: listed in {self.path} but passes; remove it from the list",
            )
        return result

    def unknown(self, known_ids: Iterable[str]) -> list[str]:
        return sorted(self.ids - set(known_ids))
