"""The router's state machines: the spec's tables are the code's, and every move goes through them."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from streamroute.conformance.schemas import SPEC_DIR
from streamroute.reference import Router, consumers_for
from streamroute.reference import router as reference

MACHINES: dict[str, tuple[str, str, Mapping[str, Mapping[str, str]]]] = {
    # name: (spec file, the heading its table follows, the code's table)
    "stream": ("core.md", "### 8a.1 The stream", reference.STREAM_TRANSITIONS),
    "item": ("core.md", "### 8a.2 An item", reference.ITEM_TRANSITIONS),
    "part": ("core.md", "### 8a.3 A content part", reference.PART_TRANSITIONS),
    "call": ("core.md", "### 8a.4 A call", reference.CALL_TRANSITIONS),
    "slot": ("custom-tools.md", "### 2.1 The slot's states", reference.SLOT_TRANSITIONS),
}

Move = tuple[str, str, str]  # (from, event, to)


def _spec_moves(spec: str, heading: str) -> set[Move]:
    """(from, event, to) of every row of the table after `heading`; a row may name several froms."""
    text = (SPEC_DIR / spec).read_text(encoding="utf-8")
    assert heading in text, f"spec/{spec} has no section {heading!r}"
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert rows, f"spec/{spec} {heading!r} has no table"
    moves = set()
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        sources = re.findall(r"`([A-Z_]+)`", cells[0])
        event, target = re.match(r"`([a-z_]+)`", cells[1]), re.findall(r"`([A-Z_]+)`", cells[2])
        assert sources, f"spec/{spec}: a row without a state to move from: {row!r}"
        assert event, f"spec/{spec}: a row without an event: {row!r}"
        assert len(target) == 1, f"spec/{spec}: a row without one state to move to: {row!r}"
        moves |= {(source, event[1], target[0]) for source in sources}
    return moves


def _code_moves(transitions: Mapping[str, Mapping[str, str]]) -> set[Move]:
    return {
        (source, event, target) for source, moves in transitions.items() for event, target in moves.items()
    }


@pytest.mark.parametrize("machine", MACHINES)
def test_the_spec_table_is_the_code_table(machine: str) -> None:
    spec, heading, transitions = MACHINES[machine]
    assert _spec_moves(spec, heading) == _code_moves(transitions)


@pytest.mark.parametrize("machine", MACHINES)
def test_every_state_is_reached_and_every_target_is_a_state(machine: str) -> None:
    transitions = MACHINES[machine][2]
    first, *others = transitions
    targets = {target for moves in transitions.values() for target in moves.values()}
    assert targets <= set(transitions)
    assert set(others) <= targets, "a state no move leads to"
    assert first not in targets or machine == "slot", "the first state is where each machine starts"


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


def test_every_state_change_goes_through_move() -> None:
    """In router.py, a state is only ever assigned what `_move` answers, outside the defaults
    it starts in; and the slot, whose state is what it holds, changes only where `_move` checks it."""
    tree = ast.parse(Path(reference.__file__).read_text(encoding="utf-8"))
    states = {"state", "_stream"}
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    seen = set()
    for function in functions:
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
