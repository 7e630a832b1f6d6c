"""The reference executor of the streamroute `execution` profile.

Theory of operation
-------------------
A router says when a call is complete; the executor decides whether it runs,
and makes sure it runs at most once. `feed(outcomes)` takes a router's
outcomes, passes each one on and appends the execution outcomes it causes.
`cancel`, `approve`, `deny`, `recover`, `audit` and `supply` are the control steps of
spec/execution.md; `finish` and `fail` end a call whose tool went on running
(EXEC-RUN-2). A router's `error` `call_retracted` (option `tool_call_point:
arguments_done`) withdraws a call the executor already took: the executor
cancels the call if it has not ended, and marks its record `retracted` in any
case (EXEC-RETRACT-*). Its `error` `call_id_restated` (the same option) says
that a call it took is kept under another call id: the record moves there,
and both ids find it (EXEC-ONCE-3). Tools are injected functions and the ledger is
injected storage: the executor itself has no sockets, threads or clocks.

The per-call state machine of spec/execution.md section 2 is `TRANSITIONS`,
and every move goes through `_move`: it looks the move up there, then writes
it to the ledger, one transaction, before any outcome is produced or any tool
is called. A call without a record is STREAMING (the router holds it); its
first move inserts its record, which claims the call id once and for all
(`Ledger.insert`); every later move is a compare-and-set on the state it was
read in (`Ledger.update`). A move that loses to another consumer does
nothing.

Memory holds only what a restart may lose: the tools, the turn (the calls
taken since the last `lifecycle` `created`, and whether it was cancelled) and
the stop hooks of tools still running in this process. Requirement ids in
comments refer to spec/execution.md.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

from .ledger import UNFINISHED, Ledger, Record, State
from .types import Outcome

Trigger = Literal["accept", "reject", "cancel", "start", "return", "fail", "interrupt", "retract"]

# state -> {trigger: next state}; a move not listed here is a bug (EXEC-STATE-1).
TRANSITIONS: dict[State, dict[Trigger, State]] = {
    "STREAMING": {"accept": "TOOL_READY", "reject": "FAILED", "cancel": "CANCELLED"},
    "TOOL_READY": {
        "start": "TOOL_RUNNING",
        "reject": "FAILED",
        "cancel": "CANCELLED",
        "retract": "CANCELLED",
    },
    "TOOL_RUNNING": {
        "return": "TOOL_SUCCEEDED",
        "fail": "FAILED",
        "interrupt": "FAILED",
        "cancel": "CANCELLED",
        "retract": "CANCELLED",
    },
    "TOOL_SUCCEEDED": {},
    "FAILED": {},
    "CANCELLED": {},
}

# The outcome each trigger produces, and the record fields it carries.
_OUTCOMES: dict[Trigger, tuple[str, tuple[str, ...]]] = {
    "accept": ("tool.ready", ("requires_approval",)),
    "reject": ("tool.rejected", ("code", "message", "pointer")),
    "cancel": ("tool.cancelled", ("started",)),
    "start": ("tool.started", ()),
    "return": ("tool.succeeded", ("result",)),
    "fail": ("tool.failed", ("code", "message")),
    "interrupt": ("tool.failed", ("code", "message")),
    "retract": ("tool.cancelled", ("started",)),
}


class _Pending:
    def __repr__(self) -> str:
        return "PENDING"


PENDING: Any = _Pending()
"""What a tool returns to go on running after the step that started it (EXEC-RUN-2)."""


def _permit_all(payload: Any) -> bool:
    return True


@dataclass(frozen=True)
class Tool:
    """One tool of the application's allow-list."""

    name: str
    run: Callable[[Any], Any]  # the call's input (`_payload`) -> JSON result, or PENDING
    type: str = "function"  # a tool_type (spec/core.md section 5.1)
    namespace: str | None = None
    parameters: dict[str, Any] | None = None  # JSON Schema of the arguments (EXEC-CHECK-2)
    requires_approval: bool = False
    permit: Callable[[Any], bool] = _permit_all  # EXEC-CHECK-3
    stop: Callable[[str], None] | None = None  # asked once to stop a cancelled running call


