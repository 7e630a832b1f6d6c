"""The reference executor and its ledgers, beyond what vectors can show.

Vectors drive one consumer through control steps; these tests cover the
rest of spec/execution.md: the ledger contract both stores keep, two
consumers on one database, tools that end after the step that started them,
the moves a crash can leave behind, retractions the vectors cannot stage,
and the transition table against the spec.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from jsonschema.exceptions import SchemaError
from memory_ledger import MemoryLedger
from streamroute.conformance.schemas import SPEC_DIR, VECTOR, schema
from streamroute.conformance.vectors import Vector
from streamroute.reference.executor import PENDING, TRANSITIONS, Executor, Tool
from streamroute.reference.ledger import Ledger, Record, SqliteLedger, State
from streamroute.reference.types import Outcome

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def call(call_id: str, name: str = "get_weather", **arguments: Any) -> dict[str, Any]:
    """A router's tool.call for a function call."""
    return {
        "kind": "tool.call",
        "item_id": "fc_" + call_id,
        "call_id": call_id,
        "name": name,
        "tool_type": "function",
        "arguments": arguments or {"city": "Lyon"},
    }


def retracted(call_id: str, item_id: str | None = None) -> dict[str, Any]:
    """A router's error call_retracted (spec/core.md CORE-CALL-12 .. -14)."""
    return {
        "kind": "error",
        "code": "call_retracted",
        "message": "the call was made at its arguments .done, but the response ended before its done item",
        "item_id": item_id or "fc_" + call_id,
        "call_id": call_id,
    }


def kinds(outcomes: list[dict[str, Any]]) -> list[str]:
    return [outcome["kind"] for outcome in outcomes]


