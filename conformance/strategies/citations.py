"""The requirements a generated stream checks: by the outcomes it expects, the steps it holds, the
deviations placed in it and, for sse, its bytes."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from functools import cache

from ..requirements import LEVEL_RANK, read_requirements
from ..schemas import SPEC_DIR
from .plans import Numbering
from .steps import (
    Added,
    Address,
    Control,
    ControlAction,
    Delta,
    Done,
    ErrorEvent,
    ErrorForm,
    Lifecycle,
    Malformed,
    PartDone,
    ResponseForm,
    Stated,
    Step,
    Terminal,
)
from .streams import GeneratedStream
from .vocabulary import TERMINAL_TYPES, UNKNOWN_TYPES, Outcome, ToolCallPoint
from .wire import BOM, ILL_FORMED, RecordKind

# The requirements an outcome kind or code shows.
_BY_OUTCOME = {
    "text.delta": ("CORE-TEXT-1", "CORE-TEXT-3", "CORE-ITEM-16"),
    "text.done": ("CORE-TEXT-2",),
    "refusal.delta": ("CORE-TEXT-4",),
    "reasoning.delta": ("CORE-TEXT-5",),
    "tool.arguments.delta": ("CORE-ARGS-1", "CORE-ARGS-2"),
    "tool.call": ("CORE-CALL-1", "CORE-CALL-2", "CORE-ARGS-5"),
    "diff.update": ("CUSTOM-SLOT-2", "CUSTOM-DELTA-2", "CUSTOM-DELTA-4"),
    "diff.finish": ("CUSTOM-FIN-1", "CUSTOM-EXEC-1", "CUSTOM-FIN-8"),
    "tool.ready": ("EXEC-FLOW-1", "EXEC-FLOW-2", "EXEC-FLOW-3", "EXEC-STATE-1", "EXEC-CHECK-4"),
    "tool.rejected": ("EXEC-CHECK-1", "EXEC-CHECK-2", "EXEC-CHECK-3", "EXEC-CHECK-5"),
    "tool.started": ("EXEC-STATE-2", "EXEC-ONCE-1"),
    "tool.succeeded": ("EXEC-RUN-1",),
    "tool.failed": ("EXEC-RUN-3", "EXEC-RESTART-2"),
    "tool.cancelled": ("EXEC-CANCEL-1", "EXEC-CANCEL-2"),
    "tool.duplicate": ("EXEC-ONCE-2",),
    "tool.audit": ("EXEC-AUDIT-1", "EXEC-AUDIT-2"),
    "malformed_event": ("CORE-EVT-2", "CORE-EVT-9", "CORE-EVT-8"),
    "unknown_item": ("CORE-ITEM-3",),
    "item_type_mismatch": ("CORE-ITEM-4",),
    "duplicate_event": ("CORE-ITEM-5", "CORE-ITEM-14", "CORE-TEXT-7", "CORE-ARGS-7"),
    "late_delta": ("CORE-TEXT-6", "CORE-ARGS-4"),
    "done_mismatch": ("CORE-TEXT-11", "CORE-ARGS-6", "CORE-ARGS-8", "CORE-CALL-18"),
    "event_after_terminal": ("CORE-LIFE-4",),
    "tool.error too_large": ("CORE-LIMIT-1",),
    "error too_large": ("CORE-LIMIT-5", "CORE-LIMIT-3"),
    "too_deep": ("CORE-LIMIT-2",),
    "invalid_json": ("CORE-CALL-3",),
    "invalid_arguments": ("CORE-CALL-15",),
    "incomplete": ("CORE-CALL-5", "CORE-CALL-6"),
    "duplicate_call_id": ("CORE-CALL-7",),
    "call_retracted": ("CORE-CALL-8", "CORE-CALL-12", "CORE-CALL-13", "CORE-CALL-14"),
    "call_id_restated": ("CORE-CALL-8", "CORE-CALL-20"),
    "consumer_failed": ("CUSTOM-FAIL-1", "CUSTOM-FAIL-3"),
    "consumer_rejected": ("CUSTOM-FIN-3",),
    "not_awaiting_approval": ("EXEC-APPROVE-2",),
    "invalid_data": ("SSE-DATA-2",),
    "event_after_done": ("SSE-DATA-4",),
}
# The requirements a stream checks whose ground truth at a tool call point differs from the
# canonical one's.
POINT_REQUIREMENTS: Mapping[ToolCallPoint, tuple[str, ...]] = {
    "output_item_done": ("CORE-CALL-2",),
    "arguments_done": ("CORE-CALL-8",),
    "response_done": ("CORE-POINT-1", "CORE-POINT-2"),
}
# The requirements every stream of a profile checks.
_BY_PROFILE = {
    "core": ("CORE-EVT-1", "CORE-OUT-1", "CORE-OUT-2", "CORE-LIFE-1", "CORE-LIFE-5", "CORE-LIFE-8"),
    "custom-tools": ("CUSTOM-SLOT-1", "CUSTOM-CAT-1", "CUSTOM-END-1"),
    "execution": ("EXEC-STATE-3",),
    "sse": (
        "SSE-LINE-3",
        "SSE-FIELD-2",
        "SSE-FIELD-3",
        "SSE-EVENT-1",
        "SSE-CHUNK-1",
        "SSE-CHUNK-2",
        "SSE-DATA-1",
    ),
}


@cache
def _requirements() -> dict[str, str]:
    found, _ = read_requirements(SPEC_DIR)
    return {requirement.id: requirement.level for requirement in found.values()}


def cited(ids: Sequence[str]) -> tuple[list[str], str]:
    """The ids the spec defines, each once, and their strongest level."""
    known = _requirements()
    defined = [i for i in dict.fromkeys(ids) if i in known]
    return defined, max((known[i] for i in defined), key=LEVEL_RANK.__getitem__, default="MUST")


_NULLS = (ResponseForm.NULL_RESPONSE, ResponseForm.NULL_ID, ResponseForm.OUTPUT_NULL)


def _stated(step: Step) -> Iterator[str]:
    """The requirements what a step leaves out or states as null shows (a malformed copy's own)."""
    if isinstance(step, Malformed):
        yield from _stated(step.of)
        if isinstance(step.of, (Added, Done)):
            yield "CORE-ITEM-9"  # a field of the item of the wrong type
        return
    nulls: list[Stated] = []
    if isinstance(step, (Delta, PartDone)):
        address: Address = step.address
        nulls += [address.item_id, address.output_index, step.index]
        if address.by_call_id:
            yield "CORE-ITEM-8"
        elif address.item_id is not Stated.STATED:
            yield "CORE-ITEM-2"
        if address.output_index is not Stated.STATED and not address.by_call_id:
            yield "CORE-ITEM-15"
        if step.index is not Stated.STATED:
            yield "CORE-ITEM-7"
    if isinstance(step, (Added, Done)):
        nulls.append(step.output_index)
        if step.odd_fields:
            yield "CORE-ITEM-9"
    if Stated.NULL in nulls:
        yield "CORE-EVT-7"
    if isinstance(step, Lifecycle) and step.response in _NULLS:
        yield "CORE-EVT-7"
    if isinstance(step, Lifecycle) and step.response is ResponseForm.ERROR_STATED:
        yield "CORE-LIFE-3"
    if isinstance(step, Terminal) and step.status == "failed" and step.error is not ErrorForm.STATED:
        yield "CORE-EVT-7"


_LABELLED = {"phase": "CORE-TEXT-9", "agent": "CORE-TEXT-12"}  # a message's labels


def spec_ids(
    stream: GeneratedStream, outcomes: Sequence[Outcome], differing: Collection[ToolCallPoint]
) -> tuple[list[str], str]:
    """The requirements a generated stream checks, by what it contains and the outcomes it expects,
    and their strongest level. `differing`: the tool call points whose ground truth differs from
    the canonical one's."""
    ids = [*_BY_PROFILE["core"], *(_BY_PROFILE[stream.profile] if stream.profile != "core" else ())]
    for outcome in outcomes:
        ids += _BY_OUTCOME.get(outcome["kind"], ())
        ids += _BY_OUTCOME.get(outcome.get("code") or "", ())
        ids += _BY_OUTCOME.get(f"{outcome['kind']} {outcome.get('code')}", ())
        if outcome["kind"] == "lifecycle" and outcome["event"] in TERMINAL_TYPES:
            ids += ["CORE-LIFE-2", "CORE-LIFE-3"] if outcome["event"] == "failed" else ["CORE-LIFE-2"]
        if outcome["kind"] == "ignored":
            kind = outcome["type"]
            ids.append(
                "CORE-EVT-4" if ":" in kind else "CORE-EVT-3" if kind in UNKNOWN_TYPES else "CORE-EVT-5"
            )
    plan = stream.plan
    steps = plan.steps
    for step in steps:
        ids += _stated(step)
    for deviation in plan.deviations:
        ids += deviation.requirements
    ids += ["CORE-ERR-1"] if any(isinstance(step, ErrorEvent) for step in steps) else []
    ids += ["CORE-ITEM-1"] if any(isinstance(step, Added) for step in steps) else []
    ids += ["CORE-EVT-6"] if plan.numbering is not Numbering.IN_ORDER else []
    ids += ["CORE-CALL-9"] if any(item.kind == "hosted" for item in plan.items) else []
    ids += [i for point in differing for i in POINT_REQUIREMENTS[point]]
    for item in plan.items:
        if item.is_call and item.status != "completed":
            ids.append("CORE-CALL-21" if item.status != "incomplete" else "CORE-CALL-5")
        restated = item.added.call_id is not None and item.done.call_id not in (None, item.added.call_id)
        ids += ["CORE-CALL-17", "CORE-CALL-19"] if item.is_call and restated else []
        ids += [_LABELLED[name] for name, _ in item.labels]
    timed = any(step.at_ms is not None for step in steps)
    ids += ["CUSTOM-TIME-1"] if timed and stream.profile == "custom-tools" else []
    if stream.profile == "execution" and any(o.get("code") == "call_retracted" for o in outcomes):
        ids += ["EXEC-RETRACT-1", "EXEC-RETRACT-2", "EXEC-RETRACT-3", "EXEC-RETRACT-4"]
    if stream.profile == "execution" and any(o.get("code") == "call_id_restated" for o in outcomes):
        ids.append("EXEC-ONCE-3")
    controls = {step.action for step in steps if isinstance(step, Control)}
    ids += ["EXEC-CANCEL-3", "EXEC-CANCEL-4"] if ControlAction.CANCEL in controls else []
    if ControlAction.RESTART in controls:
        ids += ["EXEC-RESTART-1", "EXEC-RESTART-3", "EXEC-RESTART-4", "EXEC-RESTART-5", "EXEC-APPROVE-3"]
    ids += ["EXEC-APPROVE-1"] if controls & {ControlAction.APPROVE, ControlAction.DENY} else []
    ids += ["EXEC-RUN-4", "EXEC-STATE-3"] if ControlAction.TOOL_ENDS in controls else []
    released = any(isinstance(step, Control) and step.tools is not None for step in steps)
    ids += ["EXEC-RESTART-6"] if released else []
    if stream.wire is not None:
        kinds = {record.kind for record in stream.wire.records}
        ids += ["SSE-DATA-3", "SSE-DATA-5"] if RecordKind.DONE in kinds else []
        ids += ["SSE-FIELD-1", "SSE-FIELD-4"] if RecordKind.SILENT in kinds else []
        ids += ["SSE-EVENT-2"] if stream.wire.unfinished else []
        ids += ["SSE-LINE-1"] if any(b in stream.wire.data for b in ILL_FORMED) else []
        ids += ["SSE-LINE-2"] if stream.wire.data.startswith(BOM) else []
    return cited(ids)
