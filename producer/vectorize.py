"""A recorded stream as a regression vector, its expectations from the stream's own ground truth.

`streamroute vectorize CAPTURE` reads a recording (SSE bytes or JSON Lines)
and writes one core vector per response in it. What a router must produce is
decided by what the producer itself states, never by running a router:

- each lifecycle event: its `lifecycle` outcome (CORE-LIFE-1), and after
  `response.failed` its `error` (CORE-LIFE-3);
- each `response.output_text.done`: `text.done` with the part's text in the
  final response object (CORE-TEXT-2);
- each call item's `response.output_item.done`: the `tool.call` its done item
  makes, or the `tool.error` a conforming router gives it (CORE-CALL-1, -3,
  -5, -7), as a router takes a call from its done item (CORE-CALL-4);
- `close()`: `end` with the terminal status (CORE-LIFE-2, CORE-LIFE-5).

Deltas and diff previews are not decided by a final response, so the vector
compares only the kinds above (`expect.compare`); a kind whose every outcome
cannot be decided (an item type without a known call rule, a text part with
no `.done`, a `.done` that disagrees with the final response) is left out of
the comparison and named in the vector's description. A stream that breaks a
producer rule declares it (`producer_faults`), and then only `lifecycle` and
`end` are compared: what a router makes of the rest is the spec's answer to
the fault (an error, the first of two values), which the final response
cannot tell. A final response that states a done item otherwise (PROD-LIFE-7)
is such a fault: no expectation is taken from either. An event that names a
member twice (PROD-EVT-3) is refused: which value a router reads is its JSON
parser's choice, and a vector's events, JSON data, can state only one. Nor
is `error` compared for a stream holding an `error` event, whose routing an
option chooses (spec/core.md section 12.2). A recording with no terminal
event states no ground truth and is refused.

A recording of a WebSocket session (spec/session.md section 10) becomes one
`session` vector. It holds the server's events only, so the client step each
turn needs, the `send` of a `response.create` on its lane, is written before
the turn's first event. Each turn's outcomes are decided as one response's
are, carry its lane and response id, and end at its terminal event; `close()`
gives `connection.closed`. What no final response decides is refused: a steer
acknowledgement (its client message is not recorded), an `error` event (which
turn it ends is the router's to say), a turn with no terminal event, and a
turn that breaks a producer rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamroute.conformance.arguments import Refused, read_arguments
from streamroute.conformance.event_types import event_types, lifecycle_types, terminal_types
from streamroute.conformance.limits import loads_noting_duplicates
from streamroute.wire.session import is_step

from .checker import Captured, Format, check_events, guess_format, read_jsonl, read_sse

# The calls whose arguments or input stream (spec/core.md section 5.1): item type -> the tool_type of
# its tool.call, and tool_type -> the done item's field that states the arguments or input.
CALL_TYPES = {e.item_types[0]: e.tool_type for e in event_types().values() if e.tool_type and not e.preview}
TEXT_FIELDS = {e.tool_type: e.item_path[0] for e in event_types().values() if e.tool_type and not e.preview}
# Items the client never acts on: no outcome of their own (CORE-CALL-9, and the answer's parts;
# spec/core.md section 5.2 lists every item type).
NO_CALL = frozenset({"message", "reasoning", "web_search_call", "file_search_call", "code_interpreter_call",
                     "image_generation_call", "mcp_call", "mcp_list_tools", "program", "multi_agent_call",
                     "function_call_output", "custom_tool_call_output", "computer_call_output",
                     "shell_call_output", "local_shell_call_output", "apply_patch_call_output",
                     "tool_search_output", "mcp_approval_response", "program_output",
                     "multi_agent_call_output", "compaction", "additional_tools",
                     "agent_message"})  # fmt: skip
# Kinds a vector made here compares; `error` only for a stream that keeps every producer rule.
DECIDED = ("lifecycle", "error", "text.done", "tool.call", "tool.error", "end")


class VectorizeError(Exception):
    """The recording cannot become a vector; one line saying why."""


@dataclass
class _Expectation:
    """The outcomes decided so far, and the kinds that cannot be."""

    outcomes: list[dict[str, Any]] = field(default_factory=list)
    undecided: dict[str, str] = field(default_factory=dict)  # kind: why

    def add(self, at: int | str, kind: str, **fields: Any) -> None:
        self.outcomes.append({"at": at, "kind": kind, **fields})

    def cannot(self, kinds: Sequence[str], why: str) -> None:
        for kind in kinds:
            self.undecided.setdefault(kind, why)


def events_of(data: bytes, source: str, format: Format | None = None) -> list[Any]:
    """The parsed events of a recording; VectorizeError naming the first that is not JSON."""
    captured, _ = read_sse(data) if (format or guess_format(data)) == "sse" else read_jsonl(data)
    events = []
    for index, entry in enumerate(_without_done(captured)):
        try:
            event, repeated = loads_noting_duplicates(entry.data)
        except ValueError as exc:
            raise VectorizeError(f"{source}: event {index} is not JSON ({exc})") from None
        if repeated:
            names = ", ".join(repr(name) for name in dict.fromkeys(repeated))
            raise VectorizeError(
                f"{source}: event {index} names {names} more than once (PROD-EVT-3): which value a router "
                "reads is its JSON parser's choice, and a vector's event can state only one"
            )
        events.append(event)
    return events


def _without_done(captured: list[Captured]) -> Iterator[Captured]:
    return (entry for entry in captured if not entry.done and not entry.dropped)


def _type(event: Any) -> Any:
    return event.get("type") if isinstance(event, dict) else None


def responses(events: list[Any]) -> list[list[Any]]:
    """The events split into responses as spec/producer.md reads a recording: a `response.created`
    after a terminal event begins the next."""
    groups: list[list[Any]] = [[]]
    ended = False
    for event in events:
        if ended and _type(event) == "response.created":
            groups.append([])
            ended = False
        groups[-1].append(event)
        ended = ended or _type(event) in terminal_types()
    return [group for group in groups if group]


def _terminal(events: list[Any]) -> tuple[int, dict[str, Any]]:
    for index, event in enumerate(events):
        if _type(event) in terminal_types():
            response = event.get("response")
            if isinstance(response, dict) and isinstance(response.get("output"), list):
                return index, response
            raise VectorizeError(f"event {index}: the terminal event states no response with its output")
    raise VectorizeError("no terminal event: the recording states no final response to take outcomes from")


def _call(item: dict[str, Any], seen: set[str]) -> tuple[str, dict[str, Any]] | None:
    """The outcome a conforming router gives a call's done item, and its fields; None when the item
    states its arguments or input as something other than text."""
    call_id, name = item.get("call_id"), item.get("name")
    if item.get("status") == "incomplete" or not isinstance(call_id, str) or not isinstance(name, str):
        return "tool.error", {"item_id": item["id"], "code": "incomplete"}
    if call_id in seen:
        return "tool.error", {"item_id": item["id"], "code": "duplicate_call_id"}
    tool_type = CALL_TYPES[item["type"]]
    text = item.get(TEXT_FIELDS[tool_type])
    if text is not None and not isinstance(text, str):
        return None
    seen.add(call_id)
    fields: dict[str, Any] = {"item_id": item["id"], "call_id": call_id, "name": name, "tool_type": tool_type}
    if isinstance(item.get("namespace"), str):
        fields["namespace"] = item["namespace"]
    if tool_type == "custom":
        return "tool.call", {**fields, "input": item.get("input") or ""}
    arguments = read_arguments(item.get("arguments") or "")
    if isinstance(arguments, Refused):
        return "tool.error", {"item_id": item["id"], "code": arguments.code}
    return "tool.call", {**fields, "arguments": arguments}


def expectation(events: list[Any], items_decided: bool = True) -> _Expectation:
    """What a router must produce for one response's events, as far as its final response decides;
    with `items_decided` false, only its lifecycle and its end."""
    end, final = _terminal(events)
    items = {item.get("id"): item for item in final["output"] if isinstance(item, dict)}
    expected = _Expectation()
    for item in items.values():
        if item.get("type") not in CALL_TYPES and item.get("type") not in NO_CALL:
            expected.cannot(
                ["tool.call", "tool.error"], f"item type {item.get('type')!r} has no call rule here"
            )
    parts_done: set[tuple[Any, Any]] = set()
    seen: set[str] = set()
    calls_done: set[Any] = set()
    for index, event in enumerate(events[: end + 1]):
        kind = _type(event)
        if kind in lifecycle_types():
            response = _object(event.get("response"))
            expected.add(index, "lifecycle", event=kind[len("response.") :], response_id=response.get("id"))
            if kind == "response.failed":
                expected.add(index, "error", code=_object(response.get("error")).get("code"))
        elif not items_decided:
            continue
        elif kind == "response.output_text.done":
            key = (event.get("item_id"), event.get("content_index") or 0)
            parts_done.add(key)
            text = _part_text(items.get(key[0]), key[1])
            if text is None or text != event.get("text"):
                expected.cannot(["text.done"], f"event {index}: its text is not the final response's")
            else:
                expected.add(index, "text.done", item_id=key[0], content_index=key[1], text=text)
        elif kind == "response.output_item.done":
            call = _object(event.get("item"))  # the call a router takes, whatever the final response says
            if call.get("type") in CALL_TYPES:
                calls_done.add(call["id"])
                made = _call(call, seen)
                if made is None:
                    expected.cannot(["tool.call", "tool.error"], f"call item {call['id']} states no text")
                else:
                    expected.add(index, made[0], **made[1])
    for item_id, item in items.items() if items_decided else ():
        if item.get("type") in CALL_TYPES and item_id not in calls_done:
            expected.cannot(["tool.call", "tool.error"], f"call item {item_id} has no output_item.done event")
        for content_index, part in enumerate(item.get("content") or []):
            text_part = isinstance(part, dict) and part.get("type") == "output_text"
            if text_part and (item_id, content_index) not in parts_done:
                expected.cannot(["text.done"], f"item {item_id} part {content_index} has no .done event")
    status = final.get("status")
    terminal = _type(events[end])[len("response.") :]
    expected.add("close", "end", status="cancelled" if status == "cancelled" else terminal)
    return expected


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _part_text(item: dict[str, Any] | None, content_index: Any) -> str | None:
    content = item.get("content") if item else None
    if not isinstance(content, list) or not isinstance(content_index, int) or content_index >= len(content):
        return None
    part = content[content_index]
    return part.get("text") if isinstance(part, dict) and isinstance(part.get("text"), str) else None


def _tools(events: list[Any]) -> list[dict[str, Any]]:
    """The tool registry the calls of the stream imply: the request's own is not in a recording."""
    tools: dict[tuple[str, str], dict[str, Any]] = {}
    for event in events:
        item = event.get("item") if isinstance(event, dict) else None
        if isinstance(item, dict) and item.get("type") in CALL_TYPES and isinstance(item.get("name"), str):
            tool_type = CALL_TYPES[item["type"]]
            tool = {"name": item["name"], "type": tool_type}
            if isinstance(item.get("namespace"), str):
                tool["namespace"] = item["namespace"]
            tools.setdefault((tool_type, item["name"]), tool)
    return list(tools.values())