@pytest.fixture(params=["memory", "sqlite"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    if request.param == "memory":
        yield MemoryLedger()
        return
    store = SqliteLedger(tmp_path / "calls.db")
    yield store
    store.close()


def record(call_id: str, **changes: Any) -> Record:
    base = Record(call_id=call_id, item_id="fc_" + call_id, name="t", tool_type="function", consumer="main")
    return replace(base, **changes)


# -- the ledger contract -----------------------------------------------------


def test_insert_claims_a_call_id_once(ledger: Ledger) -> None:
    assert ledger.insert(record("a", state="TOOL_READY"))
    assert not ledger.insert(record("a", state="FAILED", code="unknown_tool"))
    stored = ledger.get("a")
    assert stored is not None
    assert stored.state == "TOOL_READY"
    assert ledger.get("b") is None


def test_update_is_a_compare_and_set_on_the_state(ledger: Ledger) -> None:
    ledger.insert(record("a", state="TOOL_READY"))
    assert ledger.update(record("a", state="TOOL_RUNNING", started=True), "TOOL_READY")
    assert not ledger.update(record("a", state="CANCELLED"), "TOOL_READY")
    assert not ledger.update(record("zzz", state="CANCELLED"), "TOOL_READY")
    stored = ledger.get("a")
    assert stored is not None
    assert (stored.state, stored.started) == ("TOOL_RUNNING", True)


def test_records_keep_insertion_order_and_unfinished_leaves_final_ones_out(ledger: Ledger) -> None:
    for call_id, state in [("c", "TOOL_RUNNING"), ("a", "TOOL_SUCCEEDED"), ("b", "TOOL_READY")]:
        ledger.insert(record(call_id, state=state))
    ledger.update(record("b", state="CANCELLED"), "TOOL_READY")
    assert [r.call_id for r in ledger.records()] == ["c", "a", "b"]
    assert [r.call_id for r in ledger.unfinished()] == ["c"]


def test_readdress_moves_a_record_to_a_new_call_id_that_both_ids_then_find(ledger: Ledger) -> None:
    """EXEC-ONCE-3: the record keeps its place and its state; neither id can be claimed again."""
    for call_id in ("a", "b"):
        ledger.insert(record(call_id, state="TOOL_SUCCEEDED", result=call_id))
    assert ledger.readdress(record("a2", item_id="fc_a", state="TOOL_SUCCEEDED", result="a"), "a")
    assert [(r.call_id, r.result) for r in ledger.records()] == [("a2", "a"), ("b", "b")]
    moved = record("a2", item_id="fc_a", state="TOOL_SUCCEEDED", result="a")
    assert ledger.get("a") == ledger.get("a2") == moved
    assert not ledger.insert(record("a", state="TOOL_READY"))
    assert not ledger.insert(record("a2", state="TOOL_READY"))
    assert ledger.readdress(record("a3", item_id="fc_a", state="TOOL_SUCCEEDED", result="a"), "a2")
    assert ledger.get("a") == ledger.get("a2") == ledger.get("a3")  # an alias follows the record


def test_readdress_changes_nothing_when_the_new_id_is_known_or_the_state_moved(ledger: Ledger) -> None:
    ledger.insert(record("a", state="TOOL_RUNNING"))
    ledger.insert(record("b", state="TOOL_SUCCEEDED"))
    assert not ledger.readdress(record("b", item_id="fc_a", state="TOOL_RUNNING"), "a")  # another call's
    assert not ledger.readdress(record("c", item_id="fc_a", state="TOOL_READY"), "a")  # not in that state
    assert not ledger.readdress(record("c", state="TOOL_RUNNING"), "zzz")  # no such record
    assert [r.call_id for r in ledger.records()] == ["a", "b"]
    assert ledger.get("c") is None


def test_a_sqlite_ledger_keeps_every_committed_move_across_connections(tmp_path: Path) -> None:
    path = tmp_path / "calls.db"
    first = SqliteLedger(path)
    first.insert(record("a", state="TOOL_READY", arguments={"city": "Zürich"}))
    first.update(record("a", state="TOOL_SUCCEEDED", result={"temp_c": 9}), "TOOL_READY")
    # No close(): a killed process says no goodbye.
    second = SqliteLedger(path)
    assert second.records() == [record("a", state="TOOL_SUCCEEDED", result={"temp_c": 9})]
    assert second._db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    first.close()
    second.close()


# -- the executor ------------------------------------------------------------


def test_a_schema_that_is_not_a_schema_fails_when_the_executor_is_built() -> None:
    broken = Tool("t", run=lambda arguments: None, parameters={"type": "strnig"})
    with pytest.raises(SchemaError):
        Executor([broken], MemoryLedger())


def test_the_schema_draft_follows_its_dollar_schema() -> None:
    # Draft 4's boolean exclusiveMaximum is not valid 2020-12: only the stated draft accepts it.
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True}},
    }
    executor = Executor([Tool("t", run=lambda arguments: "ok", parameters=draft4)], MemoryLedger())
    rejected = executor.feed([call("a", "t", n=5)])[-1]
    assert (rejected["code"], rejected["pointer"]) == ("invalid_arguments", "/n")
    assert executor.feed([call("b", "t", n=4.5)])[-1]["result"] == "ok"


def test_a_permission_rule_that_raises_denies() -> None:
    def rule(arguments: Any) -> bool:
        raise RuntimeError("policy service down")

    executor = Executor([Tool("get_weather", run=lambda arguments: 1, permit=rule)], MemoryLedger())
    rejected = executor.feed([call("a")])[-1]
    assert (rejected["kind"], rejected["code"]) == ("tool.rejected", "not_permitted")
    assert "policy service down" in rejected["message"]


def test_the_permission_rule_reads_the_arguments() -> None:
    rule = Tool(
        "get_weather", run=lambda arguments: 1, permit=lambda arguments: arguments["city"] != "Pyongyang"
    )
    executor = Executor([rule], MemoryLedger())
    assert kinds(executor.feed([call("a", city="Lyon")]))[-1] == "tool.succeeded"
    assert executor.feed([call("b", city="Pyongyang")])[-1]["code"] == "not_permitted"


