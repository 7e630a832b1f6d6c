"""The ground truth of execution: spec/execution.md section 2 as a state machine.

`Executor` adds to a router's outcomes what a conforming executor does with
them (EXEC-FLOW-1): each `tool.call` is checked (allow-list, argument schema,
permission), made ready, run or held for approval; a retraction cancels its call;
control steps approve, deny, cancel, restart and audit, and a running tool's
report of its end (`tool_ends`, EXEC-RUN-4). Its ledger of records,
one per call id, is durable across restarts (EXEC-RESTART-*); a restated call id
moves its record, which both ids find from then on (EXEC-ONCE-3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .outcomes import Machine, error
from .plans import StreamPlan
from .steps import Control, ControlAction
from .vocabulary import Outcome

UNFINISHED = ("TOOL_READY", "TOOL_RUNNING")


@dataclass
class _Record:
    """One call id's record in the ledger (EXEC-AUDIT-1)."""

    call: Outcome  # the tool.call that created it
    state: str = "STREAMING"
    started: bool = False
    requires_approval: bool = False
    result: Any = None
    code: str | None = None
    retracted: bool = False

    def outcome(self, kind: str, **fields: Any) -> Outcome:
        call = self.call
        return {
            "kind": kind,
            "item_id": call["item_id"],
            "call_id": call["call_id"],
            "name": call["name"],
            **fields,
        }


