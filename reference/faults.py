"""A stream that ends at its producer's first fault: option `producer_fault: ends_stream`.

A client may take a producer that breaks its rules as a failed response, and read nothing
after its first fault (spec/core.md section 12.8). `FaultStopRouter` is the reference router
with that design: it routes as the canonical router does up to the first outcome that reports a
fault (an `error` with one of `FAULT_CODES`), keeps that `error` as the last outcome of its event
(CORE-FAULT-1), and feeds nothing more to the router. `close()` says what the router says of the
calls still open, then `end`: `failed`, or the terminal status when the response had ended
before the fault (CORE-FAULT-2).
"""

from __future__ import annotations

from .sse import EventRouter
from .types import Outcome

# The `error` codes that report a fault of the producer (spec/outcome.schema.json
# `$defs/fault_code`; tests/test_event_types.py keeps the two equal). The sse profile's own
# (`invalid_data`, `event_after_done`, `event_too_large`) come from the decoder, which this
# router does not stop: the reference declares this option for core and custom-tools only.
FAULT_CODES = frozenset(
    {
        "malformed_event",
        "unknown_item",
        "item_type_mismatch",
        "duplicate_event",
        "late_delta",
        "done_mismatch",
        "event_after_terminal",
        "invalid_data",
        "event_after_done",
        "event_too_large",
    }
)
_TERMINAL = frozenset({"completed", "failed", "incomplete"})


class FaultStopRouter:
    """A `Router` that stops at the first fault of its producer (see the module docstring)."""

    def __init__(self, router: EventRouter) -> None:
        self._router = router
        self._stopped = False
        self._terminal = False  # a terminal event was routed before the stop

    def feed(self, event: object) -> list[Outcome]:
        if self._stopped:
            return []  # CORE-FAULT-1: no outcome, no state change
        outcomes = self._router.feed(event)
        for index, outcome in enumerate(outcomes):
            if outcome["kind"] == "error" and outcome["code"] in FAULT_CODES:
                self._stopped = True
                return outcomes[: index + 1]
            if outcome["kind"] == "lifecycle" and outcome["event"] in _TERMINAL:
                self._terminal = True
        return outcomes

    def close(self) -> list[Outcome]:
        outcomes = self._router.close()
        if outcomes and self._stopped and not self._terminal:  # CORE-FAULT-2: `end` is the last
            outcomes[-1] = {**outcomes[-1], "status": "failed"}
        return outcomes