@pytest.mark.parametrize("result", [{1, 2}, float("nan")])
def test_a_result_that_is_not_json_fails_the_call(result: object) -> None:
    executor = Executor([Tool("get_weather", run=lambda arguments: result)], MemoryLedger())
    failed = executor.feed([call("a")])[-1]
    assert (failed["kind"], failed["code"]) == ("tool.failed", "tool_failed")
    assert "not JSON" in failed["message"]


def test_a_custom_or_catalogue_call_runs_on_its_input() -> None:
    """EXEC-CALLTYPE-1: the rule and the tool get the field the call's type keeps its input in."""
    seen: list[Any] = []

    def note(payload: Any) -> str:
        seen.append(payload)
        return "ok"

    def allow(payload: Any) -> bool:
        seen.append(payload)
        return True

    tools = [Tool("grep", run=note, type="custom", permit=allow), Tool("shell", run=note, type="shell")]
    custom = {"kind": "tool.call", "item_id": "ctc_a", "call_id": "a", "name": "grep", "tool_type": "custom"}
    shell = {"kind": "tool.call", "item_id": "sh_b", "call_id": "b", "name": "shell", "tool_type": "shell"}
    Executor(tools, MemoryLedger()).feed(
        [{**custom, "input": "TODO"}, {**shell, "action": {"commands": ["ls"]}}]
    )
    assert seen == ["TODO", "TODO", {"commands": ["ls"]}]


def test_a_ready_call_whose_tool_is_no_longer_allowed_is_rejected() -> None:
    # The process restarts with an allow-list without the tool: approving the call cannot run it.
    ledger = MemoryLedger()
    Executor([Tool("get_weather", run=lambda arguments: 1, requires_approval=True)], ledger).feed([call("a")])
    restarted = Executor([], ledger)
    assert kinds(restarted.recover()) == ["tool.ready"]
    rejected = restarted.approve("a")
    assert [(o["kind"], o["code"]) for o in rejected] == [("tool.rejected", "unknown_tool")]
    assert isinstance(rejected[0]["message"], str)
    stored = ledger.get("a")
    assert stored is not None
    assert (stored.state, stored.started) == ("FAILED", False)


def test_the_rule_and_the_tool_get_copies_of_the_arguments() -> None:
    # Each changes a nested member too: a shallow copy would let that reach the record.
    def meddle(arguments: dict[str, Any]) -> str:
        arguments["city"] = "Paris"
        arguments["where"]["region"] = "Seine"
        return "done"

    def rule(arguments: dict[str, Any]) -> bool:
        arguments["where"]["region"] = "Jura"
        return True

    ledger = MemoryLedger()
    executor = Executor([Tool("get_weather", run=meddle, permit=rule)], ledger)
    routed = call("a", city="Lyon", where={"region": "Rhône"})
    assert kinds(executor.feed([routed]))[-1] == "tool.succeeded"
    assert routed["arguments"] == {"city": "Lyon", "where": {"region": "Rhône"}}
    stored = ledger.get("a")
    assert stored is not None
    assert stored.arguments == {"city": "Lyon", "where": {"region": "Rhône"}}


def test_an_asynchronous_tool_ends_with_finish_or_fail() -> None:
    ledger = MemoryLedger()
    executor = Executor([Tool("get_weather", run=lambda arguments: PENDING)], ledger)
    assert kinds(executor.feed([call("a"), call("b")])) == [
        *("tool.call", "tool.ready", "tool.started"),
        *("tool.call", "tool.ready", "tool.started"),
    ]
    assert executor.finish("a", {"temp_c": 21}) == [
        {
            "kind": "tool.succeeded",
            "item_id": "fc_a",
            "call_id": "a",
            "name": "get_weather",
            "result": {"temp_c": 21},
        }
    ]
    assert kinds(executor.fail("b", "no route to host")) == ["tool.failed"]
    assert executor.finish("a", "again") == []  # final: nothing moves it (EXEC-STATE-3)
    assert executor.finish("never-seen", 1) == []
    assert [(r.call_id, r.state) for r in ledger.records()] == [("a", "TOOL_SUCCEEDED"), ("b", "FAILED")]


