"""The README stays a ten-minute read, and every relative link of the project's pages leads somewhere:
to a file or folder of the repository and, after `#`, to a heading of the Markdown file it names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "spec").glob("*.md")),
]
LINK = re.compile(r"\]\(([^()\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE = re.compile(FENCE.pattern + r"|``.+?``|`[^`\n]*`", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.MULTILINE)


def test_the_readme_is_at_most_300_lines() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 300


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as
    hyphens, and `-1`, `-2`, ... after a repeated one."""
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        if count:
            seen[f"{slug}-{count}"] = 1
    return set(seen)


def test_anchors_follow_githubs_rule(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Bytes on the wire: the `sse` profile\n## 5.1 The call catalogue\n## Notes\n## Notes\n"
        "```sh\n# a comment, not a heading\n```\n",
        encoding="utf-8",
    )
    assert anchors(page) == {"bytes-on-the-wire-the-sse-profile", "51-the-call-catalogue", "notes", "notes-1"}


def broken_links(page: Path) -> list[str]:
    """Each relative link of the page whose file, or heading, does not exist."""
    broken = []
    for target in LINK.findall(CODE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no such heading")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n[a](other.md#other) [b](other.md#gone) [c](missing.md) [d](#page) [e](https://x.org/y)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["other.md#gone: no such heading", "missing.md: no such file"]
