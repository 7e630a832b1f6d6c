"""The streamroute reference: a sans-IO router, and an executor with a durable call ledger.

The router (router, sse, consumers, patch, fields) needs only the standard library, and so does
importing this package, which exports the router's names. The executor (executor, ledger,
session) and the adapter the harness loads (adapter, serve) also need `jsonschema`, which checks
a call's arguments against its tool's schema (EXEC-CHECK-2); the ledger keeps its records in the
standard library's `sqlite3`.
"""

from .consumers import CATALOGUE, DiffConsumer, Finished, Rejected, consumers_for
from .router import EVENT_TYPES, Outcome, Router, ToolCallPoint

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
