"""Checking a recorded session as its producer must emit it (spec/session.md section 10).

A session is many responses on one connection, on several lanes. Each turn
(a lane's events from its first, when no turn of the lane is open, to its
terminal event or an `error` of the lane) is checked as a stream of its own
by the checker of one response (checker.py), numbered from its own start, so
every PROD-* requirement holds per turn. Steer and inject acknowledgements
and `error` events outside a turn belong to no response: they are checked
against the event schema only, without a sequence number. In a vector's events, the
client steps `disconnect` and `connect` cut the turns in flight, whose end is
then not checked; a `send` is the client's, not the producer's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from streamroute.conformance.limits import TooDeep, loads
from streamroute.conformance.schemas import EVENT, first_error
from streamroute.wire.session import (
    ACKNOWLEDGEMENTS,
    INJECTIONS,
    LIMIT_REACHED,
    SESSION_STEPS,
    is_step,
)

from .checker import Captured, Violation, _Checker


def _lane(event: dict[str, Any]) -> str | None:
    lane = event.get("stream_id")
    return lane if lane is None or isinstance(lane, str) else json.dumps(lane)


def _session_mark(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    if is_step(entry):
        return entry["control"] in SESSION_STEPS
    kind = entry.get("type")
    return "stream_id" in entry or (isinstance(kind, str) and kind in _CONNECTION_EVENTS)


# The events of the connection, not of a response (spec/session.md section 9.1).
_CONNECTION_EVENTS = ACKNOWLEDGEMENTS.keys() | INJECTIONS


def _code(event: dict[str, Any]) -> object:
    nested = event.get("error")
    return nested.get("code") if isinstance(nested, dict) else event.get("code")


def is_session(entries: Iterable[Any]) -> bool:
    """A recording (or a vector's events) is a session when an event names a lane or acknowledges a
    steer or an injection, or it holds a session's client step."""
    return any(map(_session_mark, entries))


class _Session:
    def __init__(self) -> None:
        self.violations: list[Violation] = []
        self.turns: dict[str | None, _Checker] = {}  # the open turn of each lane

    def take(self, index: int, captured: Captured, entry: Any) -> None:
        if is_step(entry):
            if entry["control"] in ("disconnect", "connect"):
                self._cut()
            return
        if not isinstance(entry, dict) or type(entry.get("type")) is not str:
            self._alone(index, captured)  # what one checker says of an unreadable or typeless event
            return
        lane = _lane(entry)
        turn = self.turns.get(lane)
        limit = entry["type"] == "error" and _code(entry) == LIMIT_REACHED
        if entry["type"] in _CONNECTION_EVENTS or (entry["type"] == "error" and turn is None) or limit:
            numbered = entry if "sequence_number" in entry else {**entry, "sequence_number": 0}
            problem = first_error(EVENT, numbered)
            if problem is not None:
                self.violations.append(Violation(index, "PROD-EVT-2", problem))
            if limit:  # the server ends the connection: the turns in flight are cut
                self._cut()
            return
        if turn is None:
            turn = self.turns[lane] = _Checker()
        turn.take(index, captured)
        if entry["type"] == "error" or turn.terminal is not None:  # the turn is over
            self._collect([self.turns.pop(lane)])

    def _cut(self) -> None:
        """The connection ended: the turns in flight stop here, and their ends are not checked."""
        self._collect(self.turns.values())
        self.turns = {}

    def finish(self) -> None:
        for turn in self.turns.values():
            turn.finish()
        self._collect(self.turns.values())

    def _alone(self, index: int, captured: Captured) -> None:
        checker = _Checker()
        checker.take(index, captured)
        self._collect([checker])

    def _collect(self, turns: Iterable[_Checker]) -> None:
        for turn in turns:
            self.violations += turn.violations


def _checked(entries: Sequence[tuple[Captured, Any]]) -> list[Violation]:
    session = _Session()
    for index, (captured, entry) in enumerate(entries):
        session.take(index, captured, entry)
    session.finish()
    return sorted(session.violations, key=lambda v: (v.at is None, v.at or 0))


def check_session(entries: Iterable[Any]) -> list[Violation]:
    """Every violation in a session as a vector holds it: parsed events and client steps."""
    return _checked([(Captured(json.dumps(entry)), entry) for entry in entries])


def _parsed(captured: Captured) -> Any:
    if captured.done or captured.dropped:
        return None
    try:
        return loads(captured.data)
    except (TooDeep, ValueError):
        return None  # the one-response checker says what is wrong with it


def is_session_capture(captured: Iterable[Captured]) -> bool:
    """`is_session` of a recording; only the events that could say so are read."""
    return is_session(
        _parsed(event)
        for event in captured
        if "stream_id" in event.data or "response.steer." in event.data or "response.inject." in event.data
    )


def check_session_capture(captured: Sequence[Captured]) -> list[Violation]:
    """Every violation in a recorded session."""
    return _checked([(event, _parsed(event)) for event in captured])
