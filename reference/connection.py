"""The reference session router of the streamroute `session` profile.

Theory of operation
-------------------
One `Connection` routes what happens on one Responses WebSocket connection
(spec/session.md): the server events it receives and, as control steps, what
the client does (`send` a message, `disconnect`, `connect` again). It is
sans-IO like the core router: `feed(entry)` answers one entry with outcomes,
`close()` ends the connection.

A *turn* is one response of one lane, from the client's `response.create`
(or the server's automatic successor of a steered response) to its end. Each
turn has a core `Router` of its own, so nothing of one response (items, call
ids, its terminal state) reaches another, and every outcome of a turn carries
its lane (`stream_id`, null for the default lane) and its `response_id`. The
turns in flight are kept in the order they began; a lane's events go to its
oldest turn in flight (a lane is served first in, first out). A turn ends
exactly once: at its terminal event, at an `error` scoped to its lane, or
when the connection ends (a disconnect, the connection limit, close), when
its router is closed and says `end`.

A *steer* is one `response.steer` the client sent, with a state of its own.
`TRANSITIONS` is the table of spec/session.md section 6, and every move goes
through `_move`, which looks it up there. Acknowledgements find their steer by
the server's steer id, or, before one is allocated, as the oldest requested
steer of their target; the commit point is a successor's `response.created`
naming the target as its `previous_response_id`. Steers outlive a connection:
one whose connection ended before it was known to be committed or failed is
`unknown`, and is never sent again (SESSION-STEER-7).

Lanes, turns and the responses seen are connection-local and start empty at
every `connect`. A server that processes one response at a time (Open
Responses) sends its events without `stream_id`; with `sequential_lanes`
(option `session_lanes: sequential`) such an event, while the default lane is
idle, goes to the connection's oldest turn (SESSION-LANE-6). Requirement ids in
comments refer to spec/session.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from streamroute.wire.session import (
    ACKNOWLEDGEMENTS,
    INJECTIONS,
    LIMIT_REACHED,
    SESSION_STEPS,
    Acknowledgement,
    is_step,
)

from .router import Router
from .sse import EventRouter
from .types import Outcome, error_outcome

SteerState = Literal["requested", "accepted", "pending", "committed", "failed", "unknown"]
SteerTrigger = Literal[Acknowledgement, "commit", "lose"]

# state -> {trigger: next state}: spec/session.md section 6, kept equal by tests/test_session.py.
TRANSITIONS: dict[SteerState, dict[SteerTrigger, SteerState]] = {
    "requested": {"accept": "accepted", "fail": "failed", "lose": "unknown"},
    "accepted": {"hold": "pending", "commit": "committed", "fail": "failed", "lose": "unknown"},
    "pending": {"commit": "committed", "fail": "failed", "lose": "unknown"},
    "committed": {},
    "failed": {},
    "unknown": {},
}
# The server may still own a steer in these states: sending its input again would be blind.
UNSETTLED: frozenset[SteerState] = frozenset({"requested", "accepted", "pending", "unknown"})

TERMINAL = frozenset({"completed", "failed", "incomplete"})  # lifecycle events that end a response

Reason = Literal["closed", "lost", "limit_reached"]
SessionLanes = Literal["multiplexed", "sequential"]
Lane = str | None


@dataclass
class Turn:
    lane: Lane
    router: EventRouter
    response_id: str | None = None

    def tagged(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        """SESSION-TURN-1, SESSION-TURN-6: a turn's outcomes name its lane and its response."""
        return [{**outcome, "stream_id": self.lane, "response_id": self.response_id} for outcome in outcomes]


@dataclass
class Steer:
    target: str  # the response it steers
    input: Any
    lane: Lane
    state: SteerState = "requested"
    steer_id: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # what its last outcome adds (code, successor)

    def outcome(self) -> Outcome:
        return {
            "kind": f"steer.{self.state}",
            "stream_id": self.lane,
            "response_id": self.target,
            "steer_id": self.steer_id,
            **self.fields,
        }