SPEC = {
    "lifecycle": ["CORE-LIFE-1"],
    "error": ["CORE-LIFE-3"],
    "text.done": ["CORE-TEXT-2"],
    "tool.call": ["CORE-CALL-1", "CORE-CALL-3"],
    "tool.error": ["CORE-CALL-1"],
    "end": ["CORE-LIFE-2", "CORE-LIFE-5"],
    "connection.closed": ["SESSION-CONN-3"],
}


def vector(events: list[Any], vector_id: str, source: str) -> dict[str, Any]:
    """One response's events as a vector (spec/vector.schema.json)."""
    violations = check_events(events)
    for violation in violations:  # an event's own shape: a lifecycle event a router may not read
        at, requirement = violation.at, violation.requirement
        if at is not None and _type(events[at]) in lifecycle_types() and requirement.startswith("PROD-EVT-"):
            raise VectorizeError(
                f"event {at} ({_type(events[at])}) breaks {requirement}: "
                "how a router ends a response whose lifecycle events are malformed is not in its final "
                "response; write this vector's expectations by hand"
            )
    faults = sorted({violation.requirement for violation in violations})
    expected = expectation(events, items_decided=not faults)
    if faults:  # what a router makes of the rest is the spec's answer to the fault, not ground truth
        why = f"the stream breaks {', '.join(faults)}"
        expected.cannot(["error", "text.done", "tool.call", "tool.error"], why)
    if any(_type(event) == "error" for event in events):
        expected.cannot(["error"], "the stream holds an error event, routed as option error_event says")
    return _vector(
        vector_id,
        f"Recorded stream {source}",
        f"Made by `streamroute vectorize` from {source}: the expected outcomes are what its final "
        "response states; deltas and previews are not compared.",
        "core",
        events,
        expected,
        faults=faults,
    )


