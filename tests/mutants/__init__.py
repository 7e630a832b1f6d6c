"""Requirement mutants: implementations that each break one requirement, as a real one plausibly would.

A mutant is *killed* when at least one bundled vector (or, for a producer
checker, one bundled capture) tells it from a correct implementation. Every
MUST and SHOULD requirement has at least one mutant, and every mutant must be
killed: that is what shows the suite can see each requirement fail
(tests/test_mutants.py, docs/coverage.md).

An implementation mutant is an adapter, run like any other: on every bundled
vector of the profiles it declares, under the options it declares, in this
process; a vector kills it when it fails there and the reference, at the same
options, passes. A checker mutant is a callable taking a capture's bytes and
answering what `check_capture` answers; a capture kills it when it reports
other violations (by event and requirement) than the real checker.

Each profile's module lists its mutants in `MUTANTS`; `mutant()` makes an
entry of an adapter class (or a checker class with a `check`), whose
docstring's first line says what it does wrong.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, cast

import yaml
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.results import Result, Status
from streamroute.conformance.schemas import BUNDLED_VECTORS
from streamroute.conformance.vectors import Vector, load_vectors
from streamroute.producer.checker import CaptureReport, check_capture

Kind = Literal["implementation", "checker"]

CAPTURES = Path(__file__).resolve().parent.parent / "captures"
INEXACT = Path(__file__).resolve().parent / "inexact.yaml"


@dataclass(frozen=True)
class Mutant:
    name: str  # unique, `<profile>.<what it does wrong>`, e.g. `core.arguments-from-deltas`
    breaks: tuple[str, ...]  # the requirement ids it breaks
    target: str  # `module:callable`: an adapter (implementation) or a capture checker (checker)
    kind: Kind
    description: str  # one line: the mistake, as a real library would make it


def mutant(target: type, name: str, *breaks: str, kind: Kind = "implementation") -> Mutant:
    """The mutant `target` is, described by the first line of its docstring.

    An implementation mutant is an adapter class; a checker mutant is a class whose `check`
    checks a capture."""
    doc = (target.__doc__ or "").strip()
    assert doc, f"mutant {name}: {target.__qualname__} needs a docstring saying what it does wrong"
    attribute = f"{target.__qualname__}.check" if kind == "checker" else target.__qualname__
    return Mutant(name, breaks, f"{target.__module__}:{attribute}", kind, doc.splitlines()[0])


def all_mutants() -> list[Mutant]:
    """Every mutant of every profile, in a stable order."""
    from . import core, custom_tools, execution, producer, session, sse

    return [
        *core.MUTANTS,
        *custom_tools.MUTANTS,
        *sse.MUTANTS,
        *execution.MUTANTS,
        *producer.MUTANTS,
        *session.MUTANTS,
    ]


@cache
def inexact() -> dict[str, tuple[str, ...]]:
    """The mutants tests/mutants/inexact.yaml lists, each with the requirements it is charged
    beyond what it (or a twin) breaks: what attribution does not yet tell apart."""
    listed = yaml.safe_load(INEXACT.read_text(encoding="utf-8")) or {}
    return {name: tuple(beyond) for name, beyond in listed.items()}


@cache
def bundled_vectors() -> tuple[Vector, ...]:
    vectors, errors = load_vectors([BUNDLED_VECTORS])
    assert not errors, "\n".join(map(str, errors))
    return tuple(vectors)


def captures() -> list[Path]:
    """Every bundled capture, broken and well-formed, in name order."""
    return sorted(
        path
        for folder in ("broken", "well-formed")
        for path in (CAPTURES / folder).iterdir()
        if path.suffix != ".expect"
    )


@cache
def killers(mutant: Mutant) -> tuple[str, ...]:
    """The vectors (ids) or captures (`broken/name.sse`) that kill the mutant; empty: it survives."""
    if mutant.kind == "checker":
        check = _load(mutant.target)
        return tuple(
            f"{path.parent.name}/{path.name}"
            for path in captures()
            if _verdict(check, path.read_bytes()) != _checked(path)
        )
    return tuple(vector_id for vector_id, status in statuses(mutant).items() if status.is_failure)


@cache
def results(mutant: Mutant) -> tuple[Result, ...]:
    """An implementation mutant's result on each bundled vector that tells implementations apart
    (the reference, at the same options, passes it), not-applicable ones left out."""
    implementation = PythonImplementation.load(mutant.target)
    known_bad = reference_failures(implementation.options.get("tool_call_point"))
    ran = (run_vector(implementation, vector) for vector in bundled_vectors() if vector.id not in known_bad)
    return tuple(r for r in ran if r.status is not Status.NOT_APPLICABLE)


def twins(mutant: Mutant, failed: Result) -> list[Mutant]:
    """The other implementation mutants whose run of the vector fails with the comparison the
    mutant's `failed` shows: on that vector nothing tells them apart, so no attribution can."""
    return [
        other
        for other, comparisons in _failures_on(failed.vector_id)
        if other.name != mutant.name and comparisons and comparisons == failed.comparisons
    ]


@cache
def _failures_on(vector_id: str) -> tuple[tuple[Mutant, tuple[Any, ...]], ...]:
    """Each implementation mutant that fails the vector, with its comparisons there."""
    vector = next(v for v in bundled_vectors() if v.id == vector_id)
    ran = (
        (m, run_vector(PythonImplementation.load(m.target), vector))
        for m in all_mutants()
        if m.kind == "implementation"
    )
    return tuple((m, result.comparisons) for m, result in ran if result.status.is_failure)


def statuses(mutant: Mutant) -> dict[str, Status]:
    return {r.vector_id: r.status for r in results(mutant)}


_REFERENCE_AT = {
    "output_item_done": "router",
    "arguments_done": "arguments_done_router",
    "response_done": "response_done_router",
}


@cache
def reference_failures(tool_call_point: str) -> frozenset[str]:
    """The vectors the reference fails at that call point: they tell no mutant from it (and fail
    tests/test_reference.py on their own)."""
    reference = PythonImplementation.load(f"streamroute.reference.adapter:{_REFERENCE_AT[tool_call_point]}")
    return frozenset(v.id for v in bundled_vectors() if run_vector(reference, v).status.is_failure)


def _load(target: str) -> Callable[[bytes], CaptureReport]:
    module, _, attribute = target.partition(":")
    check: Any = importlib.import_module(module)
    for name in attribute.split("."):
        check = getattr(check, name)
    return cast(Callable[[bytes], CaptureReport], check)


@cache
def _checked(path: Path) -> list[tuple[int | None, str]] | str:
    """What the real checker reports about a capture."""
    return _verdict(check_capture, path.read_bytes())


def _verdict(check: Callable[[bytes], CaptureReport], data: bytes) -> list[tuple[int | None, str]] | str:
    """What a checker reports about a capture, as test_capture compares it; or how it failed."""
    try:
        report = check(data)
    except Exception as exc:  # a checker mutant may crash: that tells it from the real one
        return f"raised {type(exc).__name__}"
    return [(violation.at, violation.requirement) for violation in report.violations]
