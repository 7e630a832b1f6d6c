"""The fuzzer alone against every mutant: which ones generated streams tell from a correct implementation.

An implementation mutant is *found* when `streamroute fuzz` without shrinking
(conformance/fuzz.py), with `examples` generated cases of the sources its
declarations reach (streams of its profiles, catalogue calls of its call
types, sessions) at its tool call point and a fixed seed, fails it on one
case; no bundled vector takes part. It is measured under each of `SEEDS`.
The cases of a seed depend only on the sources, so they are drawn once per
set of sources and judged against every mutant that reaches it:
`fuzz(..., shrink=False)` would draw the same cases for each. A checker
mutant is found when generated captures tell it from the real checker
(tests/mutants/fuzzing_producer.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from streamroute.conformance.fuzz import Case, Sources, claimed, draw_streams, first_failure
from streamroute.conformance.implementation import Implementation, PythonImplementation

from . import Mutant, fuzzing_producer

EXAMPLES = 500
SEEDS = (1, 2, 3)


@dataclass(frozen=True)
class Finding:
    mutant: Mutant
    by: str | None  # how the fuzzer told it from a correct implementation; None: it did not

    @property
    def found(self) -> bool:
        return self.by is not None


class Streams:
    """The generated cases of one seed, drawn once per set of sources."""

    def __init__(self, examples: int = EXAMPLES, seed: int = SEEDS[0]) -> None:
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


def coverage(findings: dict[int, list[Finding]], examples: int = EXAMPLES) -> dict[str, Any]:
    """docs/coverage-fuzz.json: under each seed, which mutants the fuzzer alone finds, and by what;
    a mutant is `found` when every seed finds it, `by` what the first seed that does shows."""
    seeds = sorted(findings)
    by_seed = {seed: {f.mutant.name: f.by for f in findings[seed]} for seed in seeds}
    names = [f.mutant.name for f in findings[seeds[0]]]
    mutants = {}
    for name in names:
        shown = {str(seed): by_seed[seed][name] for seed in seeds}
        first = next((by for by in shown.values() if by is not None), None)
        mutants[name] = {"found": all(by is not None for by in shown.values()), "by": first, "seeds": shown}
    found = {str(seed): sum(f.found for f in findings[seed]) for seed in seeds}
    return {"seeds": seeds, "examples": examples, "found": found, "total": len(names), "mutants": mutants}
