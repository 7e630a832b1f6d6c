"""How one vector's run turns into a result, for every way an implementation can fail."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.conformance.compare import json_equal, to_canonical_point
from streamroute.conformance.expected_failures import ExpectedFailures
from streamroute.conformance.implementation import AdapterLoadError, Produced, PythonImplementation
from streamroute.conformance.results import Result, Status, run_vector
from streamroute.conformance.vectors import Vector, load_vectors

REFERENCE = "streamroute.reference.adapter:router"


def _vector(tmp_path: Path, **changes: object) -> Vector:
    write_vector(tmp_path, hello(**changes))
    vectors, errors = load_vectors([tmp_path])
    assert not errors
    return vectors[0]


def test_a_passing_run(tmp_path: Path) -> None:
    result = run_vector(PythonImplementation.load(REFERENCE), _vector(tmp_path))
    assert result == Result("core/hello", Status.PASSED)


def test_a_wrong_field_fails_with_a_side_by_side_table(tmp_path: Path) -> None:
    data = hello()
    data["expect"]["outcomes"][1]["delta"] = "Help"
    write_vector(tmp_path, data)
    vector = load_vectors([tmp_path])[0][0]
    result = run_vector(PythonImplementation.load(REFERENCE), vector)
    assert result.status is Status.FAILED
    assert result.message == 'outcome 1: field \'delta\': expected "Help", got "Hello"'
    rows = result.details.splitlines()
    assert "expected" in rows[0]
    assert "actual" in rows[0]
    assert rows[2].startswith("!=")
    assert "@2 text.delta" in rows[2]


def test_an_outcome_from_the_wrong_event_fails(tmp_path: Path) -> None:
    data = hello()
    data["expect"]["outcomes"][1]["at"] = 1
    write_vector(tmp_path, data)
    result = run_vector(PythonImplementation.load(REFERENCE), load_vectors([tmp_path])[0][0])
    assert result.message == "outcome 1: text.delta expected from event 1, produced by event 2"


def test_a_missing_outcome_fails(tmp_path: Path) -> None:
    data = hello()
    data["expect"]["outcomes"].append({"at": "close", "kind": "end", "status": "completed"})
    write_vector(tmp_path, data)
    result = run_vector(PythonImplementation.load(REFERENCE), load_vectors([tmp_path])[0][0])
    assert result.message.startswith("outcome 4: missing outcome @close end")


def test_an_invalid_outcome_fails_the_vector(tmp_path: Path) -> None:
    result = run_vector(PythonImplementation.load("broken_routers:InvalidOutcome"), _vector(tmp_path))
    assert result.status is Status.FAILED
    assert result.message.startswith(
        "outcome 1 (from event 2) is not a valid outcome: 'item_id' is a required property"
    )


def test_an_implementation_answering_not_a_list_is_errored(tmp_path: Path) -> None:
    result = run_vector(PythonImplementation.load("broken_routers:NotAList"), _vector(tmp_path))
    assert result.status is Status.ERRORED
    assert result.message == "close() raised TypeError: expected an iterable of outcomes, got NoneType"


def test_an_implementation_that_raises_is_errored_with_its_traceback(tmp_path: Path) -> None:
    events = [*hello()["events"], {"type": "acme:ping", "sequence_number": 4}]
    result = run_vector(
        PythonImplementation.load("broken_routers:RaiseOnUnknown"), _vector(tmp_path, events=events)
    )
    assert result.status is Status.ERRORED
    assert result.message == "feed(event 4) raised ValueError: unknown event type acme:ping"
    assert "Traceback" in result.details


def test_an_unclaimed_profile_or_option_is_not_applicable(tmp_path: Path) -> None:
    vector = _vector(tmp_path, options={"tool_call_point": "arguments_done"})
    result = run_vector(PythonImplementation.load(REFERENCE), vector)
    assert result.status is Status.NOT_APPLICABLE
    assert "needs option tool_call_point=arguments_done" in result.message
    other = PythonImplementation.load("streamroute.reference.adapter:arguments_done_router")
    assert run_vector(other, vector).status is Status.PASSED


@pytest.mark.parametrize(
    ("adapter", "problem"),
    [
        ("no_colon", "must be given as module:callable"),
        ("no_such_module_here:thing", "ModuleNotFoundError"),
        ("streamroute.reference.adapter:absent", "AttributeError"),
        ("streamroute.reference.adapter:__doc__", "is not callable"),
    ],
)
def test_an_adapter_that_cannot_load_is_a_usage_error(adapter: str, problem: str) -> None:
    with pytest.raises(AdapterLoadError, match=problem):
        PythonImplementation.load(adapter)


def test_json_equality_keeps_booleans_apart_from_numbers() -> None:
    assert json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not json_equal(True, 1)
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})
    assert not json_equal("1", 1)


def test_call_outcomes_move_from_arguments_done_to_the_done_item() -> None:
    events = [
        {"type": "response.output_item.added", "item": {"id": "fc_1"}},
        {"type": "response.custom_tool_call_input.done", "call_id": "call_1"},
        {"type": "response.output_text.delta"},
        {"type": "response.output_item.done", "item": {"id": "fc_1"}},
        {"type": "response.function_call_arguments.done", "item_id": "fc_2"},
    ]
    mismatch = {"kind": "error", "code": "done_mismatch"}
    failed = {"kind": "error", "code": "consumer_failed", "item_id": "fc_1", "call_id": "call_1"}
    finish = {"kind": "diff.finish", "item_id": "fc_1", "call_id": "call_1"}
    call = {"kind": "tool.call", "item_id": "fc_1"}
    orphan = {"kind": "tool.call", "item_id": "fc_2"}
    produced = [
        Produced(1, mismatch),
        Produced(1, failed),
        Produced(1, finish),
        Produced(1, call),
        Produced(2, {"kind": "text.delta"}),
        Produced(3, {"kind": "error"}),
        Produced(4, orphan),
        Produced("close", {"kind": "end"}),
    ]
    assert to_canonical_point(produced, events) == [
        Produced(1, mismatch),
        Produced(2, {"kind": "text.delta"}),
        Produced(3, {"kind": "error"}),
        Produced(3, failed),
        Produced(3, finish),
        Produced(3, call),
        Produced(4, orphan),
        Produced("close", {"kind": "end"}),
    ]


def test_expected_failures_are_strict(tmp_path: Path) -> None:
    listed = tmp_path / "expected-failures.txt"
    listed.write_text("# known\ncore/a  # a reason\ncore/b\n\ncore/gone\n", encoding="utf-8")
    failures = ExpectedFailures.load(listed)
    assert failures.apply(Result("core/a", Status.FAILED, "m")).status is Status.EXPECTED_FAILURE
    assert failures.apply(Result("core/a", Status.ERRORED, "m")).status is Status.EXPECTED_FAILURE
    stale = failures.apply(Result("core/b", Status.PASSED))
    assert stale.status is Status.FAILED
    assert stale.message.startswith("stale expected failure")
    assert failures.apply(Result("core/c", Status.FAILED)).status is Status.FAILED
    assert failures.unknown(["core/a", "core/b"]) == ["core/gone"]
