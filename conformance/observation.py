"""What an implementation's API shows, and what a vector can be judged on (spec/observation.md).

An implementation may declare `observes`: the outcome kinds its API shows, each with the fields
it shows, for `error` the families of codes it shows (the producer's, the router's own), and for
`tool.error` the codes it shows (a refusal of arguments, not a call cut off by the end). Every
requirement of the core and custom-tools profiles is observed through some kinds and fields,
stated in the table of spec/observation.md, which `observed_through` reads. A vector is judged
on every expected outcome that is shown: it is applicable when one is, and then both sides are
projected to what is shown (`Observes.projected`); its verdict counts toward the requirements it
cites that are observable (`Observes.observable`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from .schemas import OUTCOME, PROTOCOL_START_REPLY, SPEC_DIR, json_pointer, schema, validator

OBSERVATION_MD = SPEC_DIR / "observation.md"

Shown = Mapping[str, frozenset[str]]  # outcome kind -> the fields shown of it
# outcome kind -> the codes shown of it: for `error` their families, for `tool.error` the codes
Families = Mapping[str, frozenset[str]]
CODE_FAMILIES: tuple[str, ...] = tuple(schema(PROTOCOL_START_REPLY + "#/$defs/code_family")["enum"])
FAMILY_KIND = "error"  # the kind whose codes are declared, and observed through, by family
CODE_KIND = "tool.error"  # the kind whose codes are declared, and observed through, one by one
EVERY_CODE = "every code"  # what a row of `tool.error` that names no code is observed through


@cache
def outcome_fields() -> frozenset[str]:
    """The fields an outcome may show: every property of the outcome schema's `fields` but `kind`."""
    return frozenset(schema(OUTCOME + "#/$defs/fields")["properties"]) - {"kind"}


@cache
def call_input_fields() -> frozenset[str]:
    """The fields of a `tool.call` that carry its input; its `tool_type` says which of them it has
    (outcome.schema.json `$defs/call_input`)."""
    rules = schema(OUTCOME + "#/$defs/call_input")["allOf"]
    return frozenset(name for rule in rules for name in rule["then"]["required"])


@cache
def router_codes() -> frozenset[str]:
    """The `error` codes a router produces itself (outcome.schema.json `$defs/router_error_code`)."""
    return frozenset(schema(OUTCOME + "#/$defs/router_error_code")["enum"])


def code_family(code: object) -> str:
    """`router` for a code the router produces itself, `producer` for any other (a null one too)."""
    return "router" if code in router_codes() else "producer"


def _kind_matches(kind: str) -> bool:
    return validator(OUTCOME + "#/$defs/kind").is_valid(kind)


def _declared_fields(declared: Any) -> list[str]:
    """The fields of one kind's declaration: a list, or the `fields` of one that names its codes."""
    names: list[str] = list(declared["fields"] if isinstance(declared, Mapping) else declared)
    return names


def observes_problem(declared: Mapping[str, Any]) -> str | None:
    """What the schema cannot say is wrong with a declaration (valid against `$defs/observes`)."""
    fields = outcome_fields()
    for kind, shown in declared.items():
        names = _declared_fields(shown)
        unknown = sorted(set(names) - fields)
        if unknown:
            return f"kind {kind} names {', '.join(unknown)}, which are not outcome fields"
        if kind == "tool.call" and call_input_fields() & set(names) and "tool_type" not in names:
            return "kind tool.call shows a call's input without its tool_type, which says which input it has"
        if isinstance(shown, Mapping) and (
            kind not in (FAMILY_KIND, CODE_KIND) or (kind == FAMILY_KIND and "code" not in names)
        ):
            return (
                f"kind {kind} names the codes it shows, which only error (by family, with code among its "
                "fields) and tool.error do"
            )
        strangers = set(shown["codes"]) - set(CODE_FAMILIES) if isinstance(shown, Mapping) else set()
        if kind == FAMILY_KIND and strangers:
            return f"kind error names {', '.join(sorted(strangers))}: not families of codes"
    return None


@dataclass(frozen=True)
class ObservedThrough:
    """A requirement's row: the kinds and fields a vector shows it through, for `error` the family
    of codes, and a note (why a kind is in no citing vector's expected outcomes: the requirement is
    shown by its absence)."""

    requirement: str
    shown: Shown
    note: str
    families: Families = field(default_factory=dict)


