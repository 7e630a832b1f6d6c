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


def _event_type(event: Any) -> Any:
    return event.get("type") if isinstance(event, dict) else None


def _done_item_id(event: Any) -> Any:
    item = event.get("item") if isinstance(event, dict) else None
    return item.get("id") if isinstance(item, dict) else None


def to_canonical_point(produced: Sequence[Produced], events: Sequence[Any]) -> list[Produced]:
    """Option `tool_call_point: arguments_done` (spec/core.md CORE-CALL-8).

    Every outcome produced at an arguments `.done` event that names an item
    (the call's `tool.call` or `tool.error`, and what its completion brings:
    `diff.*`, `error` `consumer_failed`) moves, in order, to the end of the
    outcomes of the first later `output_item.done` of that item. Outcomes
    without `item_id` (a `done_mismatch`) stay, and so does every outcome of
    another event (an `error` `call_retracted` at the done item comes before
    the moved `tool.call`).
    """
    placed = []
    for sequence, entry in enumerate(produced):
        target = _canonical_event(entry, events)
        moved = target is not None
        at = target if target is not None else entry.at
        placed.append(((_at_key(at), moved, sequence), Produced(at, entry.outcome)))
    return [entry for _, entry in sorted(placed, key=lambda pair: pair[0])]


def _at_key(at: At) -> float:
    return float("inf") if at == "close" else float(at)


def _canonical_event(entry: Produced, events: Sequence[Any]) -> int | None:
    outcome = entry.outcome
    if entry.at == "close" or not isinstance(outcome, dict):
        return None
    item_id = outcome.get("item_id")
    if not isinstance(item_id, str) or _event_type(events[entry.at]) not in ARGUMENTS_DONE_EVENTS:
        return None
    for index in range(entry.at + 1, len(events)):
        if (
            _event_type(events[index]) == "response.output_item.done"
            and _done_item_id(events[index]) == item_id
        ):
            return index
    return None


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


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass(frozen=True)
class Mismatch:
    """Where and how the produced outcomes part from the expected ones."""

    index: int
    reason: str
    table: str

    def __str__(self) -> str:
        return f"outcome {self.index}: {self.reason}\n{self.table}"


def compare(
    expected: Sequence[dict[str, Any]], produced: Sequence[Produced], kinds: frozenset[str] | None
) -> Mismatch | None:
    """None when `produced` (every outcome a dict with a kind) meets `expected`."""
    actual = [entry for entry in produced if kinds is None or entry.outcome.get("kind") in kinds]
    rows = []
    first: tuple[int, str] | None = None
    for index in range(max(len(expected), len(actual))):
        want = expected[index] if index < len(expected) else None
        got = actual[index] if index < len(actual) else None
        reason = _difference(want, got)
        if reason is not None and first is None:
            first = (index, reason)
        rows.append((reason is not None, index, want, got))
    if first is None:
        return None
    cells = [
        (
            differs,
            index,
            _cell_expected(want) if want else "(none)",
            _cell_actual(got) if got else "(none)",
        )
        for differs, index, want, got in rows
    ]
    width = min(max(len(left) for _, _, left, _ in cells), 100)
    lines = [f"{'':4}{'#':>3}  {'expected':<{width}} | actual"]
    if kinds is not None:
        lines[0] += f"   (comparing {', '.join(sorted(kinds))})"
    for differs, index, left, right in cells:
        lines.append(f"{'!=' if differs else '':4}{index:>3}  {_clip(left, width):<{width}} | {right}")
    return Mismatch(first[0], first[1], "\n".join(lines))