def _vector(
    vector_id: str,
    title: str,
    description: str,
    profile: str,
    events: list[Any],
    expected: _Expectation,
    kinds: Sequence[str] = DECIDED,
    faults: Sequence[str] = (),
    spec: Sequence[str] = (),
) -> dict[str, Any]:
    """The vector comparing each of `kinds` the expectation decides, and naming those it cannot."""
    compared = [kind for kind in kinds if kind not in expected.undecided]
    present = {outcome["kind"] for outcome in expected.outcomes}
    left_out = "".join(f" Not compared: {kind}, as {why}." for kind, why in expected.undecided.items())
    data: dict[str, Any] = {
        "format": 1,
        "id": vector_id,
        "title": title,
        "description": description + left_out,
        "spec": sorted({*spec, *(rid for kind in compared if kind in present for rid in SPEC[kind])}),
        "level": "MUST",
        "profile": profile,
    }
    if faults:
        data["producer_faults"] = list(faults)
    data["tools"] = _tools(events)
    data["events"] = events
    outcomes = [outcome for outcome in expected.outcomes if outcome["kind"] in compared]
    data["expect"] = {"compare": compared, "outcomes": outcomes}
    return data


@dataclass
class _Turn:
    """One response of a recorded session: its lane, and its events with their indexes in the vector."""

    lane: str | None
    first: int  # the recording's index of its first event
    at: list[int] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)


