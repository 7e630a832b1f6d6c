"""The streamroute reference: a sans-IO router, and an executor with a durable call ledger.

What it depends on, exactly:

* the router (router, fields, types, consumers, patch, sse, connection) needs only the
  standard library, and so does importing this package, which exports the router's names;
* the executor (executor, session) also needs `jsonschema`, which checks a call's arguments
  against its tool's schema (EXEC-CHECK-2), and keeps its records through the ledger
  (ledger), in the standard library's `sqlite3` or in memory;
* the adapter the harness loads (adapter, serve) runs both, so it needs `jsonschema` too.

No module of the reference imports another part of the project (tests/test_rooms.py).
"""

from .consumers import CATALOGUE, DiffConsumer, Finished, Rejected, consumers_for
from .router import EVENT_TYPES, Router, ToolCallPoint
from .types import Outcome

__all__ = [
    "CATALOGUE",
    "EVENT_TYPES",
    "DiffConsumer",
    "Finished",
    "Outcome",
    "Rejected",
    "Router",
    "ToolCallPoint",
    "consumers_for",
]
