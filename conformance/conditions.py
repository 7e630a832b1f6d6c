"""The conditions of the attribution table's `when` column (spec/attribution.md section 1.3).

A condition reads a difference (conformance/differences.py), the vector it is of and the run
that made it (`Context`): one of the subjects `event`, `expected`, `produced`, `call`, `tool`, or
a named property of the difference. `holds` answers one condition; an unknown one raises
`ConditionError`, which the table reader turns into a one-line error naming the row.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from streamroute.wire.session import LIMIT_REACHED

from .compare import at_key
from .differences import Difference

TERMINAL_EVENTS = ("response.completed", "response.failed", "response.incomplete")
TERMINAL_LIFECYCLE = ("completed", "failed", "incomplete")
THROTTLE_MS = 500  # CUSTOM-PATCH-4: at most one patch preview per 500 ms of stream time
_CONSUMER_CODES = ("consumer_rejected", "consumer_failed")
_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "object": dict,
    "array": list,
    "boolean": bool,
    "number": (int, float),
    "null": type(None),
}
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
_MISSING = object()


class ConditionError(ValueError):
    """A condition the table cannot mean."""


@dataclass(frozen=True)
class Context:
    """What the conditions read beyond a difference. `events` are the vector's events and steps
    (None for an sse vector, whose stream the harness does not decode); `miscounted` says whether an
    sse vector's run dispatched another number of SSE events than its stream holds (None when that
    is not known); `produced` are the compared outcomes produced, each with its `at`; `names` the
    item each event names as a router attributes it (conformance/compare.py `ItemNames`); `tools`
    the vector's tool registry; `decoder` whether an sse vector's decoder is shown to have done its
    part (spec/attribution.md section 1.5), its `events` then the ones its bytes decode to (None when
    that is not known)."""

    profile: str
    options: Mapping[str, Any]
    expected: Sequence[Mapping[str, Any]]
    events: Sequence[Any] | None = None
    miscounted: bool | None = None
    produced: Sequence[Mapping[str, Any]] = ()
    names: Sequence[str | None] = ()
    tools: Sequence[Mapping[str, Any]] = ()
    decoder: bool | None = None


def holds(condition: str, difference: Difference, context: Context) -> bool:
    """Whether `condition` holds; `not` before it negates it."""
    negated = condition.startswith("not ")
    name = condition.removeprefix("not ")
    if name in _NAMED:
        held = _NAMED[name](difference, context)
    else:
        prefixed = next(((p, test) for p, test in _PREFIXED if name.startswith(p)), None)
        subject, _, test = name.partition(" ")
        if prefixed is not None:
            held = prefixed[1](name.removeprefix(prefixed[0]), difference, context)
        elif subject in _SUBJECTS and test:
            held = _of_subject(subject, test, difference, context)
        else:
            raise ConditionError(f"unknown condition {condition!r}")
    return held != negated


# -- what a difference is at and of -------------------------------------------------------------


def at_of(difference: Difference) -> Any:
    """The `at` of a difference: its expected outcome's, else its produced one's."""
    side = difference.expected if difference.expected is not None else difference.produced
    return None if side is None else side.get("at")


def item_of(difference: Difference) -> str | None:
    """The item a difference is of: the one its expected outcome names, else its produced one,
    else its event's (`item_id`, or the `item` of an item event)."""
    for side in (difference.expected, difference.produced):
        if side is not None and isinstance(side.get("item_id"), str):
            return str(side["item_id"])
    event = difference.event if isinstance(difference.event, dict) else {}
    item = event.get("item")
    named = item.get("id") if isinstance(item, dict) else event.get("item_id")
    return named if isinstance(named, str) else None


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


def outcome_matches(pattern: str, outcome: Mapping[str, Any] | None) -> bool:
    """`-` no outcome; `*` anything, none included; `kind` or `kind:code`, each a glob (`tool.*`,
    `error:*`); alternatives joined by `or`, each perhaps in backquotes."""
    return any(_one_outcome(one.strip().strip("`"), outcome) for one in pattern.split(" or "))


