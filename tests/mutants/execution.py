"""Mutants of the `execution` profile (spec/execution.md): each is the reference session (its
executor, ledger or declared tools) with one piece changed, the way a real application gets it wrong."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import broken_executors
from streamroute.reference import Outcome, Router
from streamroute.reference.executor import (
    TRANSITIONS,
    Executor,
    Tool,
    Trigger,
    _outcome,
    _pointer,
    _validator,
)
from streamroute.reference.ledger import UNFINISHED, Ledger, Record, SqliteLedger, State
from streamroute.reference.router import CALL_TYPES, CATALOGUE_CALL_TYPES
from streamroute.reference.session import ExecutionSession, declared_tool
from streamroute.reference.sse import ByteRouter
from streamroute.wire.session import is_step

from . import mutant

Tools = Sequence[Mapping[str, Any]]


class Execution(ExecutionSession):
    """The reference session claiming execution: what each mutant changes one piece of."""

    profiles = ("core", "execution")
    options: ClassVar[dict[str, Any]] = {"call_types": [*CALL_TYPES.values(), *CATALOGUE_CALL_TYPES.values()]}
    executor: ClassVar[type[Executor]] = Executor

    def __init__(self, tools: Tools) -> None:
        point = self.options.get("tool_call_point", "output_item_done")
        super().__init__(lambda: ByteRouter(Router(tool_call_point=point)), self.declared(tools))

    def declared(self, tools: Tools) -> Tools:
        return tools

    def _start(self) -> None:  # the reference's, with the mutant's executor
        self._ledger = self._open_ledger()
        self._executor = self.executor(self._tools, self._ledger)
        self._router = self._new_router()


def _without(kind: str, outcomes: Iterable[Outcome]) -> list[Outcome]:
    return [outcome for outcome in outcomes if outcome["kind"] != kind]


# -- flow and states (sections 1, 2) ------------------------------------------------


class _CausesFirst(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        answer: list[Outcome] = []
        for outcome in outcomes:
            passed, *caused = super().feed([outcome])
            answer += [*caused, passed]
        return answer


class ExecutionBeforeItsCause(Execution):
    """Puts the execution outcomes a router outcome causes before that outcome, not after it."""

    executor = _CausesFirst


class _Withholds(Executor):
    """Passes on every router outcome but those of kind `withheld`."""

    withheld: str

    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        return _without(self.withheld, super().feed(outcomes))


class _KeepsCallsToItself(_Withholds):
    withheld = "tool.call"


class KeepsCallsToItself(Execution):
    """Keeps the router's tool.call to itself, passing on only what it decided about the call.

    So the application is handed no call at all: on a core vector it breaks CORE-CALL-2 (CORE-CALLTYPE-1
    for a call of the catalogue) as well."""

    executor = _KeepsCallsToItself


class _RecordsRouterErrors(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        outcomes = list(outcomes)
        for refused in outcomes:
            if refused["kind"] == "tool.error" and "call_id" in refused:
                record = Record(refused["call_id"], refused["item_id"], "", "function", self._consumer)
                self._ledger.insert(dataclasses.replace(record, state="FAILED", code=refused["code"]))
        return super().feed(outcomes)


class RecordsRouterErrors(Execution):
    """Keeps a FAILED record of every call the router reports with tool.error."""

    executor = _RecordsRouterErrors


class _NoReadyWithoutApproval(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        return [o for o in super().feed(outcomes) if o["kind"] != "tool.ready" or o["requires_approval"]]


class NoReadyWithoutApproval(Execution):
    """Starts a call that needs no approval without announcing it ready first."""

    executor = _NoReadyWithoutApproval


class _LedgerOver:
    """A ledger over the real one: each mutant ledger below changes only what it overrides."""

    def __init__(self, ledger: SqliteLedger) -> None:
        self._ledger = ledger

    def get(self, call_id: str) -> Record | None:
        return self._ledger.get(call_id)

    def insert(self, record: Record) -> bool:
        return self._ledger.insert(record)

    def update(self, record: Record, expected: State) -> bool:
        return self._ledger.update(record, expected)

    def readdress(self, record: Record, previous: str) -> bool:
        return self._ledger.readdress(record, previous)

    def records(self) -> list[Record]:
        return self._ledger.records()

    def unfinished(self) -> list[Record]:
        return self._ledger.unfinished()

    def close(self) -> None:
        self._ledger.close()


class _RunningInMemory(_LedgerOver):
    """A ledger that keeps the move to TOOL_RUNNING in memory and writes only the call's end."""

    def __init__(self, ledger: SqliteLedger) -> None:
        super().__init__(ledger)
        self._running: dict[str, Record] = {}

    def get(self, call_id: str) -> Record | None:
        return self._running.get(call_id) or self._ledger.get(call_id)

    def update(self, record: Record, expected: State) -> bool:
        known = self.get(record.call_id)
        if known is None or known.state != expected:
            return False
        if record.state == "TOOL_RUNNING":
            self._running[record.call_id] = record
            return True
        if self._running.pop(record.call_id, None) is not None:
            expected = "TOOL_READY"  # what the file still says
        return self._ledger.update(record, expected)

    def readdress(self, record: Record, previous: str) -> bool:
        return self._ledger.readdress(record, previous)

    def records(self) -> list[Record]:
        return [self._running.get(record.call_id, record) for record in self._ledger.records()]

    def unfinished(self) -> list[Record]:
        return [self._running.get(record.call_id, record) for record in self._ledger.unfinished()]


class RunningStateInMemory(Execution):
    """Keeps a started call's TOOL_RUNNING in memory and writes only its end: a restart finds it ready."""

    def _open_ledger(self) -> Any:
        return _RunningInMemory(super()._open_ledger())


class _CancelsFinalCalls(Executor):
    def cancel(self) -> list[Outcome]:
        outcomes = super().cancel()
        for call_id in self._turn.calls:
            record = self._ledger.get(call_id)
            if record is not None and record.state in ("TOOL_SUCCEEDED", "FAILED"):
                cancelled = dataclasses.replace(record, state="CANCELLED")
                if self._ledger.update(cancelled, record.state):
                    outcomes.append(_outcome(cancelled, "cancel"))
        return outcomes


class CancelReachesFinalCalls(Execution):
    """Marks every call of the turn cancelled, also those that had already finished."""

    executor = _CancelsFinalCalls


# -- checks (section 3) --------------------------------------------------------------


class _AllowsByName(Executor):
    def _allowed(self, record: Record) -> Tool | None:
        return next(
            (t for t in self._tools.values() if (t.name, t.type) == (record.name, record.tool_type)), None
        )


class AllowsByNameOnly(Execution):
    """Looks a call up on the allow-list by name and type, whatever its namespace."""

    executor = _AllowsByName


class _AllowsAnyType(Executor):
    def _allowed(self, record: Record) -> Tool | None:
        return self._tools.get((record.namespace, record.name))


class AllowsAnyType(Execution):
    """Looks a call up on the allow-list by namespace and name, whatever its type."""

    executor = _AllowsAnyType


class _CatalogueInputDropped(Executor):
    def _take(self, call: Outcome) -> list[Outcome]:
        kept = ("operation", "action", "actions", "server_label")
        return super()._take({name: value for name, value in call.items() if name not in kept})


class CatalogueInputDropped(Execution):
    """Records and runs a call's arguments or input only, as for function and custom calls."""

    executor = _CatalogueInputDropped


class _ApprovalByServer(Executor):
    def _allowed(self, record: Record) -> Tool | None:
        if record.tool_type != "mcp_approval" or record.server_label is None:
            return super()._allowed(record)
        return super()._allowed(dataclasses.replace(record, name=record.server_label))


class ApprovalByServer(Execution):
    """Looks an MCP approval request up on the allow-list by its server's label, not by its MCP tool."""

    executor = _ApprovalByServer


class _ChecksFunctionsOnly(Executor):
    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        if record.tool_type == "function":
            return super()._decide(record)
        validators, self._validators = self._validators, {}
        try:
            return super()._decide(record)
        finally:
            self._validators = validators


class ChecksFunctionsOnly(Execution):
    """Checks only function calls against the tool's parameters: a tool search's arguments go unchecked."""

    executor = _ChecksFunctionsOnly


class _ApprovalAsDeclared(Executor):
    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        trigger, changes = super()._decide(record)
        tool = self._allowed(record)
        if trigger == "accept" and tool is not None:
            changes = {**changes, "requires_approval": tool.requires_approval}
        return trigger, changes


class ApprovalAsDeclared(Execution):
    """Asks for an approval only when the tool declares one, so an MCP approval request runs at once."""

    executor = _ApprovalAsDeclared


class AllowsOfferedTools(Execution):
    """Takes every tool the request offered the model for allowed."""

    def declared(self, tools: Tools) -> Tools:
        return [{**tool, "allow": True} for tool in tools]


class _Repointed(Executor):
    """Rejects invalid arguments as the reference does, with a pointer of its own making."""

    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        trigger, changes = super()._decide(record)
        if changes.get("code") == "invalid_arguments":
            changes["pointer"] = self.pointer(record, changes["pointer"])
        return trigger, changes

    def pointer(self, record: Record, pointer: str) -> str:
        raise NotImplementedError


class _PointsAtParent(_Repointed):
    def pointer(self, record: Record, pointer: str) -> str:  # the failing value's path, and no further
        error = next(self._validators[(record.namespace, record.name)].iter_errors(record.arguments))
        return "".join(f"/{part}" for part in error.absolute_path)


class PointsAtParent(Execution):
    """Gives the schema error's own path as the pointer: a missing property is pointed at by its parent."""

    executor = _PointsAtParent


class _PointerUnescaped(_Repointed):
    def pointer(self, record: Record, pointer: str) -> str:
        return pointer.replace("~1", "/").replace("~0", "~")


class PointerUnescaped(Execution):
    """Joins the pointer's keys with `/` without RFC 6901 escapes."""

    executor = _PointerUnescaped


class IgnoresPermission(Execution):
    """Never asks the tool's permission rule."""

    def declared(self, tools: Tools) -> Tools:
        return [{**tool, "permitted": True} for tool in tools]


class _PermissionFirst(Executor):
    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        tool = self._allowed(record)
        payload = record.arguments if record.tool_type == "function" else record.input
        if tool is not None and not self._turn.cancelled and not tool.permit(payload):
            return "reject", {"code": "not_permitted", "message": "the permission rule refuses this call"}
        return super()._decide(record)


class PermissionBeforeSchema(Execution):
    """Asks the permission rule before checking the arguments against the schema."""

    executor = _PermissionFirst


# -- approval (section 4) -------------------------------------------------------------


class _AsksFirst(Executor):
    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        tool = self._allowed(record)
        if tool is not None and tool.requires_approval and not self._turn.cancelled:
            return "accept", {"requires_approval": True}
        return super()._decide(record)


class AsksBeforeChecks(Execution):
    """Asks a person to approve a call before checking its arguments and permission."""

    executor = _AsksFirst


class _IgnoresUnexpectedApproval(Executor):
    def approve(self, call_id: str) -> list[Outcome]:
        return [] if self._awaiting(call_id) is None else super().approve(call_id)

    def deny(self, call_id: str) -> list[Outcome]:
        return [] if self._awaiting(call_id) is None else super().deny(call_id)


class IgnoresUnexpectedApproval(Execution):
    """Ignores an approve or deny for a call that is not awaiting approval, without a word."""

    executor = _IgnoresUnexpectedApproval


