"""Which requirement a failure charges (spec/vectors.md section 5, spec/attribution.md).

A failing vector charges the requirements whose outcomes differ, not every id it cites. Each
difference of its aligned comparison (an expected outcome missing, an unexpected one, a pair that
differs in kind, event or field) is looked up in the table of spec/attribution.md: the first row
that matches it names the requirements that govern it, and the difference charges the first of
them the vector cites, or the first of them when it cites none. A failure that is no comparison
(an outcome that is not valid, an implementation that raised) is looked up the same way, as the
difference it makes.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .schemas import SPEC_DIR

ATTRIBUTION_MD = SPEC_DIR / "attribution.md"

_TERMINAL = ("response.completed", "response.failed", "response.incomplete")


@dataclass(frozen=True)
class Difference:
    """One way the produced outcomes part from the expected ones.

    `expected` and `produced` are outcomes (an expected one with its `at`; a produced one with
    the `at` of its event), either None when the other stands alone; `field` is the first field
    in which a pair of one kind and one event differs (`at` when a pair of one kind comes from
    another event); `event` is the event at the difference's `at` (the expected outcome's, else the
    produced one's): None at close and in an sse vector, whose events the harness does not decode.
    `failure` names a difference that is no comparison: `invalid`, `raised`, `dispatched`."""

    expected: Mapping[str, Any] | None
    produced: Mapping[str, Any] | None
    event: Any = None
    field: str | None = None
    failure: str | None = None


@dataclass(frozen=True)
class Context:
    """What the conditions of the table read beyond a difference: the vector and the options."""

    profile: str
    options: Mapping[str, Any]
    expected: Sequence[Mapping[str, Any]]


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
            and fnmatch.fnmatchcase(difference.field or "", self.differs)
            and _event_matches(self.event, difference)
            and all(_holds(condition, difference, context) for condition in self.when)
        )


FAILURES = ("raised", "invalid", "dispatched")


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
    if " or " in pattern:
        return any(_outcome_matches(one.strip().strip("`"), outcome) for one in pattern.split(" or "))
    if pattern == "*":
        return True
    if pattern == "-" or outcome is None:
        return pattern == "-" and outcome is None
    kind, _, code = pattern.partition(":")
    if not fnmatch.fnmatchcase(str(outcome.get("kind")), kind):
        return False
    return not code or fnmatch.fnmatchcase(str(outcome.get("code")), code)


def _event_type(event: Any) -> str | None:
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


def _event_matches(pattern: str, difference: Difference) -> bool:
    """`*` any; `close`; `terminal` (a terminal event); `undecoded` (an sse vector's event); else
    a glob of the event's type, or of `step:NAME` for a client step."""
    if pattern == "*":
        return True
    at: Any = _at(difference)
    if pattern == "close":
        return bool(at == "close")
    if at == "close":
        return False
    kind = _event_type(difference.event)
    if pattern == "undecoded":
        return difference.event is None
    if pattern == "terminal":
        return kind in _TERMINAL
    return kind is not None and any(
        fnmatch.fnmatchcase(kind, one.strip().strip("`")) for one in pattern.split(" or ")
    )


def _holds(condition: str, difference: Difference, context: Context) -> bool:
    """A condition of the `when` column (spec/attribution.md section 1)."""
    negated = condition.startswith("not ")
    name = condition.removeprefix("not ")
    if name.startswith("option "):
        option, _, wanted = name.removeprefix("option ").partition("=")
        held = str(context.options.get(option)) == wanted
    elif name.startswith("profile "):  # the vector's profile
        held = context.profile == name.removeprefix("profile ")
    elif name.startswith("event has "):
        field = name.removeprefix("event has ")
        held = isinstance(difference.event, dict) and difference.event.get(field) is not None
    elif name.startswith("produced ") and " is " in name:  # `produced arguments is string`
        stated, _, kind = name.removeprefix("produced ").partition(" is ")
        value: Any = (difference.produced or {}).get(stated)
        held = type(value).__name__ == {"string": "str", "object": "dict", "array": "list"}.get(kind, kind)
    elif name == "produced later":
        held = _later(difference)
    elif name == "terminal expected":
        held = any(
            w.get("kind") == "lifecycle" and w.get("event") in ("completed", "failed", "incomplete")
            for w in context.expected
        )
    else:
        raise AttributionTableError(f"unknown condition {condition!r}")
    return held != negated


def _later(difference: Difference) -> bool:
    """The produced outcome comes from a later event than the expected one."""
    want: Any = difference.expected["at"] if difference.expected else None
    got: Any = difference.produced["at"] if difference.produced else None
    if want is None or got is None or want == got:
        return False
    return bool(got == "close" or (want != "close" and got > want))


_ROW = re.compile(r"^\|\s*(\d+[a-z]?)\s*\|(.*)\|(.*)\|(.*)\|(.*)\|(.*)\|(.*)\|\s*$")
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
        cells = [_cell(cell) for cell in match.groups()[1:]]
        expected, produced, differs, event, when, charges = cells
        requirements = tuple(part.strip() for part in charges.split(","))
        conditions = tuple(_cell(part) for part in when.split(";") if _cell(part))
        where = f"{path}:{number}"
        if not requirements or not all(_REQUIREMENT.match(r) for r in requirements):
            raise AttributionTableError(f"{where}: {charges!r} is not a list of requirement ids")
        rule = Rule(expected or "-", produced or "-", differs, event or "*", conditions, requirements, number)
        for condition in conditions:  # a condition the table cannot mean is found now, not at a failure
            try:
                _holds(condition, Difference(None, None), Context("core", {}, ()))
            except AttributionTableError as exc:
                raise AttributionTableError(f"{where}: {exc}") from None
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
    difference no row matches charges every requirement the vector cites."""
    found: list[str] = []
    for difference in differences:
        rule = rule_for(difference, context)
        if rule is None:  # the last resort: what the vector cites
            charges = list(cited)
        else:
            charges = [next((r for r in rule.charges if r in cited), rule.charges[0])]
        found += (requirement for requirement in charges if requirement not in found)
    return tuple(found)
