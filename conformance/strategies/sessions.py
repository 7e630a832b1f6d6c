"""Generated sessions, each drawn with its ground truth (spec/session.md).

A session is planned before it is written: its connections, each one's lanes,
each lane's turns one after another (every turn after a lane's first continues
the one before it; a lane's first may continue another lane's response), each
turn's items (a message in text deltas, a function call in argument deltas),
how it ends (`completed`, `incomplete`, `failed`, or an `error` event of its
lane, which may cut a call short), the steers sent to it and how the server
answers each, whether the server continues a steered response on its own
(SESSION-TURN-5), and whether the client sends a lane's next request before
the one before it is served (SESSION-LANE-2).

Each lane's turns are written as *units*: one entry (a client step or a
server event, numbered per response as the producer numbers it) and its
effect, which changes `_Truth`, the session's state as the spec describes it
(the connection, its lanes, the turns in flight in the order they began, the
responses seen, every steer and its state), and answers the entry's outcomes.
The lanes' units are interleaved in a drawn order, and the session's strays
(`STRAYS`: entries the spec gives an outcome for, wherever they fall: malformed
entries, events of lanes never named or idle, errors of idle lanes,
acknowledgements of no steer, a steer sent again) are placed among them. The
connection may end at a drawn point, lost, at its limit, or replaced by a
`connect`: everything planned after it never arrives; what may still come
(events, sends, another disconnect) meets the ended connection, and a
`connect` may start another. Nothing here runs the reference or reads an
outcome back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from hypothesis import strategies as st
from streamroute.wire.session import LIMIT_REACHED

from ..schemas import option_defaults
from .choices import Choices, Drawn
from .outcomes import handed_over
from .vocabulary import RESPONSE_STATED

Outcome = dict[str, Any]
At = int | Literal["close"]
Lane = str | None
Ending = Literal["completed", "incomplete", "failed", "error"]
Reason = Literal["closed", "lost", "limit_reached"]

LANES: tuple[Lane, ...] = (None, "main", "side", "fork")
UNNAMED_LANE = "ghost"  # a lane no `response.create` names (SESSION-LANE-3)

SteerState = Literal["requested", "accepted", "pending", "committed", "failed", "unknown"]
SteerMove = Literal["accept", "hold", "commit", "fail", "lose"]
# spec/session.md section 6: state -> {move: next state}; a move not listed is a bug of this oracle.
STEER_MOVES: dict[SteerState, dict[SteerMove, SteerState]] = {
    "requested": {"accept": "accepted", "fail": "failed", "lose": "unknown"},
    "accepted": {"hold": "pending", "commit": "committed", "fail": "failed", "lose": "unknown"},
    "pending": {"commit": "committed", "fail": "failed", "lose": "unknown"},
    "committed": {},
    "failed": {},
    "unknown": {},
}
# The server may still own a steer in these states: its input is not sent again (SESSION-STEER-7).
UNSETTLED: frozenset[SteerState] = frozenset({"requested", "accepted", "pending", "unknown"})
_ACKNOWLEDGED: dict[SteerMove, str] = {
    "accept": "response.steer.accepted",
    "hold": "response.steer.pending",
    "fail": "response.steer.failed",
}
STEER_FAILURE = "steer_not_applicable"
# What the server says of a steer it accepted and then could not apply: its successor never came.
SUCCESSOR_FAILURE = "successor_creation_failed"
WAITING = "waiting_for_required_input"  # a pending steer's reason when the response owes results


def required_input(target: str) -> list[dict[str, Any]]:
    """The stubs a response waiting for the client's results names (SESSION-STEER-11)."""
    return [{"type": "function_call_output", "call_id": f"call_owed_{target}"}]


def _lane_error(code: str, lane: Lane) -> Outcome:
    """An `error` of the session router itself, or of a lane with no turn: `response_id` null."""
    return {"kind": "error", "code": code, "stream_id": lane, "response_id": None}


TurnEnd = Literal["completed", "terminal", "error", "connection"]  # by which event a turn ended


@dataclass
class _Turn:
    lane: Lane
    response_id: str | None = None
    open_calls: dict[str, str] = field(default_factory=dict)  # item id -> call id, in the order opened
    ended: tuple[At, TurnEnd] | None = None  # where and how it ended

    def tagged(self, **outcome: Any) -> Outcome:
        return {**outcome, "stream_id": self.lane, "response_id": self.response_id}


@dataclass
class _Steer:
    target: str
    input: str
    lane: Lane
    state: SteerState = "requested"
    steer_id: str | None = None

    def move(self, move: SteerMove, **fields: Any) -> Outcome:
        self.state = STEER_MOVES[self.state][move]
        outcome = {"kind": f"steer.{self.state}", "stream_id": self.lane, "response_id": self.target}
        return {**outcome, "steer_id": self.steer_id, **fields}