def _one_outcome(pattern: str, outcome: Mapping[str, Any] | None) -> bool:
    if pattern == "*":
        return True
    if pattern == "-" or outcome is None:
        return pattern == "-" and outcome is None
    kind, _, code = pattern.partition(":")
    if not fnmatch.fnmatchcase(str(outcome.get("kind")), kind):
        return False
    return not code or fnmatch.fnmatchcase(str(outcome.get("code")), code)


# -- subjects: `event`, `expected`, `produced`, `call`, `tool` -----------------------------------


def _subject(name: str, difference: Difference, context: Context) -> Any:
    if name == "call":  # the vector's tool.call or tool.error of the difference's item
        item = item_of(difference)
        calls = (w for w in context.expected if w.get("kind") in ("tool.call", "tool.error"))
        return next((w for w in calls if item is not None and w.get("item_id") == item), None)
    if name == "tool":  # the registry's tool of the difference's item, by its name and namespace
        return _tool(item_of(difference), context)
    return {"event": difference.event, "expected": difference.expected, "produced": difference.produced}[name]


_SUBJECTS = ("event", "expected", "produced", "call", "tool")


def _tool(item: str | None, context: Context) -> Mapping[str, Any] | None:
    events = (e for e in context.events or () if isinstance(e, dict) and isinstance(e.get("item"), dict))
    announced = next((e["item"] for e in events if e["item"].get("id") == item), None)
    if announced is None:
        return None
    key = (announced.get("name"), announced.get("namespace"))
    return next((t for t in context.tools if (t.get("name"), t.get("namespace")) == key), None)


def _first_call_of_its_tool(difference: Difference, context: Context) -> bool:
    """The difference's item is the first item the stream announces for its tool: no call of the
    same tool came before it to leave its consumer in some state (CUSTOM-CAT-1)."""
    item = item_of(difference)
    events = (e for e in context.events or () if isinstance(e, dict) and isinstance(e.get("item"), dict))
    announced = [e["item"] for e in events if e.get("type") == "response.output_item.added"]
    mine = next((a for a in announced if a.get("id") == item), None)
    if mine is None:
        return False
    key = (mine.get("name"), mine.get("namespace"))
    return next(a for a in announced if (a.get("name"), a.get("namespace")) == key) is mine


def _of_subject(name: str, test: str, difference: Difference, context: Context) -> bool:
    """`has PATH` (present and not null), `PATH is TYPE`, `PATH is SUBJECT PATH` (an equal JSON
    value), `PATH = VALUE` (a glob of the string, or of the JSON text of another value;
    alternatives joined by `or`), `FIELD longer` (a text or list than the other outcome's); a
    PATH is dotted (`item.status`)."""
    subject = _subject(name, difference, context)
    if test.startswith("has "):
        value = _path(subject, test.removeprefix("has "))
        return value is not _MISSING and value is not None
    if test.endswith(" longer") and name in ("expected", "produced"):
        return _longer(difference, test.removesuffix(" longer"), produced=name == "produced")
    path, is_, rest = test.partition(" is ")
    if is_:
        value = _path(subject, path)
        other, _, other_path = rest.partition(" ")
        if other in _SUBJECTS and other_path:
            return value is not _MISSING and value == _path(_subject(other, difference, context), other_path)
        if rest not in _TYPES:
            raise ConditionError(f"unknown type {rest!r}")
        return isinstance(value, _TYPES[rest]) and (rest != "number" or not isinstance(value, bool))
    path, equals, wanted = test.partition(" = ")
    if not equals:
        raise ConditionError(f"unknown condition {name + ' ' + test!r}")
    value = _path(subject, path)
    if value is _MISSING:
        return False
    text = value if isinstance(value, str) else json.dumps(value)
    return any(fnmatch.fnmatchcase(text, _value(one)) for one in wanted.split(" or "))


def _value(text: str) -> str:
    """A value of a condition, perhaps in backquotes; `''` is the empty string, `\\n` a line feed."""
    text = text.strip().strip("`")
    return "" if text == "''" else text.replace("\\n", "\n")


