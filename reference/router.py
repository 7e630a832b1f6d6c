"""The reference router of the streamroute `core` and `custom-tools` profiles.

Theory of operation
-------------------
The router is sans-IO: `feed(event)` takes one decoded event and returns the
outcomes it causes; `close()` ends the stream and returns the last ones. No
sockets, threads or clocks, so every behaviour is a pure function of the
events, which is what makes the vectors exact.

All state that affects routing lives in this module, in five state machines:
their transition tables follow this comment, and the spec has the same ones
(spec/core.md section 8a, spec/custom-tools.md section 2.1; tests/test_states.py
keeps them equal). Each maps a state to the events that move it out of it and
the state each leads to; every change of state goes through `_move`, which
looks it up there. An event a state does not list leaves it as it is (a
delta to a STREAMING part) or is refused before anything moves (a delta to a
DONE part, as the handlers below say).

* the stream (`STREAM_TRANSITIONS`): OPEN until the first terminal event, then
  TERMINAL, where every event is refused (CORE-LIFE-4); or STOPPED by an
  `error` event under the option `error_event: ends_stream`, or a nested one
  under `nested_ends_stream` (CORE-ERR-3);
  `close()` makes it CLOSED. After STOPPED and CLOSED every event is ignored
  without an outcome.
* each announced output item (`ITEM_TRANSITIONS`), keyed by item id: OPEN
  until its `response.output_item.done`, then DONE.
* each text content part of a message, and each streamed preview of a
  catalogue call, is a `Part` (`PART_TRANSITIONS`): OPEN, then STREAMING once
  a delta is buffered, DONE at its `.done` event (or when its item is done).
  Its deltas are buffered up to `MAX_BUFFERED_BYTES`; past it the buffer is
  dropped for good (DROPPED) and the part is no longer compared (CORE-LIMIT-3).
  A preview is never buffered: it is only ever marked done.
* each call (`CALL_TRANSITIONS`), function or custom: ANNOUNCED, STREAMING
  with its first delta, COMPLETE once its complete text is known (its
  arguments `.done`, or its done item: CORE-ARGS-5), CALLED once it produced
  its `tool.call`, and RESOLVED when nothing more comes of it. It produces its
  one `tool.call` or `tool.error` (CORE-CALL-1) at its done item (the
  canonical point), at its arguments `.done` (option `arguments_done`), or
  when the stream ends with the call still open. A call CALLED at its
  arguments `.done` is then confirmed by its done item, or retracted (`error`
  `call_retracted`, CORE-CALL-12, -13, -14). The delta that would take its
  buffer past `MAX_BUFFERED_BYTES` resolves it as `tool.error` `too_large`
  and drops the buffer (TOO_LARGE, CORE-LIMIT-1). A catalogue call
  (`apply_patch_call`, `shell_call`, `local_shell_call`, `computer_call`,
  `tool_search_call`, `mcp_approval_request`: spec/core.md section 5.1) is a
  call too, complete at its done item and resolved from that item's fields
  alone. A shell call outside a local environment, or a tool search the
  server executes, is *hosted*: no call at all, it never moves.
* the consumer slot of the custom-tools profile (`SLOT_TRANSITIONS`,
  spec/custom-tools.md): EMPTY, or ACTIVE with one diff consumer bound to one
  custom call (its item and its call id). The events that move it:

    event                                        slot after
    ------------------------------------------   -----------------------------
    output_item.added, custom_tool_call          ACTIVE(new consumer of its
                                                 tool), or EMPTY if the tool
                                                 has none or the item no
                                                 call id (CUSTOM-SLOT-2, -5, -6, -7)
    output_item.added, function_call             EMPTY (CUSTOM-SLOT-3)
    output_item.added, other item; refused       unchanged (CUSTOM-SLOT-4)
    custom input delta routed for the bound      unchanged: consume(); EMPTY
      call, no differing call_id                 if it raised (CUSTOM-FAIL-1, -2)
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
checks every field it needs with the accessors of fields.py (raising
`Violation`, which becomes one `error` outcome and leaves the state
untouched), then looks up the event's item (CORE-EVT-8), then moves states
and returns outcomes. Whatever else a handler raises is a bug of the router;
`feed` contains it as an `error` too, since a router never raises on its
input (CORE-EVT-2). What makes routing fast lives in fields.py, behind those
accessors. Here there are three more pieces of speed, each said where it
lives: `feed` checks an event's type by finding it in the routing table,
and reads the stream time only when the router has consumers, the one
reader of it; and a `Buffer` keeps its deltas in runs (`DELTAS_PER_RUN`).
Requirement ids in comments refer to spec/core.md and spec/custom-tools.md.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, TypeVar

from .consumers import ConsumerRegistry, DiffConsumer, Finished
from .fields import (
    Violation,
    agent_name,
    delta_fields,
    index_or_zero,
    item_reference,
    label,
    loads_arguments,
    natural,
    optional_index,
    optional_object,
    optional_str,
    required_object,
    required_str,
)
from .types import JSONObject, Outcome, Payload, error_outcome

# -- the state machines --------------------------------------------------------
# state -> {event: the state it moves to}; `_move` is the one way a state changes.

StreamState = Literal["OPEN", "TERMINAL", "STOPPED", "CLOSED"]
StreamEvent = Literal["terminal", "stop", "close"]
STREAM_TRANSITIONS: dict[StreamState, dict[StreamEvent, StreamState]] = {
    "OPEN": {"terminal": "TERMINAL", "stop": "STOPPED", "close": "CLOSED"},  # CORE-LIFE-2, CORE-ERR-3
    "TERMINAL": {"close": "CLOSED"},  # every event is refused (CORE-LIFE-4)
    "STOPPED": {"close": "CLOSED"},  # every event is ignored (CORE-ERR-3)
    "CLOSED": {},  # every event is ignored; `end` was the last outcome (CORE-LIFE-5)
}

ItemState = Literal["OPEN", "DONE"]
ItemEvent = Literal["done"]
ITEM_TRANSITIONS: dict[ItemState, dict[ItemEvent, ItemState]] = {
    "OPEN": {"done": "DONE"},  # its output_item.done (CORE-ITEM-1, -6)
    "DONE": {},  # every later event for it is refused (CORE-TEXT-6, CORE-CALL-1)
}

PartState = Literal["OPEN", "STREAMING", "DROPPED", "DONE"]
PartEvent = Literal["delta", "overflow", "done"]
PART_TRANSITIONS: dict[PartState, dict[PartEvent, PartState]] = {
    "OPEN": {"delta": "STREAMING", "overflow": "DROPPED", "done": "DONE"},
    "STREAMING": {"overflow": "DROPPED", "done": "DONE"},  # its .done compares (CORE-TEXT-2, -11)
    "DROPPED": {"done": "DONE"},  # deltas shown, no longer compared (CORE-LIMIT-3)
    "DONE": {},  # a later delta or .done is refused (CORE-TEXT-6, -7, CORE-CALLTYPE-8)
}

CallState = Literal["ANNOUNCED", "STREAMING", "COMPLETE", "CALLED", "TOO_LARGE", "RESOLVED"]
CallEvent = Literal["delta", "overflow", "complete", "call", "error", "confirm", "retract", "done"]
CALL_TRANSITIONS: dict[CallState, dict[CallEvent, CallState]] = {
    "ANNOUNCED": {"delta": "STREAMING", "overflow": "TOO_LARGE", "complete": "COMPLETE", "error": "RESOLVED"},
    "STREAMING": {"overflow": "TOO_LARGE", "complete": "COMPLETE", "error": "RESOLVED"},  # CORE-ARGS-1
    "COMPLETE": {"call": "CALLED", "error": "RESOLVED"},  # CORE-CALL-2, -5, CORE-CALL-8
    "CALLED": {"confirm": "RESOLVED", "retract": "RESOLVED"},  # CORE-CALL-12, -13, -14
    "TOO_LARGE": {"complete": "RESOLVED", "done": "RESOLVED"},  # CORE-LIMIT-1, its .done and item: -6
    "RESOLVED": {},  # its one outcome is out (CORE-CALL-1)
}
# The states in which a call has produced its one tool.call or tool.error.
_RESOLVED: frozenset[CallState] = frozenset({"CALLED", "TOO_LARGE", "RESOLVED"})

SlotState = Literal["EMPTY", "ACTIVE"]
SlotEvent = Literal["bind", "release", "fail", "drop"]
SLOT_TRANSITIONS: dict[SlotState, dict[SlotEvent, SlotState]] = {
    "EMPTY": {"bind": "ACTIVE"},  # a custom call announced, its tool has a consumer (CUSTOM-SLOT-2)
    "ACTIVE": {
        "release": "EMPTY",  # its call resolves: finished if a tool.call (CUSTOM-FIN-1, -4)
        "fail": "EMPTY",  # its consumer raised (CUSTOM-FAIL-1)
        "drop": "EMPTY",  # another call announced, or the response ends (CUSTOM-SLOT-2, -3, -5, END-1)
    },
}

State = TypeVar("State", bound=str)
Event = TypeVar("Event", bound=str)


def _move(transitions: Mapping[State, Mapping[Event, State]], state: State, event: Event) -> State:
    """The state `event` moves `state` to, by its machine's table. A move the table lacks
    is a bug of this module, which `feed` reports (CORE-EVT-2)."""
    return transitions[state][event]


# -- the routing tables ----------------------------------------------------------

ToolCallPoint = Literal["output_item_done", "arguments_done"]
CallArguments = Literal["parsed", "json_text"]
ErrorEvent = Literal["routed", "ends_stream", "nested_ends_stream"]
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
# The streamed previews of catalogue calls (CORE-CALLTYPE-6, -11): event type -> (item type,
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
        "response.compaction.compacting",
        "keepalive",
    }
)


def _measured(text: str) -> tuple[str, int]:
    """`text` as a router compares it (CORE-TEXT-11, CORE-ARGS-6), and its size in UTF-8
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