@dataclass
class _Truth:
    """The session as the spec describes it, changed by each unit in the order they are sent."""

    connected: bool = True
    lanes: set[Lane] = field(default_factory=lambda: {None})  # the default lane needs no name
    turns: list[_Turn] = field(default_factory=list)  # in flight, in the order they began
    responses: dict[str, Lane] = field(default_factory=dict)  # seen on this connection: their lane
    steers: list[_Steer] = field(default_factory=list)  # every steer sent; they outlive a connection
    at: At = 0  # the entry whose effect runs
    began: list[_Turn] = field(default_factory=list)  # every turn that began, on every connection
    # Not a state: an event without stream_id came while only named lanes had turns in flight, which
    # a client of servers that process one response at a time routes otherwise (SESSION-LANE-6).
    bare_beside_named: bool = False

    def begin(self, turn: _Turn) -> None:
        self.turns.append(turn)  # SESSION-LANE-2: served after the lane's others
        self.began.append(turn)

    def finish(self, turn: _Turn, how: TurnEnd) -> None:
        self.turns.remove(turn)
        turn.ended = (self.at, how)

    def refused(self, lane: Lane) -> list[Outcome] | None:
        """What a server event of `lane` produces before a turn is looked for: after the connection
        ended (SESSION-CONN-2), or for a lane never named (SESSION-LANE-3); None: neither."""
        if not self.connected:
            return [_lane_error("event_after_disconnect", lane)]
        if lane not in self.lanes:
            return [_lane_error("unknown_lane", lane)]
        return None

    def head(self, lane: Lane) -> _Turn | None:
        """The lane's oldest turn in flight, which its events are for (SESSION-LANE-2)."""
        return next((turn for turn in self.turns if turn.lane == lane), None)

    def end(self, reason: Reason) -> list[Outcome]:
        """The connection ends (SESSION-CONN-1, -3, SESSION-STEER-6)."""
        outcomes: list[Outcome] = []
        for turn in list(self.turns):
            outcomes += [
                turn.tagged(kind="tool.error", item_id=item, call_id=call, code="incomplete")
                for item, call in turn.open_calls.items()
            ]
            outcomes.append(turn.tagged(kind="end", status="truncated"))
            self.finish(turn, "connection")
        outcomes += [steer.move("lose") for steer in self.steers if "lose" in STEER_MOVES[steer.state]]
        self.connected = False
        return [*outcomes, {"kind": "connection.closed", "reason": reason}]

    def connect(self) -> list[Outcome]:
        """A new connection: only the default lane, no turn, no response seen (SESSION-CONN-5)."""
        outcomes = self.end("closed") if self.connected else []
        self.connected, self.lanes, self.turns, self.responses = True, {None}, [], {}
        return outcomes

    def send_steer(self, target: str, said: str) -> list[Outcome]:
        lane = self.responses.get(target)  # the target decides the lane (SESSION-STEER-1)
        if not self.connected:  # SESSION-CONN-4
            return [_lane_error("not_connected", lane)]
        if any(s.target == target and s.input == said and s.state in UNSETTLED for s in self.steers):
            return [_lane_error("duplicate_steer", lane)]  # SESSION-STEER-7
        steer = _Steer(target, said, lane)
        self.steers.append(steer)
        return [{"kind": "steer.requested", "stream_id": lane, "response_id": target, "steer_id": None}]

    def acknowledge(self, ack: Acknowledgement) -> list[Outcome]:
        """An acknowledgement: by steer id once the server gave one, else the oldest requested steer
        of its target (SESSION-STEER-2, -4, -5); none to move: unknown_steer (SESSION-STEER-8). A
        pending one carries its reason and required input, waiting or not (SESSION-STEER-11); a
        failed one its code, whatever it is (SESSION-STEER-5)."""
        move = ack.move
        refused = self.refused(ack.lane)
        if refused is not None:
            return refused
        steer = self.acknowledged(move, ack.target, ack.steer_id)
        if steer is None:
            return [_lane_error("unknown_steer", ack.lane)]
        if move == "accept":
            steer.steer_id = ack.steer_id
        if move == "fail":
            return [steer.move(move, code=ack.code)]
        if move == "hold":
            owed = required_input(ack.target) if ack.waiting else []
            return [steer.move(move, reason=WAITING if ack.waiting else None, required_input=owed)]
        return [steer.move(move)]

    def acknowledged(self, move: SteerMove, target: str, steer_id: str | None) -> _Steer | None:
        """The steer an acknowledgement moves, if any."""
        by_order = move == "accept" or steer_id is None
        for steer in self.steers:
            if steer.target != target or move not in STEER_MOVES[steer.state]:
                continue
            if (steer.state == "requested") if by_order else steer.steer_id == steer_id:
                return steer
        return None

    def successor_of(self, previous: str | None) -> bool:
        """Whether a response continuing `previous` is the server's own successor of a steered
        response (SESSION-TURN-5)."""
        return any(s.target == previous and s.state in ("accepted", "pending") for s in self.steers)

    def commit(self, previous: str | None, successor: str) -> list[Outcome]:
        """SESSION-STEER-3, -9, -10: a successor commits the steers it continues, each once."""
        return [
            steer.move("commit", successor_id=successor)
            for steer in self.steers
            if steer.target == previous and "commit" in STEER_MOVES[steer.state]
        ]


Effect = Callable[[_Truth], "list[Outcome] | None"]  # None: the entry cannot come here, and is left out


@dataclass(frozen=True)
class Unit:
    entry: Any
    effect: Effect  # changes the truth and answers the entry's outcomes


