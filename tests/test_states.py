"""The router's state machines: the spec's tables are the code's, every move and every refusal that
depends on a state goes through them, and changing a row changes what the router does."""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from streamroute.conformance.schemas import OUTCOME, SPEC_DIR, schema
from streamroute.reference import Router, consumers_for
from streamroute.reference import router as reference
from streamroute.reference.router import Refused

MACHINES: dict[str, tuple[str, str, str]] = {
    # name: (spec file, the heading its table follows, the name of the code's table)
    "stream": ("core.md", "### 8a.1 The stream", "STREAM_TRANSITIONS"),
    "item": ("core.md", "### 8a.2 An item", "ITEM_TRANSITIONS"),
    "part": ("core.md", "### 8a.3 A content part", "PART_TRANSITIONS"),
    "call": ("core.md", "### 8a.4 A call", "CALL_TRANSITIONS"),
    "slot": ("custom-tools.md", "### 2.1 The slot's states", "SLOT_TRANSITIONS"),
}

Table = Mapping[str, Mapping[str, Any]]  # state -> {event: a state, or Refused}
Row = tuple[str, str, str]  # (from, event, the state it moves to, or "refused <code>")


def _table(machine: str) -> Table:
    table: Table = getattr(reference, MACHINES[machine][2])
    return table


def _answer(cell: str, row: str, spec: str) -> str:
    """A row's `to` cell as `_code_rows` spells it: one state, or `refused: `code``."""
    if cell.startswith("refused"):
        codes = re.findall(r"`([a-z_]+)`", cell)
        assert len(codes) == 1, f"spec/{spec}: a refusal without one error code: {row!r}"
        return f"refused {codes[0]}"
    target = re.findall(r"`([A-Z_]+)`", cell)
    assert len(target) == 1, f"spec/{spec}: a row without one state to move to: {row!r}"
    return target[0]


def _spec_rows(spec: str, heading: str) -> set[Row]:
    """(from, event, to) of every row of the table after `heading`; a row may name several froms."""
    text = (SPEC_DIR / spec).read_text(encoding="utf-8")
    assert heading in text, f"spec/{spec} has no section {heading!r}"
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows, f"spec/{spec} {heading!r} has no table"
    found = set()
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        sources = re.findall(r"`([A-Z_]+)`", cells[0])
        event = re.match(r"`([a-z_]+)`", cells[1])
        assert sources, f"spec/{spec}: a row without a state to move from: {row!r}"
        assert event, f"spec/{spec}: a row without an event: {row!r}"
        found |= {(source, event[1], _answer(cells[2], row, spec)) for source in sources}
    return found


def _code_rows(transitions: Table) -> set[Row]:
    return {
        (source, event, f"refused {answer.code}" if isinstance(answer, Refused) else answer)
        for source, answers in transitions.items()
        for event, answer in answers.items()
    }


@pytest.mark.parametrize("machine", MACHINES)
def test_the_spec_table_is_the_code_table(machine: str) -> None:
    spec, heading, _ = MACHINES[machine]
    assert _spec_rows(spec, heading) == _code_rows(_table(machine))


@pytest.mark.parametrize("machine", MACHINES)
def test_every_state_is_reached_and_every_target_is_a_state(machine: str) -> None:
    transitions = _table(machine)
    first, *others = transitions
    targets = {target for answers in transitions.values() for target in answers.values()}
    states = {target for target in targets if not isinstance(target, Refused)}
    assert states <= set(transitions)
    assert set(others) <= states, "a state no move leads to"
    assert first not in states or machine == "slot", "the first state is where each machine starts"


def _refusal_codes() -> set[str]:
    return {
        answer.code
        for machine in MACHINES
        for answers in _table(machine).values()
        for answer in answers.values()
        if isinstance(answer, Refused)
    }


def test_a_refusal_speaks_a_code_of_the_schema() -> None:
    assert _refusal_codes() <= set(schema(OUTCOME + "#/$defs/router_error_code")["enum"])
    with pytest.raises(ValueError, match="'late' is not an error code of a router"):
        Refused("late")