# A Buffer keeps its deltas joined in runs of this many: a list of many small strings
# costs several times their size (a Python str object has about 50 bytes of header), one
# string per run barely more than its text. `streamroute bench` measures the peak memory
# of routing 10 MiB of arguments in deltas of a few bytes.
DELTAS_PER_RUN = 64


@dataclass(slots=True)
class Buffer:
    """The deltas of one stream of text, kept only to be compared, once, with its first
    complete source (CORE-ARGS-6, CORE-TEXT-11), then dropped.

    They are never joined into one string: `runs` holds them joined `DELTAS_PER_RUN` at a
    time, `recent` the last few, and the comparison walks the runs. Each is kept as
    `_measured` makes it, so the comparison is of per-delta decoded text (CORE-TEXT-11).
    An empty delta is a delta: it is kept, and then compared.
    """

    runs: list[str] = field(default_factory=list)
    recent: list[str] = field(default_factory=list)
    size: int = 0  # UTF-8 bytes of the deltas buffered so far (CORE-LIMIT-1, -3)

    def append(self, delta: str) -> bool:
        """Buffer a delta; False when it takes the buffer past `MAX_BUFFERED_BYTES`, which
        empties it (CORE-LIMIT-1, -3): the caller moves its state to say so."""
        if delta.isascii():
            size = self.size + len(delta)
        else:
            delta, measured = _measured(delta)
            size = self.size + measured
        if size > MAX_BUFFERED_BYTES:
            self.clear()
            return False
        self.size = size
        recent = self.recent
        recent.append(delta)
        if len(recent) == DELTAS_PER_RUN:
            self.runs.append("".join(recent))
            recent.clear()
        return True

    def clear(self) -> None:
        self.runs, self.recent = [], []

    def check(self, complete: str, what: str) -> list[Outcome]:
        """Compare a complete source with the deltas buffered, if any, then drop them
        (CORE-ARGS-6, CORE-TEXT-11)."""
        if not self.runs and not self.recent:
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
        return [error_outcome("done_mismatch", f"{what} {complete!r} disagrees with its deltas {joined!r}")]


