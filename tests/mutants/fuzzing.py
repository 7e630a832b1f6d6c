"""The fuzzer alone against every mutant: which ones generated streams tell from a correct implementation.

An implementation mutant is *found* when `streamroute fuzz` without shrinking
(conformance/fuzz.py), with `examples` generated cases of the sources its
declarations reach (streams of its profiles, catalogue calls of its call
types, sessions) at its tool call point and a fixed seed, fails it on one
case; no bundled vector takes part. The cases of a seed depend only on the
sources, so they are drawn once per set of sources and judged against every
mutant that reaches it: `fuzz(..., shrink=False)` would draw the same cases
for each. A checker mutant is found when generated captures tell it from the real
checker (tests/mutants/fuzzing_producer.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from streamroute.conformance.fuzz import Case, Sources, claimed, draw_streams, first_failure
from streamroute.conformance.implementation import Implementation, PythonImplementation

from . import Mutant, fuzzing_producer

EXAMPLES = 500
SEED = 13


@dataclass(frozen=True)
class Finding:
    mutant: Mutant
    by: str | None  # how the fuzzer told it from a correct implementation; None: it did not

    @property
    def found(self) -> bool:
        return self.by is not None


class Streams:
    """The generated cases of one seed, drawn once per set of sources."""

    def __init__(self, examples: int = EXAMPLES, seed: int = SEED) -> None:
        self.examples = examples
        self.seed = seed
        self._drawn: dict[Sources, list[Case]] = {}

    def of(self, sources: Sources) -> list[Case]:
        if sources not in self._drawn:
            self._drawn[sources] = draw_streams(sources, self.examples, self.seed)
        return self._drawn[sources]

    def failure(self, implementation: Implementation) -> str | None:
        """What the first case the implementation fails shows, in one line; None: it passes all."""
        found = first_failure(implementation, self.of(claimed(implementation)))
        if found is None:
            return None
        index, message = found
        return f"case {index}: {message.splitlines()[0]}"[:160]


def finds(mutant: Mutant, streams: Streams) -> Finding:
    if mutant.kind == "checker":
        return Finding(mutant, fuzzing_producer.finds(mutant, streams.examples, streams.seed))
    return Finding(mutant, streams.failure(PythonImplementation.load(mutant.target)))


def measure(mutants: Iterable[Mutant], streams: Streams) -> list[Finding]:
    return [finds(mutant, streams) for mutant in mutants]


def coverage(findings: Iterable[Finding], streams: Streams) -> dict[str, Any]:
    """docs/coverage-fuzz.json: which mutants the fuzzer alone finds, and by what."""
    return {
        "seed": streams.seed,
        "examples": streams.examples,
        "mutants": {f.mutant.name: {"found": f.found, "by": f.by} for f in findings},
    }