def _path(subject: Any, path: str) -> Any:
    for name in path.split("."):
        if not isinstance(subject, Mapping) or name not in subject:
            return _MISSING
        subject = subject[name]
    return subject


def _longer(difference: Difference, field: str, *, produced: bool) -> bool:
    want, got = (difference.expected or {}).get(field), (difference.produced or {}).get(field)
    if not (isinstance(want, (str, list)) and isinstance(got, (str, list))):
        return False
    return len(got) > len(want) if produced else len(want) > len(got)


# -- conditions with a parameter -----------------------------------------------------------------


def _option(setting: str, difference: Difference, context: Context) -> bool:
    option, _, wanted = setting.partition("=")
    return str(context.options.get(option.strip())) == wanted.strip()


def _after(pattern: str, difference: Difference, context: Context) -> bool:
    """An event of type `pattern` (a glob) came before the difference's event."""
    at: Any = at_of(difference)
    if context.events is None or at is None:
        return False
    before = context.events if at == "close" else context.events[:at]
    return any(fnmatch.fnmatchcase(event_type(event) or "", pattern) for event in before)


def _right_after(pattern: str, difference: Difference, context: Context) -> bool:
    """The event or step just before the difference's event is of type `pattern` (a glob)."""
    at: Any = at_of(difference)
    if context.events is None or not isinstance(at, int) or at == 0:
        return False
    return fnmatch.fnmatchcase(event_type(context.events[at - 1]) or "", pattern)


def _after_sent(pattern: str, difference: Difference, context: Context) -> bool:
    """A `send` step whose message's type matches `pattern` (a glob) came before the difference's
    event: a session's client message (an injection, `response.inject`, say)."""
    return any(
        fnmatch.fnmatchcase(str(message.get("type")), pattern)
        for message in _sent_before(difference, context)
    )


def _after_a_warm_up(difference: Difference, context: Context) -> bool:
    """A `response.create` with `generate: false` was sent before the difference's event (SESSION-TURN-7)."""
    return any(
        message.get("type") == "response.create" and message.get("generate") is False
        for message in _sent_before(difference, context)
    )


def _sent_before(difference: Difference, context: Context) -> list[Mapping[str, Any]]:
    """The messages of the `send` steps before the difference's event."""
    at: Any = at_of(difference)
    if context.events is None or at is None:
        return []
    before = context.events if at == "close" else context.events[:at]
    steps = (event for event in before if isinstance(event, dict) and event.get("control") == "send")
    return [step["message"] for step in steps if isinstance(step.get("message"), dict)]


def _after_expected(
    pattern: str, difference: Difference, context: Context, *, any_item: bool = False
) -> bool:
    """The vector expects an outcome matching `pattern`, of the difference's item or of none (or,
    `any_item`, of any), at the difference's event or an earlier one."""
    if at_of(difference) is None:
        return False
    at = at_key(at_of(difference))
    item = item_of(difference)
    return any(
        outcome_matches(pattern, w) and at_key(w["at"]) <= at and (any_item or w.get("item_id", item) == item)
        for w in context.expected
    )


def _event_produced(pattern: str, difference: Difference, context: Context) -> bool:
    at: Any = at_of(difference)
    return any(p.get("at") == at and outcome_matches(pattern, p) for p in context.produced)


def _none_produced(pattern: str, difference: Difference, context: Context) -> bool:
    """The implementation produced no outcome matching `pattern` in the whole run."""
    return not any(outcome_matches(pattern, p) for p in context.produced)


def _produced_at(pattern: str, difference: Difference, context: Context) -> bool:
    """The produced outcome comes from an event of type `pattern` (a glob), or from close."""
    at: Any = None if difference.produced is None else difference.produced.get("at")
    if at == "close" or context.events is None or not isinstance(at, int) or at >= len(context.events):
        return pattern == "close" and at == "close"
    return fnmatch.fnmatchcase(event_type(context.events[at]) or "", pattern)