@dataclass
class _Turn:
    calls: dict[str, None] = field(default_factory=dict)  # call ids, in the order taken
    cancelled: bool = False


# The record field that holds each call type's input: what a tool runs on and a schema checks.
_INPUT_FIELD = {
    "custom": "input",
    "apply_patch": "operation",
    "shell": "action",
    "local_shell": "action",
    "computer": "actions",
}


def _payload(record: Record) -> Any:
    """A call's complete input (EXEC-CHECK-2): arguments for function, tool_search and
    mcp_approval calls, the done item's operation, action or actions for the others."""
    return getattr(record, _INPUT_FIELD.get(record.tool_type, "arguments"))


def _validator(schema: dict[str, Any]) -> Validator:
    return _validator_of(json.dumps(schema, sort_keys=True))


@functools.lru_cache(maxsize=256)
def _validator_of(text: str) -> Validator:
    """One validator per schema, its schema checked once: a validator keeps no state between uses."""
    schema = json.loads(text)
    cls = validator_for(schema, default=Draft202012Validator)
    cls.check_schema(schema)  # a broken schema is the application's bug: fail at once
    return cls(schema)


def _pointer(error: ValidationError) -> str:
    """The JSON Pointer of a fault in the arguments (EXEC-CHECK-5)."""
    path = list(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        required = error.validator_value if isinstance(error.validator_value, list) else []
        path += [name for name in required if name not in instance][:1]
    elif error.validator == "additionalProperties" and isinstance(instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        extra = [k for k in instance if k not in known and not any(re.search(p, k) for p in patterns)]
        path += extra[:1]
    # RFC 6901 escaping, as the harness's schemas.json_pointer does: the reference imports no harness.
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _outcome(record: Record, trigger: Trigger) -> Outcome:
    kind, names = _OUTCOMES[trigger]
    outcome: Outcome = {
        "kind": kind,
        "item_id": record.item_id,
        "call_id": record.call_id,
        "name": record.name,
    }
    for name in names:
        value = getattr(record, name)
        if name != "pointer" or value is not None:
            outcome[name] = value
    return outcome


def _duplicate(delivered: Record, state: State) -> Outcome:
    """EXEC-ONCE-2: named after the item delivered again, so it goes with that item's tool.call."""
    return {
        "kind": "tool.duplicate",
        "item_id": delivered.item_id,
        "call_id": delivered.call_id,
        "name": delivered.name,
        "state": state,
    }


def _audit(record: Record) -> Outcome:
    """A record as a `tool.audit` outcome (EXEC-AUDIT-1): its fields that have a value."""
    fields = dataclasses.asdict(record)
    keep_result = record.state == "TOOL_SUCCEEDED"
    return {
        "kind": "tool.audit",
        **{k: v for k, v in fields.items() if v is not None or (k == "result" and keep_result)},
    }


def _result(record: Record) -> Outcome:
    """A record's saved result as a `tool.result` outcome (EXEC-SUPPLY-1)."""
    outcome: Outcome = {
        "kind": "tool.result",
        "item_id": record.item_id,
        "call_id": record.call_id,
        "name": record.name,
        "state": record.state,
        "started": record.started,
    }
    if record.state == "TOOL_SUCCEEDED":
        outcome["result"] = record.result
    elif record.code is not None:
        outcome.update(code=record.code, message=record.message)
    return outcome


def _not_awaiting(call_id: str) -> Outcome:
    return {
        "kind": "error",
        "code": "not_awaiting_approval",
        "message": f"call {call_id!r} is not awaiting approval",
    }


class Executor:
    """Runs the calls of a router's outcomes. See the module docstring."""

    def __init__(self, tools: Iterable[Tool], ledger: Ledger, *, consumer: str = "main") -> None:
        self._tools = {(tool.namespace, tool.name): tool for tool in tools}
        self._validators = {
            key: _validator(tool.parameters)
            for key, tool in self._tools.items()
            if tool.parameters is not None and tool.type in ("function", "tool_search")
        }
        self._ledger = ledger
        self._consumer = consumer  # a restart recovers only this consumer's calls (EXEC-RESTART-4)
        self._turn = _Turn()
        self._stops: dict[str, Callable[[str], None]] = {}

    # -- the stream ----------------------------------------------------------

    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        """A router's outcomes, each followed by the execution outcomes it causes (EXEC-FLOW-1, -3)."""
        answer: list[Outcome] = []
        for outcome in outcomes:
            answer.append(outcome)
            kind = outcome.get("kind")
            if kind == "tool.call":  # EXEC-FLOW-2: nothing else can make a call ready
                answer += self._take(outcome)
            elif kind == "error" and outcome.get("code") == "call_retracted":
                answer += self._retract(outcome.get("call_id"), outcome.get("item_id"))
            elif kind == "error" and outcome.get("code") == "call_id_restated":
                previous, call_id = outcome.get("previous_call_id"), outcome.get("call_id")
                self._readdress(previous, call_id, outcome.get("item_id"))
            elif kind == "lifecycle" and outcome.get("event") == "created":
                self._turn = _Turn()  # EXEC-CANCEL-4
        return answer

    def _take(self, call: Outcome) -> list[Outcome]:
        record = Record(
            call_id=call["call_id"],
            item_id=call["item_id"],
            name=call["name"],
            tool_type=call["tool_type"],
            consumer=self._consumer,
            namespace=call.get("namespace"),
            arguments=copy.deepcopy(call.get("arguments")),
            input=call.get("input"),
            operation=copy.deepcopy(call.get("operation")),
            action=copy.deepcopy(call.get("action")),
            actions=copy.deepcopy(call.get("actions")),
            server_label=call.get("server_label"),
        )
        known = self._ledger.get(record.call_id)
        if known is None:
            trigger, changes = self._decide(record)
            moved = self._move(record, trigger, **changes)
            if moved is not None:
                self._turn.calls[moved.call_id] = None
                outcomes = [_outcome(moved, trigger)]
                if trigger == "accept" and not moved.requires_approval:
                    outcomes += self._start(moved)
                return outcomes
            known = self._ledger.get(record.call_id)  # another consumer claimed it meanwhile
            assert known is not None
        if known.state in UNFINISHED:
            self._turn.calls[known.call_id] = None  # still within reach of this turn's cancel
        return [_duplicate(record, known.state)]  # EXEC-ONCE-2

    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        """The first move of a new call: cancelled, rejected or ready (EXEC-CANCEL-2, EXEC-CHECK-4)."""
        if self._turn.cancelled:
            return "cancel", {}
        tool = self._allowed(record)
        if tool is None:  # EXEC-CHECK-1
            shown = f"{record.namespace}.{record.name}" if record.namespace else record.name
            return "reject", {
                "code": "unknown_tool",
                "message": f"{record.tool_type} tool {shown!r} is not allowed",
            }
        payload = _payload(record)
        validator = self._validators.get((record.namespace, record.name))
        error = None if validator is None else next(iter(validator.iter_errors(payload)), None)
        if error is not None:  # EXEC-CHECK-2
            pointer = _pointer(error)
            message = f"arguments at {pointer or '/'}: {error.message}"
            return "reject", {"code": "invalid_arguments", "message": message, "pointer": pointer}
        try:
            permitted = bool(tool.permit(copy.deepcopy(payload)))
        except Exception as exc:  # a permission rule that fails denies: fail closed
            permitted = False
            reason = f"the permission rule failed: {exc}"
        else:
            reason = "the permission rule refuses this call"
        if not permitted:  # EXEC-CHECK-3
            return "reject", {"code": "not_permitted", "message": reason}
        # EXEC-APPROVE-1: an MCP approval request asks for an approval, whatever the tool says
        return "accept", {"requires_approval": tool.requires_approval or record.tool_type == "mcp_approval"}

    def _allowed(self, record: Record) -> Tool | None:
        """The tool of the allow-list the call names: same name, namespace and type (EXEC-CHECK-1)."""
        tool = self._tools.get((record.namespace, record.name))
        return tool if tool is not None and tool.type == record.tool_type else None

    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        """The router withdrew a call it made at its arguments .done (EXEC-RETRACT-1 .. -6)."""
        # Read again after a lost compare-and-set: another consumer moved the call meanwhile.
        # Only READY -> RUNNING -> final can happen in between, so this ends.
        while True:
            record = self._ledger.get(call_id) if isinstance(call_id, str) else None
            if record is None or record.item_id != item_id or record.retracted:  # EXEC-RETRACT-6
                return []
            if record.state in UNFINISHED:  # EXEC-RETRACT-1, -2: it does no more than it did
                moved = self._move(record, "retract", retracted=True)
                if moved is not None:
                    self._stop(moved.call_id)
                    return [_outcome(moved, "retract")]
            elif self._ledger.update(dataclasses.replace(record, retracted=True), record.state):
                return []  # EXEC-RETRACT-3: final; the record says what ran (EXEC-RETRACT-4)

    def _readdress(self, previous: object, call_id: object, item_id: object) -> None:
        """The call taken as `previous` is kept as `call_id` (EXEC-ONCE-3): its record moves there,
        and nothing runs again."""
        if not isinstance(previous, str) or not isinstance(call_id, str):
            return
        while True:  # read again after a lost compare-and-set, as _retract does
            record = self._ledger.get(previous)
            if record is None or record.call_id != previous or record.item_id != item_id:
                return  # no record of that call, or moved already
            if self._ledger.readdress(dataclasses.replace(record, call_id=call_id), previous):
                self._turn.calls = {
                    (call_id if known == previous else known): None for known in self._turn.calls
                }
                if previous in self._stops:
                    self._stops[call_id] = self._stops.pop(previous)
                return
            if self._ledger.get(call_id) is not None:  # the new id is another call's: nothing moves
                return

    # -- moves ---------------------------------------------------------------

    def _move(self, record: Record, trigger: Trigger, **changes: Any) -> Record | None:
        """The one place a call changes state (EXEC-STATE-1, EXEC-STATE-2); None if it lost."""
        state = TRANSITIONS[record.state][trigger]
        moved = dataclasses.replace(record, state=state, consumer=self._consumer, **changes)
        if record.state == "STREAMING":
            written = self._ledger.insert(moved)
        else:
            written = self._ledger.update(moved, record.state)
        return moved if written else None

    def _emit(self, record: Record, trigger: Trigger, **changes: Any) -> list[Outcome]:
        moved = self._move(record, trigger, **changes)
        return [] if moved is None else [_outcome(moved, trigger)]

    def _start(self, ready: Record) -> list[Outcome]:
        """Start a ready call and run its tool (EXEC-RUN-1, EXEC-ONCE-1)."""
        tool = self._allowed(ready)
        if tool is None:  # rebuilt with another allow-list since the call was ready
            return self._emit(ready, "reject", code="unknown_tool", message="the tool is no longer allowed")
        running = self._move(ready, "start", started=True)
        if running is None:
            return []
        outcomes = [_outcome(running, "start")]
        payload = _payload(running)
        try:
            value = tool.run(copy.deepcopy(payload))
        except Exception as exc:  # whatever the tool raises fails the call, never the executor
            return outcomes + self._fail(running, str(exc) or type(exc).__name__)
        if value is PENDING:  # EXEC-RUN-2
            if tool.stop is not None:
                self._stops[running.call_id] = tool.stop
            return outcomes
        return outcomes + self._succeed(running, value)

    def _succeed(self, running: Record, value: Any) -> list[Outcome]:
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:  # the result goes to the ledger and to the model
            return self._fail(running, f"the tool's result is not JSON: {exc}")
        return self._emit(running, "return", result=value)

    def _fail(self, running: Record, message: str) -> list[Outcome]:
        return self._emit(running, "fail", code="tool_failed", message=message)

    # -- control steps -------------------------------------------------------

    def cancel(self) -> list[Outcome]:
        """Cancel the turn (EXEC-CANCEL-1 .. -3, -5)."""
        self._turn.cancelled = True
        outcomes: list[Outcome] = []
        for call_id in self._turn.calls:
            record = self._ledger.get(call_id)
            if record is None or record.state not in UNFINISHED:
                continue
            outcomes += self._emit(record, "cancel")
            self._stop(call_id)
        return outcomes

    def _stop(self, call_id: str) -> None:
        """Ask a tool still running in this process to stop, once (EXEC-CANCEL-1, EXEC-RETRACT-2)."""
        stop = self._stops.pop(call_id, None)
        if stop is not None:
            with contextlib.suppress(Exception):  # the call is cancelled whatever the hook does
                stop(call_id)

    def _awaiting(self, call_id: str) -> Record | None:
        record = self._ledger.get(call_id)
        if record is None or record.state != "TOOL_READY" or not record.requires_approval:
            return None
        return record

    def approve(self, call_id: str) -> list[Outcome]:
        record = self._awaiting(call_id)
        if record is None:  # EXEC-APPROVE-2
            return [_not_awaiting(call_id)]
        return self._start(record)

    def deny(self, call_id: str) -> list[Outcome]:
        record = self._awaiting(call_id)
        if record is None:  # EXEC-APPROVE-2
            return [_not_awaiting(call_id)]
        return self._emit(record, "reject", code="denied", message="approval was denied")

    def recover(self) -> list[Outcome]:
        """Once, when the process starts: settle this consumer's unfinished calls (section 8)."""
        outcomes: list[Outcome] = []
        for record in self._ledger.unfinished():
            if record.consumer != self._consumer:
                continue
            if record.state == "TOOL_RUNNING":  # EXEC-RESTART-2: never run twice
                message = "the process stopped while the tool ran; it may or may not have run"
                outcomes += self._emit(record, "interrupt", code="interrupted", message=message)
                continue
            self._turn.calls[record.call_id] = None
            if record.requires_approval:  # EXEC-RESTART-3, EXEC-APPROVE-3
                outcomes.append(_outcome(record, "accept"))
            else:
                outcomes += self._start(record)
        return outcomes

    def audit(self) -> list[Outcome]:
        """Every record of the ledger as a `tool.audit` outcome (EXEC-AUDIT-2)."""
        return [_audit(record) for record in self._ledger.records()]

    def supply(self, call_id: str) -> list[Outcome]:
        """A call's saved result, as a steer's required input asks for it, never run again
        (EXEC-SUPPLY-1, -2)."""
        record = self._ledger.get(call_id)
        if record is None:
            message = f"call {call_id!r} has no record: it cannot be supplied"
            return [{"kind": "error", "code": "unknown_call", "message": message}]
        return [_result(record)]

    # -- tools that went on running (EXEC-RUN-2) -----------------------------

    def _running(self, call_id: str) -> Record | None:
        record = self._ledger.get(call_id)
        self._stops.pop(call_id, None)
        return record if record is not None and record.state == "TOOL_RUNNING" else None

    def finish(self, call_id: str, result: Any) -> list[Outcome]:
        """A running call's tool returned; nothing if the call ended meanwhile (EXEC-STATE-3)."""
        record = self._running(call_id)
        return [] if record is None else self._succeed(record, result)

    def fail(self, call_id: str, message: str) -> list[Outcome]:
        """A running call's tool failed; nothing if the call ended meanwhile (EXEC-STATE-3)."""
        record = self._running(call_id)
        return [] if record is None else self._fail(record, message)