@dataclass(slots=True)
class Part(Buffer):
    """A content part of a message, or a preview of a catalogue call (PART_TRANSITIONS)."""

    state: PartState = "OPEN"


@dataclass(slots=True)
class Item:
    """An announced output item (ITEM_TRANSITIONS); a call item is also a call (CALL_TRANSITIONS)."""

    id: str
    type: str
    output_index: int
    call_id: str | None = None
    name: str | None = None
    namespace: str | None = None
    status: str | None = None  # as its announcement states it; read from the done item only
    # Not a state: who runs a catalogue item, as its latest form says (CORE-CALLTYPE-4).
    hosted: bool = False
    phase: str | None = None  # a message's, as its announcement states it (CORE-TEXT-9)
    agent: str | None = None  # the agent that produced it, as its announcement states it (CORE-TEXT-12)
    state: ItemState = "OPEN"
    call: CallState = "ANNOUNCED"
    parts: defaultdict[int, Part] = field(default_factory=partial(defaultdict, Part))  # by content index
    arguments: Buffer = field(default_factory=Buffer)  # a call's deltas (arguments or input)
    complete: str | None = None  # a call's complete text, once one is known (CORE-ARGS-5)


@dataclass(slots=True)
class Slot:
    """The active diff consumer and the call it is bound to (CUSTOM-SLOT-1)."""

    item: Item
    call_id: str
    consumer: DiffConsumer


def _consumer_outcome(kind: str, slot: Slot, payload: Payload, call_id: str | None = None) -> Outcome:
    """A consumer's payload as an outcome, naming the bound call, or at finish the call id the
    call resolves with (CUSTOM-FIN-8); the router's fields win (spec/custom-tools.md 1)."""
    outcome: Outcome = {"kind": kind, "item_id": slot.item.id, "call_id": call_id or slot.call_id}
    outcome.update((name, value) for name, value in payload.items() if name not in outcome)
    return outcome


