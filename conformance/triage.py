"""A run's failures sorted for triage: grouped by class, profile and requirement, counts first,
worst first, from the report's vector lines.

A group is a class and a profile (`routing core`): the vectors of it that failed or errored, and
each requirement their failures charge (spec/vectors.md section 5) with how many vectors charge
it. The routing class comes first (its streams are what conforming producers send), then the
groups with the most failing vectors; within a group, MUST requirements before SHOULD before MAY,
then the most charged. The vectors are then listed in that order: by group, then by the first
requirement each charges.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .claims import requirement_key
from .requirements import LEVEL_RANK, requirement_levels
from .results import CLASSES, Status

Record = Mapping[str, Any]


@dataclass(frozen=True)
class Charged:
    requirement: str
    level: str
    vectors: int  # failing vectors of the group that charge it


@dataclass(frozen=True)
class Group:
    conformance_class: str
    profile: str
    vectors: tuple[Record, ...]  # in the order they are listed
    charged: tuple[Charged, ...]  # worst first

    @property
    def name(self) -> str:
        return f"{self.conformance_class} {self.profile}"


def _charges(line: Record) -> list[str]:
    """What a failing line charges; a report written before attribution: what it cites."""
    return list(line.get("charged") or line.get("spec") or ())


def groups(lines: Sequence[Record]) -> list[Group]:
    """The failing vectors (failed or errored) of the lines, grouped and sorted for triage."""
    levels = requirement_levels()
    by_group: dict[tuple[str, str], list[Record]] = {}
    for line in lines:
        if Status(line["status"]).is_failure:
            by_group.setdefault((line.get("class", "routing"), line["profile"]), []).append(line)
    found = []
    for (conformance_class, profile), failing in by_group.items():
        counts: dict[str, int] = {}
        for line in failing:
            for requirement in dict.fromkeys(_charges(line)):
                counts[requirement] = counts.get(requirement, 0) + 1
        charged = sorted(
            (Charged(r, levels.get(r, "MUST"), n) for r, n in counts.items()),
            key=lambda c: (-LEVEL_RANK.get(c.level, 2), -c.vectors, requirement_key(c.requirement)),
        )
        rank = {c.requirement: index for index, c in enumerate(charged)}

        def first(line: Record, rank: dict[str, int] = rank) -> tuple[int, str]:
            return min((rank[r] for r in _charges(line)), default=len(rank)), line["id"]

        found.append(Group(conformance_class, profile, tuple(sorted(failing, key=first)), tuple(charged)))
    class_rank = {name: index for index, name in enumerate(CLASSES)}
    return sorted(
        found, key=lambda g: (class_rank.get(g.conformance_class, len(CLASSES)), -len(g.vectors), g.profile)
    )