def _assigned_attribute(node: ast.AST) -> str | None:
    target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
    if isinstance(node, ast.AnnAssign):
        target = node.target
    return target.attr if isinstance(target, ast.Attribute) else None


def _calls_move(node: ast.AST, transitions: str | None = None) -> bool:
    """Whether `node` calls `_move` (with `transitions` as its table, when named)."""
    return any(
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "_move"
        and (transitions is None or (isinstance(call.args[0], ast.Name) and call.args[0].id == transitions))
        for call in ast.walk(node)
    )


def _functions(tree: ast.AST) -> list[ast.FunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]


def test_every_state_change_goes_through_move() -> None:
    """In router.py, a state is only ever assigned what `_move` answers, outside the defaults
    it starts in; and the slot, whose state is what it holds, changes only where `_move` checks it."""
    tree = ast.parse(Path(reference.__file__).read_text(encoding="utf-8"))
    states = {"state", "_stream"}
    seen = set()
    for function in _functions(tree):
        for node in ast.walk(function):
            name = _assigned_attribute(node)
            if name in states and function.name != "__init__":
                assert isinstance(node, (ast.Assign, ast.AnnAssign))
                assert node.value is not None
                assert _calls_move(node.value), f"{function.name} sets {name} without _move"
                seen.add(name)
            if name == "_slot" and function.name != "__init__":
                assert _calls_move(function, "SLOT_TRANSITIONS"), (
                    f"{function.name} sets the slot without _move"
                )
                seen.add(name)
    assert seen == states | {"_slot"}


def test_no_handler_refuses_by_a_state_of_its_own() -> None:
    """No `Violation` in router.py names a code a table refuses with, but for the identity checks
    no state decides (an item announced twice is `duplicate_event` before it has a state)."""
    tree = ast.parse(Path(reference.__file__).read_text(encoding="utf-8"))
    refusing = _refusal_codes()
    raised = [
        (function.name, node.args[0].value)
        for function in _functions(tree)
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Violation"
        and isinstance(node.args[0], ast.Constant)
    ]
    assert [(name, code) for name, code in raised if code in refusing] == [("_item_added", "duplicate_event")]


# -- the states a stream goes through, read through the router ------------------------------

TOOLS = [{"type": "custom", "name": "apply_patch", "consumer": "echo"}]


def _added(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "item": item}


def _done(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "item": item}


CUSTOM = {"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_1", "name": "apply_patch"}
FUNCTION = {"id": "fc_1", "type": "function_call", "call_id": "call_2", "name": "get_weather"}


