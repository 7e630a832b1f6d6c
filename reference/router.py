"""The reference router of the streamroute `core` and `custom-tools` profiles.

Theory of operation
-------------------
The router is sans-IO: `feed(event)` takes one decoded event and returns the
outcomes it causes; `close()` ends the stream and returns the last ones. No
sockets, threads or clocks, so every behaviour is a pure function of the
events, which is what makes the vectors exact.

All state that affects routing lives in this module:

* the stream: OPEN until the first terminal event, then TERMINAL with an end
  status; `close()` makes it CLOSED. After TERMINAL, every event is refused;
  after CLOSED, every event is ignored without an outcome.
* one `Item` per announced output item, keyed by item id. An item is OPEN
  until its `response.output_item.done`, then DONE. Within it:
  - each text content part is a `Part`: deltas appended, then DONE at its
    `.done` event or when the item is done. Its deltas are buffered up to
    `MAX_BUFFERED_BYTES`; past it the buffer is dropped for good (`dropped`)
    and the part is no longer compared (CORE-LIMIT-3);
  - a call item has one `Part` for its arguments (function) or input
    (custom). Its `complete` text is the arguments `.done` event's, then the
    done item's when it states one (CORE-ARGS-5). Its deltas are buffered up
    to `MAX_BUFFERED_BYTES`; the delta that would pass it resolves the call
    as `tool.error` `too_large` and drops the buffer (CORE-LIMIT-1).
  - a call item is *resolved* once it has produced its `tool.call` or
    `tool.error`, which happens exactly once: at the item's done event (the
    canonical point), at its arguments `.done` (option `arguments_done`), or
    when the stream ends with the call still open. A call *called* at its
    arguments `.done` is then confirmed by its done item, or retracted
    (`error` `call_retracted`, CORE-CALL-12, -13, -14).
* a catalogue call (`apply_patch_call`, `shell_call`, `local_shell_call`,
  `computer_call`, `tool_search_call`, `mcp_approval_request`: spec/core.md
  section 5.1) is an `Item` too, resolved once at its done item from that
  item's fields alone; its streamed previews (operation diff, shell commands)
  are passed on and never kept, each preview index a `Part` that is only ever
  marked done. A shell call outside a local environment, or a tool search the
  server executes, is *hosted*: it never produces a call, open or done.
* the consumer slot of the custom-tools profile (spec/custom-tools.md): EMPTY,
  or ACTIVE with one diff consumer bound to one custom call (its item and its
  call id). Its transitions, all in this module:

    event                                        slot after
    ------------------------------------------   -----------------------------
    output_item.added, custom_tool_call          ACTIVE(new consumer of its
                                                 tool), or EMPTY if the tool
                                                 has none or the item no
                                                 call id (CUSTOM-SLOT-2, -5)
    output_item.added, function_call             EMPTY (CUSTOM-SLOT-3)
    output_item.added, other item; refused       unchanged (CUSTOM-SLOT-4)
    custom input delta routed for the bound      unchanged: consume(); EMPTY
      call, no differing call_id                 if it raised (CUSTOM-FAIL-1)
    any other delta or item done                 unchanged (CUSTOM-DELTA-2,
                                                 CUSTOM-FIN-2)
    the bound call resolves as tool.call         EMPTY after finish(), which
                                                 may reject (CUSTOM-FIN-1, -3)
    the bound call resolves as tool.error        EMPTY, unfinished (FIN-4)
    terminal event, close()                      EMPTY, unfinished (END-1)

  A consumer only ever adds `diff.*` outcomes (or `consumer_failed` and
  `consumer_rejected`); the call it watches is built from the complete
  input, as core says (CUSTOM-EXEC-1). Consumers read the stream time, the
  last `at_ms` seen (CUSTOM-TIME-1), never a clock.

Each event type maps to one handler in `_ROUTES`. A handler first reads and
checks every field it needs (raising `Violation`, which becomes one `error`
outcome and leaves the state untouched), then looks up the event's item
(CORE-EVT-8), then changes state and returns outcomes. The handlers of
deltas, which are nearly every event of a stream, take the common case in
place (a field of the expected type, an item found by its id) and leave
anything else to the accessors of fields.py and the general lookup, which
decide it and name what is wrong. Requirement ids in comments refer to
spec/core.md and spec/custom-tools.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .consumers import ConsumerRegistry, DiffConsumer, Finished, Payload
from .fields import (
    JSONObject,
    Violation,
    loads_arguments,
    optional_index,
    optional_object,
    optional_str,
    required_object,
    required_str,
)

Outcome = dict[str, Any]
ToolCallPoint = Literal["output_item_done", "arguments_done"]
CallArguments = Literal["parsed", "json_text"]
ErrorEvent = Literal["routed", "ends_stream"]
ItemCorrelation = Literal["item_id", "output_index"]

CALL_TYPES = {"function_call": "function", "custom_tool_call": "custom"}
# The call catalogue's other client calls (spec/core.md section 5.1): item type -> the
# tool_type of its tool.call. Their input is the done item's alone (CORE-CALLTYPE-2).
CATALOGUE_CALL_TYPES = {
    "apply_patch_call": "apply_patch",
    "shell_call": "shell",
    "local_shell_call": "local_shell",
    "computer_call": "computer",
    "tool_search_call": "tool_search",
    "mcp_approval_request": "mcp_approval",
}
# The streamed previews of catalogue calls (CORE-CALLTYPE-6): event type -> (item type,
# the field of its text, the field of its index, or None for the item's one preview).
PREVIEW_EVENTS = {
    "response.apply_patch_call_operation_diff.delta": ("apply_patch_call", "delta", None),
    "response.apply_patch_call_operation_diff.done": ("apply_patch_call", "diff", None),
    "response.shell_call_command.added": ("shell_call", "command", "command_index"),
    "response.shell_call_command.delta": ("shell_call", "delta", "command_index"),
    "response.shell_call_command.done": ("shell_call", "command", "command_index"),
}
# The field that carries a call's complete text, in its `.done` event and item.
COMPLETE_FIELD = {"function_call": "arguments", "custom_tool_call": "input"}
TERMINAL_EVENTS = {"response.completed", "response.failed", "response.incomplete"}
# CORE-LIMIT-1: the most a router buffers of one call's deltas, in UTF-8 bytes.
MAX_BUFFERED_BYTES = 1 << 20
# CORE-LIMIT-2: the deepest nesting of arrays and objects in a call's arguments.
MAX_ARGUMENTS_DEPTH = 128

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
        "response.shell_call_output_content.delta",
        "response.shell_call_output_content.done",
    }
)


def _measured(text: str) -> tuple[str, int]:
    """`text` as a router compares it (CORE-TEXT-2, CORE-ARGS-6), and its size in UTF-8
    bytes (CORE-LIMIT-1, -4): each unpaired surrogate becomes U+FFFD and a surrogate pair
    the one character it encodes, as Go's JSON decoder makes them (CORE-TEXT-8)."""
    try:
        return text, len(text.encode("utf-8"))
    except UnicodeEncodeError:  # surrogates, which only a str from outside JSON keeps paired
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        return text, len(text.encode("utf-8"))


