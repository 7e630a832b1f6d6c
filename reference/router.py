"""The reference router of the streamroute `core` profile.

Theory of operation
-------------------
The router is sans-IO: `feed(event)` takes one decoded event and returns the
outcomes it causes; `close()` ends the stream and returns the last ones. No
sockets, threads or clocks, so every behaviour is a pure function of the
events, which is what makes the vectors exact.

All state that affects routing lives in this module:

* the stream: OPEN until the first terminal event, then TERMINAL with an end
  status; `close()` makes it CLOSED. After TERMINAL, every event is refused.
* one `Item` per announced output item, keyed by item id. An item is OPEN
  until its `response.output_item.done`, then DONE. Within it:
  - each text content part is a `Part`: deltas appended, then DONE at its
    `.done` event or when the item is done;
  - a call item has one `Part` for its arguments (function) or input
    (custom). Its `complete` text is fixed by the first complete source
    (the arguments `.done` event, else the done item) and never changes.
  - a call item is *resolved* once it has produced its `tool.call` or
    `tool.error`, which happens exactly once: at the item's done event (the
    canonical point), at its arguments `.done` (option `arguments_done`), or
    when the stream ends with the call still open.

Each event type maps to one handler in `_ROUTES`. A handler first reads and
checks every field it needs (raising `Violation`, which becomes one `error`
outcome and leaves the state untouched), then changes state and returns
outcomes. Requirement ids in comments refer to spec/core.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .fields import (
    JSONObject,
    Violation,
    optional_index,
    optional_object,
    optional_str,
    required_object,
    required_str,
)

Outcome = dict[str, Any]
ToolCallPoint = Literal["output_item_done", "arguments_done"]

CALL_TYPES = {"function_call": "function", "custom_tool_call": "custom"}
# The field that carries a call's complete text, in its `.done` event and item.
COMPLETE_FIELD = {"function_call": "arguments", "custom_tool_call": "input"}
TERMINAL_EVENTS = {"response.completed", "response.failed", "response.incomplete"}

UNROUTED = frozenset(
    {
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.annotation.added",
        "response.refusal.done",
        "response.reasoning_text.done",
        "response.reasoning.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.done",
        "response.mcp_call_arguments.delta",
        "response.mcp_call_arguments.done",
        "response.code_interpreter_call_code.delta",
        "response.code_interpreter_call_code.done",
        "response.file_search_call.in_progress",
        "response.file_search_call.searching",
        "response.file_search_call.completed",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.code_interpreter_call.in_progress",
        "response.code_interpreter_call.interpreting",
        "response.code_interpreter_call.completed",
        "response.image_generation_call.in_progress",
        "response.image_generation_call.generating",
        "response.image_generation_call.completed",
        "response.image_generation_call.partial_image",
        "response.mcp_call.in_progress",
        "response.mcp_call.completed",
        "response.mcp_call.failed",
        "response.mcp_list_tools.in_progress",
        "response.mcp_list_tools.completed",
        "response.mcp_list_tools.failed",
        "response.audio.delta",
        "response.audio.done",
        "response.audio.transcript.delta",
        "response.audio.transcript.done",
    }
)


@dataclass(slots=True)
class Part:
    """A stream of text: deltas until done, then its complete text."""

    deltas: list[str] = field(default_factory=list)
    done: bool = False
    complete: str | None = None

    def check(self, complete: str, what: str) -> list[Outcome]:
        """Compare a complete source with the deltas received (CORE-ARGS-6, CORE-TEXT-2)."""
        if not self.deltas:
            return []
        joined = "".join(self.deltas)
        if joined == complete:
            return []
        return [_error("done_mismatch", f"{what} {complete!r} disagrees with its deltas {joined!r}")]


@dataclass(slots=True)
class Item:
    id: str
    type: str
    output_index: int
    call_id: str | None = None
    name: str | None = None
    namespace: str | None = None
    done: bool = False
    resolved: bool = False
    parts: dict[int, Part] = field(default_factory=dict)
    arguments: Part = field(default_factory=Part)

    def part(self, content_index: int) -> Part:
        part = self.parts.get(content_index)
        if part is None:
            part = self.parts[content_index] = Part()
        return part


def _error(code: str | None, message: str) -> Outcome:
    return {"kind": "error", "code": code, "message": message}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_arguments(text: str) -> tuple[JSONObject | None, str, str]:
    """Parse function arguments strictly (CORE-CALL-3): (value, code, message)."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        return None, "invalid_json", f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return (
            None,
            "invalid_arguments",
            f"arguments must be a JSON object, got {type(value).__name__}",
        )
    return value, "", ""


