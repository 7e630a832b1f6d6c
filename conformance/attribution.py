"""Which requirement a failure charges (spec/vectors.md section 5, spec/attribution.md).

A failing vector charges the requirements whose outcomes differ, not every id it cites. Each
difference (conformance/differences.py) is looked up in the table of spec/attribution.md: the
first row that matches it names the requirements that govern it, and the difference charges the
first of them the vector cites, or the first of them when it cites none. A difference of what an
earlier one was of (an item, a call, a turn, an sse vector's stream) follows from it and charges
nothing of its own; a difference no row matches charges every id the vector cites.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .conditions import (
    TERMINAL_EVENTS,
    TERMINAL_LIFECYCLE,
    ConditionError,
    Context,
    at_of,
    event_type,
    holds,
    item_of,
    named_item,
    outcome_matches,
)
from .decoded import UNROUTED
from .differences import Difference
from .schemas import SPEC_DIR

ATTRIBUTION_MD = SPEC_DIR / "attribution.md"
FAILURES = ("raised", "invalid", "dispatched")


class AttributionTableError(Exception):
    """A row of the table that cannot be read: its file and line, and what is wrong."""


@dataclass(frozen=True)
class Rule:
    """One row of the table (spec/attribution.md section 1.2)."""

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
            and outcome_matches(self.produced, difference.produced)
            and _any_of(self.differs or "-", lambda one: _differs(one, difference.field))
            and _any_of(self.event, lambda one: _event_matches(one, difference, context))
            and all(holds(condition, difference, context) for condition in self.when)
        )


def _any_of(pattern: str, matches: Callable[[str], bool]) -> bool:
    """A column's alternatives, joined by `or`, each perhaps in backquotes."""
    return any(matches(one.strip().strip("`")) for one in pattern.split(" or "))


def _expected_matches(pattern: str, difference: Difference) -> bool:
    """An outcome pattern, or a failure that is no comparison (`raised`, `invalid`, `dispatched`),
    perhaps followed by the pattern of the expected outcome it stands for."""
    failure, _, rest = pattern.partition(" ")
    if failure in FAILURES:
        return difference.failure == failure and (not rest or outcome_matches(rest, difference.expected))
    return difference.failure is None and outcome_matches(pattern, difference.expected)


def _differs(pattern: str, field: str | None) -> bool:
    """`-`: in kind, or no pair; `*` anything; else a glob of the field (`at`, `order`, a field's
    name, or for `invalid` the path of the first error)."""
    if pattern in ("-", "*"):
        return pattern == "*" or field is None
    return field is not None and fnmatch.fnmatchcase(field, pattern)


def _event_matches(pattern: str, difference: Difference, context: Context) -> bool:
    """`*` any; `close`; `terminal`; `undecoded` (an sse vector's event, or once its bytes are
    shown decoded well, one that routes nothing); else a glob of the event's type, or of
    `step:NAME` for a step."""
    if pattern == "*":
        return True
    at = at_of(difference)
    if pattern == "close" or at == "close":
        return pattern == "close" and at == "close"
    undecoded = context.events is None or difference.event is UNROUTED
    if pattern == "undecoded" or undecoded:
        return pattern == "undecoded" and undecoded
    kind = event_type(difference.event)
    if pattern == "terminal":
        return kind in TERMINAL_EVENTS
    return kind is not None and fnmatch.fnmatchcase(kind, pattern)


# -- the table --------------------------------------------------------------------------------------

_ROW = re.compile(r"^\|\s*(\d+)\s*\|(.*)\|(.*)\|(.*)\|(.*)\|(.*)\|(.*)\|\s*$")
_REQUIREMENT = re.compile(r"^[A-Z]+(?:-[A-Z]+)*-\d+$")
_PROBE = (Difference(None, None), Context("core", {}, ()))  # what a condition is tried on as it is read


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
        if not all(_REQUIREMENT.match(r) for r in requirements):
            raise AttributionTableError(f"{path}:{number}: {charges!r} is not a list of requirement ids")
        for condition in conditions:  # a condition the table cannot mean is found now, not at a failure
            try:
                holds(condition, *_PROBE)
            except ConditionError as exc:
                raise AttributionTableError(f"{path}:{number}: {exc}") from None
        rules.append(
            Rule(expected or "-", produced or "-", differs, event or "*", conditions, requirements, number)
        )
    return rules


@cache
def rules() -> tuple[Rule, ...]:
    """The table of spec/attribution.md, in order, read once."""
    return tuple(read_table(ATTRIBUTION_MD))


def rule_for(difference: Difference, context: Context) -> Rule | None:
    fitting = (rule for rule in rules() if _of_the_part(rule, difference, context))
    return next((rule for rule in fitting if rule.matches(difference, context)), None)