def _create(lane: str | None) -> dict[str, Any]:
    """The client step that asks for a turn on the lane (spec/session.md section 8)."""
    named = {} if lane is None else {"stream_id": lane}
    return {"control": "send", "message": {"type": "response.create", **named}}


def _unstated(index: int, event: Any) -> str | None:
    """Why the ground truth of a session cannot say what a router makes of this entry, if it cannot."""
    if is_step(event):
        return f"event {index} is a client step: a recording holds the server's events only"
    if not isinstance(event, dict) or type(event.get("type")) is not str:
        return f"event {index} is no object with a string type"
    lane = event.get("stream_id")
    if lane is not None and (type(lane) is not str or not lane):
        return f"event {index}: its stream_id {lane!r} names no lane a response.create can open"
    if event["type"].startswith("response.steer."):
        return f"event {index} ({event['type']}) acknowledges a steer whose client message is not recorded"
    if event["type"] == "error":
        return f"event {index} is an error event: which turn it ends is the router's, not the recording's"
    return None


def _turns(events: list[Any]) -> tuple[list[Any], list[_Turn]]:
    """The session's entries, a `send` written before each turn's first event, and its turns."""
    entries: list[Any] = []
    turns: list[_Turn] = []
    in_flight: dict[str | None, _Turn] = {}  # a lane's turn, from its first event to its terminal one
    for index, event in enumerate(events):
        lane = event.get("stream_id")
        turn = in_flight.get(lane)
        if turn is None:
            entries.append(_create(lane))
            turn = in_flight[lane] = _Turn(lane, index)
            turns.append(turn)
        turn.at.append(len(entries))
        turn.events.append(event)
        entries.append(event)
        if event["type"] in terminal_types():
            del in_flight[lane]
    return entries, turns


