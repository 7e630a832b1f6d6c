"""The spec's requirements as conformance/requirements.py reads them: each states exactly one
BCP 14 keyword in its sentence, which is its level."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamroute.conformance.lint import lint
from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.schemas import SPEC_DIR


def _read(tmp_path: Path, markdown: str) -> tuple[dict[str, str], list[str]]:
    (tmp_path / "profile.md").write_text(markdown, encoding="utf-8")
    found, problems = read_requirements(tmp_path)
    return {requirement.id: requirement.level for requirement in found.values()}, problems


def test_every_requirement_of_the_spec_states_exactly_one_keyword() -> None:
    found, problems = read_requirements(SPEC_DIR)
    assert found
    assert problems == []


@pytest.mark.parametrize(
    ("keyword", "level"),
    [
        ("MUST", "MUST"),
        ("MUST NOT", "MUST"),
        ("REQUIRED", "MUST"),
        ("SHALL", "MUST"),
        ("SHALL NOT", "MUST"),
        ("SHOULD", "SHOULD"),
        ("SHOULD NOT", "SHOULD"),
        ("RECOMMENDED", "SHOULD"),
        ("NOT RECOMMENDED", "SHOULD"),
        ("MAY", "MAY"),
        ("OPTIONAL", "MAY"),
    ],
)
def test_the_level_is_the_keyword_of_the_sentence(tmp_path: Path, keyword: str, level: str) -> None:
    assert _read(tmp_path, f"- **X-A-1** A router {keyword} route it.\n") == ({"X-A-1": level}, [])


def test_a_keyword_on_a_continuation_line_counts(tmp_path: Path) -> None:
    markdown = "- **X-A-1** A router, fed an event it does not\n  know, SHOULD report it.\n"
    assert _read(tmp_path, markdown) == ({"X-A-1": "SHOULD"}, [])


def test_lower_case_words_and_code_are_no_keywords(tmp_path: Path) -> None:
    found, problems = _read(tmp_path, "- **X-A-1** A router must route `MUST` and may stop.\n")
    assert found == {"X-A-1": "MUST"}
    assert problems == [
        f"{tmp_path / 'profile.md'}:1: requirement X-A-1 states no BCP 14 keyword "
        "(MUST, SHOULD, MAY, ...) in its sentence"
    ]


def test_two_different_keywords_are_a_problem(tmp_path: Path) -> None:
    markdown = (
        "- **X-A-1** A router MUST route it and\n  MAY log it.\n\n- **X-A-2** It MUST do A and MUST do B.\n"
    )
    found, problems = _read(tmp_path, markdown)
    assert found == {"X-A-1": "MUST", "X-A-2": "MUST"}
    assert problems == [
        f"{tmp_path / 'profile.md'}:1: requirement X-A-1 states MAY and MUST: one keyword per requirement"
    ]


def test_the_next_list_item_ends_a_requirement(tmp_path: Path) -> None:
    markdown = (
        "- **X-A-1** A router MUST route it.\n- **X-A-2** It SHOULD log it.\n\nProse that MAY say anything.\n"
    )
    assert _read(tmp_path, markdown) == ({"X-A-1": "MUST", "X-A-2": "SHOULD"}, [])


def test_a_level_in_parentheses_is_a_problem(tmp_path: Path) -> None:
    found, problems = _read(tmp_path, "- **X-A-1** (MUST NOT) Routing depends on `sequence_number`.\n")
    assert found == {"X-A-1": "MUST"}
    assert problems == [
        f"{tmp_path / 'profile.md'}:1: requirement X-A-1 states its level in parentheses: "
        "write the keyword in the sentence"
    ]


def test_a_requirement_without_exactly_one_keyword_fails_the_lint(tmp_path: Path) -> None:
    spec, vectors = tmp_path / "spec", tmp_path / "vectors"
    spec.mkdir()
    vectors.mkdir()
    (spec / "profile.md").write_text("- **X-A-1** A router routes it.\n", encoding="utf-8")
    _, problems = lint([vectors], check_coverage=False, spec_dir=spec)
    assert problems == [
        f"{spec / 'profile.md'}:1: requirement X-A-1 states no BCP 14 keyword (MUST, SHOULD, MAY, ...) "
        "in its sentence"
    ]