class Router:
    """Routes one response stream. See the module docstring."""

    def __init__(self, *, tool_call_point: ToolCallPoint = "output_item_done") -> None:
        self._call_at_arguments_done = tool_call_point == "arguments_done"
        self._events_seen = 0
        self._items: dict[str, Item] = {}
        self._item_at_output_index: dict[int, Item] = {}
        self._called_ids: set[str] = set()
        self._end_status: str | None = None  # set by the first terminal event
        self._error_seen = False
        self._closed = False

    # -- the two entry points ------------------------------------------------

    def feed(self, event: object) -> list[Outcome]:
        index = self._events_seen
        self._events_seen += 1
        try:
            if not isinstance(event, dict):
                raise Violation("malformed_event", f"an event must be an object, got {type(event).__name__}")
            event_type = required_str(event, "type")
            if self._end_status is not None:  # CORE-LIFE-4
                raise Violation("event_after_terminal", f"{event_type} after the terminal event")
            return _ROUTES.get(event_type, Router._unrouted)(self, event)
        except Violation as violation:
            return [_error(violation.code, f"event {index}: {violation.message}")]

    def close(self) -> list[Outcome]:
        if self._closed:
            return []
        self._closed = True
        outcomes = self._fail_open_calls()  # CORE-CALL-6
        status = self._end_status or ("failed" if self._error_seen else "truncated")
        outcomes.append({"kind": "end", "status": status})  # CORE-LIFE-5
        return outcomes

    # -- lifecycle and errors ------------------------------------------------

    def _unrouted(self, event: JSONObject) -> list[Outcome]:
        """Unknown, vendor-prefixed and deliberately unrouted types (CORE-EVT-3, -4, -5)."""
        return [{"kind": "ignored", "type": event["type"]}]

    def _lifecycle(self, event: JSONObject) -> list[Outcome]:
        event_type: str = event["type"]
        response = optional_object(event, "response") or {}
        response_id = optional_str(response, "id", "response.")
        outcomes: list[Outcome] = [
            {
                "kind": "lifecycle",
                "event": event_type.removeprefix("response."),
                "response_id": response_id,
            }
        ]
        if event_type not in TERMINAL_EVENTS:
            return outcomes
        status = event_type.removeprefix("response.")
        if optional_str(response, "status", "response.") == "cancelled":
            status = "cancelled"
        if event_type == "response.failed":  # CORE-LIFE-3
            error = optional_object(response, "error") or {}
            outcomes.append(
                _error(
                    optional_str(error, "code", "response.error."),
                    optional_str(error, "message", "response.error.") or "the response failed",
                )
            )
        self._end_status = status  # CORE-LIFE-2
        return outcomes + self._fail_open_calls()

    def _error_event(self, event: JSONObject) -> list[Outcome]:
        nested = optional_object(event, "error")  # Open Responses nests it
        source, where = (nested, "error.") if nested is not None else (event, "")
        message = required_str(source, "message", where)
        code = optional_str(source, "code", where)
        self._error_seen = True
        return [_error(code, message)]  # CORE-ERR-1

    # -- items ---------------------------------------------------------------

    def _announce(self, item: JSONObject, event: JSONObject) -> Item:
        """Read an item's identity; the caller registers it (CORE-ITEM-1)."""
        item_id = required_str(item, "id", "item.")
        item_type = required_str(item, "type", "item.")
        output_index = optional_index(event, "output_index")
        if output_index is None:
            output_index = len(self._items)
        return Item(
            id=item_id,
            type=item_type,
            output_index=output_index,
            call_id=optional_str(item, "call_id", "item."),
            name=optional_str(item, "name", "item."),
            namespace=optional_str(item, "namespace", "item."),
        )

    def _register(self, item: Item) -> None:
        self._items[item.id] = item
        self._item_at_output_index[item.output_index] = item

    def _item_added(self, event: JSONObject) -> list[Outcome]:
        item = self._announce(required_object(event, "item"), event)
        if item.id in self._items:  # CORE-ITEM-5
            raise Violation("duplicate_event", f"item {item.id!r} was already announced")
        self._register(item)
        return []

    def _item_done(self, event: JSONObject) -> list[Outcome]:
        done = required_object(event, "item")
        stated = self._announce(done, event)
        complete_field = COMPLETE_FIELD.get(stated.type)
        complete = optional_str(done, complete_field, "item.") if complete_field else None
        item = self._items.get(stated.id)
        if item is None:  # CORE-ITEM-6
            self._register(item := stated)
        elif item.type != stated.type:  # CORE-ITEM-4
            raise Violation(
                "item_type_mismatch",
                f"item {item.id!r} was announced as {item.type}, done as {stated.type}",
            )
        elif item.done:  # CORE-CALL-1
            raise Violation("duplicate_event", f"item {item.id!r} is already done")
        item.done = True
        if item.type not in CALL_TYPES:
            return []
        outcomes: list[Outcome] = []
        for name in ("call_id", "name", "namespace"):  # CORE-CALL-4
            first, again = getattr(item, name), getattr(stated, name)
            if first is None:
                setattr(item, name, again)
            elif again is not None and again != first:
                outcomes.append(_error("done_mismatch", f"done item states {name} {again!r}, not {first!r}"))
        if complete is not None:
            outcomes += self._complete_arguments(item, complete, "the done item's " + str(complete_field))
        item.arguments.done = True
        if done.get("status") == "incomplete":  # CORE-CALL-5
            return outcomes + self._resolve_as_error(item, "incomplete", "the call item is incomplete")
        return outcomes + self._resolve(item)  # CORE-CALL-2

    def _find_item(self, event: JSONObject, item_types: tuple[str, ...]) -> Item:
        """The item an item event belongs to (CORE-ITEM-2, -3, -4)."""
        item_id = optional_str(event, "item_id")
        output_index = optional_index(event, "output_index")
        if item_id is not None:
            item = self._items.get(item_id)
            if item is None:
                raise Violation("unknown_item", f"item {item_id!r} was never announced")
        elif output_index is not None:
            found = self._item_at_output_index.get(output_index)
            if found is None:
                raise Violation("unknown_item", f"no item was announced at output_index {output_index}")
            item = found
        else:
            raise Violation("malformed_event", "the event has neither item_id nor output_index")
        if item.type not in item_types:
            raise Violation(
                "item_type_mismatch",
                f"{event['type']} does not apply to {item.type} item {item.id!r}",
            )
        return item

    # -- channels ------------------------------------------------------------

    def _text_delta(self, event: JSONObject) -> list[Outcome]:
        item = self._find_item(event, ("message",))
        content_index = optional_index(event, "content_index") or 0  # CORE-ITEM-7
        output_index = optional_index(event, "output_index")
        delta = required_str(event, "delta")
        part = item.part(content_index)
        if part.done or item.done:  # CORE-TEXT-6
            raise Violation("late_delta", f"text delta after part {content_index} of {item.id!r} was done")
        part.deltas.append(delta)
        return [
            {
                "kind": "text.delta",
                "item_id": item.id,
                "output_index": item.output_index if output_index is None else output_index,
                "content_index": content_index,
                "delta": delta,
            }
        ]  # CORE-TEXT-1

    def _text_done(self, event: JSONObject) -> list[Outcome]:
        item = self._find_item(event, ("message",))
        content_index = optional_index(event, "content_index") or 0
        text = required_str(event, "text")
        part = item.part(content_index)
        if part.done or item.done:  # CORE-TEXT-7
            raise Violation("duplicate_event", f"part {content_index} of {item.id!r} is already done")
        part.done = True
        outcomes = part.check(text, "output_text.done text")  # CORE-TEXT-2
        outcomes.append(
            {"kind": "text.done", "item_id": item.id, "content_index": content_index, "text": text}
        )
        return outcomes

    def _refusal_delta(self, event: JSONObject) -> list[Outcome]:
        item = self._find_item(event, ("message",))
        content_index = optional_index(event, "content_index") or 0
        delta = required_str(event, "delta")
        if item.done:  # CORE-TEXT-6
            raise Violation("late_delta", f"refusal delta after item {item.id!r} was done")
        return [
            {
                "kind": "refusal.delta",
                "item_id": item.id,
                "content_index": content_index,
                "delta": delta,
            }
        ]

    def _reasoning_delta(self, event: JSONObject) -> list[Outcome]:
        item = self._find_item(event, ("reasoning",))
        index_field = "summary_index" if "summary" in event["type"] else "content_index"
        index = optional_index(event, index_field) or 0
        delta = required_str(event, "delta")
        if item.done:  # CORE-TEXT-6
            raise Violation("late_delta", f"reasoning delta after item {item.id!r} was done")
        return [
            {"kind": "reasoning.delta", "item_id": item.id, index_field: index, "delta": delta}
        ]  # CORE-TEXT-5

    # -- arguments and calls -------------------------------------------------

    def _arguments_delta(self, event: JSONObject) -> list[Outcome]:
        item = self._find_item(event, _CALL_ITEM_OF[event["type"]])
        delta = required_str(event, "delta")
        if item.arguments.done:  # CORE-ARGS-4
            raise Violation("late_delta", f"delta after the arguments of {item.id!r} were complete")
        item.arguments.deltas.append(delta)  # CORE-ARGS-1, CORE-ARGS-2, CORE-ARGS-3
        return [{"kind": "tool.arguments.delta", "item_id": item.id, "delta": delta}]

    def _arguments_done(self, event: JSONObject) -> list[Outcome]:
        item = self._find_item(event, _CALL_ITEM_OF[event["type"]])
        complete_field = COMPLETE_FIELD[item.type]
        complete = required_str(event, complete_field)
        if item.arguments.done:  # CORE-ARGS-7
            raise Violation("duplicate_event", f"the arguments of {item.id!r} are already complete")
        item.arguments.done = True
        outcomes = self._complete_arguments(item, complete, f"{event['type']} {complete_field}")
        if self._call_at_arguments_done and item.call_id is not None and item.name is not None:  # CORE-CALL-8
            outcomes += self._resolve(item)
        return outcomes

    def _complete_arguments(self, item: Item, complete: str, what: str) -> list[Outcome]:
        """Take one complete source of a call's text (CORE-ARGS-5, CORE-ARGS-6)."""
        arguments = item.arguments
        if arguments.complete is None:
            arguments.complete = complete
            return arguments.check(complete, what)
        if complete != arguments.complete:
            return [_error("done_mismatch", f"{what} {complete!r} disagrees with {arguments.complete!r}")]
        return []

    def _resolve(self, item: Item) -> list[Outcome]:
        """Produce the call's one tool.call or tool.error (CORE-CALL-1)."""
        if item.resolved:
            return []
        complete = item.arguments.complete
        if item.call_id is None or item.name is None or complete is None:  # CORE-CALL-5
            stated = {"call_id": item.call_id, "name": item.name, "arguments": complete}
            missing = ", ".join(name for name, value in stated.items() if value is None)
            return self._resolve_as_error(item, "incomplete", f"the call has no {missing}")
        if item.call_id in self._called_ids:  # CORE-CALL-7
            return self._resolve_as_error(
                item, "duplicate_call_id", f"call id {item.call_id!r} was already called"
            )
        call: Outcome = {
            "kind": "tool.call",
            "item_id": item.id,
            "call_id": item.call_id,
            "name": item.name,
            "tool_type": CALL_TYPES[item.type],
        }
        if item.type == "function_call":
            arguments, code, message = _parse_arguments(complete)  # CORE-CALL-3
            if arguments is None:
                return self._resolve_as_error(item, code, message)
            call["arguments"] = arguments
        else:
            call["input"] = complete
        if item.namespace is not None:
            call["namespace"] = item.namespace
        item.resolved = True
        self._called_ids.add(item.call_id)
        return [call]

    def _resolve_as_error(self, item: Item, code: str, message: str) -> list[Outcome]:
        if item.resolved:
            return []
        item.resolved = True
        outcome: Outcome = {
            "kind": "tool.error",
            "item_id": item.id,
            "code": code,
            "message": message,
        }
        if item.call_id is not None:
            outcome["call_id"] = item.call_id
        return [outcome]

    def _fail_open_calls(self) -> list[Outcome]:
        """CORE-CALL-6: calls still open when the response ends will never come."""
        outcomes: list[Outcome] = []
        for item in self._items.values():
            if item.type in CALL_TYPES:
                outcomes += self._resolve_as_error(
                    item, "incomplete", "the response ended before the call completed"
                )
        return outcomes


