"""Comparing what an implementation produced with what a vector expects.

Each step is a small function: read what an option lets an implementation
hand over in another form (arguments as JSON text, response ids of its own)
as the canonical form; move outcomes an option lets it produce elsewhere back
to the canonical point; keep what the implementation's API shows, and the
compared kinds; compare outcome by outcome.
A mismatch renders expected and actual side by side, each with the event
that produced it (`@3`, `@close`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .arguments import Refused, read_arguments
from .implementation import Produced
from .observation import Observes
from .vectors import At

ARGUMENTS_DONE_EVENTS = {
    "response.function_call_arguments.done",
    "response.custom_tool_call_input.done",
}
CUSTOM_INPUT_EVENTS = {"response.custom_tool_call_input.delta", "response.custom_tool_call_input.done"}
ITEM_EVENTS = {"response.output_item.added", "response.output_item.done"}
TERMINAL_EVENTS = {"response.completed", "response.failed", "response.incomplete"}


def to_parsed_arguments(produced: Sequence[Produced]) -> list[Produced]:
    """Option `call_arguments: json_text` (spec/core.md section 12.1).

    Each function `tool.call` whose `arguments` is a string becomes what a
    conforming router makes of that text: the same call with the parsed
    arguments, or the `tool.error` it produces for a text it refuses
    (CORE-CALL-3, -10, -11, CORE-LIMIT-2), naming the same item and call.
    """
    return [Produced(entry.at, _as_parsed(entry.outcome)) for entry in produced]


def _as_parsed(outcome: Any) -> Any:
    if not (
        isinstance(outcome, dict)
        and outcome.get("kind") == "tool.call"
        and outcome.get("tool_type") == "function"
        and isinstance(outcome.get("arguments"), str)
    ):
        return outcome
    read = read_arguments(outcome["arguments"])
    if not isinstance(read, Refused):
        return {**outcome, "arguments": read}
    names = {name: outcome[name] for name in ("item_id", "call_id") if name in outcome}
    return {"kind": "tool.error", **names, "code": read.code, "message": read.message}


def to_expected_response_ids(
    expected: Sequence[dict[str, Any]], produced: Sequence[Produced], kinds: frozenset[str] | None
) -> list[Produced]:
    """Option `response_id: rewritten` (spec/core.md CORE-LIFE-7).

    The compared outcomes that carry a `response_id`, paired in order with the
    expected ones, rename each produced id (and each `successor_id` naming one)
    to the expected id it pairs with,
    when the pairing is one to one and null pairs only with null. Otherwise
    nothing is renamed, and the comparison shows the ids as produced.
    """
    compared = [
        entry
        for entry in produced
        if "response_id" in entry.outcome and (kinds is None or entry.outcome.get("kind") in kinds)
    ]
    wanted = [outcome["response_id"] for outcome in expected if "response_id" in outcome]
    names: dict[Any, Any] = {}
    for want, entry in zip(wanted, compared, strict=False):
        have = entry.outcome["response_id"]
        if not isinstance(have, (str, type(None))) or names.setdefault(have, want) != want:
            return list(produced)
    if len(set(names.values())) < len(names) or any((a is None) != (b is None) for a, b in names.items()):
        return list(produced)
    renamed = {id(entry) for entry in compared if entry.outcome["response_id"] in names}
    return [_renamed(entry, names, "response_id" if id(entry) in renamed else None) for entry in produced]


def _renamed(entry: Produced, names: dict[Any, Any], field: str | None) -> Produced:
    """The outcome with its paired `response_id` renamed, and a `successor_id` (session: the response
    that took a steer) renamed by the same map, since it names a response too."""
    outcome = dict(entry.outcome)
    if field is not None:
        outcome[field] = names[outcome[field]]
    successor = outcome.get("successor_id")
    if isinstance(successor, str) and successor in names:
        outcome["successor_id"] = names[successor]
    return entry if outcome == entry.outcome else Produced(entry.at, outcome)


def to_shown(
    observes: Observes, expected: Sequence[dict[str, Any]], produced: Sequence[Produced]
) -> tuple[list[dict[str, Any]], list[Produced]]:
    """What an implementation's API shows (spec/observation.md).

    Both sides as far as the API shows them: an outcome of a kind it does not
    show is dropped, and so is each field it does not show of a kind it shows.
    """
    wanted = [shown for want in expected if (shown := observes.projected(want, _AT)) is not None]
    got = [
        Produced(entry.at, shown)
        for entry in produced
        if (shown := observes.projected(entry.outcome)) is not None
    ]
    return wanted, got


_AT = frozenset({"at"})  # an expected outcome's event, which is no field of the outcome


def _event_type(event: Any) -> str | None:
    """An event's type, None for one whose `type` is no string (an array or an object is
    malformed, CORE-EVT-9, and no set of types holds it)."""
    kind = event.get("type") if isinstance(event, dict) else None
    return kind if isinstance(kind, str) else None


class ItemNames:
    """Which item each event of a stream names, as a router attributes it: by `item_id`, else
    (a custom input event) by `call_id`, else by `output_index` (CORE-ITEM-2, CORE-ITEM-8); an
    item event or done item whose `item_id` names no announced item, under `item_correlation:
    output_index`, by its `output_index` (CORE-ITEM-10). None for an event that names none."""

    def __init__(self, events: Sequence[Any], correlation: str) -> None:
        self.names: list[str | None] = []
        announced: set[str] = set()
        at_index: dict[int, str] = {}
        with_call_id: dict[str, str] = {}  # the first item stating each call id
        latest_with_call_id: dict[str, str] = {}  # the item announced last with it (CORE-ITEM-8)
        call_id_of: dict[str, str] = {}
        for event in events:
            name = None
            if isinstance(event, dict):
                item = event.get("item")
                stated = item.get("id") if isinstance(item, dict) else event.get("item_id")
                index = event.get("output_index")
                index = index if isinstance(index, int) and not isinstance(index, bool) else None
                call_id = event.get("call_id")
                announcing = _event_type(event) == "response.output_item.added"
                if isinstance(stated, str) and (
                    announcing or stated in announced or correlation != "output_index"
                ):
                    name = stated
                elif isinstance(stated, str):
                    name = at_index.get(index, stated) if index is not None else stated
                elif isinstance(call_id, str) and _event_type(event) in CUSTOM_INPUT_EVENTS:
                    name = latest_with_call_id.get(call_id)
                elif index is not None:
                    name = at_index.get(index)
                if _event_type(event) in ITEM_EVENTS and isinstance(item, dict) and name is not None:
                    if name not in announced:  # announced now (CORE-ITEM-1, CORE-ITEM-6)
                        announced.add(name)
                        at_index[len(announced) - 1 if index is None else index] = name
                    stated_call_id = item.get("call_id")
                    if isinstance(stated_call_id, str):
                        with_call_id.setdefault(stated_call_id, name)
                        if call_id_of.get(name) != stated_call_id:  # announced, or restated
                            latest_with_call_id[stated_call_id] = name
                            call_id_of[name] = stated_call_id
            self.names.append(name)
        self.with_call_id = with_call_id

    def item_of(self, outcome: dict[str, Any]) -> str | None:
        """The item an outcome names: its `item_id`, else the item whose call its `call_id` is
        (an adapter that does not observe item ids, spec/observation.md)."""
        item_id, call_id = outcome.get("item_id"), outcome.get("call_id")
        if isinstance(item_id, str):
            return item_id
        return self.with_call_id.get(call_id) if isinstance(call_id, str) else None

    def done_events(self, item_id: str, events: Sequence[Any], positions: range) -> list[int]:
        """The `output_item.done` events of `item_id` among the events at `positions`."""
        return [
            index
            for index in positions
            if _event_type(events[index]) == "response.output_item.done" and self.names[index] == item_id
        ]


def to_canonical_point(
    produced: Sequence[Produced],
    events: Sequence[Any],
    point: str,
    correlation: str = "item_id",
    expected: Sequence[dict[str, Any]] = (),
    stopped_at: At | None = None,
) -> list[Produced]:
    """Options `tool_call_point: arguments_done` and `response_done` (spec/core.md CORE-CALL-8,
    CORE-POINT-1; spec/vectors.md section 3.1). `stopped_at`: the event of the first fault of a
    stream that stops there (`producer_fault: ends_stream`); nothing moves to it or past it.

    Under `arguments_done`, every outcome that names an item (the call's `tool.call` or
    `tool.error`, and what its completion brings: `diff.*`, `error` `consumer_failed`, its
    execution outcomes) produced at that item's own arguments `.done` moves, in order, to the
    end of the outcomes of a later `output_item.done` of the item. Under `response_done`, every
    outcome that names an item produced at the response's end (a terminal event, or close)
    moves to the end of the outcomes of an earlier `output_item.done` of the item: the one the
    vector expects an outcome of that kind for that item at, when it expects one (a router routes
    the done item it takes, not a refused one; of several, the nearest), else the first. An
    outcome of another event, one that names no item (a `done_mismatch`) or another item than its
    event's, stays where it was produced; so does one with no such done event (an `error`
    `call_retracted` at the done item comes before the moved `tool.call`). An outcome that states
    a `call_id` but no `item_id` names the item of that call.
    """
    names = ItemNames(events, correlation)
    wanted: dict[tuple[Any, Any], set[At]] = {}
    for want in expected:
        wanted.setdefault((want["kind"], want.get("item_id")), set()).add(want["at"])
    placed = []
    for sequence, entry in enumerate(produced):
        target = None
        candidates = _done_events(entry, events, names, point)
        if stopped_at is not None and stopped_at != "close":
            candidates = [index for index in candidates if index < stopped_at]
        if candidates:
            outcome = entry.outcome
            expected_at = wanted.get((outcome["kind"], names.item_of(outcome)))
            # Of the done events it expects the outcome at, the nearest: a stream replayed after a
            # restart has each done item twice, and the outcome is the one of its own response.
            nearest = max if point == "response_done" else min
            target = (
                candidates[0] if expected_at is None else nearest(set(candidates) & expected_at, default=None)
            )
        at = target if target is not None else entry.at
        placed.append(((at_key(at), target is not None, sequence), Produced(at, entry.outcome)))
    return [entry for _, entry in sorted(placed, key=lambda pair: pair[0])]


def at_key(at: At) -> float:
    """An `at` as a number that sorts in stream order, close last."""
    return float("inf") if at == "close" else float(at)


def _done_events(entry: Produced, events: Sequence[Any], names: ItemNames, point: str) -> list[int]:
    """The done events of its item an outcome may move to, in order; none when it stays."""
    outcome = entry.outcome
    item_id = names.item_of(outcome) if isinstance(outcome, dict) else None
    if item_id is None:
        return []
    if point == "response_done" and (entry.at == "close" or _event_type(events[entry.at]) in TERMINAL_EVENTS):
        return names.done_events(item_id, events, range(len(events) if entry.at == "close" else entry.at))
    at = entry.at
    if point == "arguments_done" and at != "close" and _event_type(events[at]) in ARGUMENTS_DONE_EVENTS:
        own = names.names[at] == item_id  # never another call's .done
        return names.done_events(item_id, events, range(at + 1, len(events))) if own else []
    return []


def well_formed(text: str) -> str:
    """Each unpaired surrogate as U+FFFD, each pair as the character it encodes."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _with_well_formed_names(obj: dict[str, Any]) -> dict[str, Any]:
    return {well_formed(name): value for name, value in obj.items()}