_PREFIXED: tuple[tuple[str, Callable[[str, Difference, Context], bool]], ...] = (
    ("option ", _option),
    ("profile ", lambda name, d, c: c.profile == name),
    ("after expected ", _after_expected),
    ("after any expected ", lambda name, d, c: _after_expected(name, d, c, any_item=True)),
    ("after sent ", _after_sent),
    ("after ", _after),
    ("right after ", _right_after),
    ("event produced ", _event_produced),
    ("none produced ", _none_produced),
    ("produced at ", _produced_at),
)


# -- named conditions ------------------------------------------------------------------------------


def _later(difference: Difference, context: Context) -> bool:
    """The produced outcome comes from a later event than the expected one."""
    want, got = difference.expected, difference.produced
    if want is None or got is None or want["at"] == got["at"]:
        return False
    return at_key(got["at"]) > at_key(want["at"])


def _terminal_expected(difference: Difference, context: Context) -> bool:
    return any(
        w.get("kind") == "lifecycle" and w.get("event") in TERMINAL_LIFECYCLE for w in context.expected
    )


def _later_turn(difference: Difference, context: Context) -> bool:
    """The vector expects an `end` at an earlier event: the difference is of a later turn."""
    at: Any = at_of(difference)
    ends = (w["at"] for w in context.expected if w.get("kind") == "end" and w["at"] != "close")
    return any(at == "close" or end < at for end in ends)


def _holds_null(difference: Difference, context: Context) -> bool:
    """A field the router reads is stated null (CORE-EVT-7)."""
    event = difference.event
    if not isinstance(event, dict):
        return False
    read: list[tuple[Any, tuple[str, ...]]] = [(event, _READ["event"])]
    read += [(event.get(name), _READ[name]) for name in ("item", "error", "response")]
    if event.get("type") == "response.failed":  # its response's error is read too (CORE-LIFE-3)
        read.append((event.get("response"), ("error",)))
    return any(
        isinstance(fields, dict) and any(name in fields and fields[name] is None for name in names)
        for fields, names in read
    )


def _out_of_sequence(difference: Difference, context: Context) -> bool:
    """The event states a `sequence_number` no greater than an earlier event's (CORE-EVT-6)."""
    at: Any = at_of(difference)
    if context.events is None or not isinstance(at, int):
        return False
    number = _sequence_number(context.events[at])
    earlier = (_sequence_number(e) for e in context.events[:at])
    return number is not None and any(e is not None and e >= number for e in earlier)


