"""Each broken executor fails exactly the vectors that check its mistake.

Which vectors those are is derived from the vectors' own expectations, not
from the harness. (Core vectors cannot fail them: only execution vectors
compare execution outcomes, as test_reference shows with the reference.)
"""

from __future__ import annotations

from typing import Any

from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.vectors import Vector


def _failing(adapter: str, vectors: list[Vector]) -> set[str]:
    implementation = PythonImplementation.load(adapter)
    results = [run_vector(implementation, v) for v in vectors if v.profile == "execution"]
    return {r.vector_id for r in results if r.status.is_failure}


def _applies(vector: Vector) -> bool:
    """An execution vector the broken executors run: they route at the canonical point, and
    function and custom calls only (the call types they declare)."""
    point = vector.options.get("tool_call_point", "output_item_done")
    canonical = "output_item_done" in (point if isinstance(point, list) else [point])
    calls_declared = vector.call_types <= {"function", "custom"}
    return vector.profile == "execution" and canonical and calls_declared


def _expects(vector: Vector, kind: str, **fields: Any) -> bool:
    return any(o["kind"] == kind and all(o.get(k) == v for k, v in fields.items()) for o in vector.expected)


def _remembers_across_a_restart(vector: Vector) -> bool:
    """Some call has expected outcomes both before and after a restart step."""
    restarts = [
        i
        for i, step in enumerate(vector.events)
        if isinstance(step, dict) and step.get("control") == "restart"
    ]
    for restart in restarts:
        before = {o.get("call_id") for o in vector.expected if o["at"] != "close" and o["at"] < restart}
        after = {o.get("call_id") for o in vector.expected if o["at"] == "close" or o["at"] >= restart}
        if (before & after) - {None}:
            return True
    return False


def test_a_ledger_that_forgets_at_restart_fails_every_vector_that_remembers(bundled: list[Vector]) -> None:
    should_fail = {v.id for v in bundled if _applies(v) and _remembers_across_a_restart(v)}
    assert len(should_fail) >= 8
    assert _failing("broken_executors:ForgetsAtRestart", bundled) == should_fail


def test_no_validation_fails_every_vector_with_invalid_arguments(bundled: list[Vector]) -> None:
    should_fail = {
        v.id for v in bundled if _applies(v) and _expects(v, "tool.rejected", code="invalid_arguments")
    }
    assert len(should_fail) >= 6
    assert _failing("broken_executors:NoValidation", bundled) == should_fail


def test_no_approval_fails_every_vector_that_waits_for_one(bundled: list[Vector]) -> None:
    should_fail = {v.id for v in bundled if _applies(v) and _expects(v, "tool.ready", requires_approval=True)}
    assert len(should_fail) >= 6
    assert _failing("broken_executors:NoApproval", bundled) == should_fail