def _error(code: str, message: str, lane: Lane = None) -> Outcome:
    """An `error` outcome of the connection, naming its lane or none (spec/session.md section 4)."""
    return {**error_outcome(code, message), "stream_id": lane, "response_id": None}


def _error_code(event: dict[str, Any]) -> str | None:
    """The code of an `error` event or a failed steer: nested under `error`, or flat."""
    nested = event.get("error")
    code = (nested if isinstance(nested, dict) else event).get("code")
    return code if isinstance(code, str) else None


def _reported(event: dict[str, Any], lane: Lane) -> list[Outcome]:
    """An `error` event of no turn, read as the core router reads one (CORE-ERR-1)."""
    return [{**outcome, "stream_id": lane, "response_id": None} for outcome in Router().feed(event)]


class Connection:
    """Routes one WebSocket connection, and those that replace it. See the module docstring."""

    def __init__(self, new_router: Callable[[], EventRouter], *, sequential_lanes: bool = False) -> None:
        self._new_router = new_router
        self._sequential_lanes = sequential_lanes  # SESSION-LANE-6
        self._steers: list[Steer] = []  # every steer sent, in order; they outlive a connection
        self._closed = False
        self._open()

    def _open(self) -> None:
        self._connected = True
        self._lanes: set[Lane] = {None}  # the default lane needs no name (SESSION-LANE-1)
        self._turns: list[Turn] = []  # in flight, in the order they began
        self._response_lanes: dict[str, Lane] = {}  # the responses seen on this connection

    # -- the two entry points ------------------------------------------------

    def feed(self, entry: object) -> list[Outcome]:
        if self._closed:
            return []
        if is_step(entry):
            assert isinstance(entry, dict)
            return self._step(entry)
        if not isinstance(entry, dict) or type(entry.get("type")) is not str:
            return [_error("malformed_event", "an event must be an object with a string type")]
        lane = entry.get("stream_id")
        if lane is not None and type(lane) is not str:
            return [_error("malformed_event", f"{entry['type']}: stream_id must be a string")]
        if not self._connected:  # SESSION-CONN-2
            return [_error("event_after_disconnect", f"{entry['type']} after the connection ended", lane)]
        if entry["type"] == "error" and _error_code(entry) == LIMIT_REACHED:  # SESSION-LIMIT-1
            return _reported(entry, lane) + self._end_connection("limit_reached")
        if lane not in self._lanes:  # SESSION-LANE-3
            return [_error("unknown_lane", f"{entry['type']} for lane {lane!r}, never named", lane)]
        if entry["type"] in ACKNOWLEDGEMENTS:
            return self._acknowledge(entry)
        if entry["type"] in INJECTIONS:  # SESSION-INJECT-2: no turn's, and none ends
            response_id = entry.get("response_id")
            return [
                {
                    "kind": "ignored",
                    "type": entry["type"],
                    "stream_id": lane,
                    "response_id": response_id if isinstance(response_id, str) else None,
                }
            ]
        if entry["type"] == "error":
            return self._lane_error(entry, lane)
        turn = self._head(lane) or self._successor(entry, lane)
        if turn is None:  # SESSION-LANE-4
            return [_error("no_response_in_flight", f"{entry['type']} while lane {lane!r} has no turn", lane)]
        return self._route(turn, entry)

    def close(self) -> list[Outcome]:
        if self._closed:
            return []
        outcomes = self._end_connection("closed") if self._connected else []
        self._closed = True
        return outcomes

    # -- client steps ----------------------------------------------------------

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        control = step["control"]
        if control == "disconnect":
            return self._end_connection("lost") if self._connected else []
        if control == "connect":  # a new connection replaces the current one (SESSION-CONN-5)
            outcomes = self._end_connection("closed") if self._connected else []
            self._open()
            return outcomes
        if control != "send":
            raise ValueError(f"unknown control step {control!r}")
        message = step["message"]
        if message["type"] == "response.create":
            return self._create(message)
        if message["type"] == "response.inject":  # SESSION-INJECT-1: it begins nothing
            if not self._connected:  # SESSION-CONN-4
                return [_error("not_connected", "response.inject while the connection is down")]
            return []
        return self._steer(message)

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        lane: Lane = message.get("stream_id")
        if not self._connected:  # SESSION-CONN-4
            return [_error("not_connected", "response.create while the connection is down", lane)]
        self._lanes.add(lane)
        self._turns.append(Turn(lane, self._new_router()))  # SESSION-LANE-2: served after the lane's others
        return []

    def _steer(self, message: dict[str, Any]) -> list[Outcome]:
        target, steered = message["previous_response_id"], message["input"]
        lane = self._response_lanes.get(target)  # the target decides the lane (SESSION-STEER-1)
        if not self._connected:  # SESSION-CONN-4
            return [_error("not_connected", "response.steer while the connection is down", lane)]
        for steer in self._steers:  # SESSION-STEER-7: the server may own it already
            if steer.target == target and steer.input == steered and steer.state in UNSETTLED:
                return [_error("duplicate_steer", f"this input is already {steer.state} for {target}", lane)]
        steer = Steer(target, steered, lane)
        self._steers.append(steer)
        return [steer.outcome()]

    # -- server events -----------------------------------------------------------

    def _head(self, lane: Lane) -> Turn | None:
        """The lane's oldest turn in flight, which its events are for (SESSION-LANE-1, -2); for a
        bare event of an idle default lane under `sequential_lanes`, the connection's oldest
        (SESSION-LANE-6)."""
        head = next((turn for turn in self._turns if turn.lane == lane), None)
        if head is None and lane is None and self._sequential_lanes and self._turns:
            return self._turns[0]
        return head

    def _successor(self, event: dict[str, Any], lane: Lane) -> Turn | None:
        """SESSION-TURN-5: the server's own successor of a response it holds steers for."""
        response = event.get("response")
        if event["type"] != "response.created" or not isinstance(response, dict):
            return None
        previous = response.get("previous_response_id")
        if not any(s.target == previous and s.state in ("accepted", "pending") for s in self._steers):
            return None
        turn = Turn(lane, self._new_router())
        self._turns.append(turn)
        return turn

    def _route(self, turn: Turn, event: dict[str, Any]) -> list[Outcome]:
        response = event.get("response")
        response_id = response.get("id") if isinstance(response, dict) else None
        if turn.response_id is None and isinstance(response_id, str):  # SESSION-TURN-6
            turn.response_id = response_id
            self._response_lanes[response_id] = turn.lane
        outcomes = turn.tagged(turn.router.feed(event))
        if any(o["kind"] == "lifecycle" and o["event"] in TERMINAL for o in outcomes):  # SESSION-TURN-3
            outcomes += self._end_turn(turn)
        if event["type"] == "response.created" and isinstance(response, dict):
            outcomes += self._commit(response.get("previous_response_id"), turn)
        return outcomes

    def _end_turn(self, turn: Turn) -> list[Outcome]:
        """SESSION-TURN-4: the turn's router says its last, `end`, and the turn is over."""
        self._turns.remove(turn)
        return turn.tagged(turn.router.close())

    def _lane_error(self, event: dict[str, Any], lane: Lane) -> list[Outcome]:
        """SESSION-ERR-1, -2: the lane's oldest turn fails; with none, the error is only reported."""
        turn = self._head(lane)
        if turn is None:
            return _reported(event, lane)
        return turn.tagged(turn.router.feed(event)) + self._end_turn(turn)

    # -- steering --------------------------------------------------------------

    def _acknowledge(self, event: dict[str, Any]) -> list[Outcome]:
        trigger = ACKNOWLEDGEMENTS[event["type"]]
        reported = event.get("steer")
        if not isinstance(reported, dict) or type(reported.get("previous_response_id")) is not str:
            return [_error("malformed_event", f"{event['type']}: steer.previous_response_id is no string")]
        steer_id = reported.get("id")
        if not (type(steer_id) is str or (steer_id is None and trigger == "fail")):
            return [_error("malformed_event", f"{event['type']}: steer.id is no string")]  # SESSION-STEP-2
        steer = self._acknowledged(reported["previous_response_id"], steer_id, trigger)
        if steer is None:  # SESSION-STEER-8
            name = f"steer {steer_id!r}" if steer_id is not None else "a requested steer"
            message = f"{event['type']} for {name} of {reported['previous_response_id']}: none to move"
            return [_error("unknown_steer", message, event.get("stream_id"))]
        if trigger == "accept":
            steer.steer_id = steer_id
        fields: dict[str, Any] = {}
        if trigger == "fail":
            fields["code"] = _error_code(event)
        elif trigger == "hold":  # SESSION-STEER-11: what the response waits for
            reason, required = event.get("reason"), event.get("required_input")
            fields["reason"] = reason if isinstance(reason, str) else None
            fields["required_input"] = required if isinstance(required, list) else []
        return [self._move(steer, trigger, fields)]

    def _acknowledged(self, target: str, steer_id: object, trigger: SteerTrigger) -> Steer | None:
        """The steer an acknowledgement is for: by the server's id once it has one, else the oldest
        steer of its target still requested (SESSION-STEER-2, -5)."""
        by_order = trigger == "accept" or (trigger == "fail" and steer_id is None)
        for steer in self._steers:
            if steer.target != target or trigger not in TRANSITIONS[steer.state]:
                continue
            if (steer.state == "requested") if by_order else steer.steer_id == steer_id:
                return steer
        return None

    def _commit(self, previous: object, successor: Turn) -> list[Outcome]:
        """SESSION-STEER-3: the successor's response.created commits the steers it continues."""
        fields = {"successor_id": successor.response_id}
        return [
            self._move(steer, "commit", fields)
            for steer in self._steers
            if steer.target == previous and "commit" in TRANSITIONS[steer.state]
        ]

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        """SESSION-STEER-9, SESSION-STEER-10: one move of the table, and the one outcome it produces."""
        steer.state = TRANSITIONS[steer.state][trigger]
        steer.fields = fields
        return steer.outcome()

    # -- the end of a connection ------------------------------------------------

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        """SESSION-CONN-1, -3, SESSION-STEER-6: every turn in flight ends truncated, in the order they
        began; every steer not known to be committed or failed becomes unknown; then the connection."""
        outcomes: list[Outcome] = []
        for turn in list(self._turns):
            outcomes += self._end_turn(turn)
        outcomes += [self._move(s, "lose", {}) for s in self._steers if "lose" in TRANSITIONS[s.state]]
        self._connected = False
        return [*outcomes, {"kind": "connection.closed", "reason": reason}]


class Stream(Protocol):
    def feed(self, event: Any) -> list[Outcome]: ...
    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]: ...
    def close(self) -> list[Outcome]: ...


class SessionOrStream:
    """One vector's router for an adapter of several profiles: a `Connection` when the first entry
    is a session's client step (a session vector starts with `send`, spec/session.md section 8), the
    stream's own router otherwise. Each is built at the first entry, so only one is ever made."""

    def __init__(self, new_connection: Callable[[], Connection], new_stream: Callable[[], Stream]) -> None:
        self._new_connection, self._new_stream = new_connection, new_stream
        self._routing: Connection | Stream | None = None

    def _router(self, first: object) -> Connection | Stream:
        if self._routing is None:
            is_session = is_step(first) and first["control"] in SESSION_STEPS  # type: ignore[index]
            self._routing = self._new_connection() if is_session else self._new_stream()
        return self._routing

    def feed(self, entry: object) -> list[Outcome]:
        return self._router(entry).feed(entry)

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        stream = self._router(None)
        assert not isinstance(stream, Connection), "a session has no bytes"
        return stream.feed_bytes(chunk)

    def close(self) -> list[Outcome]:
        return self._router(None).close()
