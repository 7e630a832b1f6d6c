"""The requirement ids of the spec, read from its Markdown.

A requirement is a list item starting `**ID** (LEVEL)`, as spec/README.md says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_REQUIREMENT = re.compile(
    r"^\s*[-*]\s+\*\*([A-Z]+(?:-[A-Z]+)*-\d+)\*\*\s+\((MUST NOT|MUST|SHOULD NOT|SHOULD|MAY)\)"
)

LEVEL_RANK = {"MAY": 0, "SHOULD": 1, "MUST": 2}


@dataclass(frozen=True)
class Requirement:
    id: str
    level: str  # MUST, SHOULD or MAY: "MUST NOT" is a MUST
    source: Path


def read_requirements(spec_dir: Path) -> tuple[dict[str, Requirement], list[str]]:
    """Every requirement under `spec_dir`, and the problems found (an id defined twice)."""
    found: dict[str, Requirement] = {}
    problems: list[str] = []
    for path in sorted(spec_dir.glob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            match = _REQUIREMENT.match(line)
            if match is None:
                continue
            requirement_id, level = match.groups()
            if requirement_id in found:
                problems.append(
                    f"{path}: requirement {requirement_id} is also defined in {found[requirement_id].source}"
                )
                continue
            found[requirement_id] = Requirement(requirement_id, level.removesuffix(" NOT"), path)
    return found, problems