@dataclass(frozen=True)
class GeneratedSession:
    entries: list[Any]
    expected: list[tuple[At, Outcome]]  # the ground truth, `message` never stated
    ends: tuple[Reason, ...]  # how each connection ended, in order
    strays: tuple[Stray, ...] = ()  # the strays placed in it; none: each turn is producer-clean
    # The ground truth under `tool_call_point: response_done` (CORE-POINT-1, CORE-POINT-2).
    handed_over: list[tuple[At, Outcome]] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)  # the canonical option values it assumes

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool registry its calls are routed with (a vector's `tools`)."""
        return [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]


# -- the plan ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemPlan:
    kind: Literal["message", "call"]
    chunks: tuple[str, ...]


# accept_wait: accepted, then pending for the results the response waits for (SESSION-STEER-11).
Ack = Literal["accept", "accept_hold", "accept_wait", "accept_fail", "fail", "none"]
_ACKS: tuple[Ack, ...] = ("accept",) * 4 + ("accept_hold", "accept_wait", "accept_fail", "fail", "none")
# A steer the server still owns at the end.
_OWNED: frozenset[Ack] = frozenset({"accept", "accept_hold", "accept_wait"})


@dataclass(frozen=True)
class TurnPlan:
    items: tuple[ItemPlan, ...]
    ending: Ending
    steers: tuple[Ack, ...]  # each steer sent to the turn's response, and how the server answers it
    pipelined: bool = False  # the next turn's request is sent while this one is served
    succeeded: bool = False  # the server continues it on its own (SESSION-TURN-5)
    # Its request says `generate: false`, with its input, none, or `store: false`: a turn like any
    # other (SESSION-TURN-7); None: an ordinary request.
    warm_up: WarmUp | None = None


WarmUp = Literal["input", "no_input", "no_store"]
_WARM_UPS: tuple[WarmUp, ...] = ("input", "no_input", "no_store")
_ENDINGS: tuple[Ending, ...] = ("completed", "completed", "incomplete", "failed", "error")
_WORDS = "abcdefgh .,é"


def _word(c: Choices) -> str:
    return "".join(c.pick(_WORDS) for _ in range(c.integer(1, 6)))


def _item(c: Choices) -> ItemPlan:
    if c.coin():
        return ItemPlan("message", tuple(_word(c) for _ in range(c.integer(1, 3))))
    text = json.dumps({"city": _word(c)})
    cuts = sorted({c.integer(1, len(text) - 1) for _ in range(c.below(4))})
    return ItemPlan("call", tuple(text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)))


def _turns(c: Choices) -> list[TurnPlan]:
    """A lane's turns: a steered one the server still owns a steer of may be continued by the
    server (the lane's next turn), or end as any other."""
    plans: list[TurnPlan] = []
    count = c.integer(1, 3)
    for number in range(count):
        details = c.seeded()
        items = tuple(_item(details) for _ in range(details.integer(1, 2)))
        steers = tuple(c.pick(_ACKS) for _ in range(c.pick((0, 0, 1, 1, 2))))
        succeeded = number + 1 < count and bool(_OWNED.intersection(steers)) and c.chance(2)
        ending: Ending = "incomplete" if succeeded else c.pick(_ENDINGS)
        warm_up = c.pick(_WARM_UPS) if c.chance(6) else None
        plans.append(TurnPlan(items, ending, steers, c.chance(4), succeeded, warm_up))
    return plans


# -- writing a lane's turns ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Style:
    """How a lane's producer writes what the spec reads one way: its events' `stream_id` null (the
    default lane's, as absent, CORE-EVT-7), and its call ids counted in each turn, so that the
    lane's turns call the same ids (a call id is its turn's, SESSION-TURN-1)."""

    null_lane: bool = False
    call_ids_per_turn: bool = False


