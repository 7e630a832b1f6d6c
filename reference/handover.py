"""Calls handed over when their response completes: option `tool_call_point: response_done`.

Agent frameworks run the calls of a response once the response has ended, never before
(spec/core.md CORE-POINT-1). `ResponseDoneRouter` is the reference router with that design:
each call's one outcome, made at its done item as the canonical router makes it, is held until
the response's terminal event. At `response.completed` the held outcomes are handed over as
they were made; when the response ends any other way (`response.failed`,
`response.incomplete`, or close without a terminal event) a held `tool.call` becomes
`tool.error` `incomplete`, since a response that did not complete hands over no call
(CORE-POINT-2). The held outcomes come in the order their done items came, after the terminal
event's `lifecycle` and `error`, before the outcomes of the calls still open (CORE-CALL-6).
"""

from __future__ import annotations

from typing import Literal

from .router import ToolCallPoint as RouterPoint
from .sse import EventRouter
from .types import Outcome

# Every value of the option: the router's own points, and this one.
ToolCallPoint = Literal[RouterPoint, "response_done"]

_HELD = ("tool.call", "tool.error")


class ResponseDoneRouter:
    """A router whose calls wait for the end of their response (see the module docstring)."""

    def __init__(self, router: EventRouter) -> None:
        self._router = router
        self._held: list[Outcome] | None = []  # None once handed over: the response has ended

    def feed(self, event: object) -> list[Outcome]:
        outcomes = self._router.feed(event)
        done_item = isinstance(event, dict) and event.get("type") == "response.output_item.done"
        if self._held is not None and done_item:
            self._held += [outcome for outcome in outcomes if outcome["kind"] in _HELD]
            return [outcome for outcome in outcomes if outcome["kind"] not in _HELD]
        terminal = next((o["event"] for o in outcomes if o["kind"] == "lifecycle"), None)
        if terminal in ("completed", "failed", "incomplete"):
            return self._hand_over(outcomes, completed=terminal == "completed")
        return outcomes

    def close(self) -> list[Outcome]:
        return self._hand_over(self._router.close(), completed=False)

    def _hand_over(self, outcomes: list[Outcome], *, completed: bool) -> list[Outcome]:
        """`outcomes` of the response's end with the held calls in their place."""
        held, self._held = self._held or [], None
        if not completed:
            held = [_not_completed(outcome) for outcome in held]
        # The terminal event's lifecycle and error come first; the open calls' outcomes name an item.
        first = next(
            (i for i, o in enumerate(outcomes) if "item_id" in o or o["kind"] == "end"), len(outcomes)
        )
        return [*outcomes[:first], *held, *outcomes[first:]]


def _not_completed(outcome: Outcome) -> Outcome:
    """CORE-POINT-2: a call of a response that did not complete is never handed over."""
    if outcome["kind"] != "tool.call":
        return outcome
    error: Outcome = {"kind": "tool.error", "item_id": outcome["item_id"], "code": "incomplete"}
    error.update(call_id=outcome["call_id"], message="the response ended without completing")
    return error
