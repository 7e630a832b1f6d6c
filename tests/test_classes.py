"""Conformance classes (spec/README.md): a vector's class follows from its stream, and the spec's
table of robustness requirements is what the bundled vectors bear out."""

from __future__ import annotations

import re

from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.schemas import SPEC_DIR, schema
from streamroute.conformance.vectors import Vector

_ID = re.compile(r"\b[A-Z]+(?:-[A-Z]+)*-\d+\b")


def _robustness_table() -> set[str]:
    text = (SPEC_DIR / "README.md").read_text(encoding="utf-8")
    table = text.split("| profile | requirements of the robustness class |", 1)[1].split("\n\n", 1)[0]
    return {requirement for row in table.splitlines()[2:] for requirement in _ID.findall(row)}


def test_the_robustness_table_is_what_the_vectors_bear_out(bundled: list[Vector]) -> None:
    """A requirement is of the robustness class when no vector of the routing class cites it."""
    routing = {r for v in bundled if v.conformance_class == "routing" for r in v.spec}
    cited = {r for v in bundled for r in v.spec}
    only_faulty = {r for r in cited - routing if not r.startswith("PROD-")}
    assert _robustness_table() == only_faulty


def test_every_requirement_of_the_table_exists() -> None:
    found, _ = read_requirements(SPEC_DIR)
    assert _robustness_table() <= set(found)


def test_a_vector_is_robust_exactly_when_it_declares_producer_faults(bundled: list[Vector]) -> None:
    assert {v.conformance_class for v in bundled} == set(
        schema("urn:streamroute:schema:vector#/$defs/class")["enum"]
    )
    assert all((v.conformance_class == "robustness") == bool(v.producer_faults) for v in bundled)


def test_no_vector_of_the_routing_class_expects_a_fault(bundled: list[Vector]) -> None:
    """A stream that keeps every producer rule has no fault for a router to report
    (outcome.schema.json `$defs/fault_code`); one that does is a stream the producer checker
    should have found a fault in."""
    faults = set(schema("urn:streamroute:schema:outcome#/$defs/fault_code")["enum"])
    reported = [
        v.id
        for v in bundled
        if v.conformance_class == "routing"
        and any(o["kind"] == "error" and o.get("code") in faults for o in v.expected)
        and v.profile != "execution"  # a restart makes a client meet a replayed item as unknown
    ]
    assert reported == []