def json_equal(left: Any, right: Any) -> bool:
    """JSON value equality: numbers by value, but `true` is not `1`; strings as the text a
    UTF-8 decoder makes of them, so a lone surrogate equals U+FFFD (spec/vectors.md)."""
    if isinstance(left, str) and isinstance(right, str):
        return left == right or well_formed(left) == well_formed(right)
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        if left.keys() != right.keys():
            left, right = _with_well_formed_names(left), _with_well_formed_names(right)
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(json_equal, left, right))
    return type(left) is type(right) and left == right


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _difference(expected: dict[str, Any] | None, actual: Produced | None) -> str | None:
    if expected is None:
        assert actual is not None
        return f"unexpected outcome {_cell_actual(actual)}"
    if actual is None:
        return f"missing outcome {_cell_expected(expected)}"
    outcome = actual.outcome
    if outcome.get("kind") != expected["kind"]:
        return f"expected kind {expected['kind']}, got {outcome.get('kind')}"
    if actual.at != expected["at"]:
        return f"{expected['kind']} expected from event {expected['at']}, produced by event {actual.at}"
    for name, value in expected.items():
        if name == "at":
            continue
        if name not in outcome:
            return f"field {name!r} missing, expected {_show(value)}"
        if not json_equal(value, outcome[name]):
            return f"field {name!r}: expected {_show(value)}, got {_show(outcome[name])}"
    return None