class _Writer:
    """Writes one lane's turns as units, numbering each response's events from 0."""

    def __init__(self, lane: Lane, name: str, forks: str | None, style: _Style) -> None:
        self.lane = lane
        self.name = name  # what its ids say: the lane and the connection
        self.style = style
        self.units: list[Unit] = []
        self.previous = forks  # what the lane's first turn continues: another lane's response, or none
        self.responses: list[str] = []  # its responses, in order

    def write(self, plans: Sequence[TurnPlan]) -> None:
        """The turns' units in order; a pipelined turn's next request is sent just after the
        pipelined turn's `response.created`, while it is served (SESSION-LANE-2)."""
        blocks = [
            self._turn(number, plan, number > 0 and plans[number - 1].succeeded)
            for number, plan in enumerate(plans)
        ]
        sent_early = False
        for number, (send, body) in enumerate(blocks):
            if send is not None and not sent_early:
                self.units.append(send)
            following = blocks[number + 1][0] if number + 1 < len(blocks) else None
            sent_early = plans[number].pipelined and following is not None
            if following is not None and sent_early:
                self.units += [body[0], following, *body[1:]]
            else:
                self.units += body

    def _turn(self, number: int, plan: TurnPlan, automatic: bool) -> tuple[Unit | None, list[Unit]]:
        rid = f"resp_{self.name}_{number}"
        state = _Turn(self.lane)
        seq = iter(range(1_000))
        done_items: list[dict[str, Any]] = []
        previous = self.previous
        units: list[Unit] = []

        def event(body: dict[str, Any]) -> dict[str, Any]:
            head: dict[str, Any] = {"type": body["type"], "sequence_number": next(seq)}
            if self.lane is not None or self.style.null_lane:
                head["stream_id"] = self.lane
            return {**head, **{k: v for k, v in body.items() if k != "type"}}

        def response(status: str, **extra: Any) -> dict[str, Any]:
            output = list(done_items) if status != "in_progress" else []
            body = {"id": rid, **RESPONSE_STATED, "status": status, "output": output}
            return {**body, "previous_response_id": previous, **extra}

        def emit(entry: Any, *outcomes: Outcome, change: Callable[[_Truth], None] | None = None) -> None:
            def effect(truth: _Truth) -> list[Outcome]:
                assert truth.head(self.lane) is state, "a turn's events come while it is its lane's oldest"
                if change is not None:
                    change(truth)
                return [state.tagged(**o) for o in outcomes]

            units.append(Unit(entry, effect))

        send = None
        if not automatic:
            message: dict[str, Any] = {"type": "response.create", "model": "gpt-5.1", "input": "next"}
            if plan.warm_up is not None:
                message["generate"] = False
                if plan.warm_up == "no_input":
                    del message["input"]
                elif plan.warm_up == "no_store":
                    message["store"] = False
            if self.lane is not None:
                message["stream_id"] = self.lane
            if previous is not None:
                message["previous_response_id"] = previous
            send = Unit({"control": "send", "message": message}, lambda truth: _begin(truth, state))

        def created(truth: _Truth) -> list[Outcome]:
            if automatic:  # the server's successor of a steered response (SESSION-TURN-5)
                assert truth.head(self.lane) is None, "a successor comes while its lane is idle"
                assert truth.successor_of(previous), "a successor continues a steered response"
                truth.begin(state)
            assert truth.head(self.lane) is state
            state.response_id = rid
            truth.responses[rid] = self.lane
            return [state.tagged(kind="lifecycle", event="created"), *truth.commit(previous, rid)]

        units.append(Unit(event({"type": "response.created", "response": response("in_progress")}), created))
        for index, ack in enumerate(plan.steers):
            units += self._steer(rid, f"steer_{self.name}_{number}_{index}", "xyz"[index], ack)
        cut_short = plan.ending == "error" and plan.items[-1].kind == "call"
        for index, planned in enumerate(plan.items):
            item_id = f"{'msg' if planned.kind == 'message' else 'fc'}_{self.name}_{number}_{index}"
            if planned.kind == "message":
                _message(emit, event, done_items, item_id, index, planned.chunks)
            else:
                last = index == len(plan.items) - 1
                call_id = f"call_{index}" if self.style.call_ids_per_turn else f"call_{item_id}"
                _call(
                    emit,
                    event,
                    done_items,
                    state,
                    item_id,
                    call_id,
                    index,
                    planned.chunks,
                    last and cut_short,
                )

        def ended(truth: _Truth) -> None:
            truth.finish(state, "completed" if plan.ending == "completed" else "terminal")

        if plan.ending == "error":  # SESSION-ERR-1: it fails the turn, and its open call
            error = {"type": "server_error", "code": "server_error", "message": "The server had an error."}

            def lane_error(truth: _Truth) -> list[Outcome]:
                outcomes = [state.tagged(kind="error", code="server_error")]
                outcomes += [
                    state.tagged(kind="tool.error", item_id=item, call_id=call, code="incomplete")
                    for item, call in state.open_calls.items()
                ]
                truth.finish(state, "error")
                return [*outcomes, state.tagged(kind="end", status="failed")]

            units.append(Unit(event({"type": "error", "status": 500, "error": error}), lane_error))
        else:
            extra: dict[str, Any] = {}
            outcomes: list[Outcome] = [{"kind": "lifecycle", "event": plan.ending}]
            if plan.ending == "incomplete":
                extra["incomplete_details"] = {"reason": "steered" if plan.succeeded else "max_output_tokens"}
            if plan.ending == "failed":
                extra["error"] = {"code": "server_error", "message": "The model failed."}
                outcomes.append({"kind": "error", "code": "server_error"})
            outcomes.append({"kind": "end", "status": plan.ending})
            terminal = event({"type": f"response.{plan.ending}", "response": response(plan.ending, **extra)})
            emit(terminal, *outcomes, change=ended)
        self.previous = rid
        self.responses.append(rid)
        return send, units

    def _steer(self, target: str, steer_id: str, said: str, ack: Ack) -> list[Unit]:
        """A steer sent to the turn's response, and the server's acknowledgements of it."""
        message = {"type": "response.steer", "previous_response_id": target, "input": said}
        units = [Unit({"control": "send", "message": message}, lambda truth: truth.send_steer(target, said))]
        moves: dict[Ack, tuple[tuple[SteerMove, str | None], ...]] = {
            "accept": (("accept", steer_id),),
            "accept_hold": (("accept", steer_id), ("hold", steer_id)),
            "accept_wait": (("accept", steer_id), ("hold", steer_id)),
            "accept_fail": (("accept", steer_id), ("fail", steer_id)),
            "fail": (("fail", None),),
            "none": (),
        }
        waiting = ack == "accept_wait"
        code = SUCCESSOR_FAILURE if ack == "accept_fail" else STEER_FAILURE
        return units + [
            _acknowledged(Acknowledgement(move, target, named, self.lane, waiting, code))
            for move, named in moves[ack]
        ]