def _placed(turn: _Turn) -> _Expectation:
    """A turn's expectation at the vector's indexes, its end at its terminal event (SESSION-TURN-3),
    each outcome naming its lane and its response (SESSION-TURN-1, SESSION-TURN-6): a producer-clean
    turn begins with `response.created`, which states the response's id."""
    own = expectation(turn.events)
    response_id = _object(turn.events[0].get("response")).get("id")
    placed = _Expectation(undecided=own.undecided)
    for outcome in own.outcomes:
        at = turn.at[-1] if outcome["at"] == "close" else turn.at[outcome["at"]]
        placed.outcomes.append({**outcome, "at": at, "stream_id": turn.lane, "response_id": response_id})
    return placed


def session_vector(events: list[Any], vector_id: str, source: str) -> dict[str, Any]:
    """A recorded WebSocket session as one `session` vector (spec/session.md): each turn's outcomes
    from its own final response, carrying its lane and response (SESSION-TURN-1, SESSION-TURN-6), and
    its end at its terminal event (SESSION-TURN-3)."""
    for index, event in enumerate(events):
        why = _unstated(index, event)
        if why is not None:
            raise VectorizeError(why)
    entries, turns = _turns(events)
    for number, turn in enumerate(turns, 1):
        if _type(turn.events[-1]) not in terminal_types():
            raise VectorizeError(
                f"turn {number} (from event {turn.first}) has no terminal event: it states no final response"
            )
    for violation in check_events(events):
        raise VectorizeError(
            f"{violation.where} breaks {violation.requirement} ({violation.message}): what a router makes "
            "of a turn's producer fault is not in its final response"
        )
    expected = _Expectation()
    for number, turn in enumerate(turns, 1):
        placed = _placed(turn)
        expected.outcomes += placed.outcomes
        for kind, why in placed.undecided.items():
            expected.cannot([kind], f"in turn {number} (its events counted from its first), {why}")
    expected.outcomes.sort(key=lambda outcome: outcome["at"])
    expected.add("close", "connection.closed", reason="closed")  # SESSION-CONN-3: close() ends it
    lanes = {turn.lane for turn in turns}
    return _vector(
        vector_id,
        f"Recorded session {source}",
        f"Made by `streamroute vectorize` from {source}, a WebSocket session (turns: {len(turns)}, "
        f"lanes: {len(lanes)}): the expected outcomes of each turn are what its final response states; "
        "deltas and previews are not compared. The recording holds the server's events only: the "
        "`send` of a `response.create` before each turn's first event is written here, not recorded.",
        "session",
        entries,
        expected,
        kinds=(*DECIDED, "connection.closed"),
        spec=["SESSION-TURN-1", "SESSION-TURN-3", "SESSION-TURN-6"]
        + (["SESSION-TURN-2"] if len(turns) > 1 else [])
        + (["SESSION-LANE-1"] if len(lanes) > 1 else []),
    )


def vector_id(path: Path, prefix: str = "recorded") -> str:
    """A vector id from a capture's file name."""
    stem = re.sub(r"[^a-z0-9_-]+", "-", path.stem.lower()).strip("-_") or "capture"
    return f"{prefix}/{stem}"


def vectorize(data: bytes, source: str, base_id: str, format: Format | None = None) -> list[dict[str, Any]]:
    """Every response of a recording as a vector, or a recorded session as one; VectorizeError when
    one cannot be."""
    from .session_checker import is_session

    events = events_of(data, source, format)
    if is_session(events):
        try:
            return [session_vector(events, base_id, source)]
        except VectorizeError as exc:
            raise VectorizeError(f"{source}: a WebSocket session: {exc}") from None
    groups = responses(events)
    if not groups:
        raise VectorizeError(f"{source}: the recording holds no event")
    made = []
    for number, group in enumerate(groups, 1):
        group_id = base_id if len(groups) == 1 else f"{base_id}-{number}"
        try:
            made.append(vector(group, group_id, source))
        except VectorizeError as exc:
            raise VectorizeError(f"{source}: response {number}: {exc}") from None
    return made
