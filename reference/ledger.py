"""The call ledger: the executor's one piece of durable state (spec/execution.md).

One `Record` per call, the call's audit record, found by its call id. The
executor changes a record only through `Ledger`, whose writes are each one
transaction: `insert` claims a call id (it fails when the id is known),
`update` moves a record only if it is still in the state the executor read
(compare-and-set), and `readdress` gives a record the call id its producer
restated (spec/execution.md EXEC-ONCE-3), the old id still finding it. Those
are what make a call run at most once, whoever else shares the ledger and
however often the process restarts.

`SqliteLedger` is the default: an embedded SQLite database (standard library
`sqlite3`) in WAL mode, synchronous=FULL so that a committed move survives a
power cut, not only a killed process. An application with its own store
implements the six methods of `Ledger` (tests/memory_ledger.py keeps them in
a dict, for the executor's tests).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

State = Literal["STREAMING", "TOOL_READY", "TOOL_RUNNING", "TOOL_SUCCEEDED", "FAILED", "CANCELLED"]
# The states a record can be in and still move: STREAMING is never recorded,
# and TOOL_SUCCEEDED, FAILED and CANCELLED are final (EXEC-STATE-3).
UNFINISHED: tuple[State, ...] = ("TOOL_READY", "TOOL_RUNNING")


@dataclass(frozen=True)
class Record:
    """The audit record of one call (EXEC-AUDIT-1): the complete call, never its deltas."""

    call_id: str
    item_id: str
    name: str
    tool_type: str  # function, custom, or a catalogue call type (spec/core.md section 5.1)
    consumer: str  # who made the last move: a restart recovers only its own calls
    state: State = "STREAMING"
    namespace: str | None = None
    arguments: dict[str, Any] | None = None  # function calls
    input: str | None = None  # custom calls
    operation: dict[str, Any] | None = None  # apply_patch calls
    action: dict[str, Any] | None = None  # shell and local_shell calls
    actions: list[Any] | None = None  # computer calls
    server_label: str | None = None  # mcp_approval calls
    requires_approval: bool = False
    started: bool = False
    result: Any = None
    code: str | None = None
    message: str | None = None
    pointer: str | None = None  # the fault of invalid_arguments
    retracted: bool = False  # the router withdrew the call after the executor took it

    def to_json(self) -> str:
        # Its fields as they are: `dataclasses.asdict` would deep-copy them only to be serialized.
        return json.dumps(vars(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Record:
        return cls(**json.loads(text))


class Ledger(Protocol):
    def get(self, call_id: str) -> Record | None: ...

    def insert(self, record: Record) -> bool:
        """Store a record of a new call id; False, storing nothing, if the id is known."""
        ...

    def update(self, record: Record, expected: State) -> bool:
        """Replace the record of its call id if that is still in `expected`; else False."""
        ...

    def readdress(self, record: Record, previous: str) -> bool:
        """Replace the record of call id `previous`, if it is still in `record.state`, by `record`,
        under `record.call_id`, a new id, which `previous` then also finds; else False, changing
        nothing (a new id that is known included)."""
        ...

    def records(self) -> list[Record]:
        """Every record, in the order they were inserted."""
        ...

    def unfinished(self) -> list[Record]:
        """The records not in a final state, in the order they were inserted."""
        ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    seq INTEGER PRIMARY KEY,
    call_id TEXT NOT NULL UNIQUE,
    state TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_by_state ON calls (state);
CREATE TABLE IF NOT EXISTS aliases (
    alias TEXT PRIMARY KEY,
    call_id TEXT NOT NULL
);
"""


class SqliteLedger:
    """A ledger in an SQLite database file; every write is one autocommitted statement."""

    def __init__(self, path: str | Path, *, timeout: float = 30.0, uri: bool = False) -> None:
        # isolation_level=None: no implicit transactions, so each statement
        # commits on its own; `timeout` waits out another consumer's write.
        self._db = sqlite3.connect(str(path), timeout=timeout, isolation_level=None, uri=uri)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def get(self, call_id: str) -> Record | None:
        row = self._db.execute(
            "SELECT record FROM calls"
            " WHERE call_id = coalesce((SELECT call_id FROM aliases WHERE alias = ?), ?)",
            (call_id, call_id),
        ).fetchone()
        return None if row is None else Record.from_json(row[0])

    def insert(self, record: Record) -> bool:
        cursor = self._db.execute(
            "INSERT INTO calls (call_id, state, record) SELECT ?, ?, ?"
            " WHERE NOT EXISTS (SELECT 1 FROM aliases WHERE alias = ?) ON CONFLICT (call_id) DO NOTHING",
            (record.call_id, record.state, record.to_json(), record.call_id),
        )
        return cursor.rowcount == 1

    def readdress(self, record: Record, previous: str) -> bool:
        new = record.call_id
        db = self._db
        db.execute("BEGIN IMMEDIATE")  # one transaction: the record and every alias move together
        try:
            taken = db.execute(
                "SELECT 1 FROM calls WHERE call_id = ? UNION ALL SELECT 1 FROM aliases WHERE alias = ?",
                (new, new),
            ).fetchone()
            moved = taken is None and (
                db.execute(
                    "UPDATE calls SET call_id = ?, record = ? WHERE call_id = ? AND state = ?",
                    (new, record.to_json(), previous, record.state),
                ).rowcount
                == 1
            )
            if moved:
                db.execute("UPDATE aliases SET call_id = ? WHERE call_id = ?", (new, previous))
                db.execute("INSERT INTO aliases (alias, call_id) VALUES (?, ?)", (previous, new))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT" if moved else "ROLLBACK")
        return moved

    def update(self, record: Record, expected: State) -> bool:
        cursor = self._db.execute(
            "UPDATE calls SET state = ?, record = ? WHERE call_id = ? AND state = ?",
            (record.state, record.to_json(), record.call_id, expected),
        )
        return cursor.rowcount == 1

    def records(self) -> list[Record]:
        rows = self._db.execute("SELECT record FROM calls ORDER BY seq")
        return [Record.from_json(text) for (text,) in rows]

    def unfinished(self) -> list[Record]:
        rows = self._db.execute("SELECT record FROM calls WHERE state IN (?, ?) ORDER BY seq", UNFINISHED)
        return [Record.from_json(text) for (text,) in rows]

    def close(self) -> None:
        self._db.close()
