"""The requirements of the spec, read from its Markdown.

A requirement is a list item that starts with its id in bold, `- **ID** sentence`, as
spec/README.md says. Its level is the BCP 14 keyword (RFC 2119, RFC 8174) of its sentence,
in capitals: an item with none, or with two different ones, is a problem, since one
requirement is one assertion at one level. Text in backticks is never a keyword.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .schemas import SPEC_DIR

_ITEM = re.compile(r"^( *)[-*]\s+\*\*([A-Z]+(?:-[A-Z]+)*-\d+)\*\*\s+(.*)$")
_KEYWORD = re.compile(
    r"\b(MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|NOT RECOMMENDED|RECOMMENDED|MAY|OPTIONAL)\b"
)
_CODE = re.compile(r"`[^`]*`")
_LABEL = re.compile(rf"^\({_KEYWORD.pattern}\)")  # the form before 1.3, `**ID** (MUST) sentence`

KEYWORD_LEVELS = {
    "MUST": "MUST",
    "MUST NOT": "MUST",
    "REQUIRED": "MUST",
    "SHALL": "MUST",
    "SHALL NOT": "MUST",
    "SHOULD": "SHOULD",
    "SHOULD NOT": "SHOULD",
    "RECOMMENDED": "SHOULD",
    "NOT RECOMMENDED": "SHOULD",
    "MAY": "MAY",
    "OPTIONAL": "MAY",
}
LEVEL_RANK = {"MAY": 0, "SHOULD": 1, "MUST": 2}


@dataclass(frozen=True)
class Requirement:
    id: str
    level: str  # MUST, SHOULD or MAY: "MUST NOT" is a MUST
    source: Path


def read_requirements(spec_dir: Path) -> tuple[dict[str, Requirement], list[str]]:
    """Every requirement under `spec_dir`, and the problems found: an id defined twice, a
    requirement without a keyword or with two different ones."""
    found: dict[str, Requirement] = {}
    problems: list[str] = []
    for path in sorted(spec_dir.glob("*.md")):
        for line_number, requirement_id, text in _items(path.read_text(encoding="utf-8")):
            where = f"{path}:{line_number}: requirement {requirement_id}"
            if requirement_id in found:
                problems.append(f"{where} is also defined in {found[requirement_id].source}")
                continue
            level, problem = _level(text)
            if problem:
                problems.append(f"{where} {problem}")
            found[requirement_id] = Requirement(requirement_id, level, path)
    return found, problems


@cache
def requirement_levels() -> dict[str, str]:
    """Each requirement's level, as the spec installed with the harness states it."""
    return {requirement.id: requirement.level for requirement in read_requirements(SPEC_DIR)[0].values()}


def _items(markdown: str) -> list[tuple[int, str, str]]:
    """Each requirement's line number, id and text: its list item, continuation lines included."""
    lines = markdown.splitlines()
    items = []
    for index, line in enumerate(lines):
        match = _ITEM.match(line)
        if match is None:
            continue
        indent, requirement_id, text = len(match[1]), match[2], [match[3]]
        for following in lines[index + 1 :]:  # the item goes on while its lines are indented further
            if not following.strip() or len(following) - len(following.lstrip(" ")) <= indent:
                break
            text.append(following.strip())
        items.append((index + 1, requirement_id, " ".join(text)))
    return items


def _level(text: str) -> tuple[str, str]:
    """The level a requirement's text states, and what is wrong with it ("" when nothing)."""
    if label := _LABEL.match(text):
        return KEYWORD_LEVELS[label[1]], "states its level in parentheses: write the keyword in the sentence"
    keywords = sorted(set(_KEYWORD.findall(_CODE.sub("", text))))
    levels = [KEYWORD_LEVELS[keyword] for keyword in keywords]
    strongest = max(levels, key=LEVEL_RANK.__getitem__, default="MUST")
    if not keywords:
        return strongest, "states no BCP 14 keyword (MUST, SHOULD, MAY, ...) in its sentence"
    if len(keywords) > 1:
        return strongest, f"states {' and '.join(keywords)}: one keyword per requirement"
    return strongest, ""
