"""Hypothesis strategies for generated sessions, each drawn with its ground truth (spec/session.md).

A session is planned before it is written: its lanes, each lane's turns one
after another (every turn after a lane's first continues the one before it),
each turn's items (a message in text deltas, a function call in argument
deltas), how it ends (`completed`, `incomplete`, `failed`, or an `error`
event of its lane, which may cut a call short), and whether the client steers
it. Each lane's turn is written as *units*: one entry (a client step or a
server event, numbered per response as the producer numbers it), the
outcomes the spec says it produces, and what it changes in `_Truth`, the
session's state as the spec describes it: the turns in flight in the order
they began, their open calls, the steers and their states. The lanes' units
are then interleaved in a drawn order, and the connection may be lost at a
drawn point: everything after it never arrives, and what the disconnect
produces is read from `_Truth` at that point (SESSION-CONN-1, -3,
SESSION-STEER-6). Nothing here runs the reference or reads an outcome back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from hypothesis import strategies as st

from .strategies import RESPONSE_STATED

Outcome = dict[str, Any]
At = int | Literal["close"]
Lane = str | None
Ending = Literal["completed", "incomplete", "failed", "error"]

LANES: tuple[Lane, ...] = (None, "main", "side", "fork")

SteerState = Literal["requested", "accepted", "committed", "unknown"]
SteerMove = Literal["accept", "commit", "lose"]
# The part of spec/session.md's steer table that generated sessions reach (no `pending`, no
# `failed`): state -> {move: next state}; a move not listed is a bug of this oracle.
STEER_MOVES: dict[SteerState, dict[SteerMove, SteerState]] = {
    "requested": {"accept": "accepted", "lose": "unknown"},
    "accepted": {"commit": "committed", "lose": "unknown"},
    "committed": {},
    "unknown": {},
}


@dataclass
class _Turn:
    lane: Lane
    response_id: str | None = None
    open_calls: dict[str, str] = field(default_factory=dict)  # item id -> call id, in the order opened


@dataclass
class _Steer:
    lane: Lane
    target: str
    state: SteerState = "requested"
    steer_id: str | None = None

    def move(self, move: SteerMove) -> None:
        self.state = STEER_MOVES[self.state][move]


@dataclass
class _Truth:
    """The session as the spec describes it, changed by each unit in the order they are sent."""

    turns: list[_Turn] = field(default_factory=list)
    steers: list[_Steer] = field(default_factory=list)

    def ended(self, reason: str) -> list[Outcome]:
        """What ending the connection now produces."""
        outcomes: list[Outcome] = []
        for turn in self.turns:
            outcomes += [
                _tagged(turn, kind="tool.error", item_id=item, call_id=call, code="incomplete")
                for item, call in turn.open_calls.items()
            ]
            outcomes.append(_tagged(turn, kind="end", status="truncated"))
        for steer in self.steers:
            if "lose" in STEER_MOVES[steer.state]:  # not final: the connection ends it (SESSION-STEER-6)
                steer.move("lose")
                outcomes.append(_steer_outcome(steer))
        self.turns = []
        return [*outcomes, {"kind": "connection.closed", "reason": reason}]


def _tagged(turn: _Turn, **outcome: Any) -> Outcome:
    return {**outcome, "stream_id": turn.lane, "response_id": turn.response_id}


def _steer_outcome(steer: _Steer, **fields: Any) -> Outcome:
    return {
        "kind": f"steer.{steer.state}",
        "stream_id": steer.lane,
        "response_id": steer.target,
        "steer_id": steer.steer_id,
        **fields,
    }


Effect = Callable[[_Truth], list[Outcome]]


@dataclass(frozen=True)
class Unit:
    entry: Any
    effect: Effect  # changes the truth and answers the entry's outcomes


@dataclass(frozen=True)
class GeneratedSession:
    entries: list[Any]
    expected: list[tuple[At, Outcome]]  # the ground truth, `message` never stated
    lost_at: int | None  # the index of the disconnect, if the connection was lost

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool registry its calls are routed with (a vector's `tools`)."""
        return [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]


@dataclass(frozen=True)
class ItemPlan:
    kind: Literal["message", "call"]
    chunks: tuple[str, ...]


@dataclass(frozen=True)
class TurnPlan:
    items: tuple[ItemPlan, ...]
    ending: Ending
    steered: bool


