"""Mutants of the `execution` profile (spec/execution.md): each is the reference session (its
executor, ledger or declared tools) with one piece changed, the way a real application gets it wrong."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import broken_executors
from streamroute.reference import Outcome, Router
from streamroute.reference.executor import Executor, Tool, Trigger, _outcome
from streamroute.reference.ledger import UNFINISHED, Ledger, Record, SqliteLedger, State
from streamroute.reference.router import CALL_TYPES, CATALOGUE_CALL_TYPES
from streamroute.reference.session import ExecutionSession
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


class _KeepsCallsToItself(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        return _without("tool.call", super().feed(outcomes))


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


class _RunningInMemory:
    """A ledger that keeps the move to TOOL_RUNNING in memory and writes only the call's end."""

    def __init__(self, ledger: SqliteLedger) -> None:
        self._ledger = ledger
        self._running: dict[str, Record] = {}

    def get(self, call_id: str) -> Record | None:
        return self._running.get(call_id) or self._ledger.get(call_id)

    def insert(self, record: Record) -> bool:
        return self._ledger.insert(record)

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

    def close(self) -> None:
        self._ledger.close()


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


class _DuplicateIgnored(Executor):
    def feed(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        return _without("tool.duplicate", super().feed(outcomes))


class DuplicateIgnored(Execution):
    """Drops a call whose call id already has a record without reporting tool.duplicate."""

    executor = _DuplicateIgnored


# -- cancellation (section 7) ----------------------------------------------------------


class _CancelsOnlyReady(Executor):
    def cancel(self) -> list[Outcome]:
        calls = self._turn.calls
        running = [c for c in calls if (r := self._ledger.get(c)) is not None and r.state == "TOOL_RUNNING"]
        for call_id in running:
            del calls[call_id]
        try:
            return super().cancel()
        finally:
            calls.update(dict.fromkeys(running))


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
    mutant(
        broken_executors.ForgetsAtRestart,
        "exec.forgets-at-restart",
        "EXEC-ONCE-1",
        "EXEC-RESTART-1",
        "EXEC-RESTART-2",
        "EXEC-RESTART-3",
        "EXEC-AUDIT-2",
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
]