# How a running call can be cancelled: the execution outcomes each way produces.
ENDS: dict[str, Callable[[Executor], list[Outcome]]] = {
    "cancel": lambda executor: executor.cancel(),
    "retraction": lambda executor: executor.feed([retracted("a")])[1:],  # after the router's error
}


@pytest.mark.parametrize("end", sorted(ENDS))
def test_a_cancelled_running_tool_is_asked_to_stop_once_and_its_late_result_is_discarded(end: str) -> None:
    stopped: list[str] = []
    tool = Tool("get_weather", run=lambda arguments: PENDING, stop=stopped.append)
    ledger = MemoryLedger()
    executor = Executor([tool], ledger)
    executor.feed([call("a")])
    assert [(o["kind"], o["started"]) for o in ENDS[end](executor)] == [("tool.cancelled", True)]
    assert ENDS[end](executor) == []
    assert stopped == ["a"]
    assert executor.finish("a", {"temp_c": 21}) == []
    stored = ledger.get("a")
    assert stored is not None
    assert (stored.state, stored.result, stored.retracted) == ("CANCELLED", None, end == "retraction")


def test_a_stop_hook_that_raises_still_cancels() -> None:
    def stop(call_id: str) -> None:
        raise OSError("already gone")

    executor = Executor([Tool("get_weather", run=lambda arguments: PENDING, stop=stop)], MemoryLedger())
    executor.feed([call("a")])
    assert kinds(executor.cancel()) == ["tool.cancelled"]


@pytest.mark.parametrize(
    "outcome",
    [
        retracted("never-seen"),
        retracted("a", item_id="fc_other"),  # a record of another item with that call id
        {"kind": "error", "code": "call_retracted", "message": "from the producer"},  # names no call
    ],
)
def test_a_retraction_that_names_no_record_changes_nothing(outcome: dict[str, Any]) -> None:
    ledger = MemoryLedger()
    executor = Executor([Tool("get_weather", run=lambda arguments: PENDING)], ledger)
    executor.feed([call("a")])
    before = ledger.records()
    assert executor.feed([outcome]) == [outcome]
    assert ledger.records() == before


def restated(previous: str, call_id: str) -> dict[str, Any]:
    """A router's error call_id_restated (spec/core.md CORE-CALL-20)."""
    return {
        "kind": "error",
        "code": "call_id_restated",
        "message": "the call made at its arguments .done is kept under another call id",
        "item_id": "fc_" + previous,
        "call_id": call_id,
        "previous_call_id": previous,
    }


def test_a_readdressed_running_call_finishes_and_is_cancelled_under_its_new_id() -> None:
    """EXEC-ONCE-3: the turn and the stop hooks follow the record to its new call id."""
    stopped: list[str] = []
    tool = Tool("get_weather", run=lambda arguments: PENDING, stop=stopped.append)
    executor = Executor([tool], MemoryLedger())
    executor.feed([call("a")])
    assert executor.feed([restated("a", "a2")]) == [restated("a", "a2")]
    assert kinds(executor.cancel()) == ["tool.cancelled"]
    assert stopped == ["a2"]
    assert kinds(executor.feed([call("a")])) == ["tool.call", "tool.duplicate"]


def test_a_restatement_to_another_calls_id_changes_nothing() -> None:
    ledger = MemoryLedger()
    executor = Executor([Tool("get_weather", run=lambda arguments: "sunny")], ledger)
    executor.feed([call("a"), call("b")])
    before = ledger.records()
    assert executor.feed([restated("a", "b")]) == [restated("a", "b")]
    assert ledger.records() == before


class _FinishesFirst(MemoryLedger):
    """A ledger shared with a consumer whose tool returns just before this one's retraction is written."""

    def update(self, record: Record, expected: State) -> bool:
        if record.retracted and expected == "TOOL_RUNNING":
            running = self.get(record.call_id)
            assert running is not None
            super().update(replace(running, state="TOOL_SUCCEEDED", result="sunny"), "TOOL_RUNNING")
        return super().update(record, expected)