def _comparable(text: str) -> str:
    return text if text.isascii() else _measured(text)[0]


def _same_text(one: str, other: str) -> bool:
    return one == other or _comparable(one) == _comparable(other)


# A Part keeps its deltas joined in runs of this many: a list of many small
# strings costs several times their size, one string per run barely more.
_RUN = 64


@dataclass(slots=True)
class Part:
    """A stream of text: deltas until done, then its complete text.

    The deltas are kept only to be compared, once, with the first complete
    source (CORE-ARGS-6, CORE-TEXT-2), so they are never joined into one
    string: `runs` holds them joined `_RUN` at a time, `recent` the last few,
    and the comparison walks the runs. Then they are dropped: a later delta
    is refused (CORE-ARGS-4, CORE-TEXT-6). Each is kept as `_measured` makes
    it, so the comparison is of per-delta decoded text (CORE-TEXT-2).
    """

    runs: list[str] = field(default_factory=list)
    recent: list[str] = field(default_factory=list)
    received: bool = False  # a delta is buffered, if only an empty one
    done: bool = False
    complete: str | None = None
    size: int = 0  # UTF-8 bytes of the deltas buffered so far (CORE-LIMIT-1, -3)
    dropped: bool = False  # the deltas passed the limit: nothing is buffered any more

    def append(self, delta: str) -> bool:
        """Buffer a delta; False when it takes the buffer past `MAX_BUFFERED_BYTES`, which
        drops the buffer for good (CORE-LIMIT-1, -3)."""
        if delta.isascii():
            self.size += len(delta)
        else:
            delta, size = _measured(delta)
            self.size += size
        if self.size > MAX_BUFFERED_BYTES:
            self.clear()
            self.dropped = True
            return False
        recent = self.recent
        recent.append(delta)
        if len(recent) == _RUN:
            self.runs.append("".join(recent))
            recent.clear()
        self.received = True
        return True

    def clear(self) -> None:
        self.runs, self.recent, self.received = [], [], False

    def check(self, complete: str, what: str) -> list[Outcome]:
        """Compare a complete source with the deltas received, then drop them (CORE-ARGS-6, CORE-TEXT-2)."""
        if not self.received:
            return []
        complete = _comparable(complete)
        at = 0
        for run in (*self.runs, *self.recent):
            if not complete.startswith(run, at):
                break
            at += len(run)
        else:
            if at == len(complete):
                self.clear()
                return []
        joined = "".join(self.runs) + "".join(self.recent)
        self.clear()
        return [_error("done_mismatch", f"{what} {complete!r} disagrees with its deltas {joined!r}")]


