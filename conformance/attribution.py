"""Which requirement a failure charges (spec/vectors.md section 5, spec/attribution.md).

A failing vector charges the requirements whose outcomes differ, not every id it cites. Each
difference (conformance/differences.py: an expected outcome missing, an unexpected one, one
produced at another event or in another order, a pair of one event that differs in a field or in
kind) is looked up in the table of spec/attribution.md: the first row that matches it names the
requirements that govern it, and the difference charges the first of them the vector cites, or
the first of them when it cites none. A failure that is no comparison (an outcome that is not
valid, an implementation that raised, a wrong number of dispatched SSE events) is looked up the
same way, as the difference it makes. A difference no row matches charges every id the vector
cites.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .compare import at_key
from .schemas import SPEC_DIR

ATTRIBUTION_MD = SPEC_DIR / "attribution.md"

FAILURES = ("raised", "invalid", "dispatched")
_TERMINAL = ("response.completed", "response.failed", "response.incomplete")
_TERMINAL_LIFECYCLE = ("completed", "failed", "incomplete")
_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "object": dict,
    "array": list,
    "boolean": bool,
    "number": (int, float),
    "null": type(None),
}


@dataclass(frozen=True)
class Difference:
    """One way the produced outcomes part from the expected ones.

    `expected` and `produced` are outcomes (an expected one with its `at`; a produced one with
    the `at` of its event), either None when the other stands alone. `field` says how a pair
    differs: `at`, the expected outcome produced at another event; `order`, the outcomes of one
    event produced in another order (`expected` the outcome expected first where they part,
    `produced` the one produced there); else the first field of the expected outcome the produced
    one lacks or holds another value of, None for a pair of two kinds. `event` is the event at the
    difference's `at` (the expected outcome's, else the produced one's): None at close and in an
    sse vector, whose events the harness does not decode. `failure` names a difference that is no
    comparison: `invalid`, `raised`, `dispatched`."""

    expected: Mapping[str, Any] | None
    produced: Mapping[str, Any] | None
    event: Any = None
    field: str | None = None
    failure: str | None = None


@dataclass(frozen=True)
class Context:
    """What the conditions of the table read beyond a difference: the vector and the options.
    `events` are the vector's events and steps (None for an sse vector); `miscounted` says whether
    an sse vector's run dispatched another number of SSE events than its stream holds (None when
    that is not known); `produced` are the compared outcomes produced, each with its `at`; `names`
    the item each event names (conformance/compare.py `ItemNames`); `tools` the tool registry."""

    profile: str
    options: Mapping[str, Any]
    expected: Sequence[Mapping[str, Any]]
    events: Sequence[Any] | None = None
    miscounted: bool | None = None
    produced: Sequence[Mapping[str, Any]] = ()
    names: Sequence[str | None] = ()  # the item each event names, as a router attributes it
    tools: Sequence[Mapping[str, Any]] = ()


class AttributionTableError(Exception):
    """A row of the table that cannot be read: its file and line, and what is wrong."""


@dataclass(frozen=True)
class Rule:
    expected: str
    produced: str
    differs: str
    event: str
    when: tuple[str, ...]
    charges: tuple[str, ...]
    line: int

    def matches(self, difference: Difference, context: Context) -> bool:
        return (
            _expected_matches(self.expected, difference)
            and _outcome_matches(self.produced, difference.produced)
            and _alternatives(self.differs or "-", lambda one: _differs(one, difference.field))
            and _alternatives(self.event, lambda one: _event_matches(one, difference, context))
            and all(holds(condition, difference, context) for condition in self.when)
        )


def _alternatives(pattern: str, matches: Any) -> bool:
    """A column's alternatives, joined by `or`, each perhaps in backquotes."""
    return any(matches(one.strip().strip("`")) for one in pattern.split(" or "))


def _differs(pattern: str, field: str | None) -> bool:
    """`-` (or empty): kind or presence; `*` anything; else a glob of the field (`at`, `order`, a
    field's name, or for `invalid` the path of the first error)."""
    if pattern in ("-", "*"):
        return pattern == "*" or field is None
    return field is not None and fnmatch.fnmatchcase(field, pattern)


