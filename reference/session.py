"""A router and the reference executor, as an execution vector drives them.

The glue between the harness and `Executor` (spec/execution.md section 11):
it builds the tools a vector declares, tells control steps from events, and
restarts the way the spec says a process restarts. Each session has its own
SQLite ledger, an in-memory database shared by name (thousands of vector runs
need no files; the file-backed ledger is what the fault test kills), made
when the first call is recorded: until then the ledger is empty, and most
streams make no call; `restart` closes the ledger's connection and drops the
router, the executor and the turn, then rebuilds all three from the database
alone, as a new process would.
"""

from __future__ import annotations

import copy
import sqlite3
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from streamroute.wire.session import is_step

from .executor import PENDING, Executor, Tool, _validator
from .ledger import Record, SqliteLedger, State
from .sse import ByteRouter
from .types import Outcome


class ToolFailure(Exception):
    """What a declared tool with `fails` raises."""


def declared_tool(declared: Mapping[str, Any]) -> Tool | None:
    """The tool a vector declares, or None when it is not on the allow-list."""
    if not declared.get("allow", True):
        return None
    permitted = declared.get("permitted", True)  # a JSON Schema of the call's input, or true or false
    permit = _validator(permitted).is_valid if isinstance(permitted, dict) else lambda payload: permitted

    def run(payload: Any) -> Any:
        if "fails" in declared:
            raise ToolFailure(declared["fails"])
        if declared.get("pending"):
            return PENDING
        return copy.deepcopy(payload if declared.get("returns_input") else declared.get("result"))

    return Tool(
        name=declared.get("name", declared["type"]),  # a built-in tool is named by its type
        run=run,
        type=declared["type"],
        namespace=declared.get("namespace"),
        parameters=declared.get("parameters"),
        requires_approval=bool(declared.get("requires_approval", False)),
        permit=permit,
    )


class _Database:
    """The session's in-memory SQLite database, shared by name, made when first written to; it
    lives while its keeper connection is open."""

    def __init__(self) -> None:
        self.uri: str | None = None
        self._keeper: sqlite3.Connection | None = None

    def make(self) -> str:
        if self.uri is None:
            self.uri = f"file:streamroute-{uuid.uuid4().hex}?mode=memory&cache=shared"
            self._keeper = sqlite3.connect(self.uri, uri=True)
        return self.uri

    def close(self) -> None:
        if self._keeper is not None:
            self._keeper.close()


class _LazyLedger:
    """A ledger of the session's database, which it opens at the first record; a database not
    made yet holds no record, so until then every read answers at once."""

    def __init__(self, database: _Database) -> None:
        self._database = database
        self._ledger = None if database.uri is None else SqliteLedger(database.uri, uri=True)

    def get(self, call_id: str) -> Record | None:
        return None if self._ledger is None else self._ledger.get(call_id)

    def insert(self, record: Record) -> bool:
        if self._ledger is None:
            self._ledger = SqliteLedger(self._database.make(), uri=True)
        return self._ledger.insert(record)

    def update(self, record: Record, expected: State) -> bool:
        return self._ledger is not None and self._ledger.update(record, expected)

    def readdress(self, record: Record, previous: str) -> bool:
        return self._ledger is not None and self._ledger.readdress(record, previous)

    def records(self) -> list[Record]:
        return [] if self._ledger is None else self._ledger.records()

    def unfinished(self) -> list[Record]:
        return [] if self._ledger is None else self._ledger.unfinished()

    def close(self) -> None:
        if self._ledger is not None:
            self._ledger.close()


class ExecutionSession:
    """One vector's stream: `feed` takes events and control steps, `feed_bytes` SSE
    bytes (which never carry control steps), `close` ends it."""

    def __init__(self, new_router: Callable[[], ByteRouter], declared: Sequence[Mapping[str, Any]]) -> None:
        self._new_router = new_router
        self._declare(declared)
        self._database = _Database()
        self._start()

    def _declare(self, declared: Sequence[Mapping[str, Any]]) -> None:
        self._tools = [tool for tool in map(declared_tool, declared) if tool is not None]

    def _open_ledger(self) -> _LazyLedger:
        return _LazyLedger(self._database)

    def _start(self) -> None:
        self._ledger = self._open_ledger()
        self._executor = Executor(self._tools, self._ledger)
        self._router = self._new_router()

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        return [self._executor.feed(outcomes) for outcomes in self._router.feed_bytes(chunk)]

    def feed(self, step: Any) -> list[Outcome]:
        if not is_step(step):
            return self._executor.feed(self._router.feed(step))
        control = step["control"]
        if control == "cancel":
            return self._executor.cancel()
        if control == "approve":
            return self._executor.approve(step["call_id"])
        if control == "deny":
            return self._executor.deny(step["call_id"])
        if control == "audit":
            return self._executor.audit()
        if control == "supply":
            return self._executor.supply(step["call_id"])
        if control == "tool_ends":  # a tool that went on running reports its end (EXEC-RUN-2)
            if "fails" in step:
                return self._executor.fail(step["call_id"], step["fails"])
            return self._executor.finish(step["call_id"], step["result"])
        if control == "restart":
            self._ledger.close()  # no goodbye: every move is already committed
            if "tools" in step:  # a new release: the tools it declares from now on
                self._declare(step["tools"])
            self._start()
            return self._executor.recover()
        raise ValueError(f"unknown control step {control!r}")

    def close(self) -> list[Outcome]:
        outcomes = self._executor.feed(self._router.close())
        self._ledger.close()
        self._database.close()
        return outcomes