@dataclass(slots=True)
class Item:
    id: str
    type: str
    output_index: int
    call_id: str | None = None
    name: str | None = None
    namespace: str | None = None
    status: str | None = None  # as its announcement states it; read from the done item only
    done: bool = False
    resolved: bool = False  # it has produced its tool.call or tool.error (CORE-CALL-1)
    called: bool = False  # that outcome was a tool.call
    hosted: bool = False  # a catalogue item the server runs, as its latest form says (CORE-CALLTYPE-4)
    phase: str | None = None  # a message's, as its announcement states it (CORE-TEXT-9)
    parts: dict[int, Part] = field(default_factory=dict)
    arguments: Part = field(default_factory=Part)

    def part(self, content_index: int) -> Part:
        part = self.parts.get(content_index)
        if part is None:
            part = self.parts[content_index] = Part()
        return part


@dataclass(slots=True)
class Slot:
    """The active diff consumer and the call it is bound to (CUSTOM-SLOT-1)."""

    item: Item
    call_id: str
    consumer: DiffConsumer


def _with_phase(outcome: Outcome, item: Item) -> Outcome:
    """A text outcome with its message's phase, when the message states one (CORE-TEXT-9)."""
    if item.phase is not None:
        outcome["phase"] = item.phase
    return outcome


def _error(code: str | None, message: str) -> Outcome:
    return {"kind": "error", "code": code, "message": message}


def _consumer_outcome(kind: str, slot: Slot, payload: Payload) -> Outcome:
    """A consumer's payload as an outcome; the router's fields win (spec/custom-tools.md 1)."""
    outcome: Outcome = {"kind": kind, "item_id": slot.item.id, "call_id": slot.call_id}
    outcome.update((name, value) for name, value in payload.items() if name not in outcome)
    return outcome


def _call_error(code: str, message: str, item_id: str, call_id: str) -> Outcome:
    """An `error` about one call, which names it (CUSTOM-FAIL-1, CORE-CALL-12)."""
    outcome = _error(code, message)
    outcome.update(item_id=item_id, call_id=call_id)
    return outcome


def _consumer_failed(item_id: str, call_id: str, exc: Exception) -> Outcome:
    """CUSTOM-FAIL-1: a consumer that raised, contained."""
    return _call_error(
        "consumer_failed", f"the diff consumer raised {type(exc).__name__}: {exc}", item_id, call_id
    )


def _parse_arguments(text: str) -> tuple[JSONObject | None, str, str]:
    """Parse function arguments strictly (CORE-CALL-3): (value, code, message)."""
    if text.count("[") + text.count("{") > MAX_ARGUMENTS_DEPTH and _nests_deeper(text, MAX_ARGUMENTS_DEPTH):
        return None, "too_deep", f"arguments nest deeper than {MAX_ARGUMENTS_DEPTH} levels"  # CORE-LIMIT-2
    try:
        value = loads_arguments(text)  # CORE-CALL-3, -10, -11
    except ValueError as exc:
        return None, "invalid_json", f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return (
            None,
            "invalid_arguments",
            f"arguments must be a JSON object, got {type(value).__name__}",
        )
    return value, "", ""


# CORE-LIMIT-2, outside a string: a run of openers, a run of closers, or a string's start;
# inside one: its end, or a backslash that escapes the next character.
_OUTSIDE_STRING = re.compile(r'[\[{]+|[\]}]+|"')
_INSIDE_STRING = re.compile(r'["\\]')


def _nests_deeper(text: str, limit: int) -> bool:
    """Whether more than `limit` `[` and `{` are open at once in JSON text, strings aside
    (CORE-LIMIT-2). One pass in constant memory: the searches find, they never copy."""
    depth = at = 0
    while (found := _OUTSIDE_STRING.search(text, at)) is not None:
        start, at = found.span()
        if text[start] == '"':
            while (end := _INSIDE_STRING.search(text, at)) is not None and text[end.start()] == "\\":
                at = end.end() + 1  # past the escaped character, whatever it is
            if end is None:  # an unterminated string runs to the end
                return False
            at = end.end()
        elif text[start] in "[{":
            depth += at - start
            if depth > limit:
                return True
        else:
            depth = max(depth - (at - start), 0)
    return False


# CORE-CALLTYPE-5: an approval request's call id is its own id, which the answer names.
_APPROVAL = "mcp_approval_request"


def _hosted(item_type: str, item: JSONObject) -> bool:
    """CORE-CALLTYPE-4: a shell call runs on the client only in a local environment (or
    none stated: the shell tool's first, local-only form), a tool search only when its
    `execution` says `client`; whatever else they state is the server's to run."""
    if item_type == "shell_call":
        environment = item.get("environment")
        local = isinstance(environment, dict) and environment.get("type") == "local"
        return environment is not None and not local
    return item_type == "tool_search_call" and item.get("execution") != "client"


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(entry, str) for entry in value)


_OPERATIONS = {"create_file": True, "update_file": True, "delete_file": False}  # -> carries a diff


