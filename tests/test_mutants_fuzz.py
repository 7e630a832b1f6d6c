"""The fuzzer alone finds nine mutants in ten under each of three seeds (tests/mutants/fuzzing.py):
500 generated cases per mutant, no bundled vector.

Slow (every mutant against up to 500 generated cases of the sources it declares, three times:
minutes), so it runs only when asked: STREAMROUTE_MUTANT_FUZZ=1 measures, STREAMROUTE_MUTANT_FUZZ=write
also writes docs/coverage-fuzz.json (`tox -e mutants-fuzz`). What the fuzzer finds is measured against
implementations that pass every generated case without their mistake, which the first test
checks: the reference, which most mutants change one piece of, and the independent router the
core mutants are built on, each at both tool call points.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mutants import all_mutants
from mutants.fuzzing import SEEDS, Streams, coverage, measure
from mutants.independent_router import IndependentAdapter
from streamroute.conformance.implementation import Implementation, PythonImplementation

MODE = os.environ.get("STREAMROUTE_MUTANT_FUZZ", "")
pytestmark = pytest.mark.skipif(
    MODE not in ("1", "write"),
    reason="slow: every mutant against 500 generated cases; run with STREAMROUTE_MUTANT_FUZZ=1",
)
COVERAGE_FUZZ = Path(__file__).resolve().parent.parent / "docs" / "coverage-fuzz.json"
FOUND = 0.9
STREAMS = {seed: Streams(seed=seed) for seed in SEEDS}


def _bases() -> list[Implementation]:
    bases: list[Implementation] = [
        PythonImplementation.load("streamroute.reference.adapter:router"),
        PythonImplementation.load("streamroute.reference.adapter:arguments_done_router"),
    ]
    for point in ("output_item_done", "arguments_done"):
        adapter = IndependentAdapter(tool_call_point=point)
        name = f"independent router at {point}"
        bases.append(PythonImplementation(name, adapter, frozenset(adapter.profiles), adapter.options))
    return bases


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("base", _bases(), ids=lambda base: base.name)
def test_what_the_mutants_change_passes_every_generated_case(base: Implementation, seed: int) -> None:
    assert STREAMS[seed].failure(base) is None


def test_the_fuzzer_alone_finds_nine_mutants_in_ten_under_each_seed() -> None:
    findings = {seed: measure(all_mutants(), STREAMS[seed]) for seed in SEEDS}
    if MODE == "write":
        text = json.dumps(coverage(findings), indent=2, ensure_ascii=False) + "\n"
        COVERAGE_FUZZ.write_text(text, encoding="utf-8")
    for seed, found in findings.items():
        missed = [f"{f.mutant.name}: {f.mutant.description}" for f in found if not f.found]
        share = 1 - len(missed) / len(found)
        assert share >= FOUND, (
            f"seed {seed}: the fuzzer alone finds {share:.1%} of the mutants; it misses:\n"
            + ("\n".join(missed))
        )