def _acknowledged(ack: Acknowledgement) -> Unit:
    return Unit(ack.event(), lambda truth: truth.acknowledge(ack))


def _begin(truth: _Truth, turn: _Turn) -> list[Outcome]:
    if not truth.connected:  # SESSION-CONN-4: nothing was sent
        return [_lane_error("not_connected", turn.lane)]
    truth.lanes.add(turn.lane)
    truth.begin(turn)
    return []


@dataclass(frozen=True)
class Acknowledgement:
    """The server's acknowledgement of a steer: its move, the response it names, the steer id it
    states, its lane; `waiting`: a pending one stating what the response waits for
    (SESSION-STEER-11); `code`: a failure's."""

    move: SteerMove
    target: str
    steer_id: str | None
    lane: Lane
    waiting: bool = False
    code: str = STEER_FAILURE

    def event(self) -> dict[str, Any]:
        """The event (numbered once the lanes are interleaved)."""
        target, steer_id = self.target, self.steer_id
        steer = (
            {"previous_response_id": target}
            if steer_id is None
            else {"id": steer_id, "previous_response_id": target}
        )
        ack: dict[str, Any] = {"type": _ACKNOWLEDGED[self.move], "sequence_number": 0, "steer": steer}
        if self.move == "fail":
            ack["error"] = {"type": "invalid_request_error", "code": self.code, "message": "Not applied."}
        if self.move == "hold" and self.waiting:
            ack.update(reason=WAITING, required_input=required_input(target))
        return ack if self.lane is None else {**ack, "stream_id": self.lane}


Emit = Callable[..., None]
Event = Callable[[dict[str, Any]], dict[str, Any]]


def _message(
    emit: Emit, event: Event, done_items: list[Any], item_id: str, index: int, chunks: tuple[str, ...]
) -> None:
    text = "".join(chunks)
    where = {"item_id": item_id, "output_index": index, "content_index": 0}
    added = {"id": item_id, "type": "message", "role": "assistant", "status": "in_progress", "content": []}
    emit(event({"type": "response.output_item.added", "output_index": index, "item": added}))
    part_added = {
        "type": "response.content_part.added",
        **where,
        "part": {"type": "output_text", "text": "", "annotations": []},
    }
    emit(event(part_added), {"kind": "ignored", "type": "response.content_part.added"})
    for chunk in chunks:
        emit(
            event({"type": "response.output_text.delta", **where, "delta": chunk}),
            {"kind": "text.delta", **where, "delta": chunk},
        )
    emit(
        event({"type": "response.output_text.done", **where, "text": text}),
        {"kind": "text.done", "item_id": item_id, "content_index": 0, "text": text},
    )
    part = {"type": "output_text", "text": text, "annotations": []}
    emit(
        event({"type": "response.content_part.done", **where, "part": part}),
        {"kind": "ignored", "type": "response.content_part.done"},
    )
    done = {"id": item_id, "type": "message", "role": "assistant", "status": "completed", "content": [part]}
    done_items.append(done)
    emit(event({"type": "response.output_item.done", "output_index": index, "item": done}))


def _call(
    emit: Emit,
    event: Event,
    done_items: list[Any],
    state: _Turn,
    item_id: str,
    call_id: str,
    index: int,
    chunks: tuple[str, ...],
    cut_short: bool,
) -> None:
    text = "".join(chunks)
    added = {
        "id": item_id,
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": call_id,
        "name": "get_weather",
    }
    emit(
        event({"type": "response.output_item.added", "output_index": index, "item": added}),
        change=lambda truth: state.open_calls.__setitem__(item_id, call_id),
    )
    where = {"item_id": item_id, "output_index": index}
    for chunk in chunks:
        emit(
            event({"type": "response.function_call_arguments.delta", **where, "delta": chunk}),
            {"kind": "tool.arguments.delta", "item_id": item_id, "delta": chunk},
        )
    if cut_short:
        return
    emit(event({"type": "response.function_call_arguments.done", **where, "arguments": text}))
    done = {**added, "status": "completed", "arguments": text}
    done_items.append(done)
    call = {
        "kind": "tool.call",
        "item_id": item_id,
        "call_id": call_id,
        "name": "get_weather",
        "tool_type": "function",
    }
    emit(
        event({"type": "response.output_item.done", "output_index": index, "item": done}),
        {**call, "arguments": json.loads(text)},
        change=lambda truth: state.open_calls.pop(item_id),
    )


# -- strays: entries the spec gives an outcome for wherever they fall -----------------------------


@dataclass(frozen=True)
class Stray:
    name: str
    requirements: tuple[str, ...]
    make: Callable[[Choices, Sequence[Lane], Sequence[str]], Unit]  # from the lanes and responses drawn


STRAYS: dict[str, Stray] = {}


def stray(name: str, *requirements: str) -> Callable[[Callable[..., Unit]], Callable[..., Unit]]:
    def register(make: Callable[..., Unit]) -> Callable[..., Unit]:
        STRAYS[name] = Stray(name, requirements, make)
        return make

    return register