def _call_error(code: str, message: str, item_id: str, call_id: str) -> Outcome:
    """An `error` about one call, which names it (CUSTOM-FAIL-1, CORE-CALL-12)."""
    outcome = error_outcome(code, message)
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
        if server_label is None:  # CORE-CALLTYPE-10: no server to answer
            return None, "incomplete", "the done item has no server_label"
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
        checks = done.get("pending_safety_checks")
        if checks is not None and not isinstance(checks, list):  # CORE-CALLTYPE-7: never dropped unread
            return None, "invalid_arguments", "pending_safety_checks must be an array"
        if checks is not None:
            fields["pending_safety_checks"] = checks
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
        self._error_event_ends = error_event  # which error events end the stream (CORE-ERR-3)
        self._correlate_by_index = item_correlation == "output_index"  # CORE-ITEM-10
        self._stream: StreamState = "OPEN"
        # Not a state: the status `end` states (CORE-LIFE-8), the terminal event's once
        # there is one, "failed" after an error event before it, "truncated" otherwise.
        self._end_status = "truncated"
        self._events_seen = 0
        self._now_ms = 0  # the stream time (CUSTOM-TIME-1)
        self._slot: Slot | None = None  # ACTIVE: its consumer; EMPTY: None (CUSTOM-SLOT-1)
        self._items: dict[str, Item] = {}
        self._item_at_output_index: dict[int, Item] = {}
        self._item_with_call_id: dict[str, Item] = {}
        self._called_ids: set[str] = set()

    # -- the two entry points ------------------------------------------------

    @property
    def stream_state(self) -> StreamState:
        """Where the stream is in STREAM_TRANSITIONS."""
        return self._stream

    @property
    def slot_state(self) -> SlotState:
        """Where the consumer slot is in SLOT_TRANSITIONS: what it holds says it."""
        return "EMPTY" if self._slot is None else "ACTIVE"

    def feed(self, event: object) -> list[Outcome]:
        stream = self._stream
        if stream != "OPEN" and stream != "TERMINAL":  # STOPPED (CORE-ERR-3), CLOSED (CORE-LIFE-5)
            return []
        self._events_seen += 1
        try:
            if not isinstance(event, dict):
                raise Violation("malformed_event", f"an event must be an object, got {type(event).__name__}")
            if self._consumers and "at_ms" in event:  # only a consumer reads the stream time
                self._now_ms = natural(event, "at_ms", self._now_ms)  # CUSTOM-TIME-1: routed or not
            event_type: Any = event.get("type")  # any JSON value, until it is found or checked
            try:  # only a string is found in the routing table: one that is needs no other check
                route = _ROUTES.get(event_type)
            except TypeError:  # a list or an object
                route = None
            if route is None:  # malformed unless a string; then unknown (CORE-EVT-3)
                event_type, route = required_str(event, "type"), Router._unrouted
            if stream == "TERMINAL":  # CORE-LIFE-4
                raise Violation("event_after_terminal", f"{event_type} after the terminal event")
            return route(self, event)
        except Violation as violation:
            return [error_outcome(violation.code, f"event {self._events_seen - 1}: {violation.message}")]
        except Exception as exc:  # CORE-EVT-2: a bug of the router is contained as well
            message = f"event {self._events_seen - 1}: the router failed: {type(exc).__name__}: {exc}"
            return [error_outcome("internal_error", message)]

    def close(self) -> list[Outcome]:
        if self._stream == "CLOSED":
            return []
        ended = self._stream == "TERMINAL"
        self._stream = _move(STREAM_TRANSITIONS, self._stream, "close")
        outcomes = [] if ended else self._end_response()  # the response ends here
        outcomes.append({"kind": "end", "status": self._end_status})  # CORE-LIFE-5
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
                error_outcome(
                    optional_str(error, "code", "response.error."),
                    optional_str(error, "message", "response.error.") or "the response failed",
                )
            )
        self._stream = _move(STREAM_TRANSITIONS, self._stream, "terminal")
        self._end_status = status  # CORE-LIFE-2
        return outcomes + self._end_response()

    def _error_event(self, event: JSONObject) -> list[Outcome]:
        nested = optional_object(event, "error")  # Open Responses nests it
        source, where = (nested, "error.") if nested is not None else (event, "")
        message = required_str(source, "message", where)
        code = optional_str(source, "code", where)
        self._end_status = "failed"  # unless a terminal event follows (CORE-LIFE-8, CORE-ERR-4)
        ends = self._error_event_ends
        if ends == "ends_stream" or (ends == "nested_ends_stream" and nested is not None):  # CORE-ERR-3
            self._stream = _move(STREAM_TRANSITIONS, self._stream, "stop")
        return [error_outcome(code, message)]  # CORE-ERR-1

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
            phase=label(item, "phase"),  # CORE-TEXT-9: only a label, never malformed
            agent=agent_name(item),  # CORE-TEXT-12: a label too
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
        if item.type == "custom_tool_call":  # CUSTOM-SLOT-2, -5, -6, -7
            return self._bind_consumer(item)
        if item.type == "function_call":  # CUSTOM-SLOT-3
            self._empty_slot("drop")
        return []  # CUSTOM-SLOT-4

    def _bind_consumer(self, item: Item) -> list[Outcome]:
        """Set the slot for a custom call just announced; the old consumer is dropped."""
        self._empty_slot("drop")
        factory = self._consumers.get((item.namespace, item.name)) if item.name is not None else None
        if factory is None or item.call_id is None:
            return []
        try:
            consumer = factory()
        except Exception as exc:  # CUSTOM-FAIL-1: a plug-in may fail in any way
            return [_consumer_failed(item.id, item.call_id, exc)]
        _move(SLOT_TRANSITIONS, self.slot_state, "bind")
        self._slot = Slot(item, item.call_id, consumer)
        return []

    def _empty_slot(self, event: SlotEvent) -> Slot | None:
        """Empty the slot, if it is ACTIVE, and return what it held."""
        slot = self._slot
        if slot is not None:
            _move(SLOT_TRANSITIONS, "ACTIVE", event)
            self._slot = None
        return slot

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
        elif item.state == "DONE":  # CORE-ITEM-14, CORE-CALL-1
            raise Violation("duplicate_event", f"item {item.id!r} is already done")
        item.state = _move(ITEM_TRANSITIONS, item.state, "done")
        if item.type in CATALOGUE_CALL_TYPES:  # CUSTOM-FIN-2: the slot is left alone
            return self._catalogue_call(item, stated, done)
        if item.type not in CALL_TYPES:
            return []  # CUSTOM-FIN-2: another item's done leaves the slot alone
        # A call made at its arguments .done (CORE-CALL-8): this item confirms it, or not.
        called = item.call == "CALLED"
        made_with = (item.call_id, item.name, item.namespace)
        outcomes = self._confirm_identity(item, stated)
        if complete is not None:
            outcomes += self._complete_arguments(item, complete, "the done item's " + str(complete_field))
            if item.call in ("ANNOUNCED", "STREAMING", "TOO_LARGE"):  # its first complete source
                item.call = _move(CALL_TRANSITIONS, item.call, "complete")
        if called:  # every outcome so far is a done_mismatch
            made_call_id = made_with[0]
            assert made_call_id is not None  # a call is made with one (CORE-CALL-5)
            if stated.status == "incomplete":  # CORE-CALL-12
                outcomes.append(self._retracted(item, made_call_id, "its done item is incomplete"))
            elif outcomes or made_with[1:] != (item.name, item.namespace):  # CORE-CALL-13
                outcomes.append(self._retracted(item, made_call_id, "its done item states another call"))
            elif item.call_id != made_call_id:  # CORE-CALL-20: the same call, at the id the response keeps
                outcomes.append(self._readdressed(item, made_call_id))
        elif stated.status == "incomplete":  # CORE-CALL-5
            outcomes += self._resolve_as_error(item, "incomplete", "the call item is incomplete")
        else:
            outcomes += self._resolve(item)  # CORE-CALL-2
        if item.call == "CALLED":  # made at its .done, or now: this item confirms it
            item.call = _move(CALL_TRANSITIONS, item.call, "confirm")
        elif item.call == "TOO_LARGE":
            item.call = _move(CALL_TRANSITIONS, item.call, "done")
        # The call is resolved and every later event for it is refused before its text is
        # read (CORE-CALL-1, CORE-ARGS-4, -7): keep its identity, release its text.
        item.arguments.clear()
        item.complete = None
        return outcomes

    def _confirm_identity(self, item: Item, stated: Item) -> list[Outcome]:
        """CORE-CALL-4, CORE-CALL-17: what the done item states is the call's, the conversation
        keeping it; another name or namespace than announced is a done_mismatch (CORE-CALL-18),
        another call id is not (CORE-CALL-19), and either id names the item (CORE-ITEM-8)."""
        outcomes: list[Outcome] = []
        for name in ("call_id", "name", "namespace"):
            first, again = getattr(item, name), getattr(stated, name)
            if again is None:
                continue
            if name != "call_id" and first is not None and again != first:
                outcomes.append(
                    error_outcome("done_mismatch", f"done item states {name} {again!r}, not {first!r}")
                )
            setattr(item, name, again)
            if name == "call_id":  # the done item names it too, most recently (CORE-ITEM-8)
                self._item_with_call_id[again] = item
        return outcomes

    def _catalogue_call(self, item: Item, stated: Item, done: JSONObject) -> list[Outcome]:
        """A catalogue call's one outcome, from its done item alone (CORE-CALLTYPE-1, -2)."""
        item.hosted = stated.hosted  # the done item says who runs it (CORE-CALLTYPE-4)
        if item.hosted:
            return []  # the server's call: never a client call, never incomplete
        # Its done item is its one complete source (CORE-CALLTYPE-2).
        item.call = _move(CALL_TRANSITIONS, item.call, "complete")
        outcomes = self._confirm_identity(item, stated)
        if stated.status in ("incomplete", "failed"):  # CORE-CALLTYPE-3
            return outcomes + self._resolve_as_error(item, "incomplete", f"the call item is {stated.status}")
        tool_type = CATALOGUE_CALL_TYPES[item.type]
        fields, code, message = _catalogue_input(tool_type, done)
        # CORE-CALL-22: incomplete, then duplicate_call_id, then the input's own faults.
        if item.call_id is None or (tool_type == "mcp_approval" and item.name is None):
            missing = "call_id" if item.call_id is None else "name"
            return outcomes + self._resolve_as_error(item, "incomplete", f"the call has no {missing}")
        if fields is None and code == "incomplete":  # CORE-CALLTYPE-10
            return outcomes + self._resolve_as_error(item, code, message)
        if item.call_id in self._called_ids:  # CORE-CALL-7
            message = f"call id {item.call_id!r} was already called"
            return outcomes + self._resolve_as_error(item, "duplicate_call_id", message)
        if fields is None:  # CORE-CALLTYPE-7, and an approval's arguments as CORE-CALLTYPE-5 says
            return outcomes + self._resolve_as_error(item, code, message)
        self._called(item, item.call_id)
        item.call = _move(CALL_TRANSITIONS, item.call, "confirm")  # by the item that made it
        name = item.name if tool_type == "mcp_approval" else tool_type
        call = {"kind": "tool.call", "item_id": item.id, "call_id": item.call_id, "name": name}
        return [*outcomes, {**call, "tool_type": tool_type, **fields}]

    def _correlated(self, output_index: int | None) -> Item | None:
        """Under `item_correlation: output_index`, the item announced at `output_index` (CORE-ITEM-10)."""
        if not self._correlate_by_index or output_index is None:
            return None
        return self._item_at_output_index.get(output_index)

    def _find_item(
        self,
        event: JSONObject,
        item_types: tuple[str, ...],
        item_id: str | None,
        output_index: int | None,
        by_call_id: bool = False,
    ) -> Item:
        """The item an item event belongs to, by its `item_reference` (CORE-ITEM-2, -3, -4);
        a custom call's input event may name it by its `call_id` instead (CORE-ITEM-8)."""
        call_id = optional_str(event, "call_id") if by_call_id and "call_id" in event else None
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
            ids = "item_id, call_id nor output_index" if by_call_id else "item_id nor output_index"
            raise Violation("malformed_event", f"the event has neither {ids}")
        if item.type not in item_types:
            raise Violation(
                "item_type_mismatch",
                f"{event['type']} does not apply to {item.type} item {item.id!r}",
            )
        return item

    # -- channels ------------------------------------------------------------

    def _text_delta(self, event: JSONObject) -> list[Outcome]:
        content_index, delta, item_id, output_index = delta_fields(event, "content_index")  # CORE-ITEM-7
        item = self._find_item(event, ("message",), item_id, output_index)  # CORE-EVT-8: after the fields
        part = item.parts[content_index]
        state = part.state
        if state == "DONE" or item.state == "DONE":  # CORE-TEXT-6
            raise Violation("late_delta", f"text delta after part {content_index} of {item.id!r} was done")
        routed: Outcome = {
            "kind": "text.delta",
            "item_id": item.id,
            "output_index": item.output_index,  # the item's, whatever the event states (CORE-ITEM-16)
            "content_index": content_index,
            "delta": delta,
        }  # CORE-TEXT-1
        if item.phase is not None:  # CORE-TEXT-9
            routed["phase"] = item.phase
        if item.agent is not None:  # CORE-TEXT-12
            routed["agent"] = item.agent
        outcomes = [routed]
        if state == "DROPPED":  # CORE-LIMIT-3: shown, no longer compared
            return outcomes
        if not part.append(delta):
            part.state = _move(PART_TRANSITIONS, part.state, "overflow")
            message = f"part {content_index} of {item.id!r} passes {MAX_BUFFERED_BYTES} bytes: not compared"
            outcomes.append(error_outcome("too_large", message))
        elif state == "OPEN":
            part.state = _move(PART_TRANSITIONS, part.state, "delta")
        return outcomes

    def _text_done(self, event: JSONObject) -> list[Outcome]:
        content_index = index_or_zero(event, "content_index")
        text = required_str(event, "text")
        item = self._find_item(event, ("message",), *item_reference(event))
        part = item.parts[content_index]
        if part.state == "DONE" or item.state == "DONE":  # CORE-TEXT-7
            raise Violation("duplicate_event", f"part {content_index} of {item.id!r} is already done")
        part.state = _move(PART_TRANSITIONS, part.state, "done")
        outcomes = part.check(text, "output_text.done text")  # CORE-TEXT-11
        done: Outcome = {
            "kind": "text.done",
            "item_id": item.id,
            "content_index": content_index,
            "text": text,
        }
        if item.phase is not None:  # CORE-TEXT-9
            done["phase"] = item.phase
        if item.agent is not None:  # CORE-TEXT-12
            done["agent"] = item.agent
        outcomes.append(done)
        return outcomes

    def _refusal_delta(self, event: JSONObject) -> list[Outcome]:
        content_index, delta, item_id, output_index = delta_fields(event, "content_index")
        item = self._find_item(event, ("message",), item_id, output_index)
        part = item.parts.get(content_index)
        if item.state == "DONE" or (part is not None and part.state == "DONE"):  # CORE-TEXT-6: any channel
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
        index, delta, item_id, output_index = delta_fields(event, index_field)
        item = self._find_item(event, ("reasoning",), item_id, output_index)
        if item.state == "DONE":  # CORE-TEXT-6
            raise Violation("late_delta", f"reasoning delta after item {item.id!r} was done")
        return [
            {"kind": "reasoning.delta", "item_id": item.id, index_field: index, "delta": delta}
        ]  # CORE-TEXT-5

    # -- arguments and calls -------------------------------------------------

    def _arguments_delta(self, event: JSONObject) -> list[Outcome]:
        item_types, custom_input = _ARGUMENT_EVENTS[event["type"]]
        _, delta, item_id, output_index = delta_fields(event, None)
        item = self._find_item(event, item_types, item_id, output_index, custom_input)
        state = item.call
        if state != "STREAMING" and state != "ANNOUNCED":
            if state == "TOO_LARGE":  # CORE-LIMIT-5
                raise Violation("too_large", f"delta dropped: the arguments of {item.id!r} passed the limit")
            raise Violation("late_delta", f"delta after the arguments of {item.id!r} were complete")  # ARGS-4
        if not item.arguments.append(delta):  # CORE-LIMIT-1: the call can never run
            item.call = _move(CALL_TRANSITIONS, item.call, "overflow")
            message = f"the arguments of {item.id!r} pass {MAX_BUFFERED_BYTES} bytes"
            return [self._tool_error(item, "too_large", message)]
        if state == "ANNOUNCED":
            item.call = _move(CALL_TRANSITIONS, item.call, "delta")
        # CORE-ARGS-1, CORE-ARGS-2, CORE-ARGS-3: buffered
        outcome: Outcome = {"kind": "tool.arguments.delta", "item_id": item.id, "delta": delta}
        if custom_input and self._slot is not None:  # CUSTOM-DELTA-1
            return [outcome, *self._consume(item, event, delta)]
        return [outcome]

    def _preview(self, event: JSONObject) -> list[Outcome]:
        """A catalogue call's streamed preview (CORE-CALLTYPE-6, -11), never buffered: its deltas
        (and a shell command's first text) are `tool.arguments.delta`; its `.done` ends it."""
        event_type = event["type"]
        item_type, text_field, index_field = PREVIEW_EVENTS[event_type]
        text = required_str(event, text_field)
        index = optional_index(event, index_field) if index_field else 0
        if index is None:
            raise Violation("malformed_event", f"the event has no {index_field}")
        item = self._find_item(event, (item_type,), *item_reference(event))  # CORE-EVT-8: after the fields
        part = item.parts[index]
        if event_type.endswith(".done"):
            if part.state == "DONE" or item.state == "DONE":  # CORE-CALLTYPE-9
                raise Violation("duplicate_event", f"preview {index} of {item.id!r} is already done")
            part.state = _move(PART_TRANSITIONS, part.state, "done")
            return []
        if part.state == "DONE" or item.state == "DONE":  # CORE-CALLTYPE-8
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
            self._empty_slot("fail")
            return [_consumer_failed(slot.item.id, slot.call_id, exc)]
        if payload is None:
            return []
        return [_consumer_outcome("diff.update", slot, payload)]  # CUSTOM-DELTA-4

    def _release(self, item: Item) -> Slot | None:
        """Empty the slot if it is bound to `item`, whose call resolves, and return what it held."""
        slot = self._slot
        if slot is None or slot.item is not item:
            return None
        return self._empty_slot("release")

    def _finish(self, slot: Slot, complete: str, call_id: str) -> tuple[list[Outcome], str | None]:
        """Run the bound consumer's finish (CUSTOM-FIN-1) for the call `call_id` names (CUSTOM-FIN-8):
        its outcomes, and a rejection message."""
        try:
            answer = slot.consumer.finish(complete, self._now_ms)
        except Exception as exc:  # CUSTOM-FAIL-1: the call goes on
            return [_consumer_failed(slot.item.id, call_id, exc)], None
        if not isinstance(answer, Finished):  # CUSTOM-FIN-3
            return [], answer.message
        outcomes = [_consumer_outcome("diff.update", slot, update, call_id) for update in answer.updates]
        if answer.result is not None:
            outcomes.append(_consumer_outcome("diff.finish", slot, answer.result, call_id))
        return outcomes, None

    def _arguments_done(self, event: JSONObject) -> list[Outcome]:
        item_types, custom_input = _ARGUMENT_EVENTS[event["type"]]
        complete_field = COMPLETE_FIELD[item_types[0]]
        complete = required_str(event, complete_field)
        item = self._find_item(event, item_types, *item_reference(event), custom_input)
        if item.call not in ("ANNOUNCED", "STREAMING", "TOO_LARGE"):  # CORE-ARGS-7
            raise Violation("duplicate_event", f"the arguments of {item.id!r} are already complete")
        item.call = _move(CALL_TRANSITIONS, item.call, "complete")
        outcomes = self._complete_arguments(item, complete, f"{event['type']} {complete_field}")
        if self._call_at_arguments_done and item.call_id is not None and item.name is not None:  # CORE-CALL-8
            outcomes += self._resolve(item)
        return outcomes

    def _complete_arguments(self, item: Item, complete: str, what: str) -> list[Outcome]:
        """Take one complete source of a call's text (CORE-ARGS-5, CORE-ARGS-6): the first is
        compared with the deltas, the done item with the .done, and the later one stands."""
        stated, item.complete = item.complete, complete
        if stated is None:
            return item.arguments.check(complete, what)
        if not _same_text(complete, stated):
            return [
                error_outcome("done_mismatch", f"{what} {complete!r} disagrees with the .done's {stated!r}")
            ]
        return []

    def _resolve(self, item: Item) -> list[Outcome]:
        """Produce the call's one tool.call or tool.error (CORE-CALL-1)."""
        if item.call in _RESOLVED:
            return []
        complete = item.complete
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
            outcomes, rejection = self._finish(slot, complete, item.call_id)
            if rejection is not None:  # CUSTOM-FIN-3
                return self._resolve_as_error(item, "consumer_rejected", rejection)
        self._called(item, item.call_id)
        return [*outcomes, call]

    def _called(self, item: Item, call_id: str) -> None:
        """The call produces its tool.call: its call id is taken for good (CORE-CALL-7)."""
        item.call = _move(CALL_TRANSITIONS, item.call, "call")
        self._called_ids.add(call_id)

    def _resolve_as_error(self, item: Item, code: str, message: str) -> list[Outcome]:
        if item.call in _RESOLVED:
            return []
        item.call = _move(CALL_TRANSITIONS, item.call, "error")
        return [self._tool_error(item, code, message)]

    def _tool_error(self, item: Item, code: str, message: str) -> Outcome:
        """The call's tool.error; its consumer is dropped unfinished (CUSTOM-FIN-4, CUSTOM-END-1)."""
        self._release(item)
        outcome: Outcome = {
            "kind": "tool.error",
            "item_id": item.id,
            "code": code,
            "message": message,
        }
        if item.call_id is not None:
            outcome["call_id"] = item.call_id
        return outcome

    def _retracted(self, item: Item, call_id: str, why: str) -> Outcome:
        """CORE-CALL-12, -13, -14: a call made at its arguments .done, with `call_id`, that its
        producer never confirmed."""
        item.call = _move(CALL_TRANSITIONS, item.call, "retract")
        message = f"the call was made at its arguments .done, but {why}"
        return _call_error("call_retracted", message, item.id, call_id)

    def _readdressed(self, item: Item, made_call_id: str) -> Outcome:
        """CORE-CALL-20: the call made at its arguments .done, confirmed at the call id its done
        item states; both ids stay taken (CORE-CALL-7)."""
        assert item.call_id is not None
        self._called_ids.add(item.call_id)
        message = f"the call made as {made_call_id!r} at its arguments .done is {item.call_id!r}"
        outcome = _call_error("call_id_restated", message, item.id, item.call_id)
        outcome["previous_call_id"] = made_call_id
        return outcome

    def _end_response(self) -> list[Outcome]:
        """The response ends (a terminal event, or close without one): calls still open will
        never come (CORE-CALL-6, CORE-CALL-14); the consumer is dropped unfinished (CUSTOM-END-1)."""
        self._empty_slot("drop")
        outcomes: list[Outcome] = []
        for item in self._items.values():
            is_call = item.type in CALL_TYPES or item.type in CATALOGUE_CALL_TYPES
            if item.state == "DONE" or item.hosted or not is_call:
                continue
            if item.call == "CALLED":
                assert item.call_id is not None  # a call is made with one (CORE-CALL-5)
                message = "the response ended before its done item"
                outcomes.append(self._retracted(item, item.call_id, message))
            else:
                outcomes += self._resolve_as_error(
                    item, "incomplete", "the response ended before the call completed"
                )
        return outcomes


# The events of a call's text: event type -> (the item type they apply to, and whether they
# may name their item by call_id, as a custom call's input events may: CORE-ITEM-8).
_ARGUMENT_EVENTS = {
    "response.function_call_arguments.delta": (("function_call",), False),
    "response.function_call_arguments.done": (("function_call",), False),
    "response.custom_tool_call_input.delta": (("custom_tool_call",), True),
    "response.custom_tool_call_input.done": (("custom_tool_call",), True),
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