def _catalogue_input(tool_type: str, done: JSONObject) -> tuple[JSONObject | None, str, str]:
    """A catalogue call's input fields for its tool.call, read from its done item alone
    (CORE-CALLTYPE-2): (fields, code, message). A field that is absent is `incomplete`; one
    of the wrong shape is `invalid_arguments` (CORE-CALLTYPE-7)."""
    source = {"apply_patch": "operation", "shell": "action", "local_shell": "action"}.get(tool_type)
    if tool_type == "computer":  # the GA tool states `actions`, the preview tool one `action`
        source = "actions" if done.get("actions") is not None else "action"
    elif tool_type in ("tool_search", "mcp_approval"):
        source = "arguments"
    assert source is not None
    value = done.get(source)
    if value is None:
        return None, "incomplete", f"the done item has no {source}"
    if tool_type == "mcp_approval":
        server_label = done.get("server_label")
        if not isinstance(value, str) or not isinstance(server_label, str):
            return None, "invalid_arguments", "an approval request needs string arguments and server_label"
        arguments, code, message = _parse_arguments(value)  # CORE-CALL-3, -10, -11, CORE-LIMIT-2
        if arguments is None:
            return None, code, message
        return {"arguments": arguments, "server_label": server_label}, "", ""
    if tool_type == "computer":
        actions = value if source == "actions" else [value]
        if not isinstance(actions, list) or not all(
            isinstance(action, dict) and isinstance(action.get("type"), str) for action in actions
        ):
            return None, "invalid_arguments", f"{source} must hold action objects with a string type"
        fields: JSONObject = {"actions": actions}
        if isinstance(done.get("pending_safety_checks"), list):
            fields["pending_safety_checks"] = done["pending_safety_checks"]
        return fields, "", ""
    if not isinstance(value, dict):
        return None, "invalid_arguments", f"{source} must be an object, got {type(value).__name__}"
    operation_type = value.get("type")
    if tool_type == "apply_patch" and not (
        isinstance(operation_type, str)
        and operation_type in _OPERATIONS
        and isinstance(value.get("path"), str)
        and (not _OPERATIONS[operation_type] or isinstance(value.get("diff"), str))
    ):
        return None, "invalid_arguments", "operation needs a known type, a string path, and a diff to write"
    if tool_type == "shell" and not _strings(value.get("commands")):
        return None, "invalid_arguments", "action.commands must be an array of strings"
    if tool_type == "local_shell" and not (value.get("type") == "exec" and _strings(value.get("command"))):
        return None, "invalid_arguments", "action must be of type exec with a command array of strings"
    return {source: value}, "", ""