class _ApprovalsInMemory(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__(tools, ledger)
        self._asked: set[str] = set()

    def _take(self, call: Outcome) -> list[Outcome]:
        outcomes = super()._take(call)
        self._asked |= {
            o["call_id"] for o in outcomes if o["kind"] == "tool.ready" and o["requires_approval"]
        }
        return outcomes

    def _awaiting(self, call_id: str) -> Record | None:
        return super()._awaiting(call_id) if call_id in self._asked else None

    def recover(self) -> list[Outcome]:
        return _without("tool.ready", super().recover())  # it remembers no question asked before


class ApprovalsInMemory(Execution):
    """Keeps the calls awaiting approval in memory: after a restart none is announced or approvable."""

    executor = _ApprovalsInMemory


# -- running, exactly once (sections 5, 6) -------------------------------------------


class _ResultDropped(Executor):
    def _succeed(self, running: Record, value: Any) -> list[Outcome]:
        return super()._succeed(running, None)


class ResultDropped(Execution):
    """Records a call succeeded without the value its tool returned, which only the model is given."""

    executor = _ResultDropped


class _FailuresSucceed(Executor):
    def _fail(self, running: Record, message: str) -> list[Outcome]:
        return self._succeed(running, None)


class FailingToolSucceeds(Execution):
    """Swallows what a tool raises and records the call as succeeded with a null result."""

    executor = _FailuresSucceed


class PendingToolSucceeds(Execution):
    """Waits for a tool that goes on running and records its call succeeded at once."""

    def declared(self, tools: Tools) -> Tools:
        return [{key: value for key, value in tool.items() if key != "pending"} for tool in tools]


class _ReportsIgnored(Executor):
    def finish(self, call_id: str, result: Any) -> list[Outcome]:
        return []

    def fail(self, call_id: str, message: str) -> list[Outcome]:
        return []


class RunningToolReportIgnored(Execution):
    """Never listens for the end of a tool that went on running: its call stays TOOL_RUNNING."""

    executor = _ReportsIgnored


class _ReportEndsTheOldest(Executor):
    def _oldest_running(self, call_id: str) -> str:
        running = [record.call_id for record in self._ledger.records() if record.state == "TOOL_RUNNING"]
        return running[0] if running else call_id

    def finish(self, call_id: str, result: Any) -> list[Outcome]:
        return super().finish(self._oldest_running(call_id), result)

    def fail(self, call_id: str, message: str) -> list[Outcome]:
        return super().fail(self._oldest_running(call_id), message)


class ReportEndsTheOldestCall(Execution):
    """Hands each report of a running tool to the call that started first, whatever call it names."""

    executor = _ReportEndsTheOldest


class _ReportedFailureSucceeds(Executor):
    def fail(self, call_id: str, message: str) -> list[Outcome]:
        return self.finish(call_id, None)


class ReportedFailureSucceeds(Execution):
    """Takes a running tool's report of failure for its return: the call succeeds with a null result."""

    executor = _ReportedFailureSucceeds


class _ReportedResultDropped(Executor):
    def finish(self, call_id: str, result: Any) -> list[Outcome]:
        return super().finish(call_id, None)


class ReportedResultDropped(Execution):
    """Succeeds the call of a running tool that reports its end without the result it reported."""

    executor = _ReportedResultDropped


class _ReportOverwrites(Executor):
    """Writes a report onto the record of a call in one of `ended`, as an UPDATE by call id would."""

    ended: ClassVar[frozenset[State]] = frozenset()

    def _overwrite(self, call_id: str, trigger: Trigger, **changes: Any) -> list[Outcome] | None:
        record = self._ledger.get(call_id)
        if record is None or record.state not in self.ended:
            return None
        state = TRANSITIONS["TOOL_RUNNING"][trigger]
        written = dataclasses.replace(record, state=state, **changes)
        self._ledger.update(written, record.state)
        return [_outcome(written, trigger)]

    def finish(self, call_id: str, result: Any) -> list[Outcome]:
        overwritten = self._overwrite(call_id, "return", result=result)
        return super().finish(call_id, result) if overwritten is None else overwritten

    def fail(self, call_id: str, message: str) -> list[Outcome]:
        overwritten = self._overwrite(call_id, "fail", code="tool_failed", message=message, result=None)
        return super().fail(call_id, message) if overwritten is None else overwritten


class _ReportOverwritesCancelled(_ReportOverwrites):
    ended = frozenset({"CANCELLED"})


class ReportAfterCancelTaken(Execution):
    """Records the result a cancelled tool reports anyway: the cancelled call succeeds."""

    executor = _ReportOverwritesCancelled


class _ReportOverwritesInterrupted(_ReportOverwrites):
    ended = frozenset({"FAILED"})


class ReportAfterInterruptTaken(Execution):
    """Records the result reported for a call a restart failed interrupted: the failure is undone."""

    executor = _ReportOverwritesInterrupted


class _ReportOverwritesReady(_ReportOverwrites):
    ended = frozenset({"TOOL_READY"})


class ReportOfAnUnstartedCallTaken(Execution):
    """Takes a tool's report for a call still awaiting approval: the call ends without being run."""

    executor = _ReportOverwritesReady


class _ReportOverwritesEnded(_ReportOverwrites):
    ended = frozenset({"TOOL_SUCCEEDED", "FAILED"})


class SecondReportTaken(Execution):
    """Takes every report of a tool, the last one winning: a second report replaces the call's end."""

    executor = _ReportOverwritesEnded


def _handing(tool: Tool, given: Callable[[Any], Any], *, to_rule: bool, to_tool: bool) -> Tool:
    """The tool, its permission rule or its run (or both) handed `given(input)` instead of the input."""
    run, permit = tool.run, tool.permit
    return dataclasses.replace(
        tool,
        run=(lambda payload: run(given(payload))) if to_tool else run,
        permit=(lambda payload: permit(given(payload))) if to_rule else permit,
    )


class _RuleGivenNothing(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__([_handing(t, lambda _: None, to_rule=True, to_tool=False) for t in tools], ledger)


class PermissionRuleGivenNothing(Execution):
    """Asks the permission rule about a call without its arguments, as a callback that takes none."""

    executor = _RuleGivenNothing


class _ToolGivenNothing(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__([_handing(t, lambda _: None, to_rule=False, to_tool=True) for t in tools], ledger)


class ToolGivenNothing(Execution):
    """Calls the tool without its call's input, as a callback that takes none."""

    executor = _ToolGivenNothing


class _ToolGivenText(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        text = functools.partial(json.dumps, separators=(",", ":"))
        super().__init__([_handing(t, text, to_rule=False, to_tool=True) for t in tools], ledger)


class ToolGivenTheText(Execution):
    """Hands the tool its call's input as JSON text, unparsed, as the producer streamed it."""

    executor = _ToolGivenText


class RestartKeepsTheOldTools(Execution):
    """Restarts with the tools it was first given: a new release's allow-list never takes effect."""

    def feed(self, step: Any) -> list[Outcome]:
        if is_step(step) and step.get("control") == "restart":
            step = {"control": "restart"}
        return super().feed(step)


class _StartsAnyKnownTool(Executor):
    def __init__(
        self, tools: Iterable[Tool], ledger: Ledger, known: Mapping[tuple[str | None, str], Tool]
    ) -> None:
        super().__init__(tools, ledger)
        self._known = known

    def _allowed(self, record: Record) -> Tool | None:
        if record.state == "STREAMING":  # the checks of a new call
            return super()._allowed(record)
        return super()._allowed(record) or self._known.get((record.namespace, record.name))


class AllowListCheckedOnlyWhenReady(Execution):
    """Checks the allow-list when a call becomes ready, never as it starts: a withdrawn tool still runs."""

    def __init__(self, tools: Tools) -> None:
        self._known: dict[tuple[str | None, str], Tool] = {}  # every tool ever declared, allowed or not
        super().__init__(tools)

    def _declare(self, declared: Sequence[Mapping[str, Any]]) -> None:
        super()._declare(declared)
        every = [declared_tool({**tool, "allow": True}) for tool in declared]
        self._known.update({(t.namespace, t.name): t for t in every if t is not None})

    def _start(self) -> None:
        self._ledger = self._open_ledger()
        self._executor = _StartsAnyKnownTool(self._tools, self._ledger, self._known)
        self._router = self._new_router()


class _WithdrawnCancelled(Executor):
    def _start(self, ready: Record) -> list[Outcome]:
        return self._emit(ready, "cancel") if self._allowed(ready) is None else super()._start(ready)


class WithdrawnToolCallCancelled(Execution):
    """Cancels a ready call whose tool a new release withdrew, instead of rejecting it unknown_tool."""

    executor = _WithdrawnCancelled


class _WithdrawnNotPermitted(Executor):
    def _start(self, ready: Record) -> list[Outcome]:
        if self._allowed(ready) is None:
            return self._emit(ready, "reject", code="not_permitted", message="the tool is not permitted")
        return super()._start(ready)


class WithdrawnToolNotPermitted(Execution):
    """Rejects a ready call whose tool a new release withdrew as not_permitted, as if its rule refused."""

    executor = _WithdrawnNotPermitted


class _DuplicateIgnored(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        return _without("tool.duplicate", super().feed(outcomes))


class DuplicateIgnored(Execution):
    """Drops a call whose call id already has a record without reporting tool.duplicate."""

    executor = _DuplicateIgnored


# -- cancellation (section 7) ----------------------------------------------------------


class _CancelSpares(Executor):
    """Cancels the turn's calls but those in state `spared`, which it leaves as they are."""

    spared: str

    def cancel(self) -> list[Outcome]:
        calls = self._turn.calls
        spared = [c for c in calls if (r := self._ledger.get(c)) is not None and r.state == self.spared]
        for call_id in spared:
            del calls[call_id]
        try:
            return super().cancel()
        finally:
            calls.update(dict.fromkeys(spared))


class _CancelsOnlyReady(_CancelSpares):
    spared = "TOOL_RUNNING"


class CancelLeavesRunningCalls(Execution):
    """Cancels only the calls that have not started: a running tool goes on."""

    executor = _CancelsOnlyReady


class _CancelsOnlyExisting(Executor):
    def cancel(self) -> list[Outcome]:
        outcomes = super().cancel()
        self._turn.cancelled = False
        return outcomes


class CancelOnlyExistingCalls(Execution):
    """Cancels the calls it has at the cancel; a call that completes afterwards still runs."""

    executor = _CancelsOnlyExisting


class _CancelRepeats(Executor):
    def cancel(self) -> list[Outcome]:
        before = {c: r.state for c in self._turn.calls if (r := self._ledger.get(c)) is not None}
        outcomes = super().cancel()
        return outcomes + [
            _outcome(record, "cancel")
            for call_id, state in before.items()
            if state == "CANCELLED" and (record := self._ledger.get(call_id)) is not None
        ]


class CancelRepeats(Execution):
    """Reports tool.cancelled again, at every cancel, for the calls an earlier cancel cancelled."""

    executor = _CancelRepeats


class _CancelOutlivesTurn(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        cancelled = self._turn.cancelled
        answer = super().feed(outcomes)
        self._turn.cancelled = self._turn.cancelled or cancelled
        return answer


class CancelOutlivesTurn(Execution):
    """Never clears a cancel: the next response's calls are cancelled too."""

    executor = _CancelOutlivesTurn


# -- retraction (section 7) ---------------------------------------------------------------


class Retraction(Execution):
    """At tool_call_point arguments_done, where the router retracts calls: what retraction mutants change."""

    options: ClassVar[dict[str, Any]] = {"tool_call_point": "arguments_done"}


def _record_of(executor: Executor, call_id: object) -> Record | None:
    """The record of the call id a retraction names."""
    return executor._ledger.get(call_id) if isinstance(call_id, str) else None


class _RestatedCallIdIgnored(Executor):
    def _readdress(self, previous: object, call_id: object, item_id: object) -> None:
        return None


class RestatedCallIdIgnored(Retraction):
    """Keeps a re-addressed call's record under the id it was made with, which the response does not hold."""

    executor = _RestatedCallIdIgnored


class _RestatedCallIdRunsAgain(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        answer: list[Outcome] = []
        for outcome in outcomes:
            answer += super().feed([outcome])
            record = _record_of(self, outcome.get("previous_call_id"))
            if outcome.get("code") == "call_id_restated" and record is not None:
                again = {**_outcome(record, "accept"), "kind": "tool.call", "call_id": outcome["call_id"]}
                answer += self._take({**again, "tool_type": record.tool_type, "arguments": record.arguments})
        return answer


class RestatedCallIdRunsAgain(Retraction):
    """Takes a call re-addressed by its done item for a new call under the new id, and runs it again."""

    executor = _RestatedCallIdRunsAgain


class _RestatedUnfinishedOnly(Executor):
    def _readdress(self, previous: object, call_id: object, item_id: object) -> None:
        record = _record_of(self, previous)
        if record is None or record.state in UNFINISHED:
            super()._readdress(previous, call_id, item_id)


class RestatedUnfinishedOnly(Retraction):
    """Re-addresses only a call still under way: a finished call's record keeps the id it ran under."""

    executor = _RestatedUnfinishedOnly


class _SupplyRunsAgain(Executor):
    def supply(self, call_id: str) -> list[Outcome]:
        record = self._ledger.get(call_id)
        return (
            super().supply(call_id)
            if record is None
            else [_outcome(record, "start"), *super().supply(call_id)]
        )


class SupplyRunsAgain(Execution):
    """Answers a required input by calling the tool again, its saved result notwithstanding."""

    executor = _SupplyRunsAgain


class _TakenHere(Executor):
    """An executor that remembers, in memory, the call ids this process took."""

    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__(tools, ledger)
        self._taken: set[str] = set()

    def _take(self, call: Outcome) -> list[Outcome]:
        self._taken.add(call["call_id"])
        return super()._take(call)


class _SupplyFromMemory(_TakenHere):
    def supply(self, call_id: str) -> list[Outcome]:
        if call_id not in self._taken:
            return [{"kind": "error", "code": "unknown_call", "message": f"{call_id!r} was not taken here"}]
        return super().supply(call_id)


class SupplyFromMemory(Execution):
    """Supplies only the results of calls this process took: after a restart, every call is unknown."""

    executor = _SupplyFromMemory


class _SupplyFinishedOnly(Executor):
    def supply(self, call_id: str) -> list[Outcome]:
        record = self._ledger.get(call_id)
        if record is not None and record.state not in ("TOOL_SUCCEEDED", "FAILED"):
            return [{"kind": "error", "code": "unknown_call", "message": f"{call_id!r} has no result yet"}]
        return super().supply(call_id)


class SupplyFinishedOnly(Execution):
    """Supplies only the results of finished calls: one awaiting approval or running is unknown_call."""

    executor = _SupplyFinishedOnly


class _SupplyUnknownSilent(Executor):
    def supply(self, call_id: str) -> list[Outcome]:
        return [] if self._ledger.get(call_id) is None else super().supply(call_id)


class SupplyUnknownSilent(Execution):
    """Supplies nothing for a call id it has no record of, without a word."""

    executor = _SupplyUnknownSilent


class _SupplyUnknownFailed(Executor):
    def supply(self, call_id: str) -> list[Outcome]:
        if self._ledger.get(call_id) is not None:
            return super().supply(call_id)
        unknown = {"kind": "tool.result", "item_id": "", "call_id": call_id, "name": ""}
        return [
            {**unknown, "state": "FAILED", "started": False, "code": "unknown_call", "message": "no record"}
        ]


class SupplyUnknownFailed(Execution):
    """Answers a call id it has no record of with a failed result, as if the call had failed."""

    executor = _SupplyUnknownFailed


class _SupplyAnyCallId(Executor):
    def supply(self, call_id: str) -> list[Outcome]:
        if self._ledger.get(call_id) is not None:
            return super().supply(call_id)
        unknown = {"kind": "tool.result", "item_id": "", "call_id": call_id, "name": ""}
        return [{**unknown, "state": "TOOL_SUCCEEDED", "started": False, "result": None}]


class SupplyAnyCallId(Execution):
    """Answers a call id it has no record of with an empty result, as if the call had succeeded."""

    executor = _SupplyAnyCallId


class _RetractsOnlyRunning(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        return (
            [] if record is not None and record.state == "TOOL_READY" else super()._retract(call_id, item_id)
        )


class RetractionLeavesReadyCalls(Retraction):
    """Cancels a retracted call only once it runs: one awaiting approval stays ready."""

    executor = _RetractsOnlyRunning


class _LetsRetractedRun(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        if record is None or record.state != "TOOL_RUNNING" or record.item_id != item_id:
            return super()._retract(call_id, item_id)
        self._ledger.update(dataclasses.replace(record, retracted=True), record.state)
        return []


class RetractionLetsRunningCallsRun(Retraction):
    """Marks a retracted call that is running, but lets it run on: what started is left to finish."""

    executor = _LetsRetractedRun


class _CancelsFinishedCalls(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        outcomes = super()._retract(call_id, item_id)
        if record is not None and record.item_id == item_id and record.state not in UNFINISHED:
            outcomes.append(_outcome(record, "retract"))
        return outcomes


class RetractionReportsFinishedCalls(Retraction):
    """Reports a retracted call that had already finished as tool.cancelled."""

    executor = _CancelsFinishedCalls


class _RetractionUnmarked(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        outcomes = super()._retract(call_id, item_id)
        record = _record_of(self, call_id)
        if record is not None and record.retracted:
            self._ledger.update(dataclasses.replace(record, retracted=False), record.state)
        return outcomes


class RetractionNotRecorded(Retraction):
    """Cancels a retracted call without marking its record retracted."""

    executor = _RetractionUnmarked


class _RetractionsInMemory(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__(tools, ledger)
        self._withdrawn: set[str] = set()

    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        if record is None or record.item_id != item_id or record.state != "TOOL_READY":
            return super()._retract(call_id, item_id)
        self._withdrawn.add(record.call_id)
        return [_outcome(dataclasses.replace(record, state="CANCELLED"), "retract")]

    def _awaiting(self, call_id: str) -> Record | None:
        return None if call_id in self._withdrawn else super()._awaiting(call_id)


class RetractionsInMemory(Retraction):
    """Keeps the retraction of a call that had not started in memory: after a restart it is ready again."""

    executor = _RetractionsInMemory


class _RetractsByCallId(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        return super()._retract(call_id, item_id if record is None else record.item_id)


class RetractionByCallIdOnly(Retraction):
    """Applies a retraction to the record of its call id, whatever item made that record."""

    executor = _RetractsByCallId


# -- restart, audit (sections 8, 9) -----------------------------------------------------


class RouterSurvivesRestart(Execution):
    """Restarts the executor but keeps the router it had, with the arguments it was buffering."""

    def _start(self) -> None:
        router = getattr(self, "_router", None)
        super()._start()
        self._router = router or self._router


class _RerunsInterrupted(Executor):
    def recover(self) -> list[Outcome]:
        for record in self._ledger.unfinished():
            if record.state == "TOOL_RUNNING":
                self._ledger.update(dataclasses.replace(record, state="TOOL_READY"), "TOOL_RUNNING")
        return super().recover()


class RerunsInterruptedCall(Execution):
    """Puts a call a restart finds running back to ready, so the restart runs it again."""

    executor = _RerunsInterrupted


class _ResumesAwaiting(Executor):
    def recover(self) -> list[Outcome]:
        outcomes: list[Outcome] = []
        for outcome in super().recover():
            awaiting = self._ledger.get(outcome["call_id"]) if outcome["kind"] == "tool.ready" else None
            outcomes += [outcome] if awaiting is None else self._start(awaiting)
        return outcomes


class ResumesCallsAwaitingApproval(Execution):
    """Starts every call a restart finds ready, also one still awaiting approval."""

    executor = _ResumesAwaiting


class DefersRecovery(Execution):
    """Reports what a restart recovered only with the next step, not at the restart."""

    def __init__(self, tools: Tools) -> None:
        self._deferred: list[Outcome] = []
        super().__init__(tools)

    def feed(self, step: Any) -> list[Outcome]:
        outcomes, self._deferred = self._deferred + super().feed(step), []
        if is_step(step) and step["control"] == "restart":
            self._deferred, outcomes = outcomes, []
        return outcomes

    def close(self) -> list[Outcome]:
        return self._deferred + super().close()


class _RecoversReadyFirst(Executor):
    def recover(self) -> list[Outcome]:
        return sorted(super().recover(), key=lambda outcome: outcome["kind"] == "tool.failed")


class RecoversReadyCallsFirst(Execution):
    """Recovers in two passes, ready calls before interrupted ones, not in the order they were recorded."""

    executor = _RecoversReadyFirst


class _AuditsDeltas(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__(tools, ledger)
        self._streamed: dict[str, str] = {}

    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        outcomes = list(outcomes)
        for delta in outcomes:
            if delta["kind"] == "tool.arguments.delta":
                self._streamed[delta["item_id"]] = self._streamed.get(delta["item_id"], "") + delta["delta"]
        return super().feed(outcomes)

    def _take(self, call: Outcome) -> list[Outcome]:
        streamed = self._streamed.pop(call["item_id"], None)
        if streamed is not None and call["tool_type"] == "function":
            with contextlib.suppress(ValueError):
                call = {**call, "arguments": json.loads(streamed)}
        return super()._take(call)


class AuditsDeltas(Execution):
    """Records a call's arguments as its deltas spelled them, not as the router's tool.call gives them.

    Deltas that split a surrogate pair cannot be recorded, and feed raises: CORE-EVT-2 as well."""

    executor = _AuditsDeltas


class _AuditsThisProcess(_TakenHere):
    def audit(self) -> list[Outcome]:
        return [record for record in super().audit() if record["call_id"] in self._taken]


class AuditsThisProcessOnly(Execution):
    """Lists in the audit only the calls this process took, not every record of the ledger."""

    executor = _AuditsThisProcess


# -- more shapes of the same requirements ------------------------------------------------


class _PassesItsRecord(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        return [
            {**o, "arguments": json.dumps(o["arguments"], separators=(",", ":"))}
            if o["kind"] == "tool.call"
            else o
            for o in super().feed(outcomes)
        ]


class PassesTheRecordedCall(Execution):
    """Passes each tool.call on as its ledger holds it, the arguments as the JSON text it stored."""

    executor = _PassesItsRecord


class _SwallowsLifecycle(_Withholds):
    withheld = "lifecycle"


class LifecycleSwallowed(Execution):
    """Reads the router's lifecycle outcomes to track the turn, and passes none of them on."""

    executor = _SwallowsLifecycle


_EXECUTION_KINDS = (
    "tool.ready",
    "tool.rejected",
    "tool.started",
    "tool.succeeded",
    "tool.failed",
    "tool.cancelled",
)


class _OneStepLate(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__(tools, ledger)
        self._queued: list[Outcome] = []

    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        answer = super().feed(outcomes)
        queued, self._queued = self._queued, [o for o in answer if o["kind"] in _EXECUTION_KINDS]
        return [o for o in answer if o["kind"] not in _EXECUTION_KINDS] + queued


class ExecutionOneStepLate(Execution):
    """Queues the execution outcomes of each step and hands them over with the next step's."""

    executor = _OneStepLate


class ControlOutcomesDeferred(Execution):
    """Answers a control step with nothing, and hands its outcomes over with the next step."""

    def __init__(self, tools: Tools) -> None:
        self._deferred: list[Outcome] = []
        super().__init__(tools)

    def feed(self, step: Any) -> list[Outcome]:
        outcomes = super().feed(step)
        if is_step(step) and step["control"] != "restart":
            self._deferred, outcomes = self._deferred + outcomes, []
            return outcomes
        outcomes, self._deferred = self._deferred + outcomes, []
        return outcomes

    def close(self) -> list[Outcome]:
        return self._deferred + super().close()


class _RejectsRouterRefusals(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        answer: list[Outcome] = []
        for outcome in super().feed(outcomes):
            answer.append(outcome)
            if outcome["kind"] == "tool.error" and "call_id" in outcome:
                refused = {"item_id": outcome["item_id"], "call_id": outcome["call_id"], "name": ""}
                answer.append(
                    {"kind": "tool.rejected", **refused, "code": "router_refused", "message": outcome["code"]}
                )
        return answer


class RouterRefusalsRejected(Execution):
    """Reports each call the router refuses with tool.error as rejected, a tool.rejected of its own."""

    executor = _RejectsRouterRefusals


class _RecordsPreviews(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        outcomes = list(outcomes)
        for delta in outcomes:
            if delta["kind"] == "tool.arguments.delta" and self._ledger.get(delta["item_id"]) is None:
                self._ledger.insert(
                    Record(delta["item_id"], delta["item_id"], "", "function", self._consumer)
                )
        return super().feed(outcomes)


class RecordsStreamingCalls(Execution):
    """Records a call when its arguments start to stream, keyed by item id, before the router completes it."""

    executor = _RecordsPreviews


class _ReadyAgainAtApproval(Executor):
    def approve(self, call_id: str) -> list[Outcome]:
        record = self._awaiting(call_id)
        outcomes = super().approve(call_id)
        return outcomes if record is None else [_outcome(record, "accept"), *outcomes]


class ReadyAgainAtApproval(Execution):
    """Announces an approved call ready once more before it starts."""

    executor = _ReadyAgainAtApproval


class _SkipsRunning(Executor):
    def _start(self, ready: Record) -> list[Outcome]:
        outcomes = super()._start(ready)
        ended = any(o["kind"] in ("tool.succeeded", "tool.failed") for o in outcomes)
        return _without("tool.started", outcomes) if ended else outcomes


class RunningSkippedForQuickTools(Execution):
    """Reports a tool that returns at once as succeeded or failed without its tool.started."""

    executor = _SkipsRunning


class _FinalStateInMemory(_LedgerOver):
    """A ledger that keeps the moves to a final state from TOOL_RUNNING in memory."""

    def __init__(self, ledger: SqliteLedger) -> None:
        super().__init__(ledger)
        self._ended: dict[str, Record] = {}

    def get(self, call_id: str) -> Record | None:
        return self._ended.get(call_id) or self._ledger.get(call_id)

    def update(self, record: Record, expected: State) -> bool:
        if expected == "TOOL_RUNNING" and record.state not in UNFINISHED:
            known = self.get(record.call_id)
            if known is None or known.state != expected:
                return False
            self._ended[record.call_id] = record
            return True
        return self._ledger.update(record, expected)

    def records(self) -> list[Record]:
        return [self._ended.get(record.call_id, record) for record in self._ledger.records()]

    def unfinished(self) -> list[Record]:
        return [r for r in self._ledger.unfinished() if r.call_id not in self._ended]


class FinalStateNotWritten(Execution):
    """Keeps a call's end in memory and writes only its start: a restart finds a finished call running."""

    def _open_ledger(self) -> Any:
        return _FinalStateInMemory(super()._open_ledger())


class _DeferredWrites(_LedgerOver):
    """A ledger that writes each move with the next step, not at once (what is owed is lost at close,
    as at a crash)."""

    def __init__(self, ledger: SqliteLedger) -> None:
        super().__init__(ledger)
        self._owed: list[tuple[Record, State | None]] = []

    def flush(self) -> None:
        owed, self._owed = self._owed, []
        for record, expected in owed:
            if expected is None:
                self._ledger.insert(record)
            else:
                self._ledger.update(record, expected)

    def get(self, call_id: str) -> Record | None:
        owed = [record for record, _ in self._owed if record.call_id == call_id]
        return owed[-1] if owed else self._ledger.get(call_id)

    def insert(self, record: Record) -> bool:
        if self.get(record.call_id) is not None:
            return False
        self._owed.append((record, None))
        return True

    def update(self, record: Record, expected: State) -> bool:
        known = self.get(record.call_id)
        if known is None or known.state != expected:
            return False
        self._owed.append((record, expected))
        return True

    def records(self) -> list[Record]:
        records = {record.call_id: record for record in self._ledger.records()}
        records.update((record.call_id, record) for record, _ in self._owed)
        return list(records.values())

    def unfinished(self) -> list[Record]:
        return [record for record in self.records() if record.state in UNFINISHED]


class WritesDeferredToNextStep(Execution):
    """Writes each move to the ledger at the next step: a restart loses the moves of the step before it."""

    def _open_ledger(self) -> Any:
        return _DeferredWrites(super()._open_ledger())

    def feed(self, step: Any) -> list[Outcome]:
        ledger = self._ledger
        if not (is_step(step) and step["control"] == "restart") and isinstance(ledger, _DeferredWrites):
            ledger.flush()
        return super().feed(step)


class _ReopensCancelled(Executor):
    def _awaiting(self, call_id: str) -> Record | None:
        record = self._ledger.get(call_id)
        if (
            record is not None
            and record.state == "CANCELLED"
            and record.requires_approval
            and not record.started
        ):
            reopened = dataclasses.replace(record, state="TOOL_READY")
            if self._ledger.update(reopened, "CANCELLED"):
                return reopened
        return super()._awaiting(call_id)


class ApprovalReopensCancelledCall(Execution):
    """Takes an approval of a call cancelled before it started as the person's wish to run it after all."""

    executor = _ReopensCancelled


class _RetractionCancelsFinal(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        outcomes = super()._retract(call_id, item_id)
        final = record is not None and record.item_id == item_id and record.state not in UNFINISHED
        if final and record is not None:
            cancelled = dataclasses.replace(record, state="CANCELLED", retracted=True)
            if self._ledger.update(cancelled, record.state):
                outcomes.append(_outcome(cancelled, "retract"))
        return outcomes


class RetractionCancelsFinalCall(Retraction):
    """Moves a retracted call that had already ended to CANCELLED, as a retraction of a call still running."""

    executor = _RetractionCancelsFinal


class _RetriesFailedOnReplay(Executor):
    def _take(self, call: Outcome) -> list[Outcome]:
        known = self._ledger.get(call["call_id"])
        if known is None or known.state != "FAILED" or known.started:
            return super()._take(call)
        trigger, changes = self._decide(dataclasses.replace(known, state="STREAMING"))
        moved = dataclasses.replace(known, **changes, state=TRANSITIONS["STREAMING"][trigger])
        if not self._ledger.update(moved, "FAILED"):
            return super()._take(call)
        outcomes = [_outcome(moved, trigger)]
        return outcomes + (self._start(moved) if trigger == "accept" and not moved.requires_approval else [])


class ReplayedRejectionRetried(Execution):
    """Checks a replayed call that was rejected before once more, and runs it if it now passes."""

    executor = _RetriesFailedOnReplay


class _SecondCancelKills(Executor):
    def cancel(self) -> list[Outcome]:
        before = {
            c: r
            for c in self._turn.calls
            if (r := self._ledger.get(c)) is not None and r.state == "CANCELLED"
        }
        outcomes = super().cancel()
        for record in before.values():
            killed = dataclasses.replace(record, state="FAILED", code="killed", message="cancelled twice")
            if self._ledger.update(killed, "CANCELLED"):
                outcomes.append(_outcome(killed, "fail"))
        return outcomes


class SecondCancelKills(Execution):
    """Takes a second cancel for a harder one: the calls the first cancelled are failed as killed."""

    executor = _SecondCancelKills


class _ValidatesRequiredOnly(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__(tools, ledger)
        self._validators = {
            key: _validator({"type": "object", "required": tool.parameters.get("required", [])})
            for key, tool in self._tools.items()
            if tool.parameters is not None and tool.type in ("function", "tool_search")
        }


class ValidatesRequiredOnly(Execution):
    """Checks only that a call's required properties are there, not their types or values."""

    executor = _ValidatesRequiredOnly


def _coerced(value: Any, schema: Any) -> Any:
    """`value` with each scalar made the type its schema names, as a lax validator does first."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        return {key: _coerced(item, properties.get(key)) for key, item in value.items()}
    if schema.get("type") == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


class _CoercesBeforeChecking(Executor):
    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        tool = self._allowed(record)
        if record.tool_type != "function" or tool is None or tool.parameters is None:
            return super()._decide(record)
        return super()._decide(
            dataclasses.replace(record, arguments=_coerced(record.arguments, tool.parameters))
        )


class CoercesArgumentsBeforeChecking(Execution):
    """Coerces each argument to the type its schema names before checking it, as a lax validator does."""

    executor = _CoercesBeforeChecking


class _SchemaPathPointer(_Repointed):
    def pointer(self, record: Record, pointer: str) -> str:
        error = next(self._validators[(record.namespace, record.name)].iter_errors(record.arguments))
        return "".join(f"/{part}" for part in error.absolute_schema_path)


class PointsIntoTheSchema(Execution):
    """Gives the schema error's path in the schema as the pointer, not the path in the arguments."""

    executor = _SchemaPathPointer


class _PermissionAtStart(Executor):
    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        tool = self._allowed(record)
        if tool is None:
            return super()._decide(record)
        key = (tool.namespace, tool.name)
        self._tools[key] = dataclasses.replace(tool, permit=lambda payload: True)  # not asked here
        try:
            return super()._decide(record)
        finally:
            self._tools[key] = tool

    def _start(self, ready: Record) -> list[Outcome]:
        tool = self._allowed(ready)
        payload = ready.arguments if ready.tool_type == "function" else ready.input
        if tool is not None and not tool.permit(payload):
            return self._emit(
                ready, "reject", code="not_permitted", message="the permission rule refuses this call"
            )
        return super()._start(ready)


class PermissionAskedAtStart(Execution):
    """Asks the tool's permission rule when the call starts, after it was announced ready."""

    executor = _PermissionAtStart


class _NotPermittedIsDenied(Executor):
    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        trigger, changes = super()._decide(record)
        if changes.get("code") == "not_permitted":
            changes = {**changes, "code": "denied"}
        return trigger, changes


class NotPermittedIsDenied(Execution):
    """Reports a call its permission rule refuses as denied, as a person's refusal."""

    executor = _NotPermittedIsDenied


class _SchemaFirst(Executor):
    def __init__(
        self, tools: Iterable[Tool], ledger: Ledger, schemas: Mapping[tuple[str | None, str], Any]
    ) -> None:
        super().__init__(tools, ledger)
        self._schemas = schemas

    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        schema = self._schemas.get((record.namespace, record.name))
        payload = record.arguments if record.tool_type == "function" else None
        error = (
            None
            if schema is None or payload is None
            else next(iter(_validator(schema).iter_errors(payload)), None)
        )
        if error is not None and not self._turn.cancelled:
            return "reject", {
                "code": "invalid_arguments",
                "message": error.message,
                "pointer": _pointer(error),
            }
        return super()._decide(record)


class SchemaBeforeAllowList(Execution):
    """Checks a call's arguments against its tool's schema before it looks the tool up on the allow-list."""

    def __init__(self, tools: Tools) -> None:
        # the application's registry of tools, the allow-list apart: every declared tool's schema
        self._schemas = {
            (t.get("namespace"), t.get("name", t["type"])): t["parameters"]
            for t in tools
            if "parameters" in t
        }
        super().__init__(tools)

    def _start(self) -> None:
        self._ledger = self._open_ledger()
        self._executor = _SchemaFirst(self._tools, self._ledger, self._schemas)
        self._router = self._new_router()


class _DenialNotPermitted(Executor):
    def deny(self, call_id: str) -> list[Outcome]:
        record = self._awaiting(call_id)
        if record is None:
            return super().deny(call_id)
        return self._emit(record, "reject", code="not_permitted", message="approval was denied")


class DenialIsNotPermitted(Execution):
    """Rejects a denied call as not_permitted, the code of a permission rule."""

    executor = _DenialNotPermitted


class _DecidedCallCode(Executor):
    def approve(self, call_id: str) -> list[Outcome]:
        return self._decided(call_id) or super().approve(call_id)

    def deny(self, call_id: str) -> list[Outcome]:
        return self._decided(call_id) or super().deny(call_id)

    def _decided(self, call_id: str) -> list[Outcome]:
        record = self._ledger.get(call_id)
        if record is None or record.state in UNFINISHED:
            return []
        return [
            {"kind": "error", "code": "already_decided", "message": f"call {call_id!r} is {record.state}"}
        ]


class DecidedCallsHaveTheirOwnCode(Execution):
    """Answers an approve or deny of a call that has ended with error already_decided."""

    executor = _DecidedCallCode


class _ReadyNotAnnouncedAgain(Executor):
    def recover(self) -> list[Outcome]:
        return [o for o in super().recover() if o["kind"] != "tool.ready"]


class AwaitingCallsNotAnnouncedAgain(Execution):
    """Keeps a call awaiting approval across a restart, but does not announce it again."""

    executor = _ReadyNotAnnouncedAgain


class _ApprovesOwnCallsOnly(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__(tools, ledger)
        self._taken: set[str] = set()

    def _take(self, call: Outcome) -> list[Outcome]:
        self._taken.add(call["call_id"])
        return super()._take(call)

    def _awaiting(self, call_id: str) -> Record | None:
        return super()._awaiting(call_id) if call_id in self._taken else None


class ApprovesOnlyCallsItTook(Execution):
    """Announces a call awaiting approval again after a restart, but approves only calls this process took."""

    executor = _ApprovesOwnCallsOnly


class _CatalogueUnrecorded(Executor):
    def _take(self, call: Outcome) -> list[Outcome]:
        if call["tool_type"] in ("function", "custom"):
            return super()._take(call)
        record = Record(call["call_id"], call["item_id"], call["name"], call["tool_type"], self._consumer)
        outcomes = [_outcome(dataclasses.replace(record, state="TOOL_READY"), "accept")]
        tool = self._allowed(record)
        running = dataclasses.replace(record, state="TOOL_RUNNING", started=True)
        if tool is None:
            return super()._take(call)
        outcomes.append(_outcome(running, "start"))
        done = dataclasses.replace(running, state="TOOL_SUCCEEDED", result=copy.deepcopy(tool.run(None)))
        return [*outcomes, _outcome(done, "return")]


class CatalogueCallsNotRecorded(Execution):
    """Runs a catalogue call at once with no record of it (an approval request unasked): only
    function and custom calls go to the ledger."""

    executor = _CatalogueUnrecorded


class _DropsServerLabel(Executor):
    def _take(self, call: Outcome) -> list[Outcome]:
        return super()._take({name: value for name, value in call.items() if name != "server_label"})


class ApprovalRecordedWithoutServer(Execution):
    """Records an MCP approval request's call without the server it asks for."""

    executor = _DropsServerLabel


class BuiltinsAllowedWhenOffered(Execution):
    """Takes a built-in tool the request offered (shell, apply_patch) for allowed, whatever the list says."""

    def declared(self, tools: Tools) -> Tools:
        return [{**tool, "allow": True} if "name" not in tool else tool for tool in tools]


class _ApprovalByPrefixedName(Executor):
    def _allowed(self, record: Record) -> Tool | None:
        if record.tool_type == "mcp_approval" and record.server_label is not None:
            record = dataclasses.replace(record, name=f"{record.server_label}__{record.name}")
        return super()._allowed(record)


class ApprovalLookedUpByPrefixedName(Execution):
    """Looks an MCP approval request up on the allow-list as server__tool, as MCP clients name their tools."""

    executor = _ApprovalByPrefixedName


class _PrefixedToolSearchPointer(_Repointed):
    def pointer(self, record: Record, pointer: str) -> str:
        return "/arguments" + pointer if record.tool_type == "tool_search" else pointer


class ToolSearchPointerIntoTheCall(Execution):
    """Points a tool search's fault into the whole call (/arguments/...), not into its arguments."""

    executor = _PrefixedToolSearchPointer


class _ToolSearchCheckedAtStart(Executor):
    def _decide(self, record: Record) -> tuple[Trigger, dict[str, Any]]:
        if record.tool_type != "tool_search":
            return super()._decide(record)
        validators, self._validators = self._validators, {}
        try:
            return super()._decide(record)
        finally:
            self._validators = validators

    def _start(self, ready: Record) -> list[Outcome]:
        validator = self._validators.get((ready.namespace, ready.name))
        error = None if validator is None else next(iter(validator.iter_errors(ready.arguments)), None)
        if ready.tool_type == "tool_search" and error is not None:  # it starts, and the search fails
            running = self._move(ready, "start", started=True)
            if running is None:
                return []
            return [_outcome(running, "start"), *self._fail(running, error.message)]
        return super()._start(ready)


class ToolSearchCheckedByTheTool(Execution):
    """Leaves a tool search's arguments to the search itself: a bad one is ready, then fails."""

    executor = _ToolSearchCheckedAtStart


class _ApprovalFlagFromTool(Executor):
    def _take(self, call: Outcome) -> list[Outcome]:
        outcomes = super()._take(call)
        tool = self._tools.get((call.get("namespace"), call["name"]))
        if call["tool_type"] != "mcp_approval" or tool is None:
            return outcomes
        return [
            {**o, "requires_approval": tool.requires_approval} if o["kind"] == "tool.ready" else o
            for o in outcomes
        ]


class ApprovalAnnouncedAsNotRequired(Execution):
    """Waits for an MCP approval request's approval, but announces it with its tool's requires_approval."""

    executor = _ApprovalFlagFromTool


class _ApprovableAsDeclared(Executor):
    def _awaiting(self, call_id: str) -> Record | None:
        record = super()._awaiting(call_id)
        tool = self._allowed(record) if record is not None else None
        return None if record is None or (tool is not None and not tool.requires_approval) else record


class ApprovalRequestNotApprovable(Execution):
    """Holds an MCP approval request for approval, but takes approve only for tools that declare approval."""

    executor = _ApprovableAsDeclared


class _ResultAsText(Executor):
    def _succeed(self, running: Record, value: Any) -> list[Outcome]:
        return super()._succeed(running, json.dumps(value))


class ResultAsText(Execution):
    """Records a tool's result as the JSON text it serialized for the model."""

    executor = _ResultAsText


class _LastResult(Executor):
    last: Any = None

    def _succeed(self, running: Record, value: Any) -> list[Outcome]:
        first = self.last is None
        self.last = value if first else self.last  # the first result of the process, kept in one field
        return super()._succeed(running, self.last)


class ResultOfTheFirstCall(Execution):
    """Keeps the result of a call in one field of the executor: parallel calls all get the first one's."""

    executor = _LastResult


class _FailureCodeError(Executor):
    def _fail(self, running: Record, message: str) -> list[Outcome]:
        return self._emit(running, "fail", code="error", message=message)


class ToolFailureCodeError(Execution):
    """Fails a call whose tool failed with code error, not tool_failed."""

    executor = _FailureCodeError


class _FailureIsRejection(Executor):
    def _fail(self, running: Record, message: str) -> list[Outcome]:
        moved = dataclasses.replace(running, state="FAILED", code="tool_failed", message=message)
        if not self._ledger.update(moved, "TOOL_RUNNING"):
            return []
        return [_outcome(moved, "reject")]


class ToolFailureReportedAsRejection(Execution):
    """Reports a tool that failed as a rejected call, tool.rejected, as if it never ran."""

    executor = _FailureIsRejection


class _NamesTheRecordsItem(Executor):
    def _take(self, call: Outcome) -> list[Outcome]:
        known = self._ledger.get(call["call_id"])
        outcomes = super()._take(call)
        if known is None:
            return outcomes
        return [{**o, "item_id": known.item_id} if o["kind"] == "tool.duplicate" else o for o in outcomes]


class DuplicateNamesTheRecordsItem(Execution):
    """Names a tool.duplicate after the item of the record, not after the item delivered again."""

    executor = _NamesTheRecordsItem


class _CancelsStartedCallsOnly(_CancelSpares):
    spared = "TOOL_READY"


class CancelLeavesCallsAwaitingApproval(Execution):
    """Cancels the calls that are running, and leaves those awaiting a person's approval waiting."""

    executor = _CancelsStartedCallsOnly


class _CancelledNeverStarted(Executor):
    def _emit(self, record: Record, trigger: Trigger, **changes: Any) -> list[Outcome]:
        outcomes = super()._emit(record, trigger, **changes)
        return [{**o, "started": False} if o["kind"] == "tool.cancelled" else o for o in outcomes]


class CancelledReportsNotStarted(Execution):
    """Reports every call a cancel cancels as not started, a running one too."""

    executor = _CancelledNeverStarted


class _CancelledTurnHolds(Executor):
    def _take(self, call: Outcome) -> list[Outcome]:
        if not self._turn.cancelled:
            return super()._take(call)
        self._turn.cancelled = False
        try:
            outcomes = super()._take(call)
        finally:
            self._turn.cancelled = True
        return [o for o in outcomes if o["kind"] != "tool.started"]

    def _start(self, ready: Record) -> list[Outcome]:
        return [] if self._turn.cancelled else super()._start(ready)


class CancelledTurnHoldsNewCalls(Execution):
    """Takes a call completed after a cancel as ready, and never starts it."""

    executor = _CancelledTurnHolds


class _CancelledWithoutRecord(Executor):
    def _move(self, record: Record, trigger: Trigger, **changes: Any) -> Record | None:
        if record.state == "STREAMING" and trigger == "cancel":
            return dataclasses.replace(record, state="CANCELLED", consumer=self._consumer)  # never written
        return super()._move(record, trigger, **changes)


class LateCallsCancelledUnrecorded(Execution):
    """Reports a call completed after a cancel as cancelled, and keeps no record of it: a replay runs it."""

    executor = _CancelledWithoutRecord


class _ReportsFinalCalls(Executor):
    def cancel(self) -> list[Outcome]:
        final = [
            r
            for c in self._turn.calls
            if (r := self._ledger.get(c)) is not None and r.state not in UNFINISHED
        ]
        return super().cancel() + [_outcome(record, "cancel") for record in final]


class CancelReportsFinalCalls(Execution):
    """Reports every call of the turn cancelled, those that had ended too, and changes only the others."""

    executor = _ReportsFinalCalls


class _CancelClearsResults(Executor):
    def cancel(self) -> list[Outcome]:
        outcomes = super().cancel()
        for call_id in self._turn.calls:
            record = self._ledger.get(call_id)
            if record is not None and record.state == "TOOL_SUCCEEDED":
                self._ledger.update(dataclasses.replace(record, result=None), record.state)
        return outcomes


class CancelClearsResults(Execution):
    """Clears the results of the turn's calls at a cancel, the turn being abandoned."""

    executor = _CancelClearsResults


class _SecondCancelIsAnError(Executor):
    def cancel(self) -> list[Outcome]:
        again = self._turn.cancelled
        outcomes = super().cancel()
        said = {"kind": "error", "code": "already_cancelled", "message": "the turn was cancelled before"}
        return [*outcomes, said] if again else outcomes


class SecondCancelIsAnError(Execution):
    """Answers a second cancel of a turn with error already_cancelled."""

    executor = _SecondCancelIsAnError


class _TurnEndsAtTerminal(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        answer: list[Outcome] = []
        for outcome in outcomes:
            created = outcome["kind"] == "lifecycle" and outcome.get("event") == "created"
            cancelled = self._turn.cancelled
            answer += super().feed([outcome])
            if created:
                self._turn.cancelled = cancelled  # the turn began at the terminal event before
            if outcome["kind"] == "lifecycle" and outcome.get("event") in (
                "completed",
                "failed",
                "incomplete",
            ):
                self._turn.calls = {}
        return answer


class TurnEndsAtTheTerminalEvent(Execution):
    """Starts a new turn at a response's terminal event, so a cancel after it applies to the next response."""

    executor = _TurnEndsAtTerminal


class _TurnPerLifecycleEvent(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        answer: list[Outcome] = []
        for outcome in outcomes:
            if outcome["kind"] == "lifecycle" and outcome.get("event") != "created":
                self._turn = type(self._turn)()  # every lifecycle event taken for a new turn
            answer += super().feed([outcome])
        return answer


class TurnPerLifecycleEvent(Execution):
    """Starts a new turn at every lifecycle event, in_progress included, so a cancel before it is lost."""

    executor = _TurnPerLifecycleEvent


class _RetractedReadyRejected(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        if record is None or record.item_id != item_id or record.state != "TOOL_READY" or record.retracted:
            return super()._retract(call_id, item_id)
        return self._emit(
            record, "reject", code="retracted", message="the router withdrew the call", retracted=True
        )


class RetractedReadyCallRejected(Retraction):
    """Rejects a retracted call that had not started, code retracted, instead of cancelling it."""

    executor = _RetractedReadyRejected


class _RetractionSaysStarted(Executor):
    """Says `started` is `said` in the tool.cancelled of a retracted call that was in state `state`."""

    state: str
    said: bool

    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        outcomes = super()._retract(call_id, item_id)
        if record is None or record.state != self.state:
            return outcomes
        return [{**o, "started": self.said} if o["kind"] == "tool.cancelled" else o for o in outcomes]


class _RetractionStartedAsRecorded(_RetractionSaysStarted):
    state, said = "TOOL_READY", True


class RetractedReadyCallReportedStarted(Retraction):
    """Reports a retracted call that had not started as started, as if every retracted call had run."""

    executor = _RetractionStartedAsRecorded


class _RetractedRunningNotStarted(_RetractionSaysStarted):
    state, said = "TOOL_RUNNING", False


class RetractedRunningCallReportedNotStarted(Retraction):
    """Reports a retracted call that was running as not started, as a retraction before it began."""

    executor = _RetractedRunningNotStarted


class _RetractedRunningFailed(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        if record is None or record.item_id != item_id or record.state != "TOOL_RUNNING" or record.retracted:
            return super()._retract(call_id, item_id)
        self._stop(record.call_id)
        return self._emit(
            record, "fail", code="retracted", message="the router withdrew the call", retracted=True
        )


class RetractedRunningCallFailed(Retraction):
    """Fails a retracted call that was running, code retracted, instead of cancelling it."""

    executor = _RetractedRunningFailed


class _RetractionClearsResult(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        outcomes = super()._retract(call_id, item_id)
        record = _record_of(self, call_id)
        if record is not None and record.retracted and record.state == "TOOL_SUCCEEDED":
            self._ledger.update(dataclasses.replace(record, result=None), record.state)
        return outcomes


class RetractionClearsResult(Retraction):
    """Clears the result of a retracted call that had succeeded: the call is withdrawn."""

    executor = _RetractionClearsResult


class _FinalRetractionUnmarked(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        if record is not None and record.item_id == item_id and record.state not in UNFINISHED:
            return []  # a final call is left as it is, mark and all
        return super()._retract(call_id, item_id)


class FinalRetractionUnmarked(Retraction):
    """Marks a retracted call that it cancels, and leaves the record of one that had ended unmarked."""

    executor = _FinalRetractionUnmarked


class RetractedMarkInMemory(Retraction):
    """Keeps the mark of a retraction in memory: a restarted process's records are unmarked."""

    def _open_ledger(self) -> Any:
        return _UnmarkedOnDisk(super()._open_ledger())


class _UnmarkedOnDisk(_LedgerOver):
    """A ledger that writes every record as not retracted, and remembers the marks in memory."""

    def __init__(self, ledger: SqliteLedger) -> None:
        super().__init__(ledger)
        self._marked: set[str] = set()

    def _marks(self, record: Record | None) -> Record | None:
        return (
            None if record is None else dataclasses.replace(record, retracted=record.call_id in self._marked)
        )

    def get(self, call_id: str) -> Record | None:
        return self._marks(self._ledger.get(call_id))

    def insert(self, record: Record) -> bool:
        return self._ledger.insert(dataclasses.replace(record, retracted=False))

    def update(self, record: Record, expected: State) -> bool:
        if record.retracted:
            self._marked.add(record.call_id)
        return self._ledger.update(dataclasses.replace(record, retracted=False), expected)

    def records(self) -> list[Record]:
        return [r for r in map(self._marks, self._ledger.records()) if r is not None]

    def unfinished(self) -> list[Record]:
        return [r for r in map(self._marks, self._ledger.unfinished()) if r is not None]


class _RetractedTakenAnew(Executor):
    def _take(self, call: Outcome) -> list[Outcome]:
        known = self._ledger.get(call["call_id"])
        if known is None or not known.retracted or known.state != "CANCELLED":
            return super()._take(call)
        record = dataclasses.replace(known, state="STREAMING", retracted=False)
        trigger, changes = self._decide(record)
        moved = dataclasses.replace(record, **changes, state=TRANSITIONS["STREAMING"][trigger])
        if not self._ledger.update(moved, "CANCELLED"):
            return super()._take(call)
        self._turn.calls[moved.call_id] = None
        return [_outcome(moved, trigger)]


class ReplayedRetractedCallTakenAnew(Retraction):
    """Takes a replayed call that was retracted for a new one: a retraction does not claim the call id."""

    executor = _RetractedTakenAnew


class _RetractedCancelledAgain(Executor):
    def _take(self, call: Outcome) -> list[Outcome]:
        known = self._ledger.get(call["call_id"])
        if known is None or not known.retracted:
            return super()._take(call)
        return [_outcome(known, "retract")]


class ReplayedRetractedCallCancelledAgain(Retraction):
    """Answers a replayed call that was retracted with tool.cancelled again, not tool.duplicate."""

    executor = _RetractedCancelledAgain


class _ReportsUnknownRetractions(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        record = _record_of(self, call_id)
        outcomes = super()._retract(call_id, item_id)
        if record is not None and record.item_id == item_id:
            return outcomes
        return [*outcomes, {"kind": "error", "code": "unknown_call", "message": "no call to withdraw"}]


class UnknownRetractionReported(Retraction):
    """Reports a retraction that names no record of its item as an error of its own."""

    executor = _ReportsUnknownRetractions


class _RetractsByItemId(Executor):
    def _retract(self, call_id: object, item_id: object) -> list[Outcome]:
        mine = next((r for r in self._ledger.records() if r.item_id == item_id), None)
        record = _record_of(self, call_id)
        if mine is None and record is not None:
            return super()._retract(call_id, record.item_id)  # the call id's record, whatever item made it
        return super()._retract(call_id, item_id)


class RetractionByItemThenCallId(Retraction):
    """Looks a retraction up by its item first and, finding no record of it, takes the call id's record."""

    executor = _RetractsByItemId


class TurnSurvivesRestart(Execution):
    """Restarts the executor but carries its turn over: the calls taken and whether the turn was cancelled."""

    def _start(self) -> None:
        executor = getattr(self, "_executor", None)
        super()._start()
        if executor is not None:
            self._executor._turn = executor._turn


class _InterruptedAsToolFailed(Executor):
    def _emit(self, record: Record, trigger: Trigger, **changes: Any) -> list[Outcome]:
        if trigger == "interrupt":
            changes = {**changes, "code": "tool_failed"}
        return super()._emit(record, trigger, **changes)


class InterruptedAsToolFailed(Execution):
    """Fails a call a restart finds running with code tool_failed, not interrupted."""

    executor = _InterruptedAsToolFailed


class _LeavesRunning(Executor):
    def recover(self) -> list[Outcome]:
        for record in self._ledger.unfinished():
            if record.state == "TOOL_RUNNING":
                self._turn.calls[record.call_id] = None
        unfinished = self._ledger.unfinished
        self._ledger.unfinished = lambda: [r for r in unfinished() if r.state != "TOOL_RUNNING"]  # type: ignore[method-assign]
        try:
            return super().recover()
        finally:
            self._ledger.unfinished = unfinished  # type: ignore[method-assign]


class RestartLeavesRunningCalls(Execution):
    """Leaves a call a restart finds running as it is, taking its tool for still running."""

    executor = _LeavesRunning


class _AwaitingRecoveredWithoutApproval(Executor):
    def recover(self) -> list[Outcome]:
        return [
            {**o, "requires_approval": False} if o["kind"] == "tool.ready" else o for o in super().recover()
        ]


class RecoveredAwaitingCallsUnflagged(Execution):
    """Announces a call awaiting approval again after a restart, without saying it awaits approval."""

    executor = _AwaitingRecoveredWithoutApproval


class RecoveryRunsAgainAtNextStep(Execution):
    """Recovers at the restart, and once more at the first step after it."""

    recovering = False

    def feed(self, step: Any) -> list[Outcome]:
        again = self._executor.recover() if self.recovering else []
        self.recovering = is_step(step) and step["control"] == "restart"
        return again + super().feed(step)


class RestartsUnderANewName(Execution):
    """Names each process anew (host and process id), so a restart finds no call of its own to recover."""

    starts = 0

    def _start(self) -> None:
        super()._start()
        self.starts += 1
        self._executor._consumer = f"worker-{self.starts}"


class _RecoversInTheOrderOfLastMove(Executor):
    def recover(self) -> list[Outcome]:
        unfinished = self._ledger.unfinished
        self._ledger.unfinished = lambda: self._by_last_move(unfinished())  # type: ignore[method-assign]
        try:
            return super().recover()
        finally:
            self._ledger.unfinished = unfinished  # type: ignore[method-assign]

    def _by_last_move(self, records: list[Record]) -> list[Record]:
        moved = self._moves
        return sorted(
            records, key=lambda record: moved.index(record.call_id) if record.call_id in moved else -1
        )


class _RecordsMoveOrder(_LedgerOver):
    """A ledger whose every write moves the record to the end, as `INSERT OR REPLACE` gives a new rowid."""

    def __init__(self, ledger: SqliteLedger, moves: list[str]) -> None:
        super().__init__(ledger)
        self.moves = moves

    def insert(self, record: Record) -> bool:
        return self._note(record, self._ledger.insert(record))

    def update(self, record: Record, expected: State) -> bool:
        return self._note(record, self._ledger.update(record, expected))

    def _note(self, record: Record, written: bool) -> bool:
        if written:
            self.moves[:] = [call_id for call_id in self.moves if call_id != record.call_id] + [
                record.call_id
            ]
        return written


class RecoversInTheOrderOfLastMove(Execution):
    """Keeps its calls in a table rewritten at each move: a restart recovers them in the order they moved."""

    executor = _RecoversInTheOrderOfLastMove

    def __init__(self, tools: Tools) -> None:
        self._moves: list[str] = []  # the order of the table's rows: it lives with the database
        super().__init__(tools)

    def _open_ledger(self) -> Any:
        return _RecordsMoveOrder(super()._open_ledger(), self._moves)

    def _start(self) -> None:
        super()._start()
        self._executor._moves = self._moves  # type: ignore[attr-defined]


class _RecoversNewestFirst(Executor):
    def recover(self) -> list[Outcome]:
        unfinished = self._ledger.unfinished
        self._ledger.unfinished = lambda: list(reversed(unfinished()))  # type: ignore[method-assign]
        try:
            return super().recover()
        finally:
            self._ledger.unfinished = unfinished  # type: ignore[method-assign]


class RecoversNewestFirst(Execution):
    """Recovers the calls a restart finds newest first, as a stack of work."""

    executor = _RecoversNewestFirst


class _RecordPerDelivery(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__(tools, ledger)
        self._deliveries: list[Outcome] = []

    def _take(self, call: Outcome) -> list[Outcome]:
        outcomes = super()._take(call)
        if any(o["kind"] == "tool.duplicate" for o in outcomes):
            self._deliveries.append(call)
        return outcomes

    def audit(self) -> list[Outcome]:
        audited = super().audit()  # not in the comprehension: a bare super() there has no instance
        again = [
            {**record, "item_id": call["item_id"]}
            for call in self._deliveries
            for record in audited
            if record["call_id"] == call["call_id"]
        ]
        return audited + again


class AuditsEveryDelivery(Execution):
    """Audits each delivery of a call, so a call delivered again has two records."""

    executor = _RecordPerDelivery


class _AuditsTheLatestDelivery(Executor):
    def __init__(self, tools: Iterable[Tool], ledger: Ledger) -> None:
        super().__init__(tools, ledger)
        self._delivered: dict[str, str] = {}  # call id -> the item that delivered it last

    def _take(self, call: Outcome) -> list[Outcome]:
        self._delivered[call["call_id"]] = call["item_id"]
        return super()._take(call)

    def audit(self) -> list[Outcome]:
        return [{**r, "item_id": self._delivered.get(r["call_id"], r["item_id"])} for r in super().audit()]


class AuditNamesTheLatestDelivery(Retraction):
    """Audits a call under the item that delivered its call id last, not the item that made the call."""

    executor = _AuditsTheLatestDelivery


class _AuditsNewestFirst(Executor):
    def audit(self) -> list[Outcome]:
        return list(reversed(super().audit()))


class AuditNewestFirst(Execution):
    """Lists the audit records newest first, as a log is read."""

    executor = _AuditsNewestFirst


class _AuditsUnfinished(Executor):
    def audit(self) -> list[Outcome]:
        unfinished = {record.call_id for record in self._ledger.unfinished()}
        return [record for record in super().audit() if record["call_id"] in unfinished]


class AuditsUnfinishedCallsOnly(Execution):
    """Lists in the audit only the calls still ready or running."""

    executor = _AuditsUnfinished


MUTANTS = [
    mutant(KeepsCallsToItself, "exec.keeps-calls-to-itself", "EXEC-FLOW-1", "CORE-CALL-2", "CORE-CALLTYPE-1"),
    mutant(ExecutionBeforeItsCause, "exec.execution-before-its-cause", "EXEC-FLOW-3"),
    mutant(RecordsRouterErrors, "exec.records-router-errors", "EXEC-FLOW-2"),
    mutant(NoReadyWithoutApproval, "exec.no-ready-without-approval", "EXEC-STATE-1"),
    mutant(RunningStateInMemory, "exec.running-state-in-memory", "EXEC-STATE-2", "EXEC-ONCE-1"),
    mutant(CancelReachesFinalCalls, "exec.cancel-reaches-final-calls", "EXEC-STATE-3", "EXEC-CANCEL-3"),
    mutant(AllowsByNameOnly, "exec.allows-by-name-only", "EXEC-CHECK-1"),
    mutant(AllowsAnyType, "exec.allows-any-type", "EXEC-CHECK-1"),
    mutant(AllowsOfferedTools, "exec.allows-offered-tools", "EXEC-CHECK-1"),
    mutant(CatalogueInputDropped, "exec.catalogue-input-dropped", "EXEC-CALLTYPE-1"),
    mutant(ApprovalByServer, "exec.approval-by-server", "EXEC-CALLTYPE-3"),
    mutant(ChecksFunctionsOnly, "exec.checks-functions-only", "EXEC-CALLTYPE-4"),
    mutant(ApprovalAsDeclared, "exec.approval-as-declared", "EXEC-CALLTYPE-2"),
    mutant(broken_executors.NoValidation, "exec.no-validation", "EXEC-CHECK-2", "EXEC-CHECK-4"),
    mutant(PointsAtParent, "exec.points-at-parent", "EXEC-CHECK-5"),
    mutant(PointerUnescaped, "exec.pointer-unescaped", "EXEC-CHECK-5"),
    mutant(IgnoresPermission, "exec.ignores-permission", "EXEC-CHECK-3"),
    mutant(PermissionBeforeSchema, "exec.permission-before-schema", "EXEC-CHECK-4"),
    mutant(broken_executors.NoApproval, "exec.no-approval", "EXEC-APPROVE-1"),
    mutant(AsksBeforeChecks, "exec.asks-before-checks", "EXEC-APPROVE-1", "EXEC-CHECK-4"),
    mutant(IgnoresUnexpectedApproval, "exec.ignores-unexpected-approval", "EXEC-APPROVE-2"),
    mutant(ApprovalsInMemory, "exec.approvals-in-memory", "EXEC-APPROVE-3", "EXEC-RESTART-3"),
    mutant(ResultDropped, "exec.result-dropped", "EXEC-RUN-1"),
    mutant(FailingToolSucceeds, "exec.failing-tool-succeeds", "EXEC-RUN-3"),
    mutant(PendingToolSucceeds, "exec.pending-tool-succeeds", "EXEC-RUN-2"),
    mutant(RunningToolReportIgnored, "exec.running-tool-report-ignored", "EXEC-RUN-4"),
    mutant(ReportEndsTheOldestCall, "exec.report-ends-the-oldest-call", "EXEC-RUN-4"),
    mutant(ReportedFailureSucceeds, "exec.reported-failure-succeeds", "EXEC-RUN-4"),
    mutant(ReportedResultDropped, "exec.reported-result-dropped", "EXEC-RUN-4"),
    mutant(PermissionRuleGivenNothing, "exec.permission-rule-given-nothing", "EXEC-CHECK-3"),
    mutant(ToolGivenNothing, "exec.tool-given-nothing", "EXEC-RUN-1"),
    mutant(ToolGivenTheText, "exec.tool-given-the-text", "EXEC-RUN-1"),
    mutant(RestartKeepsTheOldTools, "exec.restart-keeps-the-old-tools", "EXEC-RESTART-6"),
    mutant(AllowListCheckedOnlyWhenReady, "exec.allow-list-checked-only-when-ready", "EXEC-RESTART-6"),
    mutant(WithdrawnToolCallCancelled, "exec.withdrawn-tool-call-cancelled", "EXEC-RESTART-6"),
    mutant(WithdrawnToolNotPermitted, "exec.withdrawn-tool-not-permitted", "EXEC-RESTART-6"),
    mutant(ReportOfAnUnstartedCallTaken, "exec.report-of-an-unstarted-call-taken", "EXEC-RUN-4"),
    mutant(ReportAfterCancelTaken, "exec.report-after-cancel-taken", "EXEC-STATE-3"),
    mutant(ReportAfterInterruptTaken, "exec.report-after-interrupt-taken", "EXEC-STATE-3"),
    mutant(SecondReportTaken, "exec.second-report-taken", "EXEC-STATE-3"),
    mutant(
        broken_executors.ForgetsAtRestart,
        "exec.forgets-at-restart",
        "EXEC-CANCEL-4",
        "EXEC-ONCE-1",
        "EXEC-RESTART-1",
        "EXEC-RESTART-2",
        "EXEC-RESTART-3",
        "EXEC-AUDIT-2",
        "EXEC-ONCE-2",
        "EXEC-SUPPLY-1",
    ),
    mutant(DuplicateIgnored, "exec.duplicate-ignored", "EXEC-ONCE-2"),
    mutant(CancelLeavesRunningCalls, "exec.cancel-leaves-running-calls", "EXEC-CANCEL-1"),
    mutant(CancelOnlyExistingCalls, "exec.cancel-only-existing-calls", "EXEC-CANCEL-2"),
    mutant(CancelRepeats, "exec.cancel-repeats", "EXEC-CANCEL-5"),
    mutant(CancelOutlivesTurn, "exec.cancel-outlives-turn", "EXEC-CANCEL-4"),
    mutant(SupplyRunsAgain, "exec.supply-runs-again", "EXEC-SUPPLY-1"),
    mutant(SupplyFromMemory, "exec.supply-from-memory", "EXEC-SUPPLY-1"),
    mutant(SupplyAnyCallId, "exec.supply-any-call-id", "EXEC-SUPPLY-2"),
    mutant(RestatedCallIdIgnored, "exec.restated-call-id-ignored", "EXEC-ONCE-3"),
    mutant(RestatedCallIdRunsAgain, "exec.restated-call-id-runs-again", "EXEC-ONCE-3"),
    mutant(SupplyFinishedOnly, "exec.supply-finished-only", "EXEC-SUPPLY-1"),
    mutant(SupplyUnknownSilent, "exec.supply-unknown-silent", "EXEC-SUPPLY-2"),
    mutant(SupplyUnknownFailed, "exec.supply-unknown-failed", "EXEC-SUPPLY-2"),
    mutant(RestatedUnfinishedOnly, "exec.restated-unfinished-only", "EXEC-ONCE-3"),
    mutant(RetractionLeavesReadyCalls, "exec.retraction-leaves-ready-calls", "EXEC-RETRACT-1"),
    mutant(RetractionLetsRunningCallsRun, "exec.retraction-lets-running-calls-run", "EXEC-RETRACT-2"),
    mutant(RetractionReportsFinishedCalls, "exec.retraction-reports-finished-calls", "EXEC-RETRACT-3"),
    mutant(RetractionNotRecorded, "exec.retraction-not-recorded", "EXEC-RETRACT-4"),
    mutant(RetractionsInMemory, "exec.retractions-in-memory", "EXEC-RETRACT-5"),
    mutant(RetractionByCallIdOnly, "exec.retraction-by-call-id-only", "EXEC-RETRACT-6"),
    mutant(RouterSurvivesRestart, "exec.router-survives-restart", "EXEC-RESTART-1"),
    mutant(RerunsInterruptedCall, "exec.reruns-interrupted-call", "EXEC-RESTART-2", "EXEC-ONCE-1"),
    mutant(ResumesCallsAwaitingApproval, "exec.resumes-calls-awaiting-approval", "EXEC-RESTART-3"),
    mutant(DefersRecovery, "exec.defers-recovery", "EXEC-RESTART-4"),
    mutant(RecoversReadyCallsFirst, "exec.recovers-ready-calls-first", "EXEC-RESTART-5"),
    mutant(AuditsDeltas, "exec.audits-deltas", "EXEC-AUDIT-1", "CORE-EVT-2"),
    mutant(AuditsThisProcessOnly, "exec.audits-this-process-only", "EXEC-AUDIT-2"),
    mutant(PassesTheRecordedCall, "exec.passes-the-recorded-call", "EXEC-FLOW-1", "CORE-OUT-1", "CORE-EVT-2"),
    mutant(LifecycleSwallowed, "exec.lifecycle-swallowed", "EXEC-FLOW-1", "CORE-LIFE-1"),
    mutant(ExecutionOneStepLate, "exec.execution-one-step-late", "EXEC-FLOW-3", "CORE-OUT-2", "EXEC-STATE-1"),
    mutant(
        ControlOutcomesDeferred,
        "exec.control-outcomes-deferred",
        "EXEC-FLOW-3",
        "CORE-OUT-2",
        "EXEC-APPROVE-1",
    ),
    mutant(RouterRefusalsRejected, "exec.router-refusals-rejected", "EXEC-FLOW-2"),
    mutant(RecordsStreamingCalls, "exec.records-streaming-calls", "EXEC-FLOW-2", "EXEC-AUDIT-1"),
    mutant(ReadyAgainAtApproval, "exec.ready-again-at-approval", "EXEC-STATE-1"),
    mutant(RunningSkippedForQuickTools, "exec.running-skipped-for-quick-tools", "EXEC-STATE-1"),
    mutant(FinalStateNotWritten, "exec.final-state-not-written", "EXEC-STATE-2", "EXEC-APPROVE-1"),
    mutant(WritesDeferredToNextStep, "exec.writes-deferred-to-next-step", "EXEC-STATE-2", "EXEC-ONCE-1"),
    mutant(
        ApprovalReopensCancelledCall, "exec.approval-reopens-cancelled-call", "EXEC-APPROVE-2", "EXEC-STATE-3"
    ),
    mutant(
        RetractionCancelsFinalCall, "exec.retraction-cancels-final-call", "EXEC-RETRACT-3", "EXEC-STATE-3"
    ),
    mutant(ReplayedRejectionRetried, "exec.replayed-rejection-retried", "EXEC-ONCE-2", "EXEC-STATE-3"),
    mutant(SecondCancelKills, "exec.second-cancel-kills", "EXEC-CANCEL-5", "EXEC-STATE-3"),
    mutant(ValidatesRequiredOnly, "exec.validates-required-only", "EXEC-CHECK-2"),
    mutant(CoercesArgumentsBeforeChecking, "exec.coerces-arguments-before-checking", "EXEC-CHECK-2"),
    mutant(PointsIntoTheSchema, "exec.points-into-the-schema", "EXEC-CHECK-5"),
    mutant(PermissionAskedAtStart, "exec.permission-asked-at-start", "EXEC-CHECK-3"),
    mutant(NotPermittedIsDenied, "exec.not-permitted-is-denied", "EXEC-CHECK-3"),
    mutant(SchemaBeforeAllowList, "exec.schema-before-allow-list", "EXEC-CHECK-4"),
    mutant(DenialIsNotPermitted, "exec.denial-is-not-permitted", "EXEC-APPROVE-1"),
    mutant(DecidedCallsHaveTheirOwnCode, "exec.decided-calls-have-their-own-code", "EXEC-APPROVE-2"),
    mutant(
        AwaitingCallsNotAnnouncedAgain,
        "exec.awaiting-calls-not-announced-again",
        "EXEC-APPROVE-3",
        "EXEC-RESTART-3",
    ),
    mutant(ApprovesOnlyCallsItTook, "exec.approves-only-calls-it-took", "EXEC-APPROVE-3"),
    mutant(
        CatalogueCallsNotRecorded,
        "exec.catalogue-calls-not-recorded",
        "EXEC-CALLTYPE-1",
        "EXEC-ONCE-1",
        "EXEC-CALLTYPE-2",
    ),
    mutant(ApprovalRecordedWithoutServer, "exec.approval-recorded-without-server", "EXEC-CALLTYPE-1"),
    mutant(BuiltinsAllowedWhenOffered, "exec.builtins-allowed-when-offered", "EXEC-CALLTYPE-3"),
    mutant(ApprovalLookedUpByPrefixedName, "exec.approval-looked-up-by-prefixed-name", "EXEC-CALLTYPE-3"),
    mutant(ToolSearchPointerIntoTheCall, "exec.tool-search-pointer-into-the-call", "EXEC-CALLTYPE-4"),
    mutant(ToolSearchCheckedByTheTool, "exec.tool-search-checked-by-the-tool", "EXEC-CALLTYPE-4"),
    mutant(ApprovalAnnouncedAsNotRequired, "exec.approval-announced-as-not-required", "EXEC-CALLTYPE-2"),
    mutant(ApprovalRequestNotApprovable, "exec.approval-request-not-approvable", "EXEC-CALLTYPE-2"),
    mutant(ResultAsText, "exec.result-as-text", "EXEC-RUN-1"),
    mutant(ResultOfTheFirstCall, "exec.result-of-the-first-call", "EXEC-RUN-1"),
    mutant(ToolFailureCodeError, "exec.tool-failure-code-error", "EXEC-RUN-3"),
    mutant(ToolFailureReportedAsRejection, "exec.tool-failure-reported-as-rejection", "EXEC-RUN-3"),
    mutant(DuplicateNamesTheRecordsItem, "exec.duplicate-names-the-records-item", "EXEC-ONCE-2"),
    mutant(CancelLeavesCallsAwaitingApproval, "exec.cancel-leaves-calls-awaiting-approval", "EXEC-CANCEL-1"),
    mutant(CancelledReportsNotStarted, "exec.cancelled-reports-not-started", "EXEC-CANCEL-1"),
    mutant(CancelledTurnHoldsNewCalls, "exec.cancelled-turn-holds-new-calls", "EXEC-CANCEL-2"),
    mutant(
        LateCallsCancelledUnrecorded, "exec.late-calls-cancelled-unrecorded", "EXEC-CANCEL-2", "EXEC-CANCEL-4"
    ),
    mutant(CancelReportsFinalCalls, "exec.cancel-reports-final-calls", "EXEC-CANCEL-3"),
    mutant(CancelClearsResults, "exec.cancel-clears-results", "EXEC-CANCEL-3"),
    mutant(SecondCancelIsAnError, "exec.second-cancel-is-an-error", "EXEC-CANCEL-5"),
    mutant(TurnEndsAtTheTerminalEvent, "exec.turn-ends-at-the-terminal-event", "EXEC-CANCEL-4"),
    mutant(TurnPerLifecycleEvent, "exec.turn-per-lifecycle-event", "EXEC-CANCEL-4"),
    mutant(RetractedReadyCallRejected, "exec.retracted-ready-call-rejected", "EXEC-RETRACT-1"),
    mutant(RetractedReadyCallReportedStarted, "exec.retracted-ready-call-reported-started", "EXEC-RETRACT-1"),
    mutant(
        RetractedRunningCallReportedNotStarted,
        "exec.retracted-running-call-reported-not-started",
        "EXEC-RETRACT-2",
    ),
    mutant(RetractedRunningCallFailed, "exec.retracted-running-call-failed", "EXEC-RETRACT-2"),
    mutant(RetractionClearsResult, "exec.retraction-clears-result", "EXEC-RETRACT-3"),
    mutant(FinalRetractionUnmarked, "exec.final-retraction-unmarked", "EXEC-RETRACT-4"),
    mutant(RetractedMarkInMemory, "exec.retracted-mark-in-memory", "EXEC-RETRACT-4"),
    mutant(ReplayedRetractedCallTakenAnew, "exec.replayed-retracted-call-taken-anew", "EXEC-RETRACT-5"),
    mutant(
        ReplayedRetractedCallCancelledAgain, "exec.replayed-retracted-call-cancelled-again", "EXEC-RETRACT-5"
    ),
    mutant(UnknownRetractionReported, "exec.unknown-retraction-reported", "EXEC-RETRACT-6"),
    mutant(RetractionByItemThenCallId, "exec.retraction-by-item-then-call-id", "EXEC-RETRACT-6"),
    mutant(TurnSurvivesRestart, "exec.turn-survives-restart", "EXEC-RESTART-1"),
    mutant(InterruptedAsToolFailed, "exec.interrupted-as-tool-failed", "EXEC-RESTART-2"),
    mutant(RestartLeavesRunningCalls, "exec.restart-leaves-running-calls", "EXEC-RESTART-2"),
    mutant(RecoveredAwaitingCallsUnflagged, "exec.recovered-awaiting-calls-unflagged", "EXEC-RESTART-3"),
    mutant(RecoveryRunsAgainAtNextStep, "exec.recovery-runs-again-at-next-step", "EXEC-RESTART-4"),
    mutant(RestartsUnderANewName, "exec.restarts-under-a-new-name", "EXEC-RESTART-4"),
    mutant(RecoversNewestFirst, "exec.recovers-newest-first", "EXEC-RESTART-5"),
    mutant(RecoversInTheOrderOfLastMove, "exec.recovers-in-the-order-of-last-move", "EXEC-RESTART-5"),
    mutant(AuditsEveryDelivery, "exec.audits-every-delivery", "EXEC-AUDIT-1"),
    mutant(AuditNamesTheLatestDelivery, "exec.audit-names-the-latest-delivery", "EXEC-AUDIT-1"),
    mutant(AuditNewestFirst, "exec.audit-newest-first", "EXEC-AUDIT-2"),
    mutant(AuditsUnfinishedCallsOnly, "exec.audits-unfinished-calls-only", "EXEC-AUDIT-2"),
]