def _expected_matches(pattern: str, difference: Difference) -> bool:
    """The expected column: an outcome pattern, or a failure that is no comparison (`raised`,
    `invalid`, `dispatched`), optionally with the pattern of the expected outcome it stands for."""
    failure, _, rest = pattern.partition(" ")
    if failure in FAILURES:
        return difference.failure == failure and (not rest or _outcome_matches(rest, difference.expected))
    return difference.failure is None and _outcome_matches(pattern, difference.expected)


def _outcome_matches(pattern: str, outcome: Mapping[str, Any] | None) -> bool:
    """`-` no outcome; `*` anything, none included; `kind` or `kind:code`, each a glob (`tool.*`,
    `error:*`); alternatives joined by `or`."""
    return _alternatives(pattern, lambda one: _one_outcome(one, outcome))


def _one_outcome(pattern: str, outcome: Mapping[str, Any] | None) -> bool:
    if pattern == "*":
        return True
    if pattern == "-" or outcome is None:
        return pattern == "-" and outcome is None
    kind, _, code = pattern.partition(":")
    if not fnmatch.fnmatchcase(str(outcome.get("kind")), kind):
        return False
    return not code or fnmatch.fnmatchcase(str(outcome.get("code")), code)


def event_type(event: Any) -> str | None:
    """An event's `type`, or `step:NAME` for a control or client step."""
    if isinstance(event, dict):
        kind = event.get("type")
        if isinstance(kind, str):
            return kind
        control = event.get("control")
        if isinstance(control, str):
            return "step:" + control
    return None


def _at(difference: Difference) -> Any:
    side = difference.expected if difference.expected is not None else difference.produced
    return None if side is None else side.get("at")


def _event_matches(pattern: str, difference: Difference, context: Context) -> bool:
    """`*` any; `close`; `terminal` (a terminal event); `undecoded` (an sse vector's event); else
    a glob of the event's type, or of `step:NAME` for a step."""
    if pattern == "*":
        return True
    at: Any = _at(difference)
    if pattern == "close" or at == "close":
        return pattern == "close" and at == "close"
    if pattern == "undecoded" or context.events is None:
        return pattern == "undecoded" and context.events is None
    kind = event_type(difference.event)
    if pattern == "terminal":
        return kind in _TERMINAL
    return kind is not None and fnmatch.fnmatchcase(kind, pattern)


# -- the conditions of the `when` column (spec/attribution.md section 1) -------------------------

_CONSUMER_CODES = ("consumer_rejected", "consumer_failed")
_SUBJECTS = ("event", "expected", "produced", "call", "tool")
_MISSING = object()


def holds(condition: str, difference: Difference, context: Context) -> bool:
    """Whether `condition` holds; `not` before it negates it."""
    negated = condition.startswith("not ")
    name = condition.removeprefix("not ")
    words = name.split(" ", 1)
    if words[0] == "option" and len(words) == 2 and "=" in words[1]:
        option, _, wanted = words[1].partition("=")
        held = str(context.options.get(option.strip())) == wanted.strip()
    elif words[0] == "profile" and len(words) == 2:
        held = context.profile == words[1]
    elif name == "produced later":
        held = _later(difference)
    elif name == "terminal expected":
        held = any(
            w.get("kind") == "lifecycle" and w.get("event") in _TERMINAL_LIFECYCLE for w in context.expected
        )
    elif name.startswith("after expected "):
        held = _expected_around(name.removeprefix("after expected "), difference, context, before=False)
    elif name.startswith("before expected "):
        held = _expected_around(name.removeprefix("before expected "), difference, context, before=True)
    elif name == "item announced":
        held = _announced(difference, context)
    elif name == "item unrouted":
        held = not any(p.get("item_id") == _item(difference) for p in context.produced)
    elif name == "produced before the call":
        held = _before_the_call(difference, context)
    elif name == "event out of sequence":
        held = _out_of_sequence(difference, context)
    elif name == "no consumer seen":
        held = not _consumer_seen(context)
    elif name == "event refused":
        held = _refused(difference, context)
    elif name == "event names no item":
        held = _named(difference, context) is None
    elif name == "produced of the event's item":
        held = (difference.produced or {}).get("item_id", ...) == _named(difference, context)
    elif name.startswith("event produced "):
        at: Any = _at(difference)
        wanted = name.removeprefix("event produced ")
        held = any(p.get("at") == at and _outcome_matches(wanted, p) for p in context.produced)
    elif name == "another item retracted here":
        held = _retracted_elsewhere(difference, context)
    elif name == "buffer lags":
        held = _lags(difference)
    elif name.startswith(("produced ", "expected ")) and name.endswith(" longer"):
        side, _, field = name.removesuffix(" longer").partition(" ")
        held = _longer(difference, field, produced=side == "produced")
    elif name == "produced within the throttle":
        held = _throttled(difference, context)
    elif name == "produced repeats":
        held = _previous_update(difference, context) == _payload(difference.produced)
    elif name == "later turn":
        held = _later_turn(difference, context)
    elif name == "dispatch miscounted":
        held = context.miscounted is True
    elif name == "event holds null":
        held = _holds_null(difference.event)
    elif name.startswith("produced at "):
        held = _produced_at(name.removeprefix("produced at "), difference, context)
    elif words[0] in _SUBJECTS and len(words) == 2:
        held = _holds_of(difference, context, words[0], words[1], condition)
    elif words[0] == "after" and len(words) == 2:
        held = _after(words[1], difference, context)
    else:
        raise AttributionTableError(f"unknown condition {condition!r}")
    return held != negated


