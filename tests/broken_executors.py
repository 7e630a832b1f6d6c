"""Deliberately broken executors: each makes one mistake real applications make.

Each is the reference `ExecutionSession` with one piece changed, so it fails
exactly the execution vectors that check that mistake and passes the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from streamroute.reference import Router
from streamroute.reference.ledger import SqliteLedger
from streamroute.reference.session import ExecutionSession

PROFILES = ("core", "execution")


class ForgetsAtRestart(ExecutionSession):
    """Keeps its calls in a database in memory: a restart forgets them, so a replay runs them again.

    A restart so finds no call running or ready, and the audit holds none of them: EXEC-RESTART-2,
    EXEC-RESTART-3 and EXEC-AUDIT-2 as well; and a call replayed or supplied after it has no record
    to answer with (no `tool.duplicate`, no `tool.result`): EXEC-ONCE-2 and EXEC-SUPPLY-1."""

    profiles = PROFILES

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(Router, tools)

    def _open_ledger(self) -> SqliteLedger:
        return SqliteLedger(":memory:")


class NoValidation(ExecutionSession):
    """Runs calls without checking their arguments against the tool's schema.

    The first failing check is then not the one that decides: EXEC-CHECK-4 as well."""

    profiles = PROFILES

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(Router, [{k: v for k, v in tool.items() if k != "parameters"} for tool in tools])


class NoApproval(ExecutionSession):
    """Runs calls of tools that require approval at once, without asking."""

    profiles = PROFILES

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(Router, [{**tool, "requires_approval": False} for tool in tools])