def _sequence_number(event: Any) -> int | None:
    number = event.get("sequence_number") if isinstance(event, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def _refused(difference: Difference, context: Context) -> bool:
    """The vector expects the difference's event refused: an `error` there, and no preview."""
    at: Any = at_of(difference)
    here = [w.get("kind") for w in context.expected if w.get("at") == at]
    return "error" in here and "tool.arguments.delta" not in here


def named_item(difference: Difference, context: Context) -> str | None:
    """The item the difference's event names, as a router attributes it."""
    at: Any = at_of(difference)
    return context.names[at] if isinstance(at, int) and at < len(context.names) else None


def _of_another_lane(difference: Difference, context: Context) -> bool:
    event = difference.event if isinstance(difference.event, dict) else {}
    return (difference.produced or {}).get("stream_id") != event.get("stream_id")


def _before_the_call(difference: Difference, context: Context) -> bool:
    """The produced outcome comes from an earlier event than the vector's outcome for its call."""
    call = _subject("call", difference, context)
    got = difference.produced
    return call is not None and got is not None and at_key(got["at"]) < at_key(call["at"])


def _announced(difference: Difference, context: Context) -> bool:
    """Some event's `item` has the difference's item's id (so it is, in an sse vector)."""
    if context.events is None:
        return True
    items = (e.get("item") for e in context.events if isinstance(e, dict))
    return any(isinstance(i, dict) and i.get("id") == item_of(difference) for i in items)


def _done_unannounced(difference: Difference, context: Context) -> bool:
    """The difference's event is its item's done, and no `response.output_item.added` of the item
    came before it (CORE-ITEM-6)."""
    at: Any = at_of(difference)
    if context.events is None or not isinstance(at, int):
        return False
    item = item_of(difference)
    announcing = "response.output_item.added"
    added = (e for e in context.events[:at] if isinstance(e, dict) and e.get("type") == announcing)
    return not any(isinstance(e.get("item"), dict) and e["item"].get("id") == item for e in added)


def _connection_limit(difference: Difference, context: Context) -> bool:
    """The event is the connection limit's `error`, in the nested shape or the flat one (SESSION-LIMIT-1)."""
    event: Mapping[str, Any] = difference.event if isinstance(difference.event, dict) else {}
    error = event.get("error")
    nested: Mapping[str, Any] = error if isinstance(error, dict) else {}
    return LIMIT_REACHED in (event.get("code"), nested.get("code"))


def _restates_call_id(difference: Difference, context: Context) -> bool:
    """The `item`s of the difference's item state two call ids: its done item restates the call id
    its announcement gave (CORE-CALL-17)."""
    if context.events is None:
        return False
    items = (e.get("item") for e in context.events if isinstance(e, dict))
    stated = {
        i["call_id"]
        for i in items
        if isinstance(i, dict) and i.get("id") == item_of(difference) and isinstance(i.get("call_id"), str)
    }
    return len(stated) > 1


def _unrouted(difference: Difference, context: Context) -> bool:
    return not any(p.get("item_id") == item_of(difference) for p in context.produced)


def _unpreviewed(difference: Difference, context: Context) -> bool:
    return not any(_previews(p) and p.get("item_id") == item_of(difference) for p in context.produced)


def _previews(outcome: Mapping[str, Any]) -> bool:
    return str(outcome.get("kind")).startswith("diff.")


def _previewed_before(difference: Difference, context: Context) -> bool:
    at = at_of(difference)
    updates = (p for p in context.produced if p.get("kind") == "diff.update")
    return at is not None and any(
        p.get("item_id") == item_of(difference) and at_key(p["at"]) < at_key(at) for p in updates
    )


_FINISHING = ("response.custom_tool_call_input.done", "response.output_item.done")


def _only_at_finishing(outcomes: list[Mapping[str, Any]], context: Context) -> bool:
    """There are outcomes, each from an event that finishes a call's input."""
    events = context.events or ()
    return bool(outcomes) and all(
        isinstance(p["at"], int) and p["at"] < len(events) and event_type(events[p["at"]]) in _FINISHING
        for p in outcomes
    )


def _previewed_at_finish_only(difference: Difference, context: Context) -> bool:
    """The implementation previewed the difference's item, only at the events that finish its
    input (a patch consumer that waits for the whole patch, CUSTOM-CAT-6)."""
    item = item_of(difference)
    updates = [p for p in context.produced if p.get("kind") == "diff.update" and p.get("item_id") == item]
    return _only_at_finishing(updates, context)


def _shown_at_finish_only(difference: Difference, context: Context) -> bool:
    """The implementation's consumer showed the difference's item something, a preview, its
    finish or its rejection, and only at the events that finish its input (a patch consumer that
    parses the whole patch at its end, CUSTOM-CAT-6)."""
    item = item_of(difference)
    shown = [
        p
        for p in context.produced
        if p.get("item_id") == item
        and (_previews(p) or (p.get("kind") == "tool.error" and p.get("code") == "consumer_rejected"))
    ]
    return _only_at_finishing(shown, context)


def _rejected_instead(difference: Difference, context: Context) -> bool:
    """The consumer rejected the call of the difference's item, which the vector expects not."""
    call = _subject("call", difference, context) or {}
    rejected = (p for p in context.produced if p.get("code") == "consumer_rejected")
    return call.get("code") != "consumer_rejected" and any(
        p.get("item_id") == item_of(difference) for p in rejected
    )


def _no_consumer_seen(difference: Difference, context: Context) -> bool:
    """Nothing a consumer makes was produced: no `diff.*`, `consumer_rejected`, `consumer_failed`."""
    return not any(_previews(p) or p.get("code") in _CONSUMER_CODES for p in context.produced)


def _no_finish_seen(difference: Difference, context: Context) -> bool:
    finishes = [w for w in context.expected if w.get("kind") == "diff.finish"]
    return bool(finishes) and not any(p.get("kind") == "diff.finish" for p in context.produced)


def _lags(difference: Difference, context: Context) -> bool:
    """An echo answer whose `buffer` is the expected one without its own `delta` (CUSTOM-CAT-2)."""
    want, got = difference.expected or {}, difference.produced or {}
    buffer, delta = got.get("buffer"), want.get("delta")
    return isinstance(buffer, str) and isinstance(delta, str) and buffer + delta == want.get("buffer")


def _updates_before(difference: Difference, context: Context) -> list[Mapping[str, Any]]:
    """The `diff.update`s produced for the produced outcome's item before it."""
    got = difference.produced or {}
    if not isinstance(got.get("at"), int):
        return []
    updates = (
        p
        for p in context.produced
        if p.get("kind") == "diff.update" and p.get("item_id") == got.get("item_id")
    )
    return [p for p in updates if isinstance(p.get("at"), int) and p["at"] < got["at"]]


def _within_the_throttle(difference: Difference, context: Context) -> bool:
    """The produced update comes less than THROTTLE_MS of stream time after its call's last one."""
    earlier = _updates_before(difference, context)
    at: Any = (difference.produced or {}).get("at")
    if not earlier or context.events is None or not isinstance(at, int):
        return False
    times = _stream_times(context.events)
    last: int = earlier[-1]["at"]
    return times[at] - times[last] < THROTTLE_MS


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


def _repeats(difference: Difference, context: Context) -> bool:
    """The produced update says what its call's last one said."""
    earlier = _updates_before(difference, context)
    return bool(earlier) and _payload(earlier[-1]) == _payload(difference.produced)


def _payload(outcome: Mapping[str, Any] | None) -> Any:
    return None if outcome is None else {k: v for k, v in outcome.items() if k != "at"}


def _retracted_elsewhere(difference: Difference, context: Context) -> bool:
    """The vector expects at the difference's event an `error` `call_retracted` of another item."""
    at: Any = at_of(difference)
    retracted = (w for w in context.expected if w.get("at") == at and w.get("code") == "call_retracted")
    return any(w.get("item_id") != item_of(difference) for w in retracted)


_NAMED: dict[str, Callable[[Difference, Context], bool]] = {
    "terminal expected": _terminal_expected,
    "later turn": _later_turn,
    "dispatch miscounted": lambda d, c: c.miscounted is True,
    "decoder at fault": lambda d, c: c.decoder is False,
    "event holds null": _holds_null,
    "event out of sequence": _out_of_sequence,
    "event refused": _refused,
    "event names no item": lambda d, c: named_item(d, c) is None,
    "produced later": _later,
    "produced before the call": _before_the_call,
    "produced of the event's item": lambda d, c: (d.produced or {}).get("item_id", ...) == named_item(d, c),
    "produced of another lane": _of_another_lane,
    "produced within the throttle": _within_the_throttle,
    "produced repeats": _repeats,
    "item announced": _announced,
    "item done unannounced": _done_unannounced,
    "event reaches the connection limit": _connection_limit,
    "item restates call_id": _restates_call_id,
    "after a warm-up": _after_a_warm_up,
    "item unrouted": _unrouted,
    "item unpreviewed": _unpreviewed,
    "item previewed before": _previewed_before,
    "item previewed at its finish only": _previewed_at_finish_only,
    "item shown at its finish only": _shown_at_finish_only,
    "first call of its tool": _first_call_of_its_tool,
    "item rejected instead": _rejected_instead,
    "no consumer seen": _no_consumer_seen,
    "no finish seen": _no_finish_seen,
    "buffer lags": _lags,
    "another item retracted here": _retracted_elsewhere,
}
