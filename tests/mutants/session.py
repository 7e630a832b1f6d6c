"""Mutants of the `session` profile (spec/session.md): each is the reference connection with one
piece changed, the way a hand-written WebSocket client of the Responses API gets it wrong."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from streamroute.reference import Outcome, Router
from streamroute.reference.connection import (
    INJECTIONS,
    TRANSITIONS,
    Connection,
    Lane,
    Reason,
    Steer,
    SteerTrigger,
    Turn,
)
from streamroute.wire.session import is_step

from . import mutant

Tools = Sequence[Mapping[str, Any]]


class Session(Connection):
    """The reference connection, claiming session: what each mutant changes one piece of."""

    profiles = ("session",)

    def __init__(self, tools: Tools) -> None:
        super().__init__(Router)


# -- steps and lanes (sections 1, 2) ----------------------------------------------------------


class SendsReachTheTurn(Session):
    """Gives each client step to the oldest turn in flight as well, as if it were an event."""

    def feed(self, entry: object) -> list[Outcome]:
        extra = (
            self._turns[0].tagged(self._turns[0].router.feed(entry)) if is_step(entry) and self._turns else []
        )
        return extra + super().feed(entry)


class SkipsMalformedEntries(Session):
    """Drops an entry that is no event without a word."""

    def feed(self, entry: object) -> list[Outcome]:
        outcomes = super().feed(entry)
        return [o for o in outcomes if o.get("code") != "malformed_event"]


class OneLane(Session):
    """Routes every event to the oldest turn in flight, whatever lane it names."""

    def _head(self, lane: Lane) -> Turn | None:
        return self._turns[0] if self._turns else None


class NewestTurnFirst(Session):
    """Serves a lane's newest request first.

    A lost connection ends its turns newest first too: SESSION-CONN-1 as well."""

    def _head(self, lane: Lane) -> Turn | None:
        return next((turn for turn in reversed(self._turns) if turn.lane == lane), None)


class AdoptsUnknownLanes(Session):
    """Takes an event of a lane it never named as that lane's first sign of life."""

    def feed(self, entry: object) -> list[Outcome]:
        if isinstance(entry, dict) and isinstance(entry.get("stream_id"), str) and self._connected:
            self._lanes.add(entry["stream_id"])
        return super().feed(entry)


class StartsATurnForAnyEvent(Session):
    """Opens a turn for an event of a lane with nothing in flight, as if the server had been asked."""

    def _successor(self, event: dict[str, Any], lane: Lane) -> Turn | None:
        turn = Turn(lane, self._new_router())
        self._turns.append(turn)
        return turn


# -- turns (section 3) ---------------------------------------------------------------------