def _fields(outcome: dict[str, Any], skip: set[str]) -> str:
    return " ".join(f"{k}={_show(v)}" for k, v in outcome.items() if k not in skip)


def _cell_expected(expected: dict[str, Any]) -> str:
    return f"@{expected['at']} {expected['kind']} {_fields(expected, {'at', 'kind'})}".rstrip()


def _cell_actual(actual: Produced) -> str:
    return (
        f"@{actual.at} {actual.outcome.get('kind')} {_fields(actual.outcome, {'kind', 'message'})}".rstrip()
    )


@dataclass(frozen=True)
class Mismatch:
    """Where the produced outcomes first part from the expected ones, and how."""

    index: int
    reason: str


def compared(produced: Sequence[Produced], kinds: frozenset[str] | None) -> list[Produced]:
    """The produced outcomes of the compared kinds (all of them when `kinds` is None)."""
    return [entry for entry in produced if kinds is None or entry.outcome.get("kind") in kinds]


def compare(
    expected: Sequence[dict[str, Any]], produced: Sequence[Produced], kinds: frozenset[str] | None
) -> Mismatch | None:
    """None when `produced` (every outcome a dict with a kind) meets `expected`."""
    actual = compared(produced, kinds)
    for index in range(max(len(expected), len(actual))):
        want = expected[index] if index < len(expected) else None
        got = actual[index] if index < len(actual) else None
        reason = _difference(want, got)
        if reason is not None:
            return Mismatch(index, reason)
    return None


