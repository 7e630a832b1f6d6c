"""Each broken router fails exactly the vectors that check its mistake.

Which vectors those are is derived independently of the harness: from the
vector's events and compared kinds, and from what the reference routes.
"""

from __future__ import annotations

from typing import Any

from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.results import Status, run_vector
from streamroute.conformance.vectors import Vector
from streamroute.reference import EVENT_TYPES, Router


def _failing(adapter: str, vectors: list[Vector]) -> set[str]:
    implementation = PythonImplementation.load(adapter)
    results = [run_vector(implementation, v) for v in vectors if not v.options]
    return {r.vector_id for r in results if r.status.is_failure}


def _compares(vector: Vector, *kinds: str) -> bool:
    return vector.compare is None or bool(vector.compare & set(kinds))


def _reference_outcomes(vector: Vector) -> list[dict[str, Any]]:
    router = Router()
    outcomes = [o for event in vector.events for o in router.feed(event)]
    return outcomes + router.close()


def _function_argument_deltas(vector: Vector) -> bool:
    """The reference routes an argument delta of a function call in this vector."""
    functions = {
        e["item"]["id"]
        for e in vector.events
        if isinstance(e, dict)
        and isinstance(e.get("item"), dict)
        and e["item"].get("type") == "function_call"
    }
    return any(
        o["kind"] == "tool.arguments.delta" and o["item_id"] in functions for o in _reference_outcomes(vector)
    )


def test_a_call_fired_from_deltas_fails_every_vector_with_streamed_arguments(
    bundled: list[Vector],
) -> None:
    should_fail = {
        v.id for v in bundled if not v.options and _function_argument_deltas(v) and _compares(v, "tool.call")
    }
    assert len(should_fail) >= 10
    assert _failing("broken_routers:EarlyCall", bundled) == should_fail


def test_argument_deltas_shown_as_text_fail_every_vector_comparing_them(
    bundled: list[Vector],
) -> None:
    should_fail = {
        v.id
        for v in bundled
        if not v.options
        and _function_argument_deltas(v)
        and _compares(v, "tool.arguments.delta", "text.delta")
    }
    assert len(should_fail) >= 10
    assert _failing("broken_routers:TextMix", bundled) == should_fail


def test_raising_on_unknown_events_errors_every_vector_that_has_one(bundled: list[Vector]) -> None:
    should_fail = {
        v.id
        for v in bundled
        if not v.options
        and any(
            isinstance(e, dict) and isinstance(e.get("type"), str) and e["type"] not in EVENT_TYPES
            for e in v.events
        )
    }
    assert len(should_fail) >= 2
    implementation = PythonImplementation.load("broken_routers:RaiseOnUnknown")
    results = {v.id: run_vector(implementation, v) for v in bundled if v.id in should_fail}
    assert all(r.status is Status.ERRORED for r in results.values())
    assert all("ValueError: unknown event type" in r.message for r in results.values())
    assert _failing("broken_routers:RaiseOnUnknown", bundled) == should_fail
