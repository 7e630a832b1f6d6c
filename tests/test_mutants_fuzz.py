"""The fuzzer alone finds seven mutants in eight (tests/mutants/fuzzing.py): 500 generated cases per
mutant, a fixed seed, no bundled vector.

Slow (every mutant against up to 500 generated cases of the sources it declares: minutes), so it
runs only when asked: STREAMROUTE_MUTANT_FUZZ=1 measures, STREAMROUTE_MUTANT_FUZZ=write also writes
docs/coverage-fuzz.json (`tox -e mutants-fuzz`). What the fuzzer finds is measured against
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
from mutants.fuzzing import Streams, coverage, measure
from mutants.independent_router import IndependentAdapter
from streamroute.conformance.implementation import Implementation, PythonImplementation

MODE = os.environ.get("STREAMROUTE_MUTANT_FUZZ", "")
pytestmark = pytest.mark.skipif(
    MODE not in ("1", "write"),
    reason="slow: every mutant against 500 generated cases; run with STREAMROUTE_MUTANT_FUZZ=1",
)
COVERAGE_FUZZ = Path(__file__).resolve().parent.parent / "docs" / "coverage-fuzz.json"
FOUND = 7 / 8
STREAMS = Streams()


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


@pytest.mark.parametrize("base", _bases(), ids=lambda base: base.name)
def test_what_the_mutants_change_passes_every_generated_case(base: Implementation) -> None:
    assert STREAMS.failure(base) is None


def test_the_fuzzer_alone_finds_seven_mutants_in_eight() -> None:
    findings = measure(all_mutants(), STREAMS)
    if MODE == "write":
        text = json.dumps(coverage(findings, STREAMS), indent=2, ensure_ascii=False) + "\n"
        COVERAGE_FUZZ.write_text(text, encoding="utf-8")
    missed = [f"{f.mutant.name}: {f.mutant.description}" for f in findings if not f.found]
    found = 1 - len(missed) / len(findings)
    assert found >= FOUND, f"the fuzzer alone finds {found:.0%} of the mutants, and misses:\n" + "\n".join(
        missed
    )