# -- option `producer_fault: ends_stream` (spec/vectors.md section 3.2) ------------------------------

_AFTER_THE_STOP = {"tool.error", "end"}  # and an `error` `call_retracted` (CORE-FAULT-2)
_TERMINAL_LIFECYCLE = {"completed", "failed", "incomplete"}


def first_fault(expected: Sequence[dict[str, Any]], fault_codes: frozenset[str]) -> int | None:
    """The position of the first expected `error` that reports a fault of the producer."""
    return next(
        (i for i, want in enumerate(expected) if want["kind"] == "error" and want.get("code") in fault_codes),
        None,
    )


def stopped_expectation(
    expected: Sequence[dict[str, Any]], fault: int, point: str = "output_item_done"
) -> tuple[list[dict[str, Any]], str]:
    """What a router that stops at the fault at `fault` meets (CORE-FAULT-1, -2): the expected
    outcomes before it and an `error` at its event, whatever its code; and the `end` status it
    must close with. Under `tool_call_point: response_done` a stopped response never completes, so
    a call done before the fault is handed over as `tool.error` `incomplete` (CORE-POINT-2)."""
    before = [_not_handed_over(w) if point == "response_done" else w for w in expected[:fault]]
    terminal = any(w["kind"] == "lifecycle" and w.get("event") in _TERMINAL_LIFECYCLE for w in before)
    end = next((w.get("status") for w in reversed(expected) if w["kind"] == "end"), None)
    stop = {"at": expected[fault]["at"], "kind": "error"}
    return [*before, stop], (end if terminal and isinstance(end, str) else "failed")


