"""The reference router as the harness sees it: one adapter among others.

An adapter is a callable taking the vector's tool list and returning a router;
its optional `profiles` and `options` attributes declare what it supports.
`router` is canonical; `arguments_done_router` declares option
`tool_call_point: arguments_done` (CORE-CALL-8). Both claim `core` and
`custom-tools`, installing the consumer catalogue of the tool list in one line,
and `execution`: the router runs inside an `ExecutionSession`, which executes
the calls with the reference executor and takes the control steps. And `sse`:
the session's router is a `ByteRouter`, so bytes (`feed_bytes`) reach the same
router and executor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .consumers import consumers_for
from .router import Router, ToolCallPoint
from .session import ExecutionSession
from .sse import ByteRouter


@dataclass(frozen=True)
class ReferenceAdapter:
    tool_call_point: ToolCallPoint = "output_item_done"
    profiles: tuple[str, ...] = ("core", "custom-tools", "execution", "sse")

    @property
    def options(self) -> dict[str, str]:
        return {"tool_call_point": self.tool_call_point}

    def __call__(self, tools: Sequence[Mapping[str, Any]]) -> ExecutionSession:
        consumers = consumers_for(tools)
        return ExecutionSession(
            lambda: ByteRouter(Router(consumers, tool_call_point=self.tool_call_point)), tools
        )


router = ReferenceAdapter()
arguments_done_router = ReferenceAdapter(tool_call_point="arguments_done")
