"""The code-mutant triage (tests/mutants/code-mutants.yaml) is well formed and names code that is
still there, docs/coverage.md shows the last run (docs/code-mutants.json) as it is, and the
verdicts are counted as tests/mutants/code_mutants.py says. The run itself is `tox -e code-mutants`."""

from __future__ import annotations

from pathlib import Path

import pytest
from mutants import code_mutants
from mutants.code_mutants import Entry, Mutation, judge, only_prose_changes, read_triage
from mutants.report import COVERAGE, code_mutants_section

ENTRIES, PROBLEMS = read_triage()
SOURCES = {
    target.name: {package.label(path.name): path for package in target.packages for path in package.files}
    for target in code_mutants.targets()
}


def test_the_triage_is_well_formed() -> None:
    assert PROBLEMS == []


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: f"{entry.target}:{entry.mutation.function}")
def test_each_entry_names_code_that_is_still_there(entry: Entry) -> None:
    """An entry whose line changed names a mutant that no longer exists: triage it again."""
    source = SOURCES[entry.target][entry.mutation.file].read_text(encoding="utf-8")
    lines = {line.strip() for line in source.splitlines()}
    missing = [line for line in entry.mutation.before.splitlines() if line not in lines]
    assert missing == [], f"{entry.mutation.describe()}: {entry.mutation.file} no longer has {missing}"


def test_the_report_shows_the_last_run_and_the_triage() -> None:
    section = "\n".join(code_mutants_section())
    assert section in COVERAGE.read_text(encoding="utf-8"), "docs/coverage.md is out of date: tox -e coverage"


def _mutation(before: str, after: str) -> Mutation:
    return Mutation("router.py", "f", before, after)


@pytest.mark.parametrize(
    ("before", "after", "prose"),
    [
        (
            'raise Violation("late_delta", f"delta after {item.id!r}")',
            'raise Violation("late_delta", None)',
            True,
        ),
        (
            'return None, "incomplete", f"the item has no {source}"',
            'return None, "INCOMPLETE", f"the item has no {source}"',
            False,
        ),
        (
            'message = f"event {n}: {type(exc).__name__}"',
            'message = f"event {n}: {type(None).__name__}"',
            True,
        ),
        ('if value.startswith(" "):', 'if value.startswith("XX XX"):', False),
        ("depth = at = 0", "depth = at = 1", False),
    ],
)
def test_only_wording_counts_as_prose(before: str, after: str, prose: bool) -> None:
    assert only_prose_changes(_mutation(before, after)) is prose


def test_the_kill_rate_counts_the_mutants_that_are_not_equivalent() -> None:
    survivor = {"file": "router.py", "function": "f", "before": "a", "after": "b"}
    measured = {
        "statuses": {"killed": 95, "survived": 4, "no tests": 1, "not checked": 7},
        "unkilled": [
            survivor,
            {**survivor, "after": "c"},
            {**survivor, "after": "d"},
            {**survivor, "after": "e"},
            {**survivor, "after": "f"},
        ],
        "killed_by_new": [{**survivor, "after": "g"}],
    }
    entries = [
        Entry("reference", _mutation("a", "b"), "equivalent", "why"),
        Entry("reference", _mutation("a", "c"), "equivalent", "why"),
        Entry("reference", _mutation("a", "d"), "limitation", "what"),
        Entry("reference", _mutation("a", "g"), "killed_by", "core/x"),
        Entry("reference", _mutation("a", "z"), "equivalent", "stale"),
    ]
    verdicts = judge(measured, entries)
    assert (verdicts.total, verdicts.not_run, verdicts.killed, verdicts.killed_by_new) == (100, 7, 94, 1)
    assert (verdicts.equivalent, verdicts.limitation) == (2, 1)
    assert verdicts.untriaged == [_mutation("a", "e"), _mutation("a", "f")]
    assert [entry.why for entry in verdicts.stale] == ["stale"]
    assert verdicts.kill_rate == pytest.approx(95 / 98)


def test_an_entry_without_one_verdict_is_a_problem(tmp_path: Path) -> None:
    triage = tmp_path / "triage.yaml"
    triage.write_text(
        "reference:\n"
        "  - {file: router.py, function: f, from: a, to: b}\n"
        "  - {file: router.py, function: f, from: a, to: c, equivalent: x, limitation: y}\n"
        "elsewhere: []\n",
        encoding="utf-8",
    )
    entries, problems = read_triage(triage)
    assert entries == []
    assert len(problems) == 3
