"""Options two at a time: the reference passes every bundled vector under every pair of option values
it supports, so the harness's normalisations compose and each vector states every option it needs
(spec/vectors.md section 3). `response_id: rewritten` and `arguments_parser: platform` are left out:
the reference hands over the producer's ids and reads arguments strictly, and declaring either
option without that design would test nothing."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from conftest import options_met
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.results import Status, run_vector
from streamroute.conformance.schemas import OPTIONS, option_defaults, schema
from streamroute.conformance.vectors import Vector
from streamroute.reference.adapter import ReferenceAdapter

_UNSUPPORTED = {"call_types", "response_id", "arguments_parser"}  # a list; designs the reference lacks


def _other_values() -> list[tuple[str, str]]:
    """Each option the reference supports, with each of its values but the canonical one."""
    defaults = option_defaults()
    properties = schema(OPTIONS)["properties"]
    return [
        (name, value)
        for name, definition in sorted(properties.items())
        if name not in _UNSUPPORTED
        for value in definition["enum"]
        if value != defaults[name]
    ]


PAIRS = [
    dict([one, other]) for one, other in itertools.combinations(_other_values(), 2) if one[0] != other[0]
]


def _implementation(options: dict[str, Any]) -> PythonImplementation:
    adapter = ReferenceAdapter.with_options(**options)
    declared = {**option_defaults(), **adapter.options}
    name = "reference with " + ", ".join(f"{k}={v}" for k, v in sorted(options.items()))
    return PythonImplementation(name, adapter, frozenset(adapter.profiles), declared)


def test_every_option_the_reference_supports_is_in_a_pair() -> None:
    assert {name for pair in PAIRS for name in pair} == set(schema(OPTIONS)["properties"]) - _UNSUPPORTED


@pytest.mark.parametrize("options", PAIRS, ids=lambda o: ",".join(f"{k}={v}" for k, v in sorted(o.items())))
def test_the_reference_passes_every_vector_under_two_options_at_once(
    bundled: list[Vector], options: dict[str, Any]
) -> None:
    implementation = _implementation(options)
    results = {vector.id: run_vector(implementation, vector) for vector in bundled}
    failures = [f"{i}: {r.message}" for i, r in results.items() if r.status.is_failure]
    assert not failures, "\n".join(failures)
    declared = implementation.options
    applies = {v.id for v in bundled if v.profile in implementation.profiles and options_met(v, declared)}
    # spec/vectors.md 3.2: a call made at its .done before a stopped stream's fault is not decided there.
    undecided = {i for i, r in results.items() if "is made before the stream's first fault" in r.message}
    assert {i for i, r in results.items() if r.status is not Status.NOT_APPLICABLE} == applies - undecided