def _subject(name: str, difference: Difference, context: Context) -> Any:
    if name == "call":  # the call the outcome names: the vector's tool.call or tool.error of its item
        item = _item(difference)
        calls = (w for w in context.expected if w.get("kind") in ("tool.call", "tool.error"))
        return next((w for w in calls if item is not None and w.get("item_id") == item), None)
    if name == "tool":  # the registry's tool of the difference's item, by its name and namespace
        return _tool(_item(difference), context)
    return {"event": difference.event, "expected": difference.expected, "produced": difference.produced}[name]


def _tool(item: Any, context: Context) -> Mapping[str, Any] | None:
    events = (e for e in context.events or () if isinstance(e, dict) and isinstance(e.get("item"), dict))
    announced = next((e["item"] for e in events if e["item"].get("id") == item), None)
    if announced is None:
        return None
    key = (announced.get("name"), announced.get("namespace"))
    return next((t for t in context.tools if (t.get("name"), t.get("namespace")) == key), None)


def _holds_of(difference: Difference, context: Context, name: str, test: str, condition: str) -> bool:
    """Of an event or an outcome: `has PATH` (present and not null), `PATH is TYPE`, `PATH is
    SUBJECT PATH` (an equal JSON value), `PATH = VALUE` (a glob of the string, or of the JSON text
    of another value; alternatives joined by `or`); a PATH is dotted (`item.status`)."""
    subject = _subject(name, difference, context)
    if test.startswith("has "):
        value = _path(subject, test.removeprefix("has "))
        return value is not _MISSING and value is not None
    path, is_, rest = test.partition(" is ")
    if is_:
        value = _path(subject, path)
        other, _, other_path = rest.partition(" ")
        if other in _SUBJECTS and other_path:
            return value is not _MISSING and value == _path(_subject(other, difference, context), other_path)
        if rest not in _TYPES:
            raise AttributionTableError(f"unknown type {rest!r} in {condition!r}")
        return isinstance(value, _TYPES[rest]) and (rest != "number" or not isinstance(value, bool))
    path, equals, wanted = test.partition(" = ")
    if not equals:
        raise AttributionTableError(f"unknown condition {condition!r}")
    value = _path(subject, path)
    if value is _MISSING:
        return False
    text = value if isinstance(value, str) else json.dumps(value)
    return any(fnmatch.fnmatchcase(text, _value(one)) for one in wanted.split(" or "))


def _value(text: str) -> str:
    """A value of a condition, perhaps in backquotes; `''` is the empty string, `\\n` a line feed."""
    text = text.strip().strip("`")
    return "" if text == "''" else text.replace("\\n", "\n")