def test_a_retraction_that_loses_the_race_to_the_tool_still_marks_the_record() -> None:
    ledger = _FinishesFirst()
    executor = Executor([Tool("get_weather", run=lambda arguments: PENDING)], ledger)
    executor.feed([call("a")])
    assert executor.feed([retracted("a")]) == [retracted("a")]  # final by then: nothing to cancel
    stored = ledger.get("a")
    assert stored is not None
    assert (stored.state, stored.result, stored.retracted) == ("TOOL_SUCCEEDED", "sunny", True)


def test_a_new_response_starts_a_new_turn() -> None:
    executor = Executor([Tool("get_weather", run=lambda arguments: "sunny")], MemoryLedger())
    executor.cancel()
    assert kinds(executor.feed([call("a")])) == ["tool.call", "tool.cancelled"]
    created = {"kind": "lifecycle", "event": "created", "response_id": "resp_2"}
    assert kinds(executor.feed([created, call("b")]))[-1] == "tool.succeeded"


def test_a_crash_between_ready_and_started_is_started_by_the_restart(tmp_path: Path) -> None:
    # The READY move was committed, the RUNNING one never was: the tool never ran.
    ledger = SqliteLedger(tmp_path / "calls.db")
    ledger.insert(record("a", name="get_weather", state="TOOL_READY", arguments={"city": "Lyon"}))
    ran: list[Any] = []
    tool = Tool("get_weather", run=lambda arguments: ran.append(arguments) or "sunny")
    assert kinds(Executor([tool], ledger).recover()) == ["tool.started", "tool.succeeded"]
    assert ran == [{"city": "Lyon"}]
    ledger.close()


def test_a_restart_with_a_smaller_allow_list_rejects_what_it_can_no_longer_run() -> None:
    ledger = MemoryLedger()
    ledger.insert(record("a", name="get_weather", state="TOOL_READY", arguments={"city": "Lyon"}))
    rejected = Executor([], ledger).recover()
    assert [(o["kind"], o["code"]) for o in rejected] == [("tool.rejected", "unknown_tool")]


def test_a_restart_recovers_only_its_own_consumer() -> None:
    ledger = MemoryLedger()
    ledger.insert(record("mine", state="TOOL_RUNNING", consumer="worker-1", started=True))
    ledger.insert(record("theirs", state="TOOL_RUNNING", consumer="worker-2", started=True))
    outcomes = Executor([], ledger, consumer="worker-1").recover()
    assert [(o["call_id"], o["code"]) for o in outcomes] == [("mine", "interrupted")]
    theirs = ledger.get("theirs")
    assert theirs is not None
    assert theirs.state == "TOOL_RUNNING"


class _StaleFirstRead(MemoryLedger):
    """A ledger whose first read of a call misses the record another consumer wrote just before."""

    def __init__(self) -> None:
        super().__init__()
        self._missed: set[str] = set()

    def get(self, call_id: str) -> Record | None:
        if call_id not in self._missed:
            self._missed.add(call_id)
            return None
        return super().get(call_id)


def test_a_call_claimed_by_another_consumer_after_the_read_is_a_duplicate() -> None:
    ledger = _StaleFirstRead()
    runs: list[str] = []
    tools = [Tool("get_weather", run=lambda arguments: runs.append("ran") or "sunny")]
    ledger.insert(record("a", item_id="fc_a", name="get_weather", state="TOOL_SUCCEEDED", consumer="left"))
    outcomes = Executor(tools, ledger, consumer="right").feed([call("a")])
    assert [(o["kind"], o.get("state")) for o in outcomes] == [
        ("tool.call", None),
        ("tool.duplicate", "TOOL_SUCCEEDED"),
    ]
    assert runs == []