def test_a_call_and_the_slot_move_as_the_tables_say() -> None:
    router = Router(consumers_for(TOOLS))
    assert (router.stream_state, router.slot_state) == ("OPEN", "EMPTY")
    router.feed(_added(CUSTOM))
    assert router.slot_state == "ACTIVE"
    router.feed({"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "delta": "x"})
    router.feed({"type": "response.custom_tool_call_input.done", "item_id": "ctc_1", "input": "x"})
    router.feed(_added(FUNCTION))  # drops the consumer (CUSTOM-SLOT-3)
    assert router.slot_state == "EMPTY"
    outcomes = router.feed(_done({**CUSTOM, "input": "x"}))
    assert [o["kind"] for o in outcomes] == ["tool.call"]
    router.feed({"type": "response.completed", "response": {"status": "completed"}})
    assert router.stream_state == "TERMINAL"
    router.close()
    assert router.stream_state == "CLOSED"


def test_a_call_past_the_limit_is_too_large_until_its_text_is_complete() -> None:
    router = Router()
    router.feed(_added(FUNCTION))
    big = "x" * (reference.MAX_BUFFERED_BYTES + 1)
    delta = {"type": "response.function_call_arguments.delta", "item_id": "fc_1"}
    assert [o.get("code") for o in router.feed({**delta, "delta": big})] == ["too_large"]
    assert [o.get("code") for o in router.feed({**delta, "delta": "y"})] == ["too_large"]
    router.feed({"type": "response.function_call_arguments.done", "item_id": "fc_1", "arguments": "{}"})
    assert [o.get("code") for o in router.feed({**delta, "delta": "y"})] == ["late_delta"]
    assert router.feed(_done({**FUNCTION, "arguments": "{}"})) == []  # resolved once, as too_large


# -- the tables decide: a row changed in a copy changes what the router does ---------------------

MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
TEXT = {"item_id": "msg_1", "content_index": 0}
ARGUMENTS = {"type": "response.function_call_arguments.delta", "item_id": "fc_1"}
# machine: (the state and the event of one of its refusals, a stream whose last event it refuses)
REFUSALS: dict[str, tuple[str, str, list[dict[str, Any]]]] = {
    "stream": (
        "TERMINAL",
        "event",
        [{"type": "response.completed", "response": {"status": "completed"}}, {"type": "response.created"}],
    ),
    "item": ("DONE", "done", [_added(MESSAGE), _done(MESSAGE), _done(MESSAGE)]),
    "part": (
        "DONE",
        "delta",
        [
            _added(MESSAGE),
            {"type": "response.output_text.done", **TEXT, "text": ""},
            {"type": "response.output_text.delta", **TEXT, "delta": "x"},
        ],
    ),
    "call": (
        "TOO_LARGE",
        "delta",
        [
            _added(FUNCTION),
            {**ARGUMENTS, "delta": "x" * (reference.MAX_BUFFERED_BYTES + 1)},
            {**ARGUMENTS, "delta": "y"},
        ],
    ),
}


def _error_codes_of_the_last_event(events: list[dict[str, Any]]) -> list[Any]:
    router = Router()
    for event in events[:-1]:
        router.feed(event)
    return [outcome["code"] for outcome in router.feed(events[-1]) if outcome["kind"] == "error"]


def _patch_row(monkeypatch: pytest.MonkeyPatch, machine: str, state: str, event: str, answer: Any) -> None:
    """Replace the code's table of `machine` by a copy whose row (state, event) answers `answer`,
    or has no such row when `answer` is None."""
    table = copy.deepcopy(_table(machine))
    if answer is None:
        del table[state][event]
    else:
        table[state][event] = answer
    monkeypatch.setattr(reference, MACHINES[machine][2], table)


@pytest.mark.parametrize("machine", REFUSALS)
def test_a_refusal_is_what_its_table_says(machine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    state, event, events = REFUSALS[machine]
    refused = _table(machine)[state][event]
    assert isinstance(refused, Refused)
    assert _error_codes_of_the_last_event(events) == [refused.code]
    _patch_row(monkeypatch, machine, state, event, Refused("unknown_item"))
    assert _error_codes_of_the_last_event(events) == ["unknown_item"]
    _patch_row(monkeypatch, machine, state, event, None)  # the state then leaves the event as it is
    assert _error_codes_of_the_last_event(events) == []


RAISING = [{"type": "custom", "name": "apply_patch", "consumer": "raise"}]


def _consumer_failures() -> int:
    """How many consumer_failed a call with a consumer that raises at each delta gets from two deltas."""
    router = Router(consumers_for(RAISING))
    router.feed(_added(CUSTOM))
    delta = {"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1"}
    outcomes = [outcome for text in ("a", "b") for outcome in router.feed({**delta, "delta": text})]
    return sum(outcome.get("code") == "consumer_failed" for outcome in outcomes)


def test_the_slot_holds_a_consumer_as_its_table_says(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _consumer_failures() == 1  # dropped once it raised (CUSTOM-FAIL-2)
    _patch_row(monkeypatch, "slot", "ACTIVE", "fail", None)
    assert _consumer_failures() == 2  # kept, it raises again
    _patch_row(monkeypatch, "slot", "EMPTY", "bind", None)
    assert _consumer_failures() == 0  # never bound