_WORDS = st.text(alphabet="abcdefgh .,é", min_size=1, max_size=6)


@st.composite
def _item(draw: st.DrawFn) -> ItemPlan:
    if draw(st.booleans()):
        return ItemPlan("message", tuple(draw(st.lists(_WORDS, min_size=1, max_size=3))))
    text = json.dumps({"city": draw(_WORDS)})
    cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=3)))
    return ItemPlan("call", tuple(text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)))


_TURN = st.builds(
    TurnPlan,
    st.lists(_item(), min_size=1, max_size=2).map(tuple),
    st.sampled_from(("completed", "completed", "incomplete", "failed", "error")),
    st.booleans(),
)


class _Writer:
    """Writes one lane's turns as units, numbering each response's events from 0."""

    def __init__(self, lane: Lane) -> None:
        self.lane = lane
        self.units: list[Unit] = []
        self.previous: str | None = None

    def turn(self, number: int, plan: TurnPlan) -> None:
        name = self.lane or "default"
        rid = f"resp_{name}_{number}"
        state = _Turn(self.lane)
        seq = iter(range(1_000))
        done_items: list[dict[str, Any]] = []
        previous = self.previous

        def event(body: dict[str, Any]) -> dict[str, Any]:
            head: dict[str, Any] = {"type": body["type"], "sequence_number": next(seq)}
            if self.lane is not None:
                head["stream_id"] = self.lane
            return {**head, **{k: v for k, v in body.items() if k != "type"}}

        def response(status: str, **extra: Any) -> dict[str, Any]:
            output = list(done_items) if status != "in_progress" else []
            body = {"id": rid, **RESPONSE_STATED, "status": status, "output": output}
            return {**body, "previous_response_id": previous, **extra}

        def emit(entry: Any, *outcomes: Outcome, change: Callable[[_Truth], None] | None = None) -> None:
            def effect(truth: _Truth) -> list[Outcome]:
                if change is not None:
                    change(truth)
                return [_tagged(state, **o) for o in outcomes]

            self.units.append(Unit(entry, effect))

        message: dict[str, Any] = {"type": "response.create", "model": "gpt-5.1", "input": "next"}
        if self.lane is not None:
            message["stream_id"] = self.lane
        if previous is not None:
            message["previous_response_id"] = previous
        emit({"control": "send", "message": message}, change=lambda truth: truth.turns.append(state))

        def created(truth: _Truth) -> list[Outcome]:
            state.response_id = rid
            outcomes = [_tagged(state, kind="lifecycle", event="created")]
            for steer in truth.steers:  # SESSION-STEER-3: this response continues `previous`
                if steer.target == previous and steer.state == "accepted":
                    steer.move("commit")
                    outcomes.append(_steer_outcome(steer, successor_id=rid))
            return outcomes

        self.units.append(
            Unit(event({"type": "response.created", "response": response("in_progress")}), created)
        )
        if plan.steered:
            steer = _Steer(self.lane, rid)
            send = {"type": "response.steer", "previous_response_id": rid, "input": "x"}
            self.units.append(Unit({"control": "send", "message": send}, lambda truth: _append(truth, steer)))
            steer_id = f"steer_{name}_{number}"
            ack: dict[str, Any] = {
                "type": "response.steer.accepted",
                "sequence_number": 0,  # renumbered once the lanes are interleaved
                "steer": {"id": steer_id, "previous_response_id": rid},
            }
            if self.lane is not None:
                ack["stream_id"] = self.lane
            self.units.append(Unit(ack, lambda truth: _accept(steer, steer_id)))
        cut_short = plan.ending == "error" and plan.items[-1].kind == "call"
        for index, item in enumerate(plan.items):
            item_id = f"{'msg' if item.kind == 'message' else 'fc'}_{name}_{number}_{index}"
            last = index == len(plan.items) - 1
            if item.kind == "message":
                self._message(emit, event, done_items, item_id, index, item.chunks)
            else:
                self._call(emit, event, done_items, state, item_id, index, item.chunks, last and cut_short)
        ending = plan.ending

        def ended(truth: _Truth) -> None:
            truth.turns.remove(state)

        if ending == "error":  # SESSION-ERR-1: it fails the turn, and its open call
            error = {"type": "server_error", "code": "server_error", "message": "The server had an error."}

            def lane_error(truth: _Truth) -> list[Outcome]:
                outcomes = [_tagged(state, kind="error", code="server_error")]
                outcomes += [
                    _tagged(state, kind="tool.error", item_id=item, call_id=call, code="incomplete")
                    for item, call in state.open_calls.items()
                ]
                ended(truth)
                return [*outcomes, _tagged(state, kind="end", status="failed")]

            self.units.append(Unit(event({"type": "error", "status": 500, "error": error}), lane_error))
        else:
            extra: dict[str, Any] = {}
            outcomes: list[Outcome] = [{"kind": "lifecycle", "event": ending}]
            if ending == "incomplete":
                extra["incomplete_details"] = {"reason": "max_output_tokens"}
            if ending == "failed":
                extra["error"] = {"code": "server_error", "message": "The model failed."}
                outcomes.append({"kind": "error", "code": "server_error"})
            outcomes.append({"kind": "end", "status": ending})
            emit(
                event({"type": f"response.{ending}", "response": response(ending, **extra)}),
                *outcomes,
                change=ended,
            )
        self.previous = rid

    def _message(
        self, emit: Any, event: Any, done_items: list[Any], item_id: str, index: int, chunks: tuple[str, ...]
    ) -> None:
        text = "".join(chunks)
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        added = {
            "id": item_id,
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        emit(event({"type": "response.output_item.added", "output_index": index, "item": added}))
        emit(
            event(
                {
                    "type": "response.content_part.added",
                    **where,
                    "part": {"type": "output_text", "text": "", "annotations": []},
                }
            ),
            {"kind": "ignored", "type": "response.content_part.added"},
        )
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
        done = {
            "id": item_id,
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [part],
        }
        done_items.append(done)
        emit(event({"type": "response.output_item.done", "output_index": index, "item": done}))

    def _call(
        self,
        emit: Any,
        event: Any,
        done_items: list[Any],
        state: _Turn,
        item_id: str,
        index: int,
        chunks: tuple[str, ...],
        cut_short: bool,
    ) -> None:
        call_id = f"call_{item_id}"
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
        for chunk in chunks:
            emit(
                event(
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": item_id,
                        "output_index": index,
                        "delta": chunk,
                    }
                ),
                {"kind": "tool.arguments.delta", "item_id": item_id, "delta": chunk},
            )
        if cut_short:
            return
        emit(
            event(
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": item_id,
                    "output_index": index,
                    "arguments": text,
                }
            )
        )
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