def test_a_move_that_loses_to_another_consumer_produces_nothing() -> None:
    ledger = MemoryLedger()

    def cancelled_meanwhile(arguments: Any) -> str:  # another consumer cancels the call as it runs
        running = ledger.get("a")
        assert running is not None
        assert ledger.update(replace(running, state="CANCELLED", consumer="left"), "TOOL_RUNNING")
        return "sunny"

    outcomes = Executor([Tool("get_weather", run=cancelled_meanwhile)], ledger).feed([call("a")])
    assert kinds(outcomes) == ["tool.call", "tool.ready", "tool.started"]
    stored = ledger.get("a")
    assert stored is not None
    assert (stored.state, stored.consumer) == ("CANCELLED", "left")


def test_two_consumers_on_one_database_run_each_call_once(tmp_path: Path) -> None:
    path = tmp_path / "calls.db"
    runs: Counter[str] = Counter()
    lock = threading.Lock()

    def weather(arguments: dict[str, Any]) -> str:
        with lock:
            runs[arguments["city"]] += 1
        return "sunny"

    cities = [f"city-{n}" for n in range(40)]
    answers: dict[str, list[dict[str, Any]]] = {}
    start = threading.Barrier(2)

    def consume(name: str) -> None:
        ledger = SqliteLedger(path)  # a connection of its own, as another process would have
        executor = Executor([Tool("get_weather", run=weather)], ledger, consumer=name)
        start.wait()
        answers[name] = executor.feed([call(f"call_{c}", city=c) for c in cities])
        ledger.close()

    SqliteLedger(path).close()  # create the database before the race
    threads = [threading.Thread(target=consume, args=(name,)) for name in ("left", "right")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert runs == Counter(cities)
    produced = Counter(o["kind"] for outcomes in answers.values() for o in outcomes)
    assert produced["tool.succeeded"] == len(cities)
    assert produced["tool.succeeded"] + produced["tool.duplicate"] == 2 * len(cities)


# -- the spec and the code agree ---------------------------------------------


def _spec_transitions() -> set[tuple[str, str]]:
    """(from, to) of every row of spec/execution.md's transition table that moves a call."""
    text = (SPEC_DIR / "execution.md").read_text(encoding="utf-8")
    table = text.split("Every transition, what triggers it", 1)[1].split("\n\n", 2)[1]
    moves = set()
    for row in table.splitlines()[2:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        source, target = re.findall(r"`([A-Z_]+)`", cells[0]), re.findall(r"`([A-Z_]+)`", cells[2])
        if target:
            moves.add((source[0], target[0]))
    return moves


def test_the_transition_table_of_the_spec_is_the_one_of_the_executor() -> None:
    code = {(source, target) for source, moves in TRANSITIONS.items() for target in moves.values()}
    assert _spec_transitions() == code


def test_the_execution_profile_has_at_least_thirty_vectors(bundled: list[Vector]) -> None:
    execution = [v for v in bundled if v.profile == "execution"]
    assert len(execution) >= 30
    controls = Counter(
        step["control"]
        for v in execution
        for step in v.events
        if isinstance(step, dict) and "control" in step
    )
    assert set(controls) == _control_steps()


def _control_steps() -> set[str]:
    """The control steps the vector schema gives execution vectors."""
    shapes = schema(VECTOR + "#/$defs/control_step")["oneOf"]
    control = [shape["properties"]["control"] for shape in shapes]
    return {name for values in control for name in values.get("enum", [values.get("const")])}


def test_the_profiles_page_executor_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "profiles.md").read_text(encoding="utf-8")
    code = page.split("## Executing calls safely", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    item = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "get_weather"}
    stream = [
        {"type": "response.created", "response": {"id": "resp_1"}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": '{"city":'},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": '"Lyon"}'},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "arguments": '{"city":"Lyon"}'},
        },
        {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}},
    ]
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"stream": stream}
    exec(code, namespace)
    tool_outcomes = [o for o in namespace["outcomes"] if o["kind"].startswith("tool.")]
    assert kinds(tool_outcomes)[-3:] == ["tool.ready", "tool.started", "tool.succeeded"]
    assert tool_outcomes[-1]["result"] == {"city": "Lyon", "temp_c": 21}
    assert (tmp_path / "calls.db").exists()
