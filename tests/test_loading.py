"""Bad vector files are reported with their path and the fault, never skipped."""

from __future__ import annotations

from pathlib import Path

from conftest import hello, write_vector
from streamroute.conformance.lint import lint
from streamroute.conformance.vectors import load_vectors


def _only_error(root: Path) -> str:
    vectors, errors = load_vectors([root])
    assert vectors == []
    assert len(errors) == 1
    return str(errors[0])


def test_a_valid_file_loads(tmp_path: Path) -> None:
    write_vector(tmp_path, hello())
    vectors, errors = load_vectors([tmp_path])
    assert errors == []
    assert [v.id for v in vectors] == ["core/hello"]


def test_invalid_yaml_names_the_file_and_line(tmp_path: Path) -> None:
    path = write_vector(tmp_path, "format: 1\nid: [unclosed\n", name="core/broken.yaml")
    message = _only_error(tmp_path)
    assert str(path) in message
    assert "not valid YAML" in message
    assert "line 2" in message


def test_a_duplicate_key_is_an_error_not_a_silent_overwrite(tmp_path: Path) -> None:
    write_vector(tmp_path, "format: 1\nformat: 1\n", name="core/twice.yaml")
    assert "duplicate key 'format'" in _only_error(tmp_path)


def test_a_schema_error_names_the_json_pointer(tmp_path: Path) -> None:
    data = hello()
    data["expect"]["outcomes"][1]["delta"] = 5
    path = write_vector(tmp_path, data)
    message = _only_error(tmp_path)
    assert str(path) in message
    assert "/expect/outcomes/1/delta" in message


def test_a_stated_message_is_refused(tmp_path: Path) -> None:
    data = hello()
    data["expect"]["outcomes"][0]["message"] = "free text"
    write_vector(tmp_path, data)
    assert "/expect/outcomes/0" in _only_error(tmp_path)


def test_the_id_must_be_the_path(tmp_path: Path) -> None:
    write_vector(tmp_path, hello(), name="core/elsewhere.yaml")
    assert "must be its path under the vectors root, 'core/elsewhere'" in _only_error(tmp_path)


def test_duplicate_ids_across_roots_are_an_error(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    write_vector(first, hello())
    write_vector(second, hello())
    vectors, errors = load_vectors([first, second])
    assert [v.id for v in vectors] == ["core/hello"]
    assert len(errors) == 1
    assert "duplicate id 'core/hello'" in str(errors[0])
    assert str(first) in str(errors[0])


def test_a_missing_directory_is_an_error(tmp_path: Path) -> None:
    assert "is not a directory" in _only_error(tmp_path / "absent")


def test_lint_finds_what_the_schema_cannot(tmp_path: Path) -> None:
    data = hello(spec=["CORE-TEXT-1", "CORE-NOPE-1"], level="SHOULD")
    data["expect"]["outcomes"].insert(0, {"at": 9, "kind": "end", "status": "completed"})
    data["expect"]["compare"] = ["lifecycle", "text.delta", "ignored"]
    write_vector(tmp_path, data)
    count, problems = lint([tmp_path], check_coverage=False)
    assert count == 1
    text = "\n".join(problems)
    assert "cites CORE-NOPE-1, which the spec does not define" in text
    assert "level SHOULD, but the strongest cited requirement is MUST" in text
    assert "expected outcome 0 names event 9, but there are 4" in text
    assert "expected outcome 1 (event 0) comes before an earlier event's" in text
    assert "expected outcome 0 is a end, which `compare` leaves out" in text


def test_lint_coverage_names_requirements_without_vectors(tmp_path: Path) -> None:
    write_vector(tmp_path, hello())
    _, problems = lint([tmp_path], check_coverage=True)
    assert any("requirement CORE-CALL-1 has no vector" in p for p in problems)
    assert not any("CORE-TEXT-1 has" in p for p in problems)