_NOT_ENTRIES: tuple[Any, ...] = (
    5,
    [1],
    "response.created",
    None,
    {"type": 7},
    {"type": "response.output_text.delta", "stream_id": 7, "delta": "x"},
)
_MALFORMED_ACKS: tuple[dict[str, Any], ...] = (
    {"type": "response.steer.accepted", "sequence_number": 0, "steer": {"id": "steer_x"}},
    {"type": "response.steer.pending", "sequence_number": 0, "steer": "steer_x"},
    {
        "type": "response.steer.accepted",
        "sequence_number": 0,
        "steer": {"id": 5, "previous_response_id": "resp_x"},
    },
)


@stray("malformed", "SESSION-STEP-2")
def _malformed(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """An entry that is no event, an event whose stream_id is no string, or an acknowledgement
    that names no target or a steer id that is no string: malformed, with no lane, whatever lane it
    names (an acknowledgement of a lane not yet named is of an unknown lane, SESSION-LANE-3)."""
    if c.coin():
        return Unit(c.pick(_NOT_ENTRIES), lambda truth: [_lane_error("malformed_event", None)])
    ack, lane = c.pick(_MALFORMED_ACKS), c.pick(lanes)
    ack = ack if lane is None else {**ack, "stream_id": lane}
    return Unit(ack, lambda truth: truth.refused(lane) or [_lane_error("malformed_event", None)])


def _stray_delta(lane: Lane) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "response.output_text.delta", "item_id": "msg_stray", "output_index": 0}
    event.update(content_index=0, delta="x")
    return event if lane is None else {**event, "stream_id": lane}


