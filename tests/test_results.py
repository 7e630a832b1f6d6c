"""How one vector's run turns into a result, for every way an implementation can fail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import hello, write_vector
from streamroute.conformance.compare import json_equal, to_canonical_point
from streamroute.conformance.expected_failures import ExpectedFailures
from streamroute.conformance.implementation import AdapterLoadError, Produced, PythonImplementation
from streamroute.conformance.results import (
    CONTEXT,
    MAX_ALIGNED,
    MAX_CELL_CHARS,
    MAX_ROWS,
    Result,
    Status,
    aligned,
    run_vector,
)
from streamroute.conformance.vectors import Vector, load_vectors
from streamroute.reference import Outcome, Router
from streamroute.reference.sse import ByteRouter

REFERENCE = "streamroute.reference.adapter:router"


def _vector(tmp_path: Path, **changes: object) -> Vector:
    write_vector(tmp_path, hello(**changes))
    vectors, errors = load_vectors([tmp_path])
    assert not errors
    return vectors[0]


def test_a_passing_run(tmp_path: Path) -> None:
    result = run_vector(PythonImplementation.load(REFERENCE), _vector(tmp_path))
    assert result == Result("core/hello", Status.PASSED)


def test_a_wrong_field_fails_with_the_outcomes_aligned(tmp_path: Path) -> None:
    data = hello()
    data["expect"]["outcomes"][1]["delta"] = "Help"
    write_vector(tmp_path, data)
    vector = load_vectors([tmp_path])[0][0]
    result = run_vector(PythonImplementation.load(REFERENCE), vector)
    assert result.status is Status.FAILED
    assert result.message == 'outcome 1: field \'delta\': expected "Help", got "Hello"'
    (comparison,) = result.comparisons
    assert comparison["reason"] == result.message
    assert [row["op"] for row in comparison["rows"]] == ["equal", "differs", "equal", "equal"]
    differs = comparison["rows"][1]
    assert differs["expected"] == {
        "index": 1,
        "at": 2,
        "kind": "text.delta",
        "fields": 'item_id="msg_1" output_index=0 content_index=0 delta="Help"',
        "event": "response.output_text.delta",
    }
    assert differs["actual"]["fields"] == 'item_id="msg_1" output_index=0 content_index=0 delta="Hello"'
    assert comparison["rows"][3]["actual"]["event"] is None  # close is no event


def _ops(result: Result) -> list[str]:
    (comparison,) = result.comparisons
    return [row["op"] for row in comparison["rows"]]


def test_one_outcome_too_many_or_too_few_is_one_row(tmp_path: Path) -> None:
    reference = PythonImplementation.load(REFERENCE)
    data = hello()
    del data["expect"]["outcomes"][1]  # the reference produces the text.delta: one too many
    assert _ops(run_vector(reference, _vector(tmp_path / "a", expect=data["expect"]))) == [
        "equal",
        "unexpected",
        "equal",
        "equal",
    ]
    data = hello()
    extra = {**data["expect"]["outcomes"][1], "delta": "!"}
    data["expect"]["outcomes"].insert(1, extra)  # one the reference does not produce
    assert _ops(run_vector(reference, _vector(tmp_path / "b", expect=data["expect"]))) == [
        "equal",
        "missing",
        "equal",
        "equal",
        "omitted",  # further than CONTEXT from the difference
    ]


def _produced(*kinds: str) -> list[Produced]:
    return [Produced(index, {"kind": "text.delta", "delta": kind}) for index, kind in enumerate(kinds)]


def _expected(*kinds: str) -> list[dict[str, object]]:
    return [{"at": index, "kind": "text.delta", "delta": kind} for index, kind in enumerate(kinds)]


def test_equal_rows_far_from_a_difference_are_counted_not_shown() -> None:
    deltas = [str(n) for n in range(20)]
    rows = aligned(_expected(*deltas), _produced(*deltas[:10], "x", *deltas[11:]), None)
    assert [row["op"] for row in rows] == [
        "omitted",
        *["equal"] * CONTEXT,
        "differs",
        *["equal"] * CONTEXT,
        "omitted",
    ]
    assert [rows[0]["count"], rows[-1]["count"]] == [10 - CONTEXT, 9 - CONTEXT]
    flood = aligned([], _produced(*["x"] * (MAX_ROWS * 3)), None)
    assert len(flood) == MAX_ROWS + 1
    assert flood[-1] == {"op": "omitted", "count": MAX_ROWS * 2}


def test_past_max_aligned_outcomes_pair_by_position() -> None:
    half = MAX_ALIGNED // 2
    rows = aligned(_expected(*["a"] * half), _produced("b", *["a"] * half), None)
    # Aligned, the first "b" would be one unexpected row; here it takes the place of the first "a".
    assert [row["op"] for row in rows] == [
        "differs",
        "equal",
        "equal",
        "omitted",
        "equal",
        "equal",
        "unexpected",
    ]


def test_a_cell_shows_an_errors_message_its_event_and_stays_short() -> None:
    events = [{"type": "response.output_text.delta"}, "not an event"]
    produced = [
        Produced(0, {"kind": "error", "code": "malformed_event", "message": "event 0: no item_id"}),
        Produced(1, {"kind": "text.delta", "delta": "\ud83d" + "x" * 1000, "message": "not shown"}),
    ]
    rows = aligned([], produced, events)
    error, delta = rows[0]["actual"], rows[1]["actual"]
    assert error["fields"] == 'code="malformed_event" message="event 0: no item_id"'
    assert error["event"] == "response.output_text.delta"
    assert delta["event"] is None
    assert delta["fields"].startswith('delta="\\ud83dxxx')  # a lone surrogate, escaped: printable
    assert len(delta["fields"]) == MAX_CELL_CHARS
    assert "not shown" not in delta["fields"]


def test_identical_expected_outcomes_pair_in_order() -> None:
    rows = aligned(_expected("a", "a", "b"), [Produced(0, {"kind": "text.delta", "delta": "a"})], None)
    assert [row["op"] for row in rows] == ["equal", "missing", "missing"]


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
    assert result.message == "close() answered not an iterable of outcomes but NoneType"


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
        {"type": "response.output_item.added", "item": {"id": "fc_1", "call_id": "call_1"}},
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
    assert to_canonical_point(produced, events, "arguments_done") == [
        Produced(1, mismatch),
        Produced(2, {"kind": "text.delta"}),
        Produced(3, {"kind": "error"}),
        Produced(3, failed),
        Produced(3, finish),
        Produced(3, call),
        Produced(4, orphan),
        Produced("close", {"kind": "end"}),
    ]


def _two_calls() -> list[dict[str, Any]]:
    added = [{"type": "response.output_item.added", "item": {"id": f"fc_{n}"}} for n in (1, 2)]
    done = {"type": "response.function_call_arguments.done", "item_id": "fc_1"}
    items = [{"type": "response.output_item.done", "item": {"id": f"fc_{n}"}} for n in (1, 2)]
    return [*added, done, *items, {"type": "response.completed"}]


def test_a_call_made_at_another_calls_done_is_not_moved() -> None:
    """spec/vectors.md 3.1: only an outcome of its own item's .done moves; a sibling fired early stays."""
    sibling = Produced(2, {"kind": "tool.call", "item_id": "fc_2"})
    own = Produced(2, {"kind": "tool.call", "item_id": "fc_1"})
    assert to_canonical_point([own, sibling], _two_calls(), "arguments_done") == [
        sibling,
        Produced(3, own.outcome),
    ]


