"""The reference router as the harness sees it: one adapter among others.

An adapter is a callable taking the vector's tool list and returning a router;
its optional `profiles` and `options` attributes declare what it supports.
`router` is canonical; `arguments_done_router` declares option
`tool_call_point: arguments_done` (CORE-CALL-8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .router import Router, ToolCallPoint


@dataclass(frozen=True)
class ReferenceAdapter:
    tool_call_point: ToolCallPoint = "output_item_done"
    profiles: tuple[str, ...] = ("core",)

    @property
    def options(self) -> dict[str, str]:
        return {"tool_call_point": self.tool_call_point}

    def __call__(self, tools: Sequence[Mapping[str, Any]]) -> Router:
        return Router(tool_call_point=self.tool_call_point)


router = ReferenceAdapter()
arguments_done_router = ReferenceAdapter(tool_call_point="arguments_done")
