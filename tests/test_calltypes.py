"""The call catalogue (spec/core.md section 5.1): who runs a call, and who is tested on it.

An implementation is tested only on the call types it declares (option `call_types`), so a
function-only client is never failed for shell calls it never enables; and a catalogue item
runs on the client only when the spec says so, whatever else its `environment` or
`execution` states. Generated streams of catalogue calls (conformance/strategies/catalogue.py,
`catalogue_streams`) are routed by the reference and by the independent router of the mutants
exactly as their ground truth says.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from mutants.independent_router import IndependentRouter
from streamroute.conformance.compare import json_equal
from streamroute.conformance.implementation import AdapterLoadError, PythonImplementation, declared_options
from streamroute.conformance.results import Status, run_vector
from streamroute.conformance.schemas import BUNDLED_VECTORS
from streamroute.conformance.strategies import CatalogueStream, Outcome, catalogue_streams
from streamroute.conformance.vectors import Vector, load_vectors
from streamroute.reference import Router

REFERENCE = "streamroute.reference.adapter:router"
CATALOGUE_TYPES = {"apply_patch", "shell", "local_shell", "computer", "tool_search", "mcp_approval"}


def _bundled() -> list[Vector]:
    vectors, errors = load_vectors([BUNDLED_VECTORS])
    assert not errors
    return vectors


def _function_only() -> PythonImplementation:
    reference = PythonImplementation.load(REFERENCE)
    return dataclasses.replace(reference, options={**reference.options, "call_types": ["function", "custom"]})


def test_a_function_only_implementation_is_not_tested_on_catalogue_calls() -> None:
    implementation = _function_only()
    needing = [v for v in _bundled() if {tool["type"] for tool in v.tools} & CATALOGUE_TYPES]
    assert needing, "no bundled vector needs a catalogue call type"
    for vector in needing:
        result = run_vector(implementation, vector)
        assert result.status is Status.NOT_APPLICABLE, vector.id
        assert "needs call type" in result.message


def test_declaring_fewer_call_types_changes_no_other_verdict() -> None:
    implementation, reference = _function_only(), PythonImplementation.load(REFERENCE)
    for vector in _bundled():
        if vector.profile == "core" and not {tool["type"] for tool in vector.tools} & CATALOGUE_TYPES:
            expected = run_vector(reference, vector).status
            assert run_vector(implementation, vector).status is expected, vector.id


@pytest.mark.parametrize("call_types", [[], ["function"], ["custom", "shell"]])
def test_any_set_of_call_types_may_be_declared(call_types: list[str]) -> None:
    assert declared_options({"call_types": call_types}, "adapter 'x'")["call_types"] == call_types


def test_a_function_only_implementation_finds_custom_vectors_not_applicable() -> None:
    reference = PythonImplementation.load(REFERENCE)
    implementation = dataclasses.replace(reference, options={**reference.options, "call_types": ["function"]})
    custom = [
        v
        for v in _bundled()
        if v.profile == "core" and not v.options and "custom" in {t["type"] for t in v.tools}
    ]
    assert custom
    for vector in custom:
        result = run_vector(implementation, vector)
        assert result.status is Status.NOT_APPLICABLE, vector.id
        assert result.message.startswith("needs call type 'custom'; "), result.message


def test_an_unknown_call_type_is_refused_in_words() -> None:
    with pytest.raises(AdapterLoadError) as refused:
        declared_options({"call_types": ["function", "fax"]}, "adapter 'x'")
    assert str(refused.value) == (
        "adapter 'x' declares option call_types ['function', 'fax']; allowed: a list of distinct values, "
        "each one of function, custom, apply_patch, shell, local_shell, computer, tool_search, mcp_approval; "
        "see spec/README.md#options"
    )


def _shell_call(environment: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": "sh_1",
        "type": "shell_call",
        "status": "completed",
        "call_id": "call_1",
        "action": {"commands": ["ls"]},
    }
    if environment is not ...:
        item["environment"] = environment
    return {"type": "response.output_item.done", "output_index": 0, "item": item}


@pytest.mark.parametrize(
    ("environment", "client"),
    [
        (..., True),  # the shell tool's first, local-only form
        (None, True),  # null is absent (CORE-EVT-7)
        ({"type": "local"}, True),
        ({"type": "container_reference", "container_id": "cntr_1"}, False),
        ({"type": "container_auto"}, False),
        ({"type": "a type not yet known"}, False),
        ({}, False),
        ("local", False),  # not an object: whatever it means, not a local environment
    ],
)
def test_a_shell_call_is_the_clients_only_in_a_local_environment(environment: Any, client: bool) -> None:
    outcomes = Router().feed(_shell_call(environment))
    assert [outcome["kind"] for outcome in outcomes] == (["tool.call"] if client else [])


@pytest.mark.parametrize(
    ("execution", "client"), [("client", True), ("server", False), (None, False), (1, False)]
)
def test_a_tool_search_is_the_clients_only_when_it_says_so(execution: Any, client: bool) -> None:
    item = {"id": "ts_1", "type": "tool_search_call", "status": "completed", "call_id": "call_1"}
    done = {**item, "execution": execution, "arguments": {"query": "calendar"}}
    router = Router()
    outcomes = router.feed({"type": "response.output_item.added", "output_index": 0, "item": item})
    outcomes += router.feed({"type": "response.output_item.done", "output_index": 0, "item": done})
    assert [outcome["kind"] for outcome in outcomes] == (["tool.call"] if client else [])
    assert [outcome["kind"] for outcome in router.close()] == ["end"]  # a hosted call is never open


def _routed(router: Any, stream: CatalogueStream) -> list[tuple[int | str, Outcome]]:
    events = enumerate(stream.events)
    outcomes = [(index, outcome) for index, event in events for outcome in router.feed(event)]
    return outcomes + [("close", outcome) for outcome in router.close()]


@pytest.mark.parametrize("router", [Router, IndependentRouter], ids=["reference", "independent"])
@given(stream=catalogue_streams())
def test_generated_catalogue_calls_are_routed_as_their_ground_truth_says(
    router: Callable[[], Any], stream: CatalogueStream
) -> None:
    routed = _routed(router(), stream)
    assert len(routed) == len(stream.expected), (routed, stream.expected)
    for (at, outcome), (expected_at, expected) in zip(routed, stream.expected, strict=True):
        stated = {name: outcome.get(name) for name in expected}
        assert (at, outcome["kind"]) == (expected_at, expected["kind"]), (outcome, expected)
        assert all(json_equal(value, stated[name]) for name, value in expected.items()), (outcome, expected)
