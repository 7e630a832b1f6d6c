"""Generated responses of the call catalogue (spec/core.md section 5.1), each event with its outcomes.

Catalogue calls take their input from the done item alone, and their previews
are never kept, so each event's outcomes follow from the call it belongs to: the
ground truth is written beside each event as it is drawn, then the calls' events
are interleaved. Each call's type and fault are drawn by Hypothesis, its
details from a seed of its own (choices.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from hypothesis import strategies as st

from .choices import Choices, Drawn
from .drawing import interleave
from .outcomes import handed_over
from .streams import cut
from .texts import argument_object, dumps, text
from .vocabulary import RESPONSE_STATED, Outcome


@dataclass(frozen=True)
class CatalogueStream:
    """A response of catalogue calls, and per event (or "close") the outcomes a router must
    produce, each with the fields a vector would state."""

    events: tuple[dict[str, Any], ...]
    expected: tuple[tuple[int | str, Outcome], ...]
    faults: tuple[CallFault, ...] = ()  # what the producer did to each call, in order

    @property
    def handed_over(self) -> tuple[tuple[int | str, Outcome], ...]:
        """The outcomes under `tool_call_point: response_done`, where the harness compares them: a
        response that did not complete hands over each call as `tool.error` `incomplete`
        (CORE-POINT-2); it completes only when every call was done."""
        completed = self.expected[-1][1]["status"] == "completed"
        return tuple((at, handed_over(outcome, completed)) for at, outcome in self.expected)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool registry of its calls' types (a vector's `tools`): a built-in tool is named by its
        type, an approval request's by the MCP tool's name."""
        types = {item_type: tool_type for tool_type, item_type in CATALOGUE_ITEMS.items()}
        tools: list[dict[str, Any]] = []
        for item in (e["item"] for e in self.events if e["type"] == "response.output_item.added"):
            tool = {"type": types[item["type"]], **({"name": item["name"]} if "name" in item else {})}
            tools += [] if tool in tools else [tool]
        return tools


CATALOGUE_ITEMS = {
    "apply_patch": "apply_patch_call",
    "shell": "shell_call",
    "local_shell": "local_shell_call",
    "computer": "computer_call",
    "tool_search": "tool_search_call",
    "mcp_approval": "mcp_approval_request",
}
CATALOGUE_CALL_TYPES = tuple(CATALOGUE_ITEMS)


class CallFault(Enum):
    """What a producer does to a catalogue call (CORE-CALLTYPE-1 .. -9)."""

    NONE = "none"
    INCOMPLETE = "incomplete"  # its done item's status
    FAILED = "failed"  # ... likewise
    BAD_SHAPE = "bad_shape"  # its input of the wrong shape
    NO_INPUT = "no_input"  # its done item lacks its input field
    OPEN = "open"  # never done
    DUPLICATE_DONE = "duplicate_done"
    LATE_PREVIEW = "late_preview"  # a preview delta after its done item
    PREVIEW_DONE_AGAIN = "preview_done_again"  # a preview's `.done` once more, after the done item
    UNNAMED = "unnamed"  # no call id (an approval request: no name)
    PREVIEW_DISAGREES = "preview_disagrees"  # previews that state other text than the done item


_FAULTS = (CallFault.NONE,) * 3 + tuple(CallFault)[1:]
# An input of the wrong shape for each type (CORE-CALLTYPE-7), and the input field it replaces.
_BAD_SHAPES: dict[str, tuple[str, Any]] = {
    "apply_patch": ("operation", {"type": "update_file", "path": 5, "diff": ""}),
    "shell": ("action", {"commands": "ls"}),
    "local_shell": ("action", {"type": "run", "command": ["ls"]}),
    "computer": ("actions", [5]),
    "tool_search": ("arguments", []),
    "mcp_approval": ("arguments", "{"),
}
_Planned = tuple[dict[str, Any], list[Outcome]]  # an event, and the outcomes it causes


def _pieces(c: Choices, said: str) -> tuple[str, ...]:
    """`said` cut anywhere into one to four pieces."""
    return cut(c, said, c.integer(1, 4))


def _texts(c: Choices) -> list[str]:
    return [text(c) for _ in range(c.integer(1, 3))]