def _not_handed_over(want: dict[str, Any]) -> dict[str, Any]:
    if want["kind"] != "tool.call":
        return want
    names: dict[str, Any] = {name: want[name] for name in ("at", "item_id", "call_id") if name in want}
    return {**names, "kind": "tool.error", "code": "incomplete"}


def made_before_a_later_fault(
    expected: Sequence[dict[str, Any]], events: Sequence[Any], fault: int
) -> str | None:
    """Under `tool_call_point: arguments_done`, a call made at its arguments `.done` before the
    stream's first fault, with its outcome expected at the fault or after: what a router that
    stops there made of it is the `.done`'s call, which the vector does not state (spec/vectors.md
    3.2). The item, or None."""
    at = expected[fault]["at"]
    if at == "close":
        return None
    names = ItemNames(events, "item_id")
    made = {names.names[i] for i in range(at) if _event_type(events[i]) in ARGUMENTS_DONE_EVENTS}
    later = (
        w for w in expected[fault:] if w["kind"] in ("tool.call", "tool.error") and w.get("item_id") in made
    )
    found = next(later, None)
    return None if found is None else str(found["item_id"])


def stopped_with_its_close(
    expected: Sequence[dict[str, Any]], end_status: str | None, actual: Sequence[Produced]
) -> list[dict[str, Any]]:
    """The stopped expectation with what its close may produce (CORE-FAULT-2), for reading the
    differences of a failing comparison (spec/attribution.md section 1.1): the `tool.error`s and
    `error` `call_retracted`s produced at close, then `end` with `end_status`. Without them a
    correct close would read as outcomes produced that the vector does not expect."""
    closing = [
        {**entry.outcome, "at": "close"}
        for entry in actual
        if entry.at == "close"
        and (
            entry.outcome.get("kind") == "tool.error"
            or (entry.outcome.get("kind") == "error" and entry.outcome.get("code") == "call_retracted")
        )
    ]
    end = [] if end_status is None else [{"at": "close", "kind": "end", "status": end_status}]
    return [*expected, *closing, *end]


def compare_stopped(
    expected: Sequence[dict[str, Any]],
    end_status: str | None,
    produced: Sequence[Produced],
    kinds: frozenset[str] | None,
) -> Mismatch | None:
    """None when `produced` meets `expected` (stopped_expectation) and then has only what a close
    after the stop may produce: tool.errors and retractions, then `end` with `end_status` (None:
    the implementation does not show `end`)."""
    actual = compared(produced, kinds)
    head = compare(expected, actual[: len(expected)], None)
    if head is not None:
        return head
    for index in range(len(expected), len(actual)):
        entry = actual[index]
        outcome = entry.outcome
        kind = outcome.get("kind")
        retraction = kind == "error" and outcome.get("code") == "call_retracted"
        if entry.at != "close" or not (kind in _AFTER_THE_STOP or retraction):
            return Mismatch(
                index, f"after the stream stopped at its fault, unexpected outcome {_cell_actual(entry)}"
            )
        if kind == "end" and index != len(actual) - 1:
            return Mismatch(index, "end is not the last outcome")
        if kind == "end" and end_status is not None and outcome.get("status", end_status) != end_status:
            return Mismatch(
                index, f"field 'status': expected {_show(end_status)}, got {_show(outcome['status'])}"
            )
    ends = [entry for entry in actual[len(expected) :] if entry.outcome.get("kind") == "end"]
    if not ends and end_status is not None:
        return Mismatch(len(actual), f"missing outcome @close end status={_show(end_status)}")
    return None