class Executor:
    """What a conforming executor adds to a router's outcomes, and answers to control steps."""

    def __init__(self, plan: StreamPlan) -> None:
        self.tools = {(tool.namespace, tool.name): tool for tool in plan.execution_tools}
        self.ledger: dict[str, _Record] = {}  # durable, in the order records were created
        self.aliases: dict[str, str] = {}  # a call id restated away -> the one its record has now
        self._new_turn()

    def _new_turn(self) -> None:
        self.turn: dict[str, None] = {}  # the turn's call ids, in the order they first moved
        self.cancelled = False

    def after(self, outcomes: Sequence[Outcome], machine: Machine) -> list[Outcome]:
        """Each router outcome, then the execution outcomes it causes (EXEC-FLOW-1)."""
        answer: list[Outcome] = []
        for outcome in outcomes:
            answer.append(outcome)
            if outcome["kind"] == "tool.call":  # EXEC-FLOW-2
                answer += self._take(outcome, machine.pointers.get(outcome["item_id"]))
            elif outcome["kind"] == "lifecycle" and outcome["event"] == "created":  # EXEC-CANCEL-4
                self._new_turn()
            elif outcome["kind"] == "error" and outcome["code"] == "call_retracted":
                answer += self._retract(outcome)
            elif outcome["kind"] == "error" and outcome["code"] == "call_id_restated":
                self._readdress(outcome)
        return answer

    def record(self, call_id: str | None) -> _Record | None:
        """The record a call id finds: its own, or the one it was restated to (EXEC-ONCE-3)."""
        return self.ledger.get(self.aliases.get(call_id or "", call_id or ""))

    def _readdress(self, restated: Outcome) -> None:
        """EXEC-ONCE-3: the record of the call made as `previous_call_id` moves to the restated call
        id, keeping its place, state and result; nothing runs and no outcome comes of it."""
        previous, call_id = restated["previous_call_id"], restated["call_id"]
        record = self.ledger.get(previous)
        if record is None or record.call["item_id"] != restated["item_id"] or self.record(call_id):
            return
        record.call = {**record.call, "call_id": call_id}
        self.ledger = {(call_id if key == previous else key): value for key, value in self.ledger.items()}
        self.aliases = {alias: (call_id if to == previous else to) for alias, to in self.aliases.items()}
        self.aliases[previous] = call_id
        self.turn = {(call_id if known == previous else known): None for known in self.turn}

    def _retract(self, retraction: Outcome) -> list[Outcome]:
        """A retraction cancels its call if it has not ended, and marks it (EXEC-RETRACT-1 .. -6)."""
        record = self.record(retraction["call_id"])
        if record is None or record.call["item_id"] != retraction["item_id"]:
            return []
        record.retracted = True
        if record.state not in UNFINISHED:
            return []
        return self._move(record, "CANCELLED", "tool.cancelled", started=record.started)

    def _take(self, call: Outcome, pointer: str | None) -> list[Outcome]:
        known = self.record(call["call_id"])
        if known is not None:  # EXEC-ONCE-2
            if known.state in UNFINISHED:
                self.turn[known.call["call_id"]] = None
            duplicate = {"kind": "tool.duplicate", "item_id": call["item_id"], "call_id": call["call_id"]}
            return [{**duplicate, "name": call["name"], "state": known.state}]
        record = self.ledger[call["call_id"]] = _Record(call)
        self.turn[call["call_id"]] = None
        if self.cancelled:  # EXEC-CANCEL-2
            return self._move(record, "CANCELLED", "tool.cancelled", started=False)
        tool = self.tools.get((call.get("namespace"), call["name"]))
        if tool is None or tool.type != call["tool_type"] or not tool.allow:  # EXEC-CHECK-1
            return self._move(record, "FAILED", "tool.rejected", code="unknown_tool")
        if (
            tool.parameters is not None and call["tool_type"] == "function" and pointer is not None
        ):  # EXEC-CHECK-2
            return self._move(record, "FAILED", "tool.rejected", code="invalid_arguments", pointer=pointer)
        if not tool.permitted:  # EXEC-CHECK-3
            return self._move(record, "FAILED", "tool.rejected", code="not_permitted")
        record.requires_approval = tool.requires_approval
        ready = self._move(record, "TOOL_READY", "tool.ready", requires_approval=tool.requires_approval)
        return ready if tool.requires_approval else ready + self._start(record)  # EXEC-STATE-1

    def _move(self, record: _Record, state: str, kind: str, **fields: Any) -> list[Outcome]:
        record.state = state
        if "code" in fields:
            record.code = fields["code"]
        return [record.outcome(kind, **fields)]

    def _start(self, record: _Record) -> list[Outcome]:
        """EXEC-RUN-1: the tool runs, and returns, fails, or goes on (EXEC-RUN-2)."""
        tool = self.tools.get((record.call.get("namespace"), record.call["name"]))
        if tool is None or not tool.allow:  # EXEC-RESTART-6: a release that withdrew the tool
            return self._move(record, "FAILED", "tool.rejected", code="unknown_tool")
        record.started = True
        outcomes = self._move(record, "TOOL_RUNNING", "tool.started")
        if tool.behaviour == "fails":
            return outcomes + self._move(record, "FAILED", "tool.failed", code="tool_failed")
        if tool.behaviour in ("result", "returns_input"):  # EXEC-RUN-1: given the call's input
            given = record.call.get("arguments", record.call.get("input"))
            return outcomes + self._succeed(record, tool.result if tool.behaviour == "result" else given)
        return outcomes

    def _succeed(self, record: _Record, result: Any) -> list[Outcome]:
        record.result = result
        return self._move(record, "TOOL_SUCCEEDED", "tool.succeeded", result=result)

    def control(self, step: Control) -> list[Outcome]:
        action = step.action
        if action is ControlAction.CANCEL:  # EXEC-CANCEL-1, -3
            self.cancelled = True
            outcomes = []
            for call_id in self.turn:
                record = self.ledger[call_id]
                if record.state in UNFINISHED:
                    outcomes += self._move(record, "CANCELLED", "tool.cancelled", started=record.started)
            return outcomes
        if action is ControlAction.AUDIT:  # EXEC-AUDIT-2
            return [_audit(record) for record in self.ledger.values()]
        if action is ControlAction.RESTART:  # EXEC-RESTART-1 .. -4, -6
            self._new_turn()
            if step.tools is not None:
                self.tools = {(tool.namespace, tool.name): tool for tool in step.tools}
            outcomes = []
            for record in self.ledger.values():
                if record.state == "TOOL_RUNNING":
                    outcomes += self._move(record, "FAILED", "tool.failed", code="interrupted")
                elif record.state == "TOOL_READY":
                    self.turn[record.call["call_id"]] = None
                    outcomes.append(record.outcome("tool.ready", requires_approval=True))
            return outcomes
        if action is ControlAction.TOOL_ENDS:  # EXEC-RUN-4; a call no longer running: EXEC-STATE-3
            running = self.record(step.call_id)
            if running is None or running.state != "TOOL_RUNNING":
                return []
            if step.fails is not None:
                return self._move(running, "FAILED", "tool.failed", code="tool_failed")
            return self._succeed(running, step.result)
        awaiting = self.record(step.call_id)
        if (
            awaiting is None or awaiting.state != "TOOL_READY" or not awaiting.requires_approval
        ):  # EXEC-APPROVE-2
            return [error("not_awaiting_approval")]
        if action is ControlAction.APPROVE:
            return self._start(awaiting)
        return self._move(awaiting, "FAILED", "tool.rejected", code="denied")


def _audit(record: _Record) -> Outcome:
    call = record.call
    fields = ("call_id", "item_id", "name", "tool_type", "namespace", "arguments", "input")
    audit = {"kind": "tool.audit", **{name: call[name] for name in fields if name in call}}
    audit.update(state=record.state, started=record.started, retracted=record.retracted)
    if record.state == "TOOL_SUCCEEDED":
        audit["result"] = record.result
    if record.state == "FAILED":
        audit["code"] = record.code
    return audit