class _LaneUnnamed(Turn):
    def tagged(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        return [{**outcome, "stream_id": None} for outcome in super().tagged(outcomes)]


class LaneLeftUnnamed(Session):
    """Routes each lane apart but reports every turn's outcomes as the default lane's."""

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        count = len(self._turns)
        outcomes = super()._create(message)
        if len(self._turns) > count:
            self._turns[-1] = _LaneUnnamed(self._turns[-1].lane, self._turns[-1].router)
        return outcomes


class NamesTheLanesLastResponse(Session):
    """Names a turn whose response has not begun after the response its lane had last.

    A steer it commits names that response for its successor: SESSION-STEER-3 as well."""

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._create(message)
        lane = message.get("stream_id")
        seen = [response for response, on in self._response_lanes.items() if on == lane]
        if self._turns and seen:
            self._turns[-1].response_id = seen[-1]
        return outcomes


class OneRouterForTheConnection(Session):
    """Routes every response of the connection with one core router.

    A steer committed by a later turn names another successor: SESSION-STEER-3 as well."""

    def __init__(self, tools: Tools) -> None:
        shared = Router()
        Connection.__init__(self, lambda: shared)


class EndsTurnsOnlyAtClose(Session):
    """Moves on to the lane's next turn at a terminal event, but says the turn's end only at close.

    A turn an error event ends is said ended at close too: SESSION-ERR-1 as well."""

    def _end_turn(self, turn: Turn) -> list[Outcome]:
        self._turns.remove(turn)
        self._ends = [*getattr(self, "_ends", []), *turn.tagged(turn.router.close())]
        return []

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        outcomes = super()._end_connection(reason)
        ends, self._ends = getattr(self, "_ends", []), []
        return ends + outcomes


class EndsTurnsAgainWhenLost(Session):
    """Ends every turn of a lost connection once more, the turns that had ended included."""

    def _end_turn(self, turn: Turn) -> list[Outcome]:
        self._ended = [*getattr(self, "_ended", []), turn]
        return super()._end_turn(turn)

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        outcomes = super()._end_connection(reason)
        if reason != "lost":
            return outcomes
        again = [
            turn.tagged([{"kind": "end", "status": "truncated"}])[0] for turn in getattr(self, "_ended", [])
        ]
        return again + outcomes


class NoAutomaticSuccessor(Session):
    """Knows only the turns it asked for: the server's successor of a steered response is a stray."""

    def _successor(self, event: dict[str, Any], lane: Lane) -> Turn | None:
        return None


class WarmUpIsNoTurn(Session):
    """Begins no turn for a warm-up response.create (generate: false), which it takes for no request."""

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        return [] if message.get("generate") is False else super()._create(message)


class SequentialServerUnknown(Session):
    """Declares session_lanes sequential, yet takes every bare event for the default lane's."""

    options: ClassVar[dict[str, str]] = {"session_lanes": "sequential"}


class WarmUpIsAKeepalive(Session):
    """Takes a response.create with no input for a keepalive, and begins no turn for it."""

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        return [] if not message.get("input") and self._connected else super()._create(message)


class WarmUpWithoutStoreIsNoTurn(Session):
    """Takes a warm-up that stores nothing (generate and store false) for a no-op: no turn begins."""

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        nothing = message.get("generate") is False and message.get("store") is False
        return [] if nothing and self._connected else super()._create(message)


class _Sequential(Session):
    """Under session_lanes sequential, as the reference serves a server that processes one response
    at a time: what the mutants of SESSION-LANE-6 change."""

    options: ClassVar[dict[str, str]] = {"session_lanes": "sequential"}

    def __init__(self, tools: Tools) -> None:
        Connection.__init__(self, Router, sequential_lanes=True)


class SequentialWithOneTurnOnly(_Sequential):
    """Gives a bare event to the one turn in flight, and to none while several are."""

    def _head(self, lane: Lane) -> Turn | None:
        head = super()._head(lane)
        alone = head is None or head.lane == lane or len(self._turns) == 1
        return head if alone else None


class SequentialOnceItHasAResponse(_Sequential):
    """Gives a bare event to the oldest turn in flight only once that turn has its response's id."""

    def _head(self, lane: Lane) -> Turn | None:
        head = super()._head(lane)
        return head if head is None or head.lane == lane or head.response_id is not None else None


# -- errors and the end of a connection (sections 4, 5) ----------------------------------------


class ErrorsEndNoTurn(Session):
    """Reports an error of a lane but lets its turn go on, waiting for a terminal event."""

    def _lane_error(self, event: dict[str, Any], lane: Lane) -> list[Outcome]:
        turn = self._head(lane)
        if turn is None:
            return super()._lane_error(event, lane)
        return turn.tagged(turn.router.feed(event))


class IdleLaneErrorIsStray(Session):
    """Takes an error of a lane with nothing in flight for a stray event."""

    def _lane_error(self, event: dict[str, Any], lane: Lane) -> list[Outcome]:
        if self._head(lane) is None:
            return [
                {
                    "kind": "error",
                    "code": "no_response_in_flight",
                    "message": "stray",
                    "stream_id": lane,
                    "response_id": None,
                }
            ]
        return super()._lane_error(event, lane)


class LimitIsALaneError(Session):
    """Reads websocket_connection_limit_reached as one more error of a lane.

    So the turns the limit ends end failed, not truncated as at the end of a connection: SESSION-CONN-1
    as well."""

    def feed(self, entry: object) -> list[Outcome]:
        if isinstance(entry, dict) and entry.get("type") == "error" and self._connected:
            lane = entry.get("stream_id")
            if lane in self._lanes:
                return self._lane_error(entry, lane)
        return super().feed(entry)


class LostTurnsFail(Session):
    """Ends the turns a lost connection cuts `failed`, as if the server had said so."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        return [
            {**o, "status": "failed"} if o["kind"] == "end" and o["status"] == "truncated" else o
            for o in super()._end_connection(reason)
        ]


class RoutesAfterDisconnect(Session):
    """Drops what arrives after the connection ended without a word."""

    def feed(self, entry: object) -> list[Outcome]:
        return [o for o in super().feed(entry) if o.get("code") != "event_after_disconnect"]


class SilentWhenTheClientCloses(Session):
    """Says a connection ended when it was lost, but not when the client closed it."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        outcomes = super()._end_connection(reason)
        return outcomes if reason != "closed" else outcomes[:-1]


class ClosesAnEndedConnection(Session):
    """Reports the connection closed again when the client closes it after it was lost."""

    def close(self) -> list[Outcome]:
        ended = not self._connected and not self._closed
        return [*super().close(), *([{"kind": "connection.closed", "reason": "closed"}] if ended else [])]


class SendsWhileDown(Session):
    """Takes a message sent on a connection that is down as sent."""

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        if step["control"] != "send" or self._connected:
            return super()._step(step)
        self._connected = True
        try:
            return super()._step(step)
        finally:
            self._connected = False


class ReconnectKeepsTheOldConnection(Session):
    """Carries the lanes and responses of a lost connection over to the new one.

    A lane of the old connection is then no unknown lane: SESSION-LANE-3 as well."""

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        if step["control"] != "connect" or self._connected:
            return super()._step(step)
        lanes, responses = self._lanes, self._response_lanes
        outcomes = super()._step(step)
        self._lanes, self._response_lanes = lanes, responses
        return outcomes


# -- steering (section 6) ----------------------------------------------------------------------


class SteersOnTheDefaultLane(Session):
    """Puts a steer on the default lane: it was sent without stream_id."""

    def _steer(self, message: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._steer(message)
        for steer in self._steers:
            steer.lane = None
        return [{**o, "stream_id": None} if o["kind"].startswith("steer.") else o for o in outcomes]


class AcceptsTheNewestSteer(Session):
    """Gives an acknowledgement to the newest requested steer of its target.

    Its steers then commit in another order than they were sent: SESSION-STEER-3 as well."""

    def _acknowledged(self, target: str, steer_id: object, trigger: SteerTrigger) -> Steer | None:
        if trigger != "accept":
            return super()._acknowledged(target, steer_id, trigger)
        requested = [s for s in self._steers if s.target == target and s.state == "requested"]
        return requested[-1] if requested else None


class AcceptanceIsACommit(Session):
    """Takes response.steer.accepted for the commit: the input is applied.

    A successor of the steered response then finds no steer accepted and begins no turn: SESSION-TURN-5
    as well."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        if trigger == "accept":
            steer.state = "committed"
            steer.fields = {"successor_id": None}
            return steer.outcome()
        return super()._move(steer, trigger, fields)


class PendingIsAFailure(Session):
    """Reads response.steer.pending as the steer's failure."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        if trigger == "hold":
            steer.state = "failed"
            steer.fields = {"code": None}
            return steer.outcome()
        return super()._move(steer, trigger, fields)


class FailuresNeedAnId(Session):
    """Finds a failed steer by its id only: a failure before an id was allocated fits none."""

    def _acknowledged(self, target: str, steer_id: object, trigger: SteerTrigger) -> Steer | None:
        if trigger == "fail" and steer_id is None:
            return None
        return super()._acknowledged(target, steer_id, trigger)


class SuccessorFailureIsUnknown(Session):
    """Takes successor_creation_failed, after acceptance, for an unknown outcome rather than a failure."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        if trigger == "fail" and fields.get("code") == "successor_creation_failed" and steer.steer_id:
            return super()._move(steer, "lose", {})
        return super()._move(steer, trigger, fields)


class PendingWithoutRequiredInput(Session):
    """Reports a pending steer without the reason and the stubs of the results its response waits for."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        return super()._move(steer, trigger, {} if trigger == "hold" else fields)


class PendingRequiredInputAsCallIds(Session):
    """Reduces a pending steer's required input to the ids of the calls and approvals it names."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        stubs = fields.get("required_input")
        if trigger == "hold" and isinstance(stubs, list):
            owed = [
                stub.get("call_id") or stub.get("approval_request_id")
                for stub in stubs
                if isinstance(stub, dict)
            ]
            fields = {**fields, "required_input": owed}
        return super()._move(steer, trigger, fields)


class PendingWithoutReason(Session):
    """Reports a pending steer's required input, but not the reason its response waits."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        return super()._move(steer, trigger, {k: v for k, v in fields.items() if k != "reason"})


class InjectionWhileIdleIsACreate(Session):
    """Takes an injection sent while no response is in flight for a request, which begins a turn."""

    def begins(self, message: dict[str, Any]) -> bool:
        return not self._turns

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        message = step.get("message")
        injection = isinstance(message, dict) and message.get("type") == "response.inject"
        if step["control"] == "send" and injection and self._connected and self.begins(message):
            return self._create(message)
        return super()._step(step)


class InjectionIntoAnEndedResponseIsACreate(InjectionWhileIdleIsACreate):
    """Takes an injection into a response no longer in flight for a request that continues it."""

    def begins(self, message: dict[str, Any]) -> bool:
        return all(turn.response_id != message.get("response_id") for turn in self._turns)


class InjectionIsACreate(Session):
    """Takes every message the client sends that is no steer for a request: an injection begins a turn."""

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        message = step.get("message")
        if (
            step["control"] == "send"
            and isinstance(message, dict)
            and message.get("type") == "response.inject"
        ):
            return self._create(message)
        return super()._step(step)


class InjectionNamesTheTurnsResponse(Session):
    """Names the response of the lane's turn in flight in an injection's ignored, not the event's."""

    def feed(self, entry: object) -> list[Outcome]:
        outcomes = super().feed(entry)
        if not (isinstance(entry, dict) and entry.get("type") in INJECTIONS):
            return outcomes
        turn = self._head(entry.get("stream_id"))
        return [{**o, "response_id": turn.response_id} if turn is not None else o for o in outcomes]


class InjectionWithoutItsResponse(Session):
    """Reads no response_id of an injection's acknowledgement: its ignored names no response."""

    def feed(self, entry: object) -> list[Outcome]:
        outcomes = super().feed(entry)
        if isinstance(entry, dict) and entry.get("type") in INJECTIONS:
            return [{**o, "response_id": None} for o in outcomes]
        return outcomes


class InjectionsReachTheTurn(Session):
    """Hands the acknowledgements of an injection to the lane's turn, as if they were its events."""

    def feed(self, entry: object) -> list[Outcome]:
        if isinstance(entry, dict) and entry.get("type") in (
            "response.inject.created",
            "response.inject.failed",
        ):
            turn = self._head(entry.get("stream_id"))
            if turn is not None:
                return self._route(turn, entry)
            lane = entry.get("stream_id")
            return [
                {
                    "kind": "error",
                    "code": "no_response_in_flight",
                    "message": "no turn",
                    "stream_id": lane,
                    "response_id": None,
                }
            ]
        return super().feed(entry)


class LostSteersFailed(Session):
    """Takes a steer whose acknowledgement the lost connection swallowed for rejected."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        if trigger == "lose":
            steer.state = "failed"
            steer.fields = {"code": None}
            return steer.outcome()
        return super()._move(steer, trigger, fields)


class ResendsBlindly(Session):
    """Sends a steer's input again while the server may still own it."""

    def _steer(self, message: dict[str, Any]) -> list[Outcome]:
        steers, self._steers = self._steers, []
        try:
            outcomes = super()._steer(message)
        finally:
            self._steers = steers + self._steers
        return outcomes


class AdoptsUnknownAcknowledgements(Session):
    """Makes a steer of an acceptance it cannot match, as if it had sent one."""

    def _acknowledged(self, target: str, steer_id: object, trigger: SteerTrigger) -> Steer | None:
        found = super()._acknowledged(target, steer_id, trigger)
        if found is None and trigger == "accept":
            found = Steer(target, None, self._response_lanes.get(target))
            self._steers.append(found)
        return found


class CommitsFailedSteers(Session):
    """Commits every steer of the continued response at its successor, the failed ones too."""

    def _commit(self, previous: object, successor: Turn) -> list[Outcome]:
        for steer in self._steers:
            if steer.target == previous and steer.state == "failed":
                steer.state = "accepted"
        return super()._commit(previous, successor)


assert "commit" not in TRANSITIONS["failed"]  # what CommitsFailedSteers goes around


class RecommitsCommittedSteers(Session):
    """Reports every steer of its response committed at each successor, those committed before again."""

    def _commit(self, previous: object, successor: Turn) -> list[Outcome]:
        again = [steer for steer in self._steers if steer.target == previous and steer.state == "committed"]
        return [*[steer.outcome() for steer in again], *super()._commit(previous, successor)]


# -- more shapes of the same requirements --------------------------------------------------
# Each requirement has three or more mistakes, each of a different kind: attribution (the lane,
# the response, the steer an outcome or a move is charged to), the shape of an entry, the order
# of outcomes, what a restart (a loss, a connect) forgets or keeps.


def _error(code: str, lane: Lane) -> Outcome:
    return {"kind": "error", "code": code, "message": code, "stream_id": lane, "response_id": None}


class SteerFedToItsTurn(Session):
    """Feeds a sent response.steer to the router of the turn in flight of the response it steers."""

    def _steer(self, message: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._steer(message)
        lane = self._response_lanes.get(message["previous_response_id"], False)
        turn = self._head(lane) if lane is not False and self._connected else None
        return outcomes + (turn.tagged(turn.router.feed(message)) if turn is not None else [])


class LossFedToTheTurns(Session):
    """Tells the router of each turn in flight of a lost connection by feeding it the disconnect step."""

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        told = []
        if step["control"] == "disconnect" and self._connected:
            told = [o for turn in self._turns for o in turn.tagged(turn.router.feed(step))]
        return told + super()._step(step)


class StreamIdStringified(Session):
    """Reads an event's stream_id with str(), so a number names a lane: a malformed event is unknown_lane."""

    def feed(self, entry: object) -> list[Outcome]:
        if isinstance(entry, dict) and "type" in entry and entry.get("stream_id") is not None:
            entry = {**entry, "stream_id": str(entry["stream_id"])}
        return super().feed(entry)


class MalformedErrorNamesItsLane(Session):
    """Reports a malformed entry with the lane it states, not with stream_id null."""

    def feed(self, entry: object) -> list[Outcome]:
        outcomes = super().feed(entry)
        lane = entry.get("stream_id") if isinstance(entry, dict) else None
        if not isinstance(lane, str):
            return outcomes
        return [{**o, "stream_id": lane} if o.get("code") == "malformed_event" else o for o in outcomes]


class LaneOfTheLastResponse(Session):
    """Gives an event that names no response to the turn whose response spoke last, whatever its lane."""

    last: Turn | None = None

    def _route(self, turn: Turn, event: dict[str, Any]) -> list[Outcome]:
        if isinstance(event.get("response"), dict):
            self.last = turn
        elif self.last in self._turns and self.last is not None:
            turn = self.last
        return super()._route(turn, event)


class NullLaneIsNamed(Session):
    """Takes an event's explicit stream_id null for a lane of its own, which no request named."""

    def feed(self, entry: object) -> list[Outcome]:
        named = isinstance(entry, dict) and "stream_id" in entry and entry["stream_id"] is None
        if named and isinstance(entry.get("type"), str) and self._connected:  # type: ignore[union-attr]
            return [_error("unknown_lane", None)]
        return super().feed(entry)


class RoundRobinWithinALane(Session):
    """Hands a lane's events to its turns in flight in turn, one event each."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._served: dict[Lane, int] = {}

    def _route(self, turn: Turn, event: dict[str, Any]) -> list[Outcome]:
        mine = [t for t in self._turns if t.lane == turn.lane]
        served = self._served.get(turn.lane, -1) + 1
        self._served[turn.lane] = served
        return super()._route(mine[served % len(mine)], event)


class EndedTurnKeepsItsLane(Session):
    """Keeps a lane's ended turn as the lane's current one until the next request on the lane is sent."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._current: dict[Lane, Turn] = {}

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._create(message)
        if not outcomes:
            self._current.pop(message.get("stream_id"), None)
        return outcomes

    def _route(self, turn: Turn, event: dict[str, Any]) -> list[Outcome]:
        current = self._current.setdefault(turn.lane, turn)
        if current is turn or current in self._turns:
            return super()._route(current, event)
        return current.tagged(current.router.feed(event))  # the ended turn's router: nothing

    def _open(self) -> None:
        super()._open()
        self._current = {}


class UnknownLaneToTheDefaultLane(Session):
    """Routes an event of a lane it never named as an event of the default lane."""

    def feed(self, entry: object) -> list[Outcome]:
        lane = entry.get("stream_id") if isinstance(entry, dict) and "type" in entry else None
        if isinstance(lane, str) and self._connected and lane not in self._lanes:
            assert isinstance(entry, dict)
            entry = {key: value for key, value in entry.items() if key != "stream_id"}
        return super().feed(entry)


class UnknownLaneSilent(Session):
    """Drops an event of a lane it never named without a word."""

    def feed(self, entry: object) -> list[Outcome]:
        return [o for o in super().feed(entry) if o.get("code") != "unknown_lane"]


class IdleLaneEventSilent(Session):
    """Drops an event of a lane that has no turn in flight without a word."""

    def feed(self, entry: object) -> list[Outcome]:
        return [o for o in super().feed(entry) if o.get("code") != "no_response_in_flight"]


class StrayWithoutItsLane(Session):
    """Reports an event of a lane with no turn in flight with stream_id null, not the lane's."""

    def feed(self, entry: object) -> list[Outcome]:
        outcomes = super().feed(entry)
        return [{**o, "stream_id": None} if o.get("code") == "no_response_in_flight" else o for o in outcomes]


class DefaultLaneUnknownUntilNamed(Session):
    """Knows the default lane only once a request is sent on it: before, its events are unknown_lane."""

    def feed(self, entry: object) -> list[Outcome]:
        outcomes = super().feed(entry)
        return [
            {**o, "code": "unknown_lane"}
            if o.get("code") == "no_response_in_flight" and o["stream_id"] is None and not self._named
            else o
            for o in outcomes
        ]

    @property
    def _named(self) -> bool:
        return getattr(self, "_default_named", False)

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._create(message)
        if not outcomes and message.get("stream_id") is None:
            self._default_named = True
        return outcomes

    def _open(self) -> None:
        super()._open()
        self._default_named = False


class AnyContinuationIsATurn(Session):
    """Begins a turn at any response.created on an idle lane that continues a response, steered or not."""

    def _successor(self, event: dict[str, Any], lane: Lane) -> Turn | None:
        response = event.get("response")
        if event["type"] != "response.created" or not isinstance(response, dict):
            return None
        if not isinstance(response.get("previous_response_id"), str):
            return None
        turn = Turn(lane, self._new_router())
        self._turns.append(turn)
        return turn


class _EndOfNoLane(Turn):
    def tagged(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        tagged = super().tagged(outcomes)
        return [{**o, "stream_id": None} if o["kind"] == "end" else o for o in tagged]


class EndOfNoLane(Session):
    """Tags a turn's outcomes with its lane, but its `end` with none, as the router's own outcome."""

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        count = len(self._turns)
        outcomes = super()._create(message)
        if len(self._turns) > count:
            self._turns[-1] = _EndOfNoLane(self._turns[-1].lane, self._turns[-1].router)
        return outcomes


class CutTurnsWithoutLane(Session):
    """Tags what a connection's end says of its turns with stream_id null: no event names their lane."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        return [
            {**o, "stream_id": None} if "response_id" in o and not o["kind"].startswith("steer.") else o
            for o in super()._end_connection(reason)
        ]


class CutTurnsWithoutResponseId(Session):
    """Tags what a connection's end says of its turns with response_id null: no event names a response."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        return [
            {**o, "response_id": None} if "stream_id" in o and not o["kind"].startswith("steer.") else o
            for o in super()._end_connection(reason)
        ]


class _TaggedAs(Turn):
    shown: str | None = None

    def tagged(self, outcomes: Iterable[Outcome]) -> list[Outcome]:
        return [{**outcome, "response_id": self.shown} for outcome in super().tagged(outcomes)]


class SuccessorTaggedWithItsTarget(Session):
    """Tags the automatic successor's outcomes with the response it continues, as one conversation."""

    def _successor(self, event: dict[str, Any], lane: Lane) -> Turn | None:
        turn = super()._successor(event, lane)
        if turn is None:
            return None
        tagged = _TaggedAs(turn.lane, turn.router)
        tagged.shown = event["response"]["previous_response_id"]
        self._turns[self._turns.index(turn)] = tagged
        return tagged


class RouterPerLane(Session):
    """Routes every response of a lane with the lane's one core router, taking a lane for a stream."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._lane_routers: dict[Lane, Router] = {}

    def _create(self, message: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._create(message)
        if not outcomes and self._turns:
            turn = self._turns[-1]
            turn.router = self._lane_routers.setdefault(turn.lane, turn.router)
        return outcomes

    def _end_turn(self, turn: Turn) -> list[Outcome]:
        self._turns.remove(turn)  # the turn's end, said by a copy: the lane's router lives on
        return turn.tagged(copy.deepcopy(turn.router).close())

    def _open(self) -> None:
        super()._open()
        self._lane_routers = {}


class CallIdsOfTheConnection(Session):
    """Refuses a call whose call id an earlier turn of the connection called, as core refuses one twice."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._called: dict[str, Turn] = {}

    def _route(self, turn: Turn, event: dict[str, Any]) -> list[Outcome]:
        outcomes = []
        for o in super()._route(turn, event):
            call_id = o.get("call_id") if o["kind"] == "tool.call" else None
            if isinstance(call_id, str) and self._called.setdefault(call_id, turn) is not turn:
                o = {
                    "kind": "tool.error",
                    "item_id": o["item_id"],
                    "call_id": call_id,
                    "code": "duplicate_call_id",
                    "message": "called before",
                    "stream_id": o["stream_id"],
                    "response_id": o["response_id"],
                }
            outcomes.append(o)
        return outcomes


class EndAtTheNextEntry(Session):
    """Ends a turn at its terminal event, but says so with the next entry's outcomes."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._ended: list[Outcome] = []

    def feed(self, entry: object) -> list[Outcome]:
        ended, self._ended = self._ended, []
        outcomes = super().feed(entry)
        if isinstance(entry, dict) and isinstance(entry.get("type"), str) and entry["type"] != "error":
            self._ended = [o for o in outcomes if o["kind"] == "end"]
            outcomes = [o for o in outcomes if o["kind"] != "end"]
        return ended + outcomes

    def close(self) -> list[Outcome]:
        ended, self._ended = self._ended, []
        return ended + super().close()


class OnlyCompletedEndsATurn(Session):
    """Ends a turn at response.completed, but takes response.failed and response.incomplete for news."""

    def _route(self, turn: Turn, event: dict[str, Any]) -> list[Outcome]:
        if event["type"] in ("response.completed", "response.created"):
            return super()._route(turn, event)
        response = event.get("response")
        if isinstance(response, dict) and turn.response_id is None and isinstance(response.get("id"), str):
            turn.response_id = response["id"]
            self._response_lanes[response["id"]] = turn.lane
        return turn.tagged(turn.router.feed(event))


class EndsTwiceAtTheTerminal(Session):
    """Says a turn's `end` at its terminal event, as its router does, and again as it closes the router."""

    def _end_turn(self, turn: Turn) -> list[Outcome]:
        terminal = turn.router._stream == "TERMINAL"
        outcomes = super()._end_turn(turn)
        return outcomes + [o for o in outcomes if o["kind"] == "end"] if terminal else outcomes


class UnbegunRequestsDropped(Session):
    """Ends the turns whose response began when the connection ends; the requests still waiting vanish."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        self._turns = [turn for turn in self._turns if turn.response_id is not None]
        return super()._end_connection(reason)


class SuccessorOnlyOfPendingSteers(Session):
    """Begins the automatic successor's turn only for a pending steer: an accepted one is not queued yet."""

    def _successor(self, event: dict[str, Any], lane: Lane) -> Turn | None:
        response = event.get("response")
        previous = response.get("previous_response_id") if isinstance(response, dict) else None
        if not any(s.target == previous and s.state == "pending" for s in self._steers):
            return None
        return super()._successor(event, lane)


class SuccessorOnTheDefaultLane(Session):
    """Begins the automatic successor's turn on the default lane: no request named its lane."""

    def _successor(self, event: dict[str, Any], lane: Lane) -> Turn | None:
        turn = super()._successor(event, lane)
        if turn is not None:
            turn.lane = None
        return turn


class ErrorEndsTheNewestTurn(Session):
    """Ends the lane's newest turn at an error, taking it for the answer to the last request sent."""

    def _lane_error(self, event: dict[str, Any], lane: Lane) -> list[Outcome]:
        mine = [turn for turn in self._turns if turn.lane == lane]
        if len(mine) < 2:
            return super()._lane_error(event, lane)
        turn = mine[-1]
        return turn.tagged(turn.router.feed(event)) + self._end_turn(turn)


class ErrorEndsTheTurnTruncated(Session):
    """Ends the turn of an error's lane truncated, as a stream cut off, not failed."""

    def _lane_error(self, event: dict[str, Any], lane: Lane) -> list[Outcome]:
        outcomes = super()._lane_error(event, lane)
        return [{**o, "status": "truncated"} if o["kind"] == "end" else o for o in outcomes]


class IdleErrorDropped(Session):
    """Drops an error of a lane with no turn in flight: there is no response for it to fail."""

    def _lane_error(self, event: dict[str, Any], lane: Lane) -> list[Outcome]:
        return [] if self._head(lane) is None else super()._lane_error(event, lane)


class IdleErrorOfTheLastResponse(Session):
    """Reports an error of a lane with no turn in flight with the response id the lane had last."""

    def _lane_error(self, event: dict[str, Any], lane: Lane) -> list[Outcome]:
        outcomes = super()._lane_error(event, lane)
        seen = [response for response, on in self._response_lanes.items() if on == lane]
        if self._head(lane) is not None or not seen:
            return outcomes
        return [{**o, "response_id": seen[-1]} for o in outcomes]


class LostTurnsNewestFirst(Session):
    """Ends the turns a lost connection cuts newest first."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        self._turns.reverse()
        return super()._end_connection(reason)


class LostCallsDropped(Session):
    """Ends the turns a connection's end cuts, but drops their open calls without a tool.error."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        return [o for o in super()._end_connection(reason) if o["kind"] != "tool.error"]


class RoutesAfterTheEnd(Session):
    """Goes on reading the events that come after the connection ended, as if it had not."""

    def feed(self, entry: object) -> list[Outcome]:
        if is_step(entry) or self._connected or self._closed:
            return super().feed(entry)
        self._connected = True
        try:
            return super().feed(entry)
        finally:
            self._connected = False


class AfterTheEndErrorWithoutLane(Session):
    """Reports an event after the connection ended with stream_id null, whatever lane it names."""

    def feed(self, entry: object) -> list[Outcome]:
        outcomes = super().feed(entry)
        return [
            {**o, "stream_id": None} if o.get("code") == "event_after_disconnect" else o for o in outcomes
        ]


class LossReportedAsClosed(Session):
    """Reports a lost connection with reason closed: it is closed, whoever closed it."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        return super()._end_connection("closed" if reason == "lost" else reason)


class ClosedBeforeTheTurnsEnd(Session):
    """Says connection.closed first, then ends the turns and steers it cut."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        outcomes = super()._end_connection(reason)
        return outcomes[-1:] + outcomes[:-1]


class LimitReportedAsLost(Session):
    """Ends a connection that reached its limit with reason lost: the server closed it."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        return super()._end_connection("lost" if reason == "limit_reached" else reason)


class CloseSaysTheLostSteersAgain(Session):
    """Says at close that every steer not committed or failed is unknown, after a loss that said so too."""

    def close(self) -> list[Outcome]:
        down = not self._connected and not self._closed
        outcomes = super().close()
        return outcomes + [s.outcome() for s in self._steers if s.state == "unknown"] if down else outcomes


class DisconnectWhileDownIsAnError(Session):
    """Answers a disconnect of a connection already down with error not_connected."""

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        if step["control"] == "disconnect" and not self._connected:
            return [_error("not_connected", None)]
        return super()._step(step)


class QueuesSendsWhileDown(Session):
    """Queues a message sent while the connection is down and sends it at the next connect."""

    def __init__(self, tools: Tools) -> None:
        super().__init__(tools)
        self._queued: list[dict[str, Any]] = []

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        if step["control"] == "send" and not self._connected:
            self._queued.append(step)
            return []
        outcomes = super()._step(step)
        if step["control"] == "connect":
            queued, self._queued = self._queued, []
            for sent in queued:
                outcomes += super()._step(sent)
        return outcomes


class NotConnectedWithoutLane(Session):
    """Reports a send while the connection is down with stream_id null, not the lane it names."""

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._step(step)
        return [{**o, "stream_id": None} if o.get("code") == "not_connected" else o for o in outcomes]


class ConnectForgetsSteers(Session):
    """Starts a new connection with no steer at all: the steers of the old one are forgotten."""

    def _open(self) -> None:
        super()._open()
        self._steers = []


class ConnectRetriesUnknownSteers(Session):
    """Takes the steers an ended connection left unknown for requested again at connect, to be answered."""

    def _open(self) -> None:
        super()._open()
        for steer in self._steers:
            if steer.state == "unknown":
                steer.state = "requested"


class LimitErrorWithoutItsLane(Session):
    """Reports the limit's error as the connection's, with stream_id null, whatever lane it names."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        self._limit = reason == "limit_reached"
        return super()._end_connection(reason)

    def feed(self, entry: object) -> list[Outcome]:
        self._limit = False
        outcomes = super().feed(entry)
        if not self._limit:
            return outcomes
        return [{**o, "stream_id": None} if o["kind"] == "error" else o for o in outcomes]


class LimitErrorLast(Session):
    """Reports the limit's error after the turns and steers the limit cuts, just before connection.closed."""

    def feed(self, entry: object) -> list[Outcome]:
        outcomes = super().feed(entry)
        if not outcomes or outcomes[-1].get("reason") != "limit_reached" or outcomes[0]["kind"] != "error":
            return outcomes
        return [*outcomes[1:-1], outcomes[0], outcomes[-1]]


class SteerOnTheNewestLane(Session):
    """Puts a steer on the lane of the newest turn in flight, not the lane of the response it steers."""

    def _steer(self, message: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._steer(message)
        if outcomes and outcomes[0]["kind"] == "steer.requested" and self._turns:
            self._steers[-1].lane = self._turns[-1].lane
            outcomes = [self._steers[-1].outcome()]
        return outcomes


class SteerIdOfItsOwn(Session):
    """Gives a steer an id of its own when it is sent, before the server gives one."""

    def _steer(self, message: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._steer(message)
        if outcomes and outcomes[0]["kind"] == "steer.requested":
            return [{**outcomes[0], "steer_id": f"local_{len(self._steers)}"}]
        return outcomes


class AcceptsAnyTarget(Session):
    """Gives an acceptance to the oldest requested steer, whatever response it steers."""

    def _acknowledged(self, target: str, steer_id: object, trigger: SteerTrigger) -> Steer | None:
        if trigger != "accept":
            return super()._acknowledged(target, steer_id, trigger)
        return next((s for s in self._steers if s.state == "requested"), None)


class AcceptedWithoutItsId(Session):
    """Says steer.accepted with the id the steer had before (null), learning the server's one after."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        outcome = super()._move(steer, trigger, fields)
        return {**outcome, "steer_id": None} if trigger == "accept" else outcome


class CommitBeforeTheTurnsOutcomes(Session):
    """Commits the steers a response.created continues before that event's own outcomes."""

    def _route(self, turn: Turn, event: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._route(turn, event)
        commits = [o for o in outcomes if o["kind"] == "steer.committed"]
        return commits + [o for o in outcomes if o["kind"] != "steer.committed"]


class CommitsTheFirstSteerOnly(Session):
    """Commits one steer of the continued response at its successor, the oldest, and leaves the others."""

    def _commit(self, previous: object, successor: Turn) -> list[Outcome]:
        steers = [s for s in self._steers if s.target == previous and "commit" in TRANSITIONS[s.state]]
        return [self._move(steers[0], "commit", {"successor_id": successor.response_id})] if steers else []


class PendingFoundByOrder(Session):
    """Finds the steer a pending acknowledgement is for as the oldest accepted steer of its target."""

    def _acknowledged(self, target: str, steer_id: object, trigger: SteerTrigger) -> Steer | None:
        if trigger != "hold":
            return super()._acknowledged(target, steer_id, trigger)
        return next((s for s in self._steers if s.target == target and s.state == "accepted"), None)


class PendingIgnored(Session):
    """Takes response.steer.pending for information only: the steer stays accepted, and nothing is said."""

    def _acknowledge(self, event: dict[str, Any]) -> list[Outcome]:
        if event["type"] == "response.steer.pending" and self._acknowledge_is_movable(event):
            return []
        return super()._acknowledge(event)

    def _acknowledge_is_movable(self, event: dict[str, Any]) -> bool:
        reported = event.get("steer")
        if not isinstance(reported, dict):
            return False
        target, steer_id = reported.get("previous_response_id"), reported.get("id")
        return isinstance(target, str) and self._acknowledged(target, steer_id, "hold") is not None


class FailedWithoutCode(Session):
    """Says steer.failed without the code of the event's error: the code was read from the steer."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        return super()._move(steer, trigger, {"code": None} if trigger == "fail" else fields)


class FailedFoundByOrder(Session):
    """Finds the steer a failure is for as the oldest unsettled steer of its target, whatever id it names."""

    def _acknowledged(self, target: str, steer_id: object, trigger: SteerTrigger) -> Steer | None:
        if trigger != "fail":
            return super()._acknowledged(target, steer_id, trigger)
        return next((s for s in self._steers if s.target == target and "fail" in TRANSITIONS[s.state]), None)


class LostSteersBeforeTheTurns(Session):
    """Says the steers of an ended connection are unknown before it ends its turns."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        outcomes = super()._end_connection(reason)
        unknown = [o for o in outcomes if o["kind"] == "steer.unknown"]
        return unknown + [o for o in outcomes if o["kind"] != "steer.unknown"]


class LostPendingStaysPending(Session):
    """Leaves a pending steer pending when its connection ends: the server had it queued."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        pending = [s for s in self._steers if s.state == "pending"]
        for steer in pending:
            steer.state = "committed"  # out of the loss's reach
        try:
            return super()._end_connection(reason)
        finally:
            for steer in pending:
                steer.state = "pending"


class ResendsAfterFailureRefused(Session):
    """Refuses to send again the input of a steer that failed, as if the server still had it."""

    def _steer(self, message: dict[str, Any]) -> list[Outcome]:
        target, steered = message["previous_response_id"], message["input"]
        failed = [
            s for s in self._steers if s.target == target and s.input == steered and s.state == "failed"
        ]
        if failed and self._connected:
            return [_error("duplicate_steer", self._response_lanes.get(target))]
        return super()._steer(message)


class ResendsUnknownSteers(Session):
    """Sends again the input of a steer whose outcome the ended connection left unknown."""

    def _steer(self, message: dict[str, Any]) -> list[Outcome]:
        unknown = [s for s in self._steers if s.state == "unknown"]
        for steer in unknown:
            steer.state = "failed"  # out of the duplicate check's sight
        try:
            return super()._steer(message)
        finally:
            for steer in unknown:
                steer.state = "unknown"


class UnknownAcknowledgementSilent(Session):
    """Drops an acknowledgement that names no steer it can move without a word."""

    def _acknowledge(self, event: dict[str, Any]) -> list[Outcome]:
        return [o for o in super()._acknowledge(event) if o.get("code") != "unknown_steer"]


class UnknownIdMovesTheNewest(Session):
    """Gives an acknowledgement of a steer id it does not know to the newest movable steer of its target."""

    def _acknowledged(self, target: str, steer_id: object, trigger: SteerTrigger) -> Steer | None:
        found = super()._acknowledged(target, steer_id, trigger)
        if found is not None:
            return found
        movable = [s for s in self._steers if s.target == target and trigger in TRANSITIONS[s.state]]
        return movable[-1] if movable else None


class LossMakesEverySteerUnknown(Session):
    """Makes every steer of an ended connection unknown, the committed and failed ones too."""

    def _end_connection(self, reason: Reason) -> list[Outcome]:
        settled = [s for s in self._steers if s.state in ("committed", "failed")]
        outcomes = super()._end_connection(reason)
        for steer in settled:
            steer.state, steer.fields = "unknown", {}
        lost = [steer.outcome() for steer in settled]
        return [*outcomes[:-1], *lost, outcomes[-1]] if lost else outcomes


class UnknownSaidAgainAtConnect(Session):
    """Says once more at each connect which steers are unknown, the ones an earlier connection said too."""

    def _step(self, step: dict[str, Any]) -> list[Outcome]:
        outcomes = super()._step(step)
        if step["control"] != "connect":
            return outcomes
        return [*outcomes, *(s.outcome() for s in self._steers if s.state == "unknown")]


class PendingSaidAsAcceptedToo(Session):
    """Says steer.accepted again before steer.pending when an accepted steer becomes pending."""

    def _move(self, steer: Steer, trigger: SteerTrigger, fields: dict[str, Any]) -> Outcome:
        if trigger == "hold":
            self._again = steer.outcome()
        return super()._move(steer, trigger, fields)

    def _acknowledge(self, event: dict[str, Any]) -> list[Outcome]:
        self._again: Outcome | None = None
        outcomes = super()._acknowledge(event)
        return [self._again, *outcomes] if self._again is not None else outcomes


MUTANTS = [
    mutant(SendsReachTheTurn, "session.sends-reach-the-turn", "SESSION-STEP-1"),
    mutant(SkipsMalformedEntries, "session.skips-malformed-entries", "SESSION-STEP-2"),
    mutant(OneLane, "session.one-lane", "SESSION-LANE-1"),
    mutant(NewestTurnFirst, "session.newest-turn-first", "SESSION-LANE-2", "SESSION-CONN-1"),
    mutant(AdoptsUnknownLanes, "session.adopts-unknown-lanes", "SESSION-LANE-3"),
    mutant(StartsATurnForAnyEvent, "session.starts-a-turn-for-any-event", "SESSION-LANE-4"),
    mutant(LaneLeftUnnamed, "session.lane-left-unnamed", "SESSION-TURN-1"),
    mutant(
        NamesTheLanesLastResponse,
        "session.names-the-lanes-last-response",
        "SESSION-TURN-6",
        "SESSION-STEER-3",
    ),
    mutant(
        OneRouterForTheConnection,
        "session.one-router-for-the-connection",
        "SESSION-TURN-2",
        "SESSION-STEER-3",
    ),
    mutant(EndsTurnsOnlyAtClose, "session.ends-turns-only-at-close", "SESSION-TURN-3", "SESSION-ERR-1"),
    mutant(EndsTurnsAgainWhenLost, "session.ends-turns-again-when-lost", "SESSION-TURN-4"),
    mutant(NoAutomaticSuccessor, "session.no-automatic-successor", "SESSION-TURN-5"),
    mutant(WarmUpIsNoTurn, "session.warm-up-is-no-turn", "SESSION-TURN-7"),
    mutant(WarmUpIsAKeepalive, "session.warm-up-is-a-keepalive", "SESSION-TURN-7"),
    mutant(WarmUpWithoutStoreIsNoTurn, "session.warm-up-without-store-is-no-turn", "SESSION-TURN-7"),
    mutant(SequentialServerUnknown, "session.sequential-server-unknown", "SESSION-LANE-6"),
    mutant(SequentialWithOneTurnOnly, "session.sequential-with-one-turn-only", "SESSION-LANE-6"),
    mutant(SequentialOnceItHasAResponse, "session.sequential-once-it-has-a-response", "SESSION-LANE-6"),
    mutant(ErrorsEndNoTurn, "session.errors-end-no-turn", "SESSION-ERR-1"),
    mutant(IdleLaneErrorIsStray, "session.idle-lane-error-is-stray", "SESSION-ERR-2"),
    mutant(LimitIsALaneError, "session.limit-is-a-lane-error", "SESSION-LIMIT-1", "SESSION-CONN-1"),
    mutant(LostTurnsFail, "session.lost-turns-fail", "SESSION-CONN-1"),
    mutant(RoutesAfterDisconnect, "session.silent-after-disconnect", "SESSION-CONN-2"),
    mutant(SilentWhenTheClientCloses, "session.silent-when-the-client-closes", "SESSION-CONN-3"),
    mutant(ClosesAnEndedConnection, "session.closes-an-ended-connection", "SESSION-CONN-6"),
    mutant(SendsWhileDown, "session.sends-while-down", "SESSION-CONN-4"),
    mutant(
        ReconnectKeepsTheOldConnection,
        "session.reconnect-keeps-the-old-connection",
        "SESSION-CONN-5",
        "SESSION-LANE-3",
    ),
    mutant(SteersOnTheDefaultLane, "session.steers-on-the-default-lane", "SESSION-STEER-1"),
    mutant(AcceptsTheNewestSteer, "session.accepts-the-newest-steer", "SESSION-STEER-2", "SESSION-STEER-3"),
    mutant(AcceptanceIsACommit, "session.acceptance-is-a-commit", "SESSION-STEER-3", "SESSION-TURN-5"),
    mutant(PendingIsAFailure, "session.pending-is-a-failure", "SESSION-STEER-4"),
    mutant(FailuresNeedAnId, "session.failures-need-an-id", "SESSION-STEER-5"),
    mutant(SuccessorFailureIsUnknown, "session.successor-failure-is-unknown", "SESSION-STEER-5"),
    mutant(PendingWithoutRequiredInput, "session.pending-without-required-input", "SESSION-STEER-11"),
    mutant(PendingRequiredInputAsCallIds, "session.pending-required-input-as-call-ids", "SESSION-STEER-11"),
    mutant(PendingWithoutReason, "session.pending-without-reason", "SESSION-STEER-11"),
    mutant(InjectionIsACreate, "session.injection-is-a-create", "SESSION-INJECT-1"),
    mutant(InjectionWhileIdleIsACreate, "session.injection-while-idle-is-a-create", "SESSION-INJECT-1"),
    mutant(
        InjectionIntoAnEndedResponseIsACreate,
        "session.injection-into-an-ended-response-is-a-create",
        "SESSION-INJECT-1",
    ),
    mutant(InjectionsReachTheTurn, "session.injections-reach-the-turn", "SESSION-INJECT-2"),
    mutant(InjectionNamesTheTurnsResponse, "session.injection-names-the-turns-response", "SESSION-INJECT-2"),
    mutant(InjectionWithoutItsResponse, "session.injection-without-its-response", "SESSION-INJECT-2"),
    mutant(LostSteersFailed, "session.lost-steers-failed", "SESSION-STEER-6"),
    mutant(ResendsBlindly, "session.resends-blindly", "SESSION-STEER-7"),
    mutant(AdoptsUnknownAcknowledgements, "session.adopts-unknown-acknowledgements", "SESSION-STEER-8"),
    mutant(CommitsFailedSteers, "session.commits-failed-steers", "SESSION-STEER-9"),
    mutant(RecommitsCommittedSteers, "session.recommits-committed-steers", "SESSION-STEER-10"),
    mutant(SteerFedToItsTurn, "session.steer-fed-to-its-turn", "SESSION-STEP-1"),
    mutant(LossFedToTheTurns, "session.loss-fed-to-the-turns", "SESSION-STEP-1"),
    mutant(StreamIdStringified, "session.stream-id-stringified", "SESSION-STEP-2"),
    mutant(MalformedErrorNamesItsLane, "session.malformed-error-names-its-lane", "SESSION-STEP-2"),
    mutant(LaneOfTheLastResponse, "session.lane-of-the-last-response", "SESSION-LANE-1"),
    mutant(NullLaneIsNamed, "session.null-lane-is-named", "SESSION-LANE-1"),
    mutant(RoundRobinWithinALane, "session.round-robin-within-a-lane", "SESSION-LANE-2"),
    mutant(EndedTurnKeepsItsLane, "session.ended-turn-keeps-its-lane", "SESSION-LANE-2"),
    mutant(UnknownLaneToTheDefaultLane, "session.unknown-lane-to-the-default-lane", "SESSION-LANE-3"),
    mutant(UnknownLaneSilent, "session.unknown-lane-silent", "SESSION-LANE-3"),
    mutant(IdleLaneEventSilent, "session.idle-lane-event-silent", "SESSION-LANE-4"),
    mutant(StrayWithoutItsLane, "session.stray-without-its-lane", "SESSION-LANE-4"),
    mutant(DefaultLaneUnknownUntilNamed, "session.default-lane-unknown-until-named", "SESSION-LANE-4"),
    mutant(AnyContinuationIsATurn, "session.any-continuation-is-a-turn", "SESSION-LANE-4"),
    mutant(EndOfNoLane, "session.end-of-no-lane", "SESSION-TURN-1"),
    mutant(CutTurnsWithoutLane, "session.cut-turns-without-lane", "SESSION-TURN-1"),
    mutant(CutTurnsWithoutResponseId, "session.cut-turns-without-response-id", "SESSION-TURN-6"),
    mutant(SuccessorTaggedWithItsTarget, "session.successor-tagged-with-its-target", "SESSION-TURN-6"),
    mutant(RouterPerLane, "session.router-per-lane", "SESSION-TURN-2"),
    mutant(CallIdsOfTheConnection, "session.call-ids-of-the-connection", "SESSION-TURN-2"),
    mutant(EndAtTheNextEntry, "session.end-at-the-next-entry", "SESSION-TURN-3"),
    mutant(OnlyCompletedEndsATurn, "session.only-completed-ends-a-turn", "SESSION-TURN-3"),
    mutant(EndsTwiceAtTheTerminal, "session.ends-twice-at-the-terminal", "SESSION-TURN-4"),
    mutant(UnbegunRequestsDropped, "session.unbegun-requests-dropped", "SESSION-TURN-4", "SESSION-CONN-1"),
    mutant(SuccessorOnlyOfPendingSteers, "session.successor-only-of-pending-steers", "SESSION-TURN-5"),
    mutant(SuccessorOnTheDefaultLane, "session.successor-on-the-default-lane", "SESSION-TURN-5"),
    mutant(ErrorEndsTheNewestTurn, "session.error-ends-the-newest-turn", "SESSION-ERR-1"),
    mutant(ErrorEndsTheTurnTruncated, "session.error-ends-the-turn-truncated", "SESSION-ERR-1"),
    mutant(IdleErrorDropped, "session.idle-error-dropped", "SESSION-ERR-2"),
    mutant(IdleErrorOfTheLastResponse, "session.idle-error-of-the-last-response", "SESSION-ERR-2"),
    mutant(LostTurnsNewestFirst, "session.lost-turns-newest-first", "SESSION-CONN-1"),
    mutant(LostCallsDropped, "session.lost-calls-dropped", "SESSION-CONN-1"),
    mutant(RoutesAfterTheEnd, "session.routes-after-the-end", "SESSION-CONN-2"),
    mutant(AfterTheEndErrorWithoutLane, "session.after-the-end-error-without-lane", "SESSION-CONN-2"),
    mutant(LossReportedAsClosed, "session.loss-reported-as-closed", "SESSION-CONN-3"),
    mutant(ClosedBeforeTheTurnsEnd, "session.closed-before-the-turns-end", "SESSION-CONN-3"),
    mutant(LimitReportedAsLost, "session.limit-reported-as-lost", "SESSION-LIMIT-1", "SESSION-CONN-3"),
    mutant(
        CloseSaysTheLostSteersAgain,
        "session.close-says-the-lost-steers-again",
        "SESSION-CONN-6",
        "SESSION-STEER-10",
    ),
    mutant(DisconnectWhileDownIsAnError, "session.disconnect-while-down-is-an-error", "SESSION-CONN-6"),
    mutant(QueuesSendsWhileDown, "session.queues-sends-while-down", "SESSION-CONN-4"),
    mutant(NotConnectedWithoutLane, "session.not-connected-without-lane", "SESSION-CONN-4"),
    mutant(ConnectForgetsSteers, "session.connect-forgets-steers", "SESSION-CONN-5"),
    mutant(
        ConnectRetriesUnknownSteers,
        "session.connect-retries-unknown-steers",
        "SESSION-CONN-5",
        "SESSION-STEER-9",
    ),
    mutant(LimitErrorWithoutItsLane, "session.limit-error-without-its-lane", "SESSION-LIMIT-1"),
    mutant(LimitErrorLast, "session.limit-error-last", "SESSION-LIMIT-1"),
    mutant(SteerOnTheNewestLane, "session.steer-on-the-newest-lane", "SESSION-STEER-1"),
    mutant(SteerIdOfItsOwn, "session.steer-id-of-its-own", "SESSION-STEER-1"),
    mutant(AcceptsAnyTarget, "session.accepts-any-target", "SESSION-STEER-2"),
    mutant(AcceptedWithoutItsId, "session.accepted-without-its-id", "SESSION-STEER-2"),
    mutant(CommitBeforeTheTurnsOutcomes, "session.commit-before-the-turns-outcomes", "SESSION-STEER-3"),
    mutant(CommitsTheFirstSteerOnly, "session.commits-the-first-steer-only", "SESSION-STEER-3"),
    mutant(PendingFoundByOrder, "session.pending-found-by-order", "SESSION-STEER-4", "SESSION-STEER-8"),
    mutant(PendingIgnored, "session.pending-ignored", "SESSION-STEER-4"),
    mutant(FailedWithoutCode, "session.failed-without-code", "SESSION-STEER-5"),
    mutant(FailedFoundByOrder, "session.failed-found-by-order", "SESSION-STEER-5", "SESSION-STEER-8"),
    mutant(LostSteersBeforeTheTurns, "session.lost-steers-before-the-turns", "SESSION-STEER-6"),
    mutant(LostPendingStaysPending, "session.lost-pending-stays-pending", "SESSION-STEER-6"),
    mutant(ResendsAfterFailureRefused, "session.resends-after-failure-refused", "SESSION-STEER-7"),
    mutant(ResendsUnknownSteers, "session.resends-unknown-steers", "SESSION-STEER-7"),
    mutant(UnknownAcknowledgementSilent, "session.unknown-acknowledgement-silent", "SESSION-STEER-8"),
    mutant(UnknownIdMovesTheNewest, "session.unknown-id-moves-the-newest", "SESSION-STEER-8"),
    mutant(LossMakesEverySteerUnknown, "session.loss-makes-every-steer-unknown", "SESSION-STEER-9"),
    mutant(UnknownSaidAgainAtConnect, "session.unknown-said-again-at-connect", "SESSION-STEER-10"),
    mutant(PendingSaidAsAcceptedToo, "session.pending-said-as-accepted-too", "SESSION-STEER-10"),
]