class Router:
    """Routes one response stream. See the module docstring."""

    def __init__(
        self,
        consumers: ConsumerRegistry | None = None,
        *,
        tool_call_point: ToolCallPoint = "output_item_done",
        call_arguments: CallArguments = "parsed",
        error_event: ErrorEvent = "routed",
        item_correlation: ItemCorrelation = "item_id",
    ) -> None:
        """`consumers`: the diff consumer factory of each custom tool that has one,
        keyed by (namespace, name); see `consumers.consumers_for`."""
        self._consumers = dict(consumers or {})
        self._call_at_arguments_done = tool_call_point == "arguments_done"
        self._arguments_as_text = call_arguments == "json_text"
        self._error_ends_stream = error_event == "ends_stream"
        self._correlate_by_index = item_correlation == "output_index"  # CORE-ITEM-10
        self._stopped = False  # CORE-ERR-3: an error event ended the stream
        self._events_seen = 0
        self._now_ms = 0  # the stream time (CUSTOM-TIME-1)
        self._slot: Slot | None = None  # the active diff consumer (CUSTOM-SLOT-1)
        self._items: dict[str, Item] = {}
        self._item_at_output_index: dict[int, Item] = {}
        self._item_with_call_id: dict[str, Item] = {}
        self._called_ids: set[str] = set()
        self._end_status: str | None = None  # set by the first terminal event
        self._error_seen = False
        self._closed = False

    # -- the two entry points ------------------------------------------------

    def feed(self, event: object) -> list[Outcome]:
        if self._closed or self._stopped:  # CORE-LIFE-5: end was the last outcome; CORE-ERR-3
            return []
        self._events_seen += 1
        try:
            if not isinstance(event, dict):
                raise Violation("malformed_event", f"an event must be an object, got {type(event).__name__}")
            at_ms = event.get("at_ms")  # CUSTOM-TIME-1: every object's valid at_ms, routed or not
            if type(at_ms) is int and at_ms >= 0:  # a JSON integer (bool is not one)
                self._now_ms = at_ms
            event_type = event.get("type")
            if type(event_type) is not str:
                event_type = required_str(event, "type")
            if self._end_status is not None:  # CORE-LIFE-4
                raise Violation("event_after_terminal", f"{event_type} after the terminal event")
            return _ROUTES.get(event_type, Router._unrouted)(self, event)
        except Violation as violation:
            return [_error(violation.code, f"event {self._events_seen - 1}: {violation.message}")]

    def close(self) -> list[Outcome]:
        if self._closed:
            return []
        self._closed = True
        if self._end_status is None:  # the response ends here
            outcomes = self._end_response()
            status = "failed" if self._error_seen else "truncated"
        else:
            outcomes, status = [], self._end_status
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
        response_status = optional_str(response, "status", "response.")  # CORE-LIFE-6
        outcomes: list[Outcome] = [
            {
                "kind": "lifecycle",
                "event": event_type.removeprefix("response."),
                "response_id": response_id,
            }
        ]
        if event_type not in TERMINAL_EVENTS:
            return outcomes
        status = "cancelled" if response_status == "cancelled" else event_type.removeprefix("response.")
        if event_type == "response.failed":  # CORE-LIFE-3
            error = optional_object(response, "error") or {}
            outcomes.append(
                _error(
                    optional_str(error, "code", "response.error."),
                    optional_str(error, "message", "response.error.") or "the response failed",
                )
            )
        self._end_status = status  # CORE-LIFE-2
        return outcomes + self._end_response()

    def _error_event(self, event: JSONObject) -> list[Outcome]:
        nested = optional_object(event, "error")  # Open Responses nests it
        source, where = (nested, "error.") if nested is not None else (event, "")
        message = required_str(source, "message", where)
        code = optional_str(source, "code", where)
        self._error_seen = True
        self._stopped = self._error_ends_stream  # CORE-ERR-3: nothing after it is read
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
            call_id=optional_str(item, "call_id", "item.") if item_type != _APPROVAL else item_id,
            name=optional_str(item, "name", "item."),
            namespace=optional_str(item, "namespace", "item."),
            status=optional_str(item, "status", "item."),  # CORE-ITEM-9: read at done only
            hosted=_hosted(item_type, item),
            phase=item["phase"] if type(item.get("phase")) is str else None,  # CORE-TEXT-9: only a label
        )

    def _register(self, item: Item) -> None:
        self._items[item.id] = item
        self._item_at_output_index[item.output_index] = item
        if item.call_id is not None:
            self._item_with_call_id[item.call_id] = item

    def _item_added(self, event: JSONObject) -> list[Outcome]:
        item = self._announce(required_object(event, "item"), event)
        if item.id in self._items:  # CORE-ITEM-5
            raise Violation("duplicate_event", f"item {item.id!r} was already announced")
        self._register(item)
        if item.type == "custom_tool_call":  # CUSTOM-SLOT-2, CUSTOM-SLOT-5
            return self._bind_consumer(item)
        if item.type == "function_call":  # CUSTOM-SLOT-3
            self._slot = None
        return []  # CUSTOM-SLOT-4

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        """Set the slot for a custom call just announced; the old consumer is dropped."""
        self._slot = None
        factory = self._consumers.get((item.namespace, item.name)) if item.name is not None else None
        if factory is None or item.call_id is None:
            return []
        try:
            consumer = factory()
        except Exception as exc:  # CUSTOM-FAIL-1: a plug-in may fail in any way
            return [_consumer_failed(item.id, item.call_id, exc)]
        self._slot = Slot(item, item.call_id, consumer)
        return []

    def _item_done(self, event: JSONObject) -> list[Outcome]:
        done = required_object(event, "item")
        stated = self._announce(done, event)
        complete_field = COMPLETE_FIELD.get(stated.type)
        complete = optional_str(done, complete_field, "item.") if complete_field else None
        item = self._items.get(stated.id) or self._correlated(optional_index(event, "output_index"))
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
        if item.type in CATALOGUE_CALL_TYPES:  # CUSTOM-FIN-2: the slot is left alone
            return self._catalogue_call(item, stated, done)
        if item.type not in CALL_TYPES:
            return []  # CUSTOM-FIN-2: another item's done leaves the slot alone
        # A call made at its arguments .done (CORE-CALL-8): this item confirms it, or not.
        called = item.called
        gains_namespace = item.namespace is None and stated.namespace is not None
        outcomes = self._confirm_identity(item, stated)
        if complete is not None:
            outcomes += self._complete_arguments(item, complete, "the done item's " + str(complete_field))
        item.arguments.done = True
        if called:  # every outcome so far is a done_mismatch
            if stated.status == "incomplete":  # CORE-CALL-12
                outcomes.append(self._retracted(item, "its done item is incomplete"))
            elif outcomes or gains_namespace:  # CORE-CALL-13
                outcomes.append(self._retracted(item, "its done item states another call"))
        elif stated.status == "incomplete":  # CORE-CALL-5
            outcomes += self._resolve_as_error(item, "incomplete", "the call item is incomplete")
        else:
            outcomes += self._resolve(item)  # CORE-CALL-2
        # The call is resolved and every later event for it is refused before its text is
        # read (CORE-CALL-1, CORE-ARGS-4, -7): keep its identity, release its text.
        item.arguments = Part(done=True)
        return outcomes

    def _confirm_identity(self, item: Item, stated: Item) -> list[Outcome]:
        """CORE-CALL-4: what the announcement lacked comes from the done item; what it
        stated stands, and a done item that states another is a done_mismatch."""
        outcomes: list[Outcome] = []
        for name in ("call_id", "name", "namespace"):
            first, again = getattr(item, name), getattr(stated, name)
            if first is None:
                setattr(item, name, again)
                if name == "call_id" and again is not None:
                    self._item_with_call_id.setdefault(again, item)
            elif again is not None and again != first:
                outcomes.append(_error("done_mismatch", f"done item states {name} {again!r}, not {first!r}"))
        return outcomes

    def _catalogue_call(self, item: Item, stated: Item, done: JSONObject) -> list[Outcome]:
        """A catalogue call's one outcome, from its done item alone (CORE-CALLTYPE-1, -2)."""
        item.hosted = stated.hosted  # the done item says who runs it (CORE-CALLTYPE-4)
        if item.hosted:
            item.resolved = True  # the server's call: never a client call, never incomplete
            return []
        outcomes = self._confirm_identity(item, stated)
        if stated.status in ("incomplete", "failed"):  # CORE-CALLTYPE-3
            return outcomes + self._resolve_as_error(item, "incomplete", f"the call item is {stated.status}")
        tool_type = CATALOGUE_CALL_TYPES[item.type]
        fields, code, message = _catalogue_input(tool_type, done)
        if item.call_id is None or (tool_type == "mcp_approval" and item.name is None):
            missing = "call_id" if item.call_id is None else "name"
            return outcomes + self._resolve_as_error(item, "incomplete", f"the call has no {missing}")
        if fields is None:
            return outcomes + self._resolve_as_error(item, code, message)
        if item.call_id in self._called_ids:  # CORE-CALL-7
            message = f"call id {item.call_id!r} was already called"
            return outcomes + self._resolve_as_error(item, "duplicate_call_id", message)
        item.resolved = item.called = True
        self._called_ids.add(item.call_id)
        name = item.name if tool_type == "mcp_approval" else tool_type
        call = {"kind": "tool.call", "item_id": item.id, "call_id": item.call_id, "name": name}
        return [*outcomes, {**call, "tool_type": tool_type, **fields}]

    def _correlated(self, output_index: int | None) -> Item | None:
        """Under `item_correlation: output_index`, the item announced at `output_index` (CORE-ITEM-10)."""
        if not self._correlate_by_index or output_index is None:
            return None
        return self._item_at_output_index.get(output_index)

    def _find_item(self, event: JSONObject, item_types: tuple[str, ...]) -> Item:
        """The item an item event belongs to (CORE-ITEM-2, -3, -4, -8)."""
        item_id, output_index = event.get("item_id"), event.get("output_index")
        if (
            type(item_id) is str
            and (output_index is None or (type(output_index) is int and output_index >= 0))
            and "call_id" not in event
        ):  # nearly every event: its item by id, every field well-formed
            item = self._items.get(item_id)
            if item is not None and item.type in item_types:
                return item
        item_id = optional_str(event, "item_id")
        output_index = optional_index(event, "output_index")
        custom_input = event["type"] in _CUSTOM_INPUT_EVENTS
        call_id = optional_str(event, "call_id") if custom_input else None
        if item_id is not None:
            item = self._items.get(item_id) or self._correlated(output_index)
            if item is None:
                raise Violation("unknown_item", f"item {item_id!r} was never announced")
        elif call_id is not None:  # CORE-ITEM-8
            found_by_call = self._item_with_call_id.get(call_id)
            if found_by_call is None:
                raise Violation("unknown_item", f"no item was announced with call_id {call_id!r}")
            item = found_by_call
        elif output_index is not None:
            found = self._item_at_output_index.get(output_index)
            if found is None:
                raise Violation("unknown_item", f"no item was announced at output_index {output_index}")
            item = found
        else:
            ids = "item_id, call_id nor output_index" if custom_input else "item_id nor output_index"
            raise Violation("malformed_event", f"the event has neither {ids}")
        if item.type not in item_types:
            raise Violation(
                "item_type_mismatch",
                f"{event['type']} does not apply to {item.type} item {item.id!r}",
            )
        return item

    # -- channels ------------------------------------------------------------

    def _text_delta(self, event: JSONObject) -> list[Outcome]:
        content_index = event.get("content_index")
        if type(content_index) is not int or content_index < 0:
            content_index = optional_index(event, "content_index") or 0  # CORE-ITEM-7
        delta = event.get("delta")
        if type(delta) is not str:
            delta = required_str(event, "delta")
        item = self._find_item(event, ("message",))  # CORE-EVT-8: after the fields
        output_index = event.get("output_index")  # checked by _find_item
        part = item.part(content_index)
        if part.done or item.done:  # CORE-TEXT-6
            raise Violation("late_delta", f"text delta after part {content_index} of {item.id!r} was done")
        routed: Outcome = {
            "kind": "text.delta",
            "item_id": item.id,
            "output_index": item.output_index if output_index is None else output_index,
            "content_index": content_index,
            "delta": delta,
        }  # CORE-TEXT-1
        outcomes = [_with_phase(routed, item)]
        if not part.dropped and not part.append(delta):  # CORE-LIMIT-3: shown, no longer compared
            message = f"part {content_index} of {item.id!r} passes {MAX_BUFFERED_BYTES} bytes: not compared"
            outcomes.append(_error("too_large", message))
        return outcomes

    def _text_done(self, event: JSONObject) -> list[Outcome]:
        content_index = optional_index(event, "content_index") or 0
        text = required_str(event, "text")
        item = self._find_item(event, ("message",))
        part = item.part(content_index)
        if part.done or item.done:  # CORE-TEXT-7
            raise Violation("duplicate_event", f"part {content_index} of {item.id!r} is already done")
        part.done = True
        outcomes = part.check(text, "output_text.done text")  # CORE-TEXT-2
        done: Outcome = {"kind": "text.done", "item_id": item.id, "content_index": content_index}
        outcomes.append(_with_phase({**done, "text": text}, item))
        return outcomes

    def _refusal_delta(self, event: JSONObject) -> list[Outcome]:
        content_index = optional_index(event, "content_index") or 0
        delta = required_str(event, "delta")
        item = self._find_item(event, ("message",))
        part = item.parts.get(content_index)
        if item.done or (part is not None and part.done):  # CORE-TEXT-6: a part whatever its channel
            raise Violation("late_delta", f"refusal delta after part {content_index} of {item.id!r} was done")
        return [
            {
                "kind": "refusal.delta",
                "item_id": item.id,
                "content_index": content_index,
                "delta": delta,
            }
        ]

    def _reasoning_delta(self, event: JSONObject) -> list[Outcome]:
        index_field = "summary_index" if "summary" in event["type"] else "content_index"
        index = optional_index(event, index_field) or 0
        delta = required_str(event, "delta")
        item = self._find_item(event, ("reasoning",))
        if item.done:  # CORE-TEXT-6
            raise Violation("late_delta", f"reasoning delta after item {item.id!r} was done")
        return [
            {"kind": "reasoning.delta", "item_id": item.id, index_field: index, "delta": delta}
        ]  # CORE-TEXT-5

    # -- arguments and calls -------------------------------------------------

    def _arguments_delta(self, event: JSONObject) -> list[Outcome]:
        event_type = event["type"]
        delta = event.get("delta")
        if type(delta) is not str:
            delta = required_str(event, "delta")
        item = self._find_item(event, _CALL_ITEM_OF[event_type])
        arguments = item.arguments
        if arguments.done:  # CORE-ARGS-4
            raise Violation("late_delta", f"delta after the arguments of {item.id!r} were complete")
        if arguments.dropped:  # CORE-LIMIT-1
            raise Violation("too_large", f"delta dropped: the arguments of {item.id!r} passed the limit")
        if not arguments.append(delta):  # CORE-LIMIT-1: the call can never run
            message = f"the arguments of {item.id!r} pass {MAX_BUFFERED_BYTES} bytes"
            return self._resolve_as_error(item, "too_large", message)
        # CORE-ARGS-1, CORE-ARGS-2, CORE-ARGS-3: buffered
        outcome: Outcome = {"kind": "tool.arguments.delta", "item_id": item.id, "delta": delta}
        if self._slot is not None and event_type == "response.custom_tool_call_input.delta":  # CUSTOM-DELTA-1
            return [outcome, *self._consume(item, event, delta)]
        return [outcome]

    def _preview(self, event: JSONObject) -> list[Outcome]:
        """A catalogue call's streamed preview (CORE-CALLTYPE-6), never buffered: its deltas
        (and a shell command's first text) are `tool.arguments.delta`; its `.done` ends it."""
        event_type = event["type"]
        item_type, text_field, index_field = PREVIEW_EVENTS[event_type]
        text = required_str(event, text_field)
        index = optional_index(event, index_field) if index_field else 0
        if index is None:
            raise Violation("malformed_event", f"the event has no {index_field}")
        item = self._find_item(event, (item_type,))  # CORE-EVT-8: after the fields
        part = item.part(index)
        if event_type.endswith(".done"):
            if part.done or item.done:  # CORE-CALLTYPE-8
                raise Violation("duplicate_event", f"preview {index} of {item.id!r} is already done")
            part.done = True
            return []
        if part.done or item.done:  # CORE-CALLTYPE-8
            raise Violation("late_delta", f"preview delta after preview {index} of {item.id!r} was done")
        outcome: Outcome = {"kind": "tool.arguments.delta", "item_id": item.id, "delta": text}
        if index_field is not None:
            outcome[index_field] = index
        return [outcome]

    # -- the diff consumer (spec/custom-tools.md) ----------------------------

    def _consumer_takes(self, slot: Slot, item: Item, event: JSONObject) -> bool:
        """CUSTOM-DELTA-2, -3: the delta is the bound call's, by every id it states."""
        return item is slot.item and event.get("call_id") in (None, slot.call_id)

    def _consume(self, item: Item, event: JSONObject, delta: str) -> list[Outcome]:
        slot = self._slot
        if slot is None or not self._consumer_takes(slot, item, event):
            return []
        try:
            payload = slot.consumer.consume(delta, self._now_ms)
        except Exception as exc:  # CUSTOM-FAIL-1
            self._slot = None
            return [_consumer_failed(slot.item.id, slot.call_id, exc)]
        if payload is None:
            return []
        return [_consumer_outcome("diff.update", slot, payload)]  # CUSTOM-DELTA-4

    def _release(self, item: Item) -> Slot | None:
        """Empty the slot if it is bound to `item`, and return what it held."""
        slot = self._slot
        if slot is None or slot.item is not item:
            return None
        self._slot = None
        return slot

    def _finish(self, slot: Slot, complete: str) -> tuple[list[Outcome], str | None]:
        """Run the bound consumer's finish (CUSTOM-FIN-1): its outcomes, and a rejection message."""
        try:
            answer = slot.consumer.finish(complete, self._now_ms)
        except Exception as exc:  # CUSTOM-FAIL-1: the call goes on
            return [_consumer_failed(slot.item.id, slot.call_id, exc)], None
        if not isinstance(answer, Finished):  # CUSTOM-FIN-3
            return [], answer.message
        outcomes = [_consumer_outcome("diff.update", slot, update) for update in answer.updates]
        if answer.result is not None:
            outcomes.append(_consumer_outcome("diff.finish", slot, answer.result))
        return outcomes, None

    def _arguments_done(self, event: JSONObject) -> list[Outcome]:
        (item_type,) = _CALL_ITEM_OF[event["type"]]
        complete_field = COMPLETE_FIELD[item_type]
        complete = required_str(event, complete_field)
        item = self._find_item(event, (item_type,))
        if item.arguments.done:  # CORE-ARGS-7
            raise Violation("duplicate_event", f"the arguments of {item.id!r} are already complete")
        item.arguments.done = True
        outcomes = self._complete_arguments(item, complete, f"{event['type']} {complete_field}")
        if self._call_at_arguments_done and item.call_id is not None and item.name is not None:  # CORE-CALL-8
            outcomes += self._resolve(item)
        return outcomes

    def _complete_arguments(self, item: Item, complete: str, what: str) -> list[Outcome]:
        """Take one complete source of a call's text (CORE-ARGS-5, CORE-ARGS-6): the first is
        compared with the deltas, the done item with the .done, and the later one stands."""
        arguments = item.arguments
        stated, arguments.complete = arguments.complete, complete
        if stated is None:
            return arguments.check(complete, what)
        if not _same_text(complete, stated):
            return [_error("done_mismatch", f"{what} {complete!r} disagrees with the .done's {stated!r}")]
        return []

    def _resolve(self, item: Item) -> list[Outcome]:
        """Produce the call's one tool.call or tool.error (CORE-CALL-1)."""
        if item.resolved:
            return []
        complete = item.arguments.complete
        slot = self._release(item)  # CUSTOM-FIN-4: dropped unless the call is routed
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
        if item.type == "function_call" and self._arguments_as_text:
            call["arguments"] = complete  # CORE-JSON-1: the complete source, for its taker to parse
        elif item.type == "function_call":
            arguments, code, message = _parse_arguments(complete)  # CORE-CALL-3
            if arguments is None:
                return self._resolve_as_error(item, code, message)
            call["arguments"] = arguments
        else:
            call["input"] = complete  # CUSTOM-EXEC-1: the complete input, whatever the consumer saw
        if item.namespace is not None:
            call["namespace"] = item.namespace
        outcomes: list[Outcome] = []
        if slot is not None:  # CUSTOM-FIN-1: finish before the call
            outcomes, rejection = self._finish(slot, complete)
            if rejection is not None:  # CUSTOM-FIN-3
                return self._resolve_as_error(item, "consumer_rejected", rejection)
        item.resolved = item.called = True
        self._called_ids.add(item.call_id)
        return [*outcomes, call]

    def _resolve_as_error(self, item: Item, code: str, message: str) -> list[Outcome]:
        if item.resolved:
            return []
        self._release(item)  # CUSTOM-FIN-4, CUSTOM-END-1: dropped unfinished
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

    def _retracted(self, item: Item, why: str) -> Outcome:
        """CORE-CALL-12, -13, -14: a call made at its arguments .done that its producer never confirmed."""
        assert item.call_id is not None  # a call is made with one (CORE-CALL-5)
        message = f"the call was made at its arguments .done, but {why}"
        return _call_error("call_retracted", message, item.id, item.call_id)

    def _end_response(self) -> list[Outcome]:
        """The response ends (a terminal event, or close without one): calls still open will
        never come (CORE-CALL-6, CORE-CALL-14); the consumer is dropped unfinished (CUSTOM-END-1)."""
        self._slot = None
        outcomes: list[Outcome] = []
        for item in self._items.values():
            is_call = item.type in CALL_TYPES or item.type in CATALOGUE_CALL_TYPES
            if item.done or item.hosted or not is_call:
                continue
            if item.called:
                outcomes.append(self._retracted(item, "the response ended before its done item"))
            else:
                outcomes += self._resolve_as_error(
                    item, "incomplete", "the response ended before the call completed"
                )
        return outcomes


_CUSTOM_INPUT_EVENTS = frozenset(
    {"response.custom_tool_call_input.delta", "response.custom_tool_call_input.done"}
)

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
_ROUTES.update(dict.fromkeys(PREVIEW_EVENTS, Router._preview))
_ROUTES.update(dict.fromkeys(UNROUTED, Router._unrouted))

# Every event type the routing table of spec/core.md names; any other is unknown.
EVENT_TYPES = frozenset(_ROUTES)
