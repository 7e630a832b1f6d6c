"""Every requirement can be seen failing: each mutant, an implementation (or a capture checker)
that breaks one requirement as a real one plausibly would, is told from a correct one by at least
one bundled vector (or capture); every MUST and SHOULD requirement has a mutant, every MUST
three fault shapes; and
docs/coverage.md says so as things are now (tests/mutants/).

Slow next to the rest (every mutant runs every vector of its profiles), so tox runs it once, in
`tox -e mutants`; each mutant's results are computed once per session and shared by the tests.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import pytest
from mutants import (
    Mutant,
    all_mutants,
    bundled_vectors,
    inexact,
    killers,
    reference_failures,
    results,
    statuses,
    twins,
)
from mutants.report import COVERAGE, render, requirements
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.results import Status

pytestmark = pytest.mark.slow

MUTANTS = all_mutants()


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda mutant: mutant.name)
def test_the_mutant_is_killed(mutant: Mutant) -> None:
    what = "capture" if mutant.kind == "checker" else "vector of the profiles it declares"
    assert killers(mutant), (
        f"{mutant.name} passes every bundled {what}: {mutant.description} ({mutant.target})"
    )


@pytest.mark.parametrize(
    "mutant", [m for m in MUTANTS if m.kind == "implementation"], ids=lambda mutant: mutant.name
)
def test_the_mutant_breaks_its_requirement_not_everything(mutant: Mutant) -> None:
    """A mutant that passes nothing proves nothing: it may be broken itself (a hook it overrides
    renamed in the reference), and every vector would "kill" it."""
    assert Status.PASSED in statuses(mutant).values(), (
        f"{mutant.name} passes no vector at all: it is broken, not a mutant of one requirement"
    )


@pytest.mark.parametrize("target", ["router", "arguments_done_router"])
def test_the_independent_router_without_a_fault_passes_what_the_reference_passes(target: str) -> None:
    """The core mutants are the independent router with one fault each: a vector it fails without
    one would "kill" every one of them and prove nothing."""
    router = PythonImplementation.load(f"mutants.independent_router:{target}", 120)
    known_bad = reference_failures(router.options["tool_call_point"])
    ran = (run_vector(router, v) for v in bundled_vectors() if v.id not in known_bad)
    assert [f"{r.vector_id}: {r.message}" for r in ran if r.status.is_failure] == []


class Inexact(AssertionError):
    """A mutant charged beyond what it breaks exactly as tests/mutants/inexact.yaml lists it."""


def _exactness_cases() -> list[Any]:
    """Each implementation mutant; one that tests/mutants/inexact.yaml lists is expected to fail
    as listed, and its test fails when it is charged exactly (the entry must go) or otherwise."""
    cases = []
    for mutant in MUTANTS:
        if mutant.kind != "implementation":
            continue
        beyond = inexact().get(mutant.name)
        reason = f"tests/mutants/inexact.yaml: charged {', '.join(beyond or ())} beyond what it breaks"
        marks = [pytest.mark.xfail(raises=Inexact, strict=True, reason=reason)] if beyond else []
        cases.append(pytest.param(mutant, id=mutant.name, marks=marks))
    return cases


@pytest.mark.parametrize("mutant", _exactness_cases())
def test_each_failure_of_the_mutant_charges_what_it_breaks_and_nothing_else(mutant: Mutant) -> None:
    """spec/vectors.md section 5: a failing vector charges the requirements whose outcomes differ,
    so a mutant that breaks one requirement is charged that one alone, wherever it fails. Where
    another mutant fails the vector with the same comparison, what it charges is one answer for
    both: it may be what that twin breaks."""
    breaks = set(mutant.breaks)
    wrong = [
        r
        for r in results(mutant)
        if r.status.is_failure
        and not (r.charged and set(r.charged) <= breaks)
        and not (r.charged and any(set(r.charged) <= set(twin.breaks) for twin in twins(mutant, r)))
    ]
    beyond = sorted({requirement for r in wrong for requirement in r.charged} - breaks)
    message = f"{mutant.name} breaks {', '.join(mutant.breaks)}; " + "; ".join(
        f"{r.vector_id}: charged {', '.join(r.charged) or 'nothing'}" for r in wrong
    )
    listed = inexact().get(mutant.name)
    if wrong and listed is not None and beyond == sorted(listed):
        raise Inexact(message)
    assert not wrong, message + (
        f" (tests/mutants/inexact.yaml lists {', '.join(listed)})" if listed is not None else ""
    )


def test_each_mutant_names_what_it_breaks_and_can_be_run() -> None:
    specified = {requirement.id: requirement.source.stem for requirement in requirements()}
    names = [mutant.name for mutant in MUTANTS]
    assert len(set(names)) == len(names), "two mutants have the same name"
    assert set(inexact()) <= set(names), "tests/mutants/inexact.yaml lists a mutant that is not one"
    for mutant in MUTANTS:
        assert mutant.breaks, f"{mutant.name} breaks no requirement"
        assert set(mutant.breaks) <= set(specified), f"{mutant.name} breaks a requirement the spec lacks"
        profiles = {specified[requirement] for requirement in mutant.breaks}
        if mutant.kind == "checker":
            assert profiles == {"producer"}, f"{mutant.name}: a checker breaks producer requirements only"
            continue
        declared = PythonImplementation.load(mutant.target).profiles
        needed = profiles
        assert needed <= declared, (
            f"{mutant.name} does not declare {sorted(needed - declared)}: never run there"
        )


def test_every_must_and_should_requirement_has_a_mutant() -> None:
    broken = {requirement for mutant in MUTANTS for requirement in mutant.breaks}
    without = [r for r in requirements() if r.id not in broken]
    may = [r.id for r in without if r.level == "MAY"]
    if may:
        warnings.warn(f"MAY requirements without a mutant: {', '.join(may)}", stacklevel=1)
    assert [r.id for r in without if r.level != "MAY"] == []


SHAPES = 3  # fault shapes a MUST requirement has at the least: one way to break it shows too little


def test_every_must_requirement_has_three_fault_shapes() -> None:
    shapes = Counter(requirement for mutant in MUTANTS for requirement in mutant.breaks)
    fewer = {r.id: shapes[r.id] for r in requirements() if r.level == "MUST" and shapes[r.id] < SHAPES}
    assert fewer == {}, f"MUST requirements with fewer than {SHAPES} mutants"


def test_the_coverage_report_is_up_to_date() -> None:
    current = COVERAGE.read_text(encoding="utf-8") if COVERAGE.exists() else ""
    assert current == render(), f"{COVERAGE} is out of date: run `tox -e coverage`"