def _input(c: Choices, tool_type: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The done item's input fields, and the tool.call fields they give (CORE-CALLTYPE-2)."""
    if tool_type == "apply_patch":
        kind = c.pick(["create_file", "update_file", "delete_file"])
        operation = {"type": kind, "path": c.pick(["a.py", "docs/b.md"])}
        if kind != "delete_file":
            operation["diff"] = text(c)
        return {"operation": operation}, {"operation": operation}
    if tool_type == "shell":
        action = {"commands": _texts(c), "timeout_ms": 1000}
        return {"action": action}, {"action": action}
    if tool_type == "local_shell":
        action = {"type": "exec", "command": _texts(c), "env": {}}
        return {"action": action}, {"action": action}
    if tool_type == "computer":
        actions = [{"type": "click", "button": "left", "x": 1, "y": 2}, {"type": "type", "text": text(c)}]
        if c.chance(2):  # the preview tool's one action
            return {"action": actions[0], "pending_safety_checks": []}, {"actions": actions[:1]}
        return {"actions": actions}, {"actions": actions}
    arguments = argument_object(c)
    if tool_type == "tool_search":
        return {"arguments": arguments}, {"arguments": arguments}
    written = dumps(c, arguments)  # mcp_approval: JSON text, parsed as a function's (CORE-CALLTYPE-5)
    return {"arguments": written, "server_label": "srv"}, {"arguments": arguments, "server_label": "srv"}


def _previews(c: Choices, item: dict[str, Any], output_index: int, disagree: bool) -> list[_Planned]:
    """The preview events of an apply_patch or shell call, as tool.arguments.delta (CORE-CALLTYPE-6);
    `disagree`: they preview another text than the done item states, and their `.done` may state
    another than their deltas, which changes nothing: previews are never compared."""
    planned: list[_Planned] = []
    item_id = item["id"]
    other = "\n+previewed only" if disagree else ""
    done_other = " (done)" if disagree and c.coin() else ""
    if item["type"] == "apply_patch_call" and "diff" in item["operation"]:
        address = {"item_id": item_id, "output_index": output_index}
        previewed = item["operation"]["diff"] + other
        for piece in _pieces(c, previewed):
            event = {"type": "response.apply_patch_call_operation_diff.delta", **address, "delta": piece}
            planned.append((event, [{"kind": "tool.arguments.delta", "item_id": item_id, "delta": piece}]))
        done = {"type": "response.apply_patch_call_operation_diff.done", **address}
        planned.append(({**done, "diff": previewed + done_other}, []))
    if item["type"] == "shell_call":
        for index, stated in enumerate(item["action"]["commands"]):
            command = stated + other
            first, *rest = _pieces(c, command)
            address = {"output_index": output_index, "command_index": index}  # no item_id (CORE-ITEM-2)
            shown = {"kind": "tool.arguments.delta", "item_id": item_id, "command_index": index}
            added = {"type": "response.shell_call_command.added", **address, "command": first}
            planned.append((added, [{**shown, "delta": first}]))
            for piece in rest:
                delta = {"type": "response.shell_call_command.delta", **address, "delta": piece}
                planned.append((delta, [{**shown, "delta": piece}]))
            done = {"type": "response.shell_call_command.done", **address, "command": command + done_other}
            planned.append((done, []))
    return planned


def _catalogue_call(
    c: Choices, tool_type: str, fault: CallFault, position: int
) -> tuple[list[_Planned], Outcome | None]:
    """One catalogue call's events and their outcomes, and the outcome owed if it never completes."""
    item_type = CATALOGUE_ITEMS[tool_type]
    item_id, call_id = f"cat_{position}", f"call_cat_{position}"
    item: dict[str, Any] = {"id": item_id, "type": item_type, "status": "in_progress"}
    hosted = tool_type in ("shell", "tool_search") and c.chance(3)  # CORE-CALLTYPE-4
    if tool_type == "shell":
        container = {"type": "container_reference", "container_id": "cntr"}
        item["environment"] = container if hosted else {"type": "local"}
    if tool_type == "tool_search":
        item["execution"] = "server" if hosted else "client"
    unnamed = fault is CallFault.UNNAMED  # CORE-CALLTYPE-10
    if tool_type == "mcp_approval":
        item.update({} if unnamed else {"name": "deploy"})
    elif not unnamed:
        item["call_id"] = call_id
    stated, fields = _input(c, tool_type)
    done = {**item, **stated, "status": "completed"}
    owner = item_id if tool_type == "mcp_approval" else call_id
    named = {} if unnamed and tool_type != "mcp_approval" else {"call_id": owner}  # a call id when known
    refused: Outcome = {"kind": "tool.error", "item_id": item_id, **named, "code": "incomplete"}
    outcome: Outcome = {"kind": "tool.call", "item_id": item_id, "call_id": owner, "tool_type": tool_type}
    outcome |= {"name": item.get("name", tool_type), **fields}
    if fault in (CallFault.INCOMPLETE, CallFault.FAILED):  # CORE-CALLTYPE-3
        done["status"] = fault.value
        outcome = refused
    elif fault in (CallFault.NO_INPUT, CallFault.UNNAMED):  # CORE-CALLTYPE-10
        missing = [name for name in stated if name != "pending_safety_checks"]
        if tool_type == "mcp_approval" and c.coin():  # its arguments, or its server, alone
            missing = [c.pick(missing)]
        for name in missing if fault is CallFault.NO_INPUT else ():
            done.pop(name)
        outcome = refused
    elif fault is CallFault.BAD_SHAPE and "pending_safety_checks" in stated:  # CORE-CALLTYPE-7
        done["pending_safety_checks"] = "none"  # not an array: the checks cannot be read
        outcome = {**refused, "code": "invalid_arguments"}
    elif fault is CallFault.BAD_SHAPE:  # CORE-CALLTYPE-7
        name, value = _BAD_SHAPES[tool_type]
        done = {key: value for key, value in done.items() if key not in ("action", "actions")} | {name: value}
        outcome = {**refused, "code": "invalid_json" if tool_type == "mcp_approval" else "invalid_arguments"}
    added = {"type": "response.output_item.added", "output_index": position, "item": item}
    planned: list[_Planned] = [(added, [])]
    planned += _previews(c, {**item, **stated}, position, fault is CallFault.PREVIEW_DISAGREES)
    if fault is CallFault.OPEN:
        return planned, None if hosted else refused
    said = [] if hosted else [outcome]
    planned.append(({"type": "response.output_item.done", "output_index": position, "item": done}, said))
    if fault is CallFault.DUPLICATE_DONE:  # CORE-ITEM-14
        again = {"type": "response.output_item.done", "output_index": position, "item": done}
        planned.append((again, [{"kind": "error", "code": "duplicate_event"}]))
    late = [event for event, said in planned if said and said[0]["kind"] == "tool.arguments.delta"]
    if fault is CallFault.LATE_PREVIEW and late:  # CORE-CALLTYPE-8
        planned.append(({**late[0]}, [{"kind": "error", "code": "late_delta"}]))
    previewed = [event for event, _ in planned if event["type"] in _PREVIEW_DONES]
    if fault is CallFault.PREVIEW_DONE_AGAIN and previewed:  # CORE-CALLTYPE-9
        planned.append(({**c.pick(previewed)}, [{"kind": "error", "code": "duplicate_event"}]))
    return planned, None


_PREVIEW_DONES = ("response.apply_patch_call_operation_diff.done", "response.shell_call_command.done")


def catalogue_stream(c: Choices, max_calls: int, call_types: Sequence[str]) -> CatalogueStream:
    """A response of catalogue calls of `call_types`, interleaved, with the outcomes each event must
    produce."""
    count = c.integer(1, max_calls)
    calls, faults = [], []
    for position in range(count):
        details, tool_type, fault = c.seeded(), c.pick(call_types), c.pick(_FAULTS)
        calls.append(_catalogue_call(details, tool_type, fault, position))
        faults.append(fault)
    body = interleave(c, [planned for planned, _ in calls], 3)
    owed = [refused for _, refused in calls if refused is not None]  # CORE-CALL-6, in announcement order
    response = {"id": "resp_cat", **RESPONSE_STATED, "status": "in_progress", "output": []}
    done = [any(event["type"] == "response.output_item.done" for event, _ in planned) for planned, _ in calls]
    ended = "completed" if all(done) else "incomplete"  # as a producer ends a response it cut off
    terminal = {"type": f"response.{ended}", "response": {**response, "status": ended}}
    lifecycle = {"kind": "lifecycle", "response_id": response["id"]}  # CORE-LIFE-1
    planned = [
        ({"type": "response.created", "response": response}, [{**lifecycle, "event": "created"}]),
        *body,
        (terminal, [{**lifecycle, "event": ended}, *owed]),
    ]
    events = tuple({**event, "sequence_number": index} for index, (event, _) in enumerate(planned))
    expected = [(index, outcome) for index, (_, outcomes) in enumerate(planned) for outcome in outcomes]
    return CatalogueStream(events, (*expected, ("close", {"kind": "end", "status": ended})), tuple(faults))


@st.composite
def catalogue_streams(
    draw: st.DrawFn, max_calls: int = 4, call_types: Sequence[str] = CATALOGUE_CALL_TYPES
) -> CatalogueStream:
    """A response of catalogue calls of `call_types` (spec/core.md section 5.1), interleaved, with the
    outcomes each event must produce."""
    return catalogue_stream(Drawn(draw), max_calls, call_types)