def _append(truth: _Truth, steer: _Steer) -> list[Outcome]:
    truth.steers.append(steer)
    return [_steer_outcome(steer)]


def _accept(steer: _Steer, steer_id: str) -> list[Outcome]:
    steer.move("accept")
    steer.steer_id = steer_id
    return [_steer_outcome(steer)]


@st.composite
def sessions(draw: st.DrawFn) -> GeneratedSession:
    """A session of one to three lanes, their turns interleaved, perhaps lost part way."""
    lanes = draw(st.lists(st.sampled_from(LANES), min_size=1, max_size=3, unique=True))
    writers = []
    for lane in lanes:
        writer = _Writer(lane)
        for number, plan in enumerate(draw(st.lists(_TURN, min_size=1, max_size=3))):
            writer.turn(number, plan)
        writers.append(writer)
    queues = [list(writer.units) for writer in writers]
    merged: list[Unit] = []
    while any(queues):
        queue = queues[draw(st.sampled_from([i for i, q in enumerate(queues) if q]))]
        taken = draw(st.integers(1, 4))
        merged += queue[:taken]
        del queue[:taken]
    lost_at = draw(st.none() | st.integers(1, len(merged) - 1))
    if lost_at is not None:
        merged = merged[:lost_at]
    truth = _Truth()
    entries: list[Any] = []
    expected: list[tuple[At, Outcome]] = []
    acks_seen = 0
    for unit in merged:
        entry = unit.entry
        if isinstance(entry, dict) and entry.get("type") == "response.steer.accepted":
            entry = {**entry, "sequence_number": acks_seen}  # outside any turn: a count of its own
            acks_seen += 1
        expected += [(len(entries), outcome) for outcome in unit.effect(truth)]
        entries.append(entry)
    if lost_at is not None:
        expected += [(len(entries), outcome) for outcome in truth.ended("lost")]
        entries.append({"control": "disconnect"})
    else:
        expected += [("close", outcome) for outcome in truth.ended("closed")]
    return GeneratedSession(entries, expected, lost_at)