def _of_the_part(rule: Rule, difference: Difference, context: Context) -> bool:
    """Whether the row charges the part of an sse vector's implementation its difference is of
    (spec/attribution.md section 1.5): a decoder shown at fault charges the sse requirements (the
    ids of spec/sse.md, `SSE-*`) alone; one shown to have done its part leaves them to the
    differences at events that route nothing, and the rest to the router's."""
    if context.decoder is None:
        return True
    decoders = any(requirement.startswith("SSE-") for requirement in rule.charges)
    if context.decoder is False:
        return decoders
    return decoders == (difference.event is UNROUTED)


# -- charging ---------------------------------------------------------------------------------------


def charged(differences: Iterable[Difference], cited: Sequence[str], context: Context) -> tuple[str, ...]:
    """The requirements the differences (in stream order) charge, in the order of the first that
    charges each: of its row's requirements, the first the vector cites, else the first; a
    difference no row matches charges every requirement the vector cites. A difference of what an
    earlier difference was of follows from it, and so does an outcome missing at an event that
    produced an error in place of another, and a session outcome of no response
    after a difference of a turn of its lane: they charge nothing of their own."""
    found: dict[str, None] = {}
    seen: set[Any] = set()
    refused: set[Any] = set()  # the events that produced an error in place of what the vector expects
    lanes: set[Any] = set()  # the lanes of the session turns an earlier difference was of
    for difference in differences:
        things = of(difference, context)
        at = at_of(difference)
        waited = _unbegun_lane(difference)
        follows = (
            bool(things & seen)
            or (difference.produced is None and at in refused)
            or (waited is not None and waited in lanes)
        )
        seen |= things
        lanes |= {("lane", thing[1]) for thing in things if thing[0] == "turn"}
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


def _unbegun_lane(difference: Difference) -> Any:
    """The lane of a session outcome of no response (`response_id` null): a turn's `end` whose
    response never began, a request that waited in its lane, or a `no_response_in_flight`, an
    event that found no turn there; what an earlier turn of the lane did decides either."""
    for side in (difference.expected, difference.produced):
        if side is None or "stream_id" not in side or side.get("response_id") is not None:
            continue
        if side.get("kind") == "end" or side.get("code") == "no_response_in_flight":
            return ("lane", side["stream_id"])
    return None


def of(difference: Difference, context: Context) -> set[Any]:
    """What a difference is of (spec/attribution.md section 1.4): the items and calls its outcomes
    name, else its event's item (as a router attributes it) or call; the stream's end for the
    `end`, a terminal `lifecycle` and a difference at a terminal or `error` event;
    in a session a turn (its lane and response), a response, a steer (by its target), the
    connection; in an sse vector the stream, whose decoding its first difference shows gone wrong."""
    if context.events is None:
        return {("stream",)}
    things: set[Any] = set()
    for side in (difference.expected, difference.produced):
        if side is not None:
            things |= _of_outcome(side)
    event = difference.event if isinstance(difference.event, dict) else {}
    message = event.get("message") if event.get("control") == "send" else None
    if isinstance(message, dict) and message.get("type") == "response.steer":
        things.add(("steer", message.get("previous_response_id")))
    if not things and (item := item_of(difference) or named_item(difference, context)) is not None:
        things.add(("item_id", item))  # an event without item_id names its item as a router reads it
    if not things and isinstance(event.get("call_id"), str):  # a step naming a call
        things.add(("call_id", event["call_id"]))
    if event.get("type") in ("error", *TERMINAL_EVENTS) and not any(thing[0] == "turn" for thing in things):
        things.add(("end",))  # routed or not, it decides the end's status (CORE-LIFE-8)
    return things


def _of_outcome(outcome: Any) -> set[Any]:
    kind = outcome.get("kind")
    things: set[Any] = {
        (name, outcome[name]) for name in ("item_id", "call_id") if isinstance(outcome.get(name), str)
    }
    if kind == "connection.closed" or outcome.get("code") == "event_after_disconnect":
        things.add(("connection",))
    elif str(kind).startswith("steer."):
        things.add(("steer", outcome.get("response_id")))
    elif "stream_id" in outcome:  # a session's outcome is of its lane's turn
        things.add(("turn", outcome.get("stream_id"), outcome.get("response_id")))
    elif kind == "end" or (kind == "lifecycle" and outcome.get("event") in TERMINAL_LIFECYCLE):
        things.add(("end",))
    if "stream_id" in outcome and outcome.get("response_id") is not None:
        things.add(("response", outcome["response_id"]))
    return things