def test_calls_of_the_response_move_back_to_their_done_items() -> None:
    """Under response_done an outcome at the end moves to its item's done item, the one the vector
    expects it at when it expects one there, and stays when the vector expects it at the end."""
    events = [*_two_calls()[:3], *_two_calls()[3:4], *_two_calls()[3:]]  # fc_1 done twice: 3 and 4
    first, second = {"kind": "tool.call", "item_id": "fc_1"}, {"kind": "tool.error", "item_id": "fc_2"}
    produced = [Produced(6, first), Produced(6, second), Produced("close", {"kind": "end"})]
    assert to_canonical_point(produced, events, "response_done") == [
        Produced(3, first),
        Produced(5, second),
        Produced("close", {"kind": "end"}),
    ]
    expected = [{"at": 4, **first}, {"at": 6, **second}]
    assert to_canonical_point(produced, events, "response_done", expected=expected) == [
        Produced(4, first),
        Produced(6, second),
        Produced("close", {"kind": "end"}),
    ]


def test_an_outcome_without_an_item_id_moves_to_the_item_of_its_call() -> None:
    """spec/vectors.md 3.1: an implementation that does not observe item ids names a call by its
    call id, and the call still moves back to its item's done item."""
    events = [
        {"type": "response.output_item.added", "item": {"id": "fc_1", "call_id": "call_1"}},
        {"type": "response.output_item.added", "item": {"id": "fc_2", "call_id": "call_2"}},
        {"type": "response.output_item.done", "item": {"id": "fc_1", "call_id": "call_1"}},
        {"type": "response.output_item.done", "item": {"id": "fc_2", "call_id": "call_2"}},
        {"type": "response.completed"},
    ]
    first, second = {"kind": "tool.call", "call_id": "call_2"}, {"kind": "tool.call", "call_id": "call_1"}
    unknown = {"kind": "tool.call", "call_id": "call_9"}
    produced = [Produced(4, first), Produced(4, second), Produced(4, unknown)]
    assert to_canonical_point(produced, events, "response_done") == [
        Produced(2, second),
        Produced(3, first),
        Produced(4, unknown),
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


class _Shouting(ByteRouter):
    """Routes every text delta in capitals, however the stream is cut."""

    def __init__(self, tools: object) -> None:
        super().__init__(Router())

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        return [[_shout(outcome) for outcome in outcomes] for outcomes in super().feed_bytes(chunk)]


def _shout(outcome: Outcome) -> Outcome:
    return {**outcome, "delta": outcome["delta"].upper()} if outcome["kind"] == "text.delta" else outcome


class _PhantomOnOneByte(ByteRouter):
    """Dispatches an event without outcomes after each chunk of one byte."""

    def __init__(self, tools: object) -> None:
        super().__init__(Router())

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        dispatched = super().feed_bytes(chunk)
        return [*dispatched, []] if len(chunk) == 1 else dispatched


def _sse_vector(tmp_path: Path) -> Vector:
    """HELLO's events as an sse vector's stream, cut three ways."""
    stream = "".join(f"data: {json.dumps(event)}\n\n" for event in hello()["events"])
    data = hello(id="sse/hello", profile="sse", stream=stream, cuts=["every_byte", [], [3]])
    data["expect"]["dispatched"] = len(hello()["events"])
    del data["events"]
    write_vector(tmp_path, data)
    (vector,) = load_vectors([tmp_path])[0]
    return vector


def test_an_sse_vector_reports_every_failing_cut_each_failure_once(tmp_path: Path) -> None:
    vector = _sse_vector(tmp_path)
    result = run_vector(PythonImplementation("shouting", _Shouting, frozenset({"sse"})), vector)
    assert result.message == (
        'every byte: outcome 1: field \'delta\': expected "Hello", got "HELLO"; 3 of 3 cuts fail'
    )
    (comparison,) = result.comparisons  # the same failure in every cut: told once
    assert comparison["cuts"] == ["every byte", "one chunk", "cut at 3"]
    assert comparison["rows"][1]["actual"]["event"] is None  # the harness does not decode sse events
    phantom = run_vector(PythonImplementation("phantom", _PhantomOnOneByte, frozenset({"sse"})), vector)
    assert [c["cuts"] for c in phantom.comparisons] == [["every byte"]]
    assert phantom.message.startswith("every byte: outcome 0: lifecycle expected from event 0, produced by")
    assert phantom.message.endswith("; 1 of 3 cuts fail")
