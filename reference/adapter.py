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
event. `output_index_router` declares `item_correlation: output_index`
(CORE-ITEM-10): an item event whose `item_id` names no announced item goes to
the item announced at its `output_index`. And `session`: a vector whose
first entry is a session's client step is routed by a `Connection`, a core
router per response (spec/session.md); `sequential_lanes_router` declares
`session_lanes: sequential` (SESSION-LANE-6), for servers that process one
response at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .connection import Connection, SessionLanes, SessionOrStream
from .consumers import consumers_for
from .router import (
    CALL_TYPES,
    CATALOGUE_CALL_TYPES,
    CallArguments,
    ErrorEvent,
    ItemCorrelation,
    Router,
    ToolCallPoint,
)
from .session import ExecutionSession
from .sse import ByteRouter


@dataclass(frozen=True)
class ReferenceAdapter:
    tool_call_point: ToolCallPoint = "output_item_done"
    profiles: tuple[str, ...] = ("core", "custom-tools", "execution", "sse", "session")
    call_arguments: CallArguments = "parsed"
    error_event: ErrorEvent = "routed"
    item_correlation: ItemCorrelation = "item_id"
    session_lanes: SessionLanes = "multiplexed"

    @property
    def options(self) -> dict[str, Any]:
        return {
            "call_types": [*CALL_TYPES.values(), *CATALOGUE_CALL_TYPES.values()],  # spec/core.md 5.1
            "tool_call_point": self.tool_call_point,
            "call_arguments": self.call_arguments,
            "error_event": self.error_event,
            "item_correlation": self.item_correlation,
            "session_lanes": self.session_lanes,
        }

    def __call__(self, tools: Sequence[Mapping[str, Any]]) -> SessionOrStream:
        consumers = consumers_for(tools)

        def new_router() -> Router:
            return Router(
                consumers,
                tool_call_point=self.tool_call_point,
                call_arguments=self.call_arguments,
                error_event=self.error_event,
                item_correlation=self.item_correlation,
            )

        sequential = self.session_lanes == "sequential"
        return SessionOrStream(
            lambda: Connection(new_router, sequential_lanes=sequential),
            lambda: ExecutionSession(lambda: ByteRouter(new_router()), tools),
        )


router = ReferenceAdapter()
arguments_done_router = ReferenceAdapter(tool_call_point="arguments_done")
json_text_router = ReferenceAdapter(
    profiles=("core", "custom-tools", "sse", "session"), call_arguments="json_text"
)
error_ends_stream_router = ReferenceAdapter(error_event="ends_stream")
output_index_router = ReferenceAdapter(item_correlation="output_index")
sequential_lanes_router = ReferenceAdapter(session_lanes="sequential")
