"""The reference router as the harness sees it: one adapter among others.

An adapter is a callable taking the vector's tool list and returning a router;
its optional `profiles` and `options` attributes declare what it supports.
`router` is canonical; `arguments_done_router` declares option
`tool_call_point: arguments_done` (CORE-CALL-8). Both claim `core` and
`custom-tools`, installing the consumer catalogue of the tool list in one line,
and `execution`: the router runs inside an `ExecutionSession`, which executes
the calls with the reference executor and takes the control steps. And `sse`:
the session's router is a `ByteRouter`, so bytes (`feed_bytes`) reach the same
router and executor. `json_text_router` declares `call_arguments: json_text`
(CORE-JSON-1): it hands each function call's complete text over unparsed,
and claims every profile but `execution`, whose executor takes parsed
arguments (spec/core.md section 12). `error_ends_stream_router` declares
`error_event: ends_stream` (CORE-ERR-3): it reads nothing after an `error`
event; `nested_error_ends_stream_router` declares `nested_ends_stream`:
nothing after an `error` event of the nested shape. `output_index_router`
declares `item_correlation: output_index` (CORE-ITEM-10): an item event whose
`item_id` names no announced item goes to the item announced at its
`output_index`. `response_done_router` declares
`tool_call_point: response_done` (CORE-POINT-1): its calls wait for the end of
their response (handover.py). `fault_ends_stream_router` declares
`producer_fault: ends_stream` (CORE-FAULT-1): it stops at its producer's first
fault (faults.py), in core and custom-tools. `ReferenceAdapter.with_options`
makes the reference under any values of these options, two at a time
included (tests/test_option_pairs.py). And `session`: a vector whose
first entry is a session's client step is routed by a `Connection`, a core
router per response (spec/session.md); `sequential_lanes_router` declares
`session_lanes: sequential` (SESSION-LANE-6), for servers that process one
response at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .connection import Connection, SessionLanes, SessionOrStream
from .consumers import consumers_for
from .faults import FaultStopRouter
from .handover import ResponseDoneRouter, ToolCallPoint
from .router import (
    CALL_TYPES,
    CATALOGUE_CALL_TYPES,
    CallArguments,
    ErrorEvent,
    ItemCorrelation,
    Router,
)
from .session import ExecutionSession
from .sse import ByteRouter, EventRouter

ProducerFault = Literal["reported", "ends_stream"]
StreamStart = Literal["any", "response_created"]
PROFILES = ("core", "custom-tools", "execution", "sse", "session")
# The profiles an option value leaves out: the executor takes parsed arguments, and a stream stopped
# at its fault is the core router's (its decoder and its connection do not stop).
_LEAVES_OUT = {
    ("call_arguments", "json_text"): {"execution"},
    ("producer_fault", "ends_stream"): {"execution", "sse", "session"},
}


@dataclass(frozen=True)
class ReferenceAdapter:
    tool_call_point: ToolCallPoint = "output_item_done"
    profiles: tuple[str, ...] = PROFILES
    call_arguments: CallArguments = "parsed"
    error_event: ErrorEvent = "routed"
    item_correlation: ItemCorrelation = "item_id"
    producer_fault: ProducerFault = "reported"
    stream_start: StreamStart = "any"  # it takes any stream; `response_created` only narrows what applies
    session_lanes: SessionLanes = "multiplexed"

    @classmethod
    def with_options(cls, **options: Any) -> ReferenceAdapter:
        """The reference under these option values, claiming every profile they leave it."""
        left_out = set().union(*(_LEAVES_OUT.get(chosen, set()) for chosen in options.items()))
        return cls(profiles=tuple(p for p in PROFILES if p not in left_out), **options)

    @property
    def options(self) -> dict[str, Any]:
        return {
            "call_types": [*CALL_TYPES.values(), *CATALOGUE_CALL_TYPES.values()],  # spec/core.md 5.1
            "tool_call_point": self.tool_call_point,
            "call_arguments": self.call_arguments,
            "error_event": self.error_event,
            "item_correlation": self.item_correlation,
            "producer_fault": self.producer_fault,
            "stream_start": self.stream_start,
            "session_lanes": self.session_lanes,
        }

    def __call__(self, tools: Sequence[Mapping[str, Any]]) -> SessionOrStream:
        consumers = consumers_for(tools)
        held = self.tool_call_point == "response_done"  # the calls wait for the response's end

        def new_router() -> EventRouter:
            router = Router(
                consumers,
                tool_call_point="output_item_done"
                if self.tool_call_point == "response_done"
                else self.tool_call_point,
                call_arguments=self.call_arguments,
                error_event=self.error_event,
                item_correlation=self.item_correlation,
            )
            stopping = FaultStopRouter(router) if self.producer_fault == "ends_stream" else router
            return ResponseDoneRouter(stopping) if held else stopping

        sequential = self.session_lanes == "sequential"
        return SessionOrStream(
            lambda: Connection(new_router, sequential_lanes=sequential),
            lambda: ExecutionSession(lambda: ByteRouter(new_router()), tools),
        )


router = ReferenceAdapter()
arguments_done_router = ReferenceAdapter.with_options(tool_call_point="arguments_done")
json_text_router = ReferenceAdapter.with_options(call_arguments="json_text")
error_ends_stream_router = ReferenceAdapter.with_options(error_event="ends_stream")
nested_error_ends_stream_router = ReferenceAdapter.with_options(error_event="nested_ends_stream")
output_index_router = ReferenceAdapter.with_options(item_correlation="output_index")
response_done_router = ReferenceAdapter.with_options(tool_call_point="response_done")
fault_ends_stream_router = ReferenceAdapter.with_options(producer_fault="ends_stream")
sequential_lanes_router = ReferenceAdapter.with_options(session_lanes="sequential")