@dataclass(frozen=True)
class Observes:
    """A declaration: each kind shown, with its fields and, where it names them, the codes it shows
    (for `error` by family)."""

    shown: Shown
    families: Families = field(default_factory=dict)  # a kind left out shows every code

    @classmethod
    def of(cls, declared: Mapping[str, Any]) -> Observes:
        shown = {kind: frozenset(_declared_fields(names)) for kind, names in declared.items()}
        families = {
            kind: frozenset(names["codes"]) for kind, names in declared.items() if isinstance(names, Mapping)
        }
        return cls(shown, families)

    def shows_code(self, outcome: Mapping[str, Any]) -> bool:
        """Whether an outcome is shown by its code: its code's family for `error`, the code itself
        for `tool.error`; any code of a kind whose declaration names none. A `tool.error` without a
        code, of an API that shows its refusals but not their codes, is one of the codes it names."""
        kind = outcome["kind"]
        if kind not in self.families:
            return True
        if kind == CODE_KIND and "code" not in outcome and "code" not in self.shown[kind]:
            return True
        code = outcome.get("code")
        return (code_family(code) if kind == FAMILY_KIND else code) in self.families[kind]

    def unshown(self, through: Shown, families: Families | None = None) -> list[str]:
        """What of `through` is not shown, each as `kind`, `kind.field` or `kind (code)`, in order. A
        row of `tool.error` that names no code is observed through every code."""
        missing: list[str] = []
        for kind, names in sorted(through.items()):
            if kind not in self.shown:
                missing.append(kind)
                continue
            missing += (f"{kind}.{name}" for name in sorted(names - self.shown[kind]))
            wanted = (families or {}).get(kind, frozenset())
            if kind == CODE_KIND and not wanted and kind in self.families:
                missing.append(f"{kind} ({EVERY_CODE})")
            missing += (
                f"{kind} ({code})"
                for code in sorted(wanted)
                if kind in self.families and code not in self.families[kind]
            )
        return missing

    def observable(self, requirements: Iterable[str]) -> tuple[str, ...]:
        """Those of `requirements` observed through what is shown; one without a row (not of the
        core or custom-tools profile) only by an implementation that shows everything."""
        table = observed_through()
        return tuple(
            r for r in requirements if r in table and not self.unshown(table[r].shown, table[r].families)
        )

    def not_shown(self, requirements: Iterable[str]) -> str:
        """Why none of `requirements` is observable, in one line: what each needs that is not shown."""
        table = observed_through()
        needs = {
            r: ", ".join(self.unshown(table[r].shown, table[r].families))
            if r in table
            else "every kind and field"
            for r in requirements
        }
        return "; ".join(f"{r} needs {missing}" for r, missing in needs.items())

    def projected(
        self, outcome: Mapping[str, Any], keep: frozenset[str] = frozenset()
    ) -> dict[str, Any] | None:
        """A valid outcome as far as it is shown (its `kind`, the fields shown, and those in
        `keep`), or None when its kind, or the family of its code, is not shown."""
        kind = outcome["kind"]
        if kind not in self.shown or not self.shows_code(outcome):
            return None
        kept = self.shown[kind] | keep | {"kind"}
        return {name: value for name, value in outcome.items() if name in kept}

    def compares(self, kinds: frozenset[str] | None) -> bool:
        """Whether a vector comparing `kinds` (every kind when None) compares a kind shown: what it
        expects of that kind, nothing included, is then observed."""
        return bool(self.shown) if kinds is None else bool(kinds & self.shown.keys())

    def problem(self, outcome: Any) -> str | None:
        """The outcome's first schema error in the words of `schemas.first_error`, or None; a
        required field that is not shown may be missing, since an API that does not show a field
        cannot hand it over."""
        kind = outcome.get("kind") if isinstance(outcome, dict) else None
        shown = self.shown.get(kind, frozenset()) if isinstance(kind, str) else frozenset()
        for error in validator(OUTCOME).iter_errors(outcome):
            if error.validator == "required" and isinstance(error.instance, dict):
                missing = set(error.validator_value) - set(error.instance)
                if not missing & shown:
                    continue
            return f"{error.message} (at {json_pointer(error.absolute_path) or '/'})"
        return None


def observes_of(info: Mapping[str, Any]) -> Observes | None:
    """The declaration in an implementation's `info`; None when it declares none (it shows all)."""
    observes = info.get("observes")
    return None if observes is None else _observes(json.dumps(observes, sort_keys=True))


@cache
def _observes(declared: str) -> Observes:
    return Observes.of(json.loads(declared))


_ROW = re.compile(r"^\|\s*([A-Z]+(?:-[A-Z]+)*-\d+)\s*\|(.*)\|(.*)\|\s*$")
_THROUGH = re.compile(r"^`([^`]+)`(?:\s+\(([a-z_]+(?:, [a-z_]+)*)\))?(?::\s*(.*))?$")


class ObservationTableError(Exception):
    """A row of the table that cannot be read: its file and line, and what is wrong."""


def read_table(path: Path) -> dict[str, ObservedThrough]:
    """The table of `path`: `| ID | `kind`: field, field; `kind` (code, code): field | note |` rows,
    where `error` names families of codes and `tool.error` codes."""
    rows: dict[str, ObservedThrough] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _ROW.match(line)
        if match is None:
            continue
        requirement, through, note = (part.strip() for part in match.groups())
        where = f"{path}:{number}"
        if requirement in rows:
            raise ObservationTableError(f"{where}: {requirement} has a second row")
        shown: dict[str, frozenset[str]] = {}
        families: dict[str, frozenset[str]] = {}
        for part in through.split(";"):
            kind_match = _THROUGH.match(part.strip())
            if kind_match is None:
                raise ObservationTableError(f"{where}: {part.strip()!r} is not `kind` (codes): field, field")
            kind, codes, names = kind_match.group(1), kind_match.group(2), kind_match.group(3) or ""
            if codes is not None and kind not in (FAMILY_KIND, CODE_KIND):
                raise ObservationTableError(f"{where}: only `error` (by family) and `tool.error` name codes")
            named = frozenset(codes.split(", ")) if codes is not None else frozenset()
            if kind == FAMILY_KIND and not named <= set(CODE_FAMILIES):
                strangers = ", ".join(sorted(named))
                raise ObservationTableError(f"{where}: `error` names {strangers}: not families")
            if named:
                families[kind] = named
            if not _kind_matches(kind) or kind in shown:
                raise ObservationTableError(f"{where}: {kind!r} is not an outcome kind, or is named twice")
            fields = frozenset(name.strip() for name in names.split(",") if name.strip())
            unknown = sorted(fields - outcome_fields())
            if unknown:
                raise ObservationTableError(f"{where}: {kind} names {', '.join(unknown)}: not outcome fields")
            shown[kind] = fields
        rows[requirement] = ObservedThrough(requirement, shown, note, families)
    return rows


@cache
def observed_through() -> dict[str, ObservedThrough]:
    """The table of spec/observation.md, by requirement id."""
    return read_table(OBSERVATION_MD)