# The fields of an event a router reads (the routing table of spec/core.md section 9, CORE-ITEM-9),
# and of its `item`, its nested `error` and its `response`.
_READ = {
    "event": (
        "item_id", "output_index", "content_index", "summary_index", "call_id", "delta", "text",
        "arguments", "input", "command_index", "command", "diff", "code", "message", "error",
        "response", "item",
    ),
    "item": ("id", "type", "call_id", "name", "namespace", "status", "arguments", "input"),
    "error": ("code", "message"),
    "response": ("id", "status"),
}  # fmt: skip


def _holds_null(event: Any) -> bool:
    """A field the router reads is stated null (CORE-EVT-7)."""
    if not isinstance(event, dict):
        return False
    read: list[tuple[Any, tuple[str, ...]]] = [(event, _READ["event"])]
    read += [(event.get(name), _READ[name]) for name in ("item", "error", "response")]
    return any(
        isinstance(fields, dict) and any(name in fields and fields[name] is None for name in names)
        for fields, names in read
    )


def _path(subject: Any, path: str) -> Any:
    for name in path.split("."):
        if not isinstance(subject, Mapping) or name not in subject:
            return _MISSING
        subject = subject[name]
    return subject


def _after(pattern: str, difference: Difference, context: Context) -> bool:
    """An event of type `pattern` (a glob) came before the difference's event."""
    at: Any = _at(difference)
    if context.events is None or at is None:
        return False
    before = context.events if at == "close" else context.events[:at]
    return any(fnmatch.fnmatchcase(event_type(event) or "", pattern) for event in before)


def _expected_around(pattern: str, difference: Difference, context: Context, *, before: bool) -> bool:
    """The vector expects an outcome matching `pattern` of the difference's item at its event or an
    earlier one (`after`), or at a later one (`before`)."""
    if _at(difference) is None:
        return False
    at = at_key(_at(difference))
    item = _item(difference)
    return any(
        _outcome_matches(pattern, w)
        and (at_key(w["at"]) > at if before else at_key(w["at"]) <= at)
        and w.get("item_id", item) == item
        for w in context.expected
    )


def _announced(difference: Difference, context: Context) -> bool:
    """The difference's item is an item of the stream: some event's `item` has its id (so it is,
    when the harness does not decode the events)."""
    if context.events is None:
        return True
    item = _item(difference)
    items = (e.get("item") for e in context.events if isinstance(e, dict))
    return any(isinstance(i, dict) and i.get("id") == item for i in items)


def _before_the_call(difference: Difference, context: Context) -> bool:
    """The produced outcome comes from an earlier event than the vector's outcome for its call."""
    call = _subject("call", difference, context)
    got: Any = None if difference.produced is None else difference.produced.get("at")
    if call is None or got is None or got == "close":
        return False
    return bool(call["at"] == "close" or got < call["at"])


def _out_of_sequence(difference: Difference, context: Context) -> bool:
    """The event states a `sequence_number` no greater than an earlier event's (CORE-EVT-6)."""
    at: Any = _at(difference)
    if context.events is None or not isinstance(at, int):
        return False
    number = _sequence_number(context.events[at])
    return number is not None and any(
        (earlier := _sequence_number(e)) is not None and earlier >= number for e in context.events[:at]
    )