@stray("unknown_lane", "SESSION-LANE-3")
def _unknown_lane(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """An event of a lane no request named."""
    return Unit(_stray_delta(UNNAMED_LANE), lambda truth: truth.refused(UNNAMED_LANE))


def _idle(lane: Lane, answer: Callable[[], list[Outcome]]) -> Effect:
    """The outcomes of an event of `lane` that comes while it has no turn in flight; one that would
    reach a turn cannot come here."""

    def effect(truth: _Truth) -> list[Outcome] | None:
        refused = truth.refused(lane)
        if refused is not None:
            return refused
        if truth.head(lane) is not None:
            return None
        truth.bare_beside_named |= lane is None and bool(truth.turns)
        return answer()

    return effect


@stray("idle_lane_event", "SESSION-LANE-4")
def _idle_lane_event(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """An event of a lane with no turn in flight: no turn takes it."""
    lane = c.pick(lanes)
    return Unit(_stray_delta(lane), _idle(lane, lambda: [_lane_error("no_response_in_flight", lane)]))


@stray("idle_lane_error", "SESSION-ERR-2")
def _idle_lane_error(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """An `error` event of a lane with no turn in flight (without stream_id: of the connection)."""
    lane = c.pick(lanes)
    error = {"type": "server_error", "code": "overloaded", "message": "Busy."}
    event: dict[str, Any] = {"type": "error", "status": 500, "error": error}
    event = event if lane is None else {**event, "stream_id": lane}
    return Unit(event, _idle(lane, lambda: [_lane_error("overloaded", lane)]))


@stray("unknown_acknowledgement", "SESSION-STEER-8", "SESSION-STEER-9")
def _unknown_acknowledgement(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """An acknowledgement of no steer it can move: a target never steered, an id never given, or a
    steer that is final."""
    move: SteerMove = c.pick(("accept", "hold", "fail"))
    target = c.pick([*responses, "resp_never"])
    steer_id = (
        "steer_again"
        if move == "accept"
        else c.pick(["steer_never", *(f"steer_{r[5:]}_0" for r in responses)])
    )

    ack = Acknowledgement(move, target, steer_id, None)

    def effect(truth: _Truth) -> list[Outcome] | None:
        if truth.connected and truth.acknowledged(move, target, steer_id) is not None:
            return None  # it would move a steer the plan has plans for
        return truth.acknowledge(ack)

    return Unit(ack.event(), effect)


@stray("steer_again", "SESSION-STEER-7")
def _steer_again(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """A steer of a response with an input sent to it before: refused while the server may own the
    first, a new steer once that one is final."""
    target = c.pick(responses)
    said = c.pick("xyz")
    message = {"type": "response.steer", "previous_response_id": target, "input": said}
    return Unit({"control": "send", "message": message}, lambda truth: truth.send_steer(target, said))


_INJECTED = [{"type": "function_call_output", "call_id": "call_owed", "output": "done"}]


@stray("inject", "SESSION-INJECT-1")
def _inject(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """Input injected into a response: it begins no turn and requests no steer."""
    target = c.pick([*responses, "resp_never"])
    message = {"type": "response.inject", "response_id": target, "input": _INJECTED}

    def effect(truth: _Truth) -> list[Outcome]:
        return [] if truth.connected else [_lane_error("not_connected", None)]  # SESSION-CONN-4

    return Unit({"control": "send", "message": message}, effect)


@stray("inject_acknowledgement", "SESSION-INJECT-2")
def _inject_acknowledgement(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """The server's answer to injected input, created or failed: no turn's event, accounted for."""
    lane, response_id = c.pick(lanes), c.pick([*responses, "resp_never"])
    event: dict[str, Any] = {"type": "response.inject.created", "response_id": response_id}
    if c.coin():
        error = {"type": "invalid_request_error", "code": "response_already_completed", "message": "Done."}
        event = {**event, "type": "response.inject.failed", "error": error, "input": _INJECTED}
    event = event if lane is None else {**event, "stream_id": lane}
    ignored = {"kind": "ignored", "type": event["type"], "stream_id": lane, "response_id": response_id}
    return Unit(event, lambda truth: truth.refused(lane) or [ignored])


@stray("unasked_continuation", "SESSION-LANE-4", "SESSION-TURN-5")
def _unasked_continuation(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """A `response.created` of a lane with no turn in flight continuing a response no steer of the
    server's continues: no request began it, so no turn takes it."""
    lane = c.pick(lanes)
    previous = c.pick([*responses, "resp_never"])
    body = {"id": "resp_unasked", **RESPONSE_STATED, "status": "in_progress", "output": []}
    event: dict[str, Any] = {
        "type": "response.created",
        "response": {**body, "previous_response_id": previous},
    }
    event = event if lane is None else {**event, "stream_id": lane}
    idle = _idle(lane, lambda: [_lane_error("no_response_in_flight", lane)])
    return Unit(event, lambda truth: None if truth.successor_of(previous) else idle(truth))


# How often each stray is drawn, by its name in STRAYS.
_STRAY_MENU: tuple[str, ...] = (
    ("malformed",) * 2 + ("unknown_lane",) + ("idle_lane_event", "idle_lane_error") * 2
)
_STRAY_MENU += ("unknown_acknowledgement", "steer_again") * 2 + ("inject", "inject_acknowledgement")
_STRAY_MENU += ("unasked_continuation",)


# -- the connection's end, and what comes after it -----------------------------------------------


def _lost() -> Unit:
    return Unit({"control": "disconnect"}, lambda truth: truth.end("lost") if truth.connected else [])


def _limit(lane: Lane) -> Unit:
    """`websocket_connection_limit_reached`: the connection's end, whatever the lane (SESSION-LIMIT-1)."""
    error = {"type": "invalid_request_error", "code": LIMIT_REACHED, "message": "60 minutes."}
    event: dict[str, Any] = {"type": "error", "status": 400, "error": error}
    event = event if lane is None else {**event, "stream_id": lane}

    def effect(truth: _Truth) -> list[Outcome]:
        if not truth.connected:
            return [_lane_error("event_after_disconnect", lane)]
        return [_lane_error(LIMIT_REACHED, lane), *truth.end("limit_reached")]

    return Unit(event, effect)


def _connect() -> Unit:
    return Unit({"control": "connect"}, lambda truth: truth.connect())


def _down(c: Choices, lanes: Sequence[Lane], responses: Sequence[str]) -> Unit:
    """What may still come once the connection ended: an event (SESSION-CONN-2), a request or a
    steer sent (SESSION-CONN-4), another disconnect (SESSION-CONN-6)."""
    kind = c.below(4)
    if kind == 0:
        lane = c.pick(lanes)
        return Unit(_stray_delta(lane), lambda truth: truth.refused(lane))
    if kind == 1:
        lane = c.pick(lanes)
        message: dict[str, Any] = {"type": "response.create", "model": "gpt-5.1", "input": "again"}
        message = message if lane is None else {**message, "stream_id": lane}
        return Unit({"control": "send", "message": message}, lambda truth: _begin(truth, _Turn(lane)))
    if kind == 2 and responses:
        return _steer_again(c, lanes, responses)
    return _lost()


# An event once the connection ended: no producer sends one, so the session is not producer-clean.
_AFTER_THE_END = Stray("event_after_disconnect", ("SESSION-CONN-2",), _down)

ConnectionEnd = Literal["open", "lost", "limit", "connect"]  # how a connection ends, if it does
_ENDS: tuple[ConnectionEnd, ...] = ("open", "open", "lost", "lost", "limit", "connect")


@dataclass
class _Drawn:
    units: list[Unit]
    lanes: list[Lane]
    responses: list[str]
    strays: dict[int, Stray]  # the strays placed, by their unit


def _connection(c: Choices, number: int, before: _Drawn | None) -> _Drawn:
    """One connection's lanes and turns, interleaved, and its strays, which may name the lanes and
    responses of the connection `before` it too (a new connection knows none of them)."""
    lanes: list[Lane] = []
    for _ in range(c.integer(1, 3)):
        lane = c.pick([lane for lane in LANES if lane not in lanes])
        lanes.append(lane)
    writers: list[_Writer] = []
    succeeded: set[str] = set()  # responses the server continues: no other lane forks them
    for lane in lanes:
        seen = [r for writer in writers for r in writer.responses if r not in succeeded]
        forks = c.pick(seen) if seen and c.chance(4) else None
        style = _Style(lane is None and c.chance(3), c.chance(4))
        writer = _Writer(lane, f"{lane or 'default'}{'' if number == 0 else f'_c{number}'}", forks, style)
        plans = _turns(c)
        writer.write(plans)
        succeeded.update(r for r, plan in zip(writer.responses, plans, strict=True) if plan.succeeded)
        writers.append(writer)
    order = c.seeded()
    queues = [list(writer.units) for writer in writers]
    merged: list[Unit] = []
    while any(queues):
        queue = order.pick([q for q in queues if q])
        taken = order.integer(1, 4)
        merged += queue[:taken]
        del queue[:taken]
    responses = [r for writer in writers for r in writer.responses]
    named = [*lanes, *(before.lanes if before else ())]
    seen = [*responses, *(before.responses if before else ())]
    strays: dict[int, Stray] = {}
    for _ in range(c.pick((0, 0, 1, 1, 2, 3))):
        chosen = STRAYS[c.pick(_STRAY_MENU)]
        made = chosen.make(c.seeded(), named, seen)
        strays[id(made)] = chosen
        merged.insert(order.integer(1, len(merged)), made)  # after the first send: a session speaks first
    return _Drawn(merged, lanes, responses, strays)


@st.composite
def sessions(draw: st.DrawFn) -> GeneratedSession:
    """A session of one or two connections, of one to three lanes each, their turns interleaved,
    each connection closed, lost, at its limit or replaced part way."""
    return session(Drawn(draw))


def session(c: Choices) -> GeneratedSession:
    """The session `sessions` draws, of the decisions `c` takes."""
    units: list[Unit] = []
    ends: list[Reason] = []
    strays: dict[int, Stray] = {}
    drawn: _Drawn | None = None
    for number in range(2):
        drawn = _connection(c, number, drawn)
        strays.update(drawn.strays)
        end = c.pick(_ENDS)
        if end == "open":
            units += drawn.units
            ends.append("closed")
            break
        place = c.seeded()
        cut = place.integer(1, len(drawn.units) - 1) if len(drawn.units) > 1 else 1
        units += drawn.units[:cut]
        if end == "connect":
            ends.append("closed")
            units.append(_connect())
            continue
        units.append(_lost() if end == "lost" else _limit(place.pick([*drawn.lanes, UNNAMED_LANE])))
        ends.append("lost" if end == "lost" else "limit_reached")
        for _ in range(place.pick((0, 0, 1, 2))):
            down = _down(place, drawn.lanes, drawn.responses)
            strays.update({id(down): _AFTER_THE_END} if "type" in down.entry else {})
            units.append(down)
        if number == 1 or not c.coin():
            break
        units.append(_connect())
    return _assembled(units, tuple(ends), strays)


def _assembled(units: Sequence[Unit], ends: tuple[Reason, ...], strays: dict[int, Stray]) -> GeneratedSession:
    """The units in order, each effect run on the truth: the entries and their outcomes, the
    acknowledgements numbered as a count of their own (they belong to no turn)."""
    truth = _Truth()
    entries: list[Any] = []
    expected: list[tuple[At, Outcome]] = []
    placed: list[Stray] = []
    acks_seen = 0
    for unit in units:
        truth.at = len(entries)
        outcomes = unit.effect(truth)
        if outcomes is None:
            continue
        placed += [strays[id(unit)]] if id(unit) in strays else []
        entry = unit.entry
        if isinstance(entry, dict) and str(entry.get("type", "")).startswith("response.steer."):
            entry = {**entry, "sequence_number": acks_seen}
            acks_seen += 1
        expected += [(len(entries), outcome) for outcome in outcomes]
        entries.append(entry)
    truth.at = "close"
    expected += [("close", outcome) for outcome in (truth.end("closed") if truth.connected else [])]
    lanes = "session_lanes"  # a bare event is routed as the canonical value says
    options = {lanes: option_defaults()[lanes]} if truth.bare_beside_named else {}
    handed_over = _handed_over(expected, truth.began)
    return GeneratedSession(entries, expected, ends, tuple(placed), handed_over, options)


def _handed_over(expected: Sequence[tuple[At, Outcome]], turns: Sequence[_Turn]) -> list[tuple[At, Outcome]]:
    """The ground truth under `tool_call_point: response_done` (CORE-POINT-1, CORE-POINT-2): a turn's
    calls wait for its end; a turn that did not complete hands each over as `tool.error`
    `incomplete`, after its terminal event's or error's outcomes and before its open calls' (CORE-CALL-6).
    The harness moves an outcome of a terminal event or of close back to its call's done item, and
    leaves one of an `error` event or a client step where it is (spec/vectors.md section 3.1)."""
    ending: dict[str | None, tuple[At, TurnEnd] | None] = {
        turn.response_id: turn.ended for turn in turns if turn.response_id is not None
    }
    owed: dict[tuple[At, str], list[Outcome]] = {}
    kept: list[tuple[At, Outcome]] = []
    for at, outcome in expected:
        ended = ending.get(outcome.get("response_id")) if outcome["kind"] == "tool.call" else None
        if ended is None or ended[1] == "completed":
            kept.append((at, outcome))
            continue
        refused = handed_over(outcome, completed=False)
        if ended[1] == "terminal" or ended[0] == "close":
            kept.append((at, refused))  # moved back to the done item
        else:
            owed.setdefault((ended[0], outcome["response_id"]), []).append(refused)
    placed: list[tuple[At, Outcome]] = []
    for at, outcome in kept:
        here = (at, outcome.get("response_id"))
        if here in owed and ("item_id" in outcome or outcome["kind"] == "end"):
            placed += [(at, refused) for refused in owed.pop(here)]
        placed.append((at, outcome))
    assert not owed, "every turn that ends says end"
    return placed