_CALL_ITEM_OF = {
    "response.function_call_arguments.delta": ("function_call",),
    "response.function_call_arguments.done": ("function_call",),
    "response.custom_tool_call_input.delta": ("custom_tool_call",),
    "response.custom_tool_call_input.done": ("custom_tool_call",),
}

_ROUTES: dict[str, Callable[[Router, JSONObject], list[Outcome]]] = {
    "response.created": Router._lifecycle,
    "response.queued": Router._lifecycle,
    "response.in_progress": Router._lifecycle,
    "response.completed": Router._lifecycle,
    "response.failed": Router._lifecycle,
    "response.incomplete": Router._lifecycle,
    "error": Router._error_event,
    "response.output_item.added": Router._item_added,
    "response.output_item.done": Router._item_done,
    "response.output_text.delta": Router._text_delta,
    "response.output_text.done": Router._text_done,
    "response.refusal.delta": Router._refusal_delta,
    "response.reasoning_text.delta": Router._reasoning_delta,
    "response.reasoning.delta": Router._reasoning_delta,
    "response.reasoning_summary_text.delta": Router._reasoning_delta,
    "response.function_call_arguments.delta": Router._arguments_delta,
    "response.function_call_arguments.done": Router._arguments_done,
    "response.custom_tool_call_input.delta": Router._arguments_delta,
    "response.custom_tool_call_input.done": Router._arguments_done,
}
_ROUTES.update(dict.fromkeys(UNROUTED, Router._unrouted))

# Every event type the routing table of spec/core.md names; any other is unknown.
EVENT_TYPES = frozenset(_ROUTES)