def _sequence_number(event: Any) -> int | None:
    number = event.get("sequence_number") if isinstance(event, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def _consumer_seen(context: Context) -> bool:
    """Something a consumer makes was produced: a `diff.*`, a `tool.error` `consumer_rejected`,
    an `error` `consumer_failed`."""
    made = context.produced
    return any(str(p.get("kind")).startswith("diff.") or p.get("code") in _CONSUMER_CODES for p in made)


def _refused(difference: Difference, context: Context) -> bool:
    """The vector expects the difference's event refused: an `error` there, and no preview."""
    at: Any = _at(difference)
    here = [w.get("kind") for w in context.expected if w.get("at") == at]
    return "error" in here and "tool.arguments.delta" not in here


def _named(difference: Difference, context: Context) -> str | None:
    """The item the difference's event names, as a router attributes it."""
    at: Any = _at(difference)
    return context.names[at] if isinstance(at, int) and at < len(context.names) else None


def _retracted_elsewhere(difference: Difference, context: Context) -> bool:
    """The vector expects at the difference's event an `error` `call_retracted` of another item."""
    at: Any = _at(difference)
    retracted = (w for w in context.expected if w.get("at") == at and w.get("code") == "call_retracted")
    return any(w.get("item_id") != _item(difference) for w in retracted)


def _lags(difference: Difference) -> bool:
    """An echo answer whose `buffer` is the expected one without its own `delta`."""
    want, got = difference.expected or {}, difference.produced or {}
    buffer, delta = got.get("buffer"), want.get("delta")
    return isinstance(buffer, str) and isinstance(delta, str) and buffer + delta == want.get("buffer")


def _longer(difference: Difference, field: str, *, produced: bool) -> bool:
    """The produced outcome's text or list field is longer than the expected one's (or shorter)."""
    want, got = (difference.expected or {}).get(field), (difference.produced or {}).get(field)
    if not (isinstance(want, (str, list)) and isinstance(got, (str, list))):
        return False
    return len(got) > len(want) if produced else len(want) > len(got)


THROTTLE_MS = 500  # CUSTOM-PATCH-4


def _stream_times(events: Sequence[Any]) -> list[int]:
    """Each event's stream time (CUSTOM-TIME-1): its `at_ms`, else the time of the event before."""
    times: list[int] = []
    for event in events:
        stated = event.get("at_ms") if isinstance(event, dict) else None
        if isinstance(stated, int) and not isinstance(stated, bool) and stated >= 0:
            times.append(stated)
        else:
            times.append(times[-1] if times else 0)
    return times


def _updates_before(difference: Difference, context: Context) -> list[Mapping[str, Any]]:
    """The `diff.update`s produced for the difference's item before its produced outcome."""
    got = difference.produced or {}
    at: Any = got.get("at")
    item = got.get("item_id")
    if not isinstance(at, int):
        return []
    updates = [p for p in context.produced if p.get("kind") == "diff.update" and p.get("item_id") == item]
    return [p for p in updates if isinstance(p.get("at"), int) and p["at"] < at]


def _throttled(difference: Difference, context: Context) -> bool:
    """The produced update comes less than THROTTLE_MS of stream time after the call's last one."""
    earlier = _updates_before(difference, context)
    at: Any = (difference.produced or {}).get("at")
    if not earlier or context.events is None or not isinstance(at, int):
        return False
    times = _stream_times(context.events)
    return bool(times[at] - times[earlier[-1]["at"]] < THROTTLE_MS)


def _previous_update(difference: Difference, context: Context) -> Any:
    earlier = _updates_before(difference, context)
    return _payload(earlier[-1]) if earlier else None


def _payload(outcome: Mapping[str, Any] | None) -> Any:
    return None if outcome is None else {k: v for k, v in outcome.items() if k != "at"}


def _later_turn(difference: Difference, context: Context) -> bool:
    """The vector expects an `end` at an earlier event: the difference is of a later turn (session)."""
    at: Any = _at(difference)
    ends = (w["at"] for w in context.expected if w.get("kind") == "end" and w["at"] != "close")
    return any(at == "close" or end < at for end in ends)


def _produced_at(pattern: str, difference: Difference, context: Context) -> bool:
    """The produced outcome comes from an event of type `pattern` (a glob), or from close."""
    at: Any = None if difference.produced is None else difference.produced.get("at")
    if at == "close" or context.events is None or not isinstance(at, int) or at >= len(context.events):
        return pattern == "close" and at == "close"
    return fnmatch.fnmatchcase(event_type(context.events[at]) or "", pattern)


def _later(difference: Difference) -> bool:
    """The produced outcome comes from a later event than the expected one."""
    want: Any = difference.expected["at"] if difference.expected else None
    got: Any = difference.produced["at"] if difference.produced else None
    if want is None or got is None or want == got:
        return False
    return bool(got == "close" or (want != "close" and got > want))


# -- the table --------------------------------------------------------------------------------------

_ROW = re.compile(r"^\|\s*(\d+)\s*\|(.*)\|(.*)\|(.*)\|(.*)\|(.*)\|(.*)\|\s*$")
_REQUIREMENT = re.compile(r"^[A-Z]+(?:-[A-Z]+)*-\d+$")


def _cell(text: str) -> str:
    return text.strip().strip("`").strip()


def read_table(path: Path) -> list[Rule]:
    """The rules of `path`: `| n | expected | produced | differs | event | when | charges |` rows."""
    rules: list[Rule] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _ROW.match(line)
        if match is None:
            continue
        expected, produced, differs, event, when, charges = (_cell(cell) for cell in match.groups()[1:])
        requirements = tuple(part.strip() for part in charges.split(","))
        conditions = tuple(_cell(part) for part in when.split(";") if _cell(part))
        where = f"{path}:{number}"
        if not all(_REQUIREMENT.match(r) for r in requirements):
            raise AttributionTableError(f"{where}: {charges!r} is not a list of requirement ids")
        for condition in conditions:  # a condition the table cannot mean is found now, not at a failure
            try:
                holds(condition, Difference(None, None), Context("core", {}, ()))
            except AttributionTableError as exc:
                raise AttributionTableError(f"{where}: {exc}") from None
        rule = Rule(expected or "-", produced or "-", differs, event or "*", conditions, requirements, number)
        rules.append(rule)
    return rules


@cache
def rules() -> tuple[Rule, ...]:
    """The table of spec/attribution.md, in order."""
    return tuple(read_table(ATTRIBUTION_MD))


def rule_for(difference: Difference, context: Context) -> Rule | None:
    return next((rule for rule in rules() if rule.matches(difference, context)), None)


def charged(differences: Iterable[Difference], cited: Sequence[str], context: Context) -> tuple[str, ...]:
    """The requirements the differences charge, in the order of the first difference that
    charges each: of its row's requirements, the first the vector cites, else the first; a
    difference no row matches charges every requirement the vector cites. A difference of an item
    or a call an earlier difference was of follows from it, and so does an outcome missing at an
    event that produced an error in place of another: they charge nothing of their own."""
    found: dict[str, None] = {}
    seen: set[Any] = set()
    refused: set[Any] = set()  # the events an error was produced at in place of what the vector expects
    for difference in differences:
        things = _things(difference, context)
        at = _at(difference)
        follows = bool(things & seen) or (difference.produced is None and at in refused)
        seen |= things
        if difference.expected is not None and (difference.produced or {}).get("kind") == "error":
            refused.add(at)
        if follows:
            continue
        rule = rule_for(difference, context)
        if rule is None:
            found.update(dict.fromkeys(cited))
        else:
            found[next((r for r in rule.charges if r in cited), rule.charges[0])] = None
    return tuple(found)


def _item(difference: Difference) -> Any:
    """The item a difference is of: the one its expected outcome names, else its produced one,
    else its event's (`item_id`, or the `item` of an item event)."""
    for side in (difference.expected, difference.produced):
        if side is not None and isinstance(side.get("item_id"), str):
            return side["item_id"]
    event = difference.event if isinstance(difference.event, dict) else {}
    item = event.get("item")
    named = item.get("id") if isinstance(item, dict) else event.get("item_id")
    return named if isinstance(named, str) else None


def _things(difference: Difference, context: Context) -> set[Any]:
    """What a difference is of, for charging each once: the items and calls its outcomes name (or
    its event, when they name none); the stream's end for a terminal `lifecycle` and the `end`; in
    a session, the turn of an outcome (its lane and response) and the connection of its end; in an
    sse vector, the stream, whose decoding the first difference shows gone wrong."""
    if context.events is None:
        return {("stream",)}
    things: set[Any] = set()
    for side in (difference.expected, difference.produced):
        if side is None:
            continue
        kind = side.get("kind")
        if kind == "connection.closed" or side.get("code") == "event_after_disconnect":
            things.add(("connection",))
        elif "stream_id" in side:
            things.add(("turn", side.get("stream_id"), side.get("response_id")))
        elif kind == "end" or (kind == "lifecycle" and side.get("event") in _TERMINAL_LIFECYCLE):
            things.add(("end",))
        for name in ("item_id", "call_id"):
            if isinstance(side.get(name), str):
                things.add((name, side[name]))
    event = difference.event if isinstance(difference.event, dict) else {}
    if not things and (item := _item(difference)) is not None:
        things.add(("item_id", item))
    if not things and isinstance(event.get("call_id"), str):  # a step naming a call
        things.add(("call_id", event["call_id"]))
    return things
