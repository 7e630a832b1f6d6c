"""Mutants of the `session` profile (spec/session.md): each is the reference connection with one
piece changed, the way a hand-written WebSocket client of the Responses API gets it wrong."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from streamroute.reference import Outcome, Router
from streamroute.reference.connection import (
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
    mutant(SequentialServerUnknown, "session.sequential-server-unknown", "SESSION-LANE-6"),
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
    mutant(InjectionIsACreate, "session.injection-is-a-create", "SESSION-INJECT-1"),
    mutant(InjectionsReachTheTurn, "session.injections-reach-the-turn", "SESSION-INJECT-2"),
    mutant(LostSteersFailed, "session.lost-steers-failed", "SESSION-STEER-6"),
    mutant(ResendsBlindly, "session.resends-blindly", "SESSION-STEER-7"),
    mutant(AdoptsUnknownAcknowledgements, "session.adopts-unknown-acknowledgements", "SESSION-STEER-8"),
    mutant(CommitsFailedSteers, "session.commits-failed-steers", "SESSION-STEER-9"),
    mutant(RecommitsCommittedSteers, "session.recommits-committed-steers", "SESSION-STEER-10"),
]
