"""Bad vector files are reported with their path and the fault, never skipped."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from conftest import hello, write_vector
from streamroute.conformance import vectors
from streamroute.conformance.limits import (
    MAX_JSON_DEPTH,
    MAX_VECTOR_EXPANDED,
    MAX_VECTOR_FILE_BYTES,
    TOO_DEEP,
)
from streamroute.conformance.lint import lint
from streamroute.conformance.schemas import SPEC_DIR, first_error
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


# -- the limits of spec/protocol.md section 9 ----------------------------------

# About 1 KB that expands to 9**9 (387 million) strings.
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]\n"
    for previous, name in itertools.pairwise("abcdefghi")
)


def test_an_alias_bomb_is_one_bad_file_refused_before_anything_expands_it(tmp_path: Path) -> None:
    assert len(ALIAS_BOMB) < 1100
    write_vector(tmp_path, ALIAS_BOMB, name="core/bomb.yaml")
    message = _only_error(tmp_path)
    assert message.endswith(
        f"bomb.yaml: is larger than {MAX_VECTOR_EXPANDED} nodes and characters once its aliases "
        "are expanded (the expanded vector size limit)"
    )
    assert "\n" not in message


def test_aliases_within_the_limit_load_as_their_values(tmp_path: Path) -> None:
    text = yaml.safe_dump(hello(), sort_keys=False).replace("delta: Hello", "delta: &greeting Hello", 1)
    write_vector(tmp_path, text.replace("delta: Hello", "delta: *greeting"), name="core/hello.yaml")
    vectors, errors = load_vectors([tmp_path])
    assert errors == []
    assert vectors[0].expected[1]["delta"] == vectors[0].events[2]["delta"] == "Hello"


def test_an_alias_inside_the_node_it_names_is_refused(tmp_path: Path) -> None:
    write_vector(tmp_path, "format: &loop [1, *loop]\n", name="core/loop.yaml")
    assert _only_error(tmp_path).endswith("contains itself (a YAML alias inside the node it names)")


@pytest.mark.parametrize(
    ("depth", "problem"),
    [(MAX_JSON_DEPTH, None), (MAX_JSON_DEPTH + 1, TOO_DEEP), (5000, "exceeded maximum nesting depth")],
)
def test_nesting_past_the_json_depth_limit_is_refused(
    tmp_path: Path, depth: int, problem: str | None
) -> None:
    data = hello()
    data["events"][3]["trace"] = "here"  # at depth 3: in an event, in `events`, in the document
    text = json.dumps(data).replace('"here"', "[" * (depth - 3) + "]" * (depth - 3))  # JSON is YAML
    write_vector(tmp_path, text, name="core/hello.yaml")
    if problem is None:
        assert load_vectors([tmp_path])[1] == []
    else:
        assert problem in _only_error(tmp_path)


def test_a_file_past_the_size_limit_is_not_read(tmp_path: Path) -> None:
    path = write_vector(tmp_path, hello())
    with path.open("a", encoding="utf-8") as file:
        file.write("#" * MAX_VECTOR_FILE_BYTES + "\n")
    assert _only_error(tmp_path).endswith(
        f"is larger than {MAX_VECTOR_FILE_BYTES} bytes (the vector file size limit)"
    )


@pytest.mark.skipif(os.name != "posix", reason="symbolic links and pipes as POSIX has them")
def test_every_entry_named_like_yaml_that_is_not_a_vector_file_is_one_bad_file(tmp_path: Path) -> None:
    core = tmp_path / "core"
    write_vector(tmp_path, hello())
    for name in ("other.yml", "upper.YAML"):
        write_vector(core, hello(), name=name)
    (core / "broken.yaml").symlink_to("nowhere.yaml")
    (core / "ping.yaml").symlink_to("pong.yaml")
    (core / "pong.yaml").symlink_to("ping.yaml")
    (core / "back").symlink_to(tmp_path, target_is_directory=True)
    os.mkfifo(core / "pipe.yaml")
    (core / "notes.txt").write_text("not a vector", encoding="utf-8")
    vectors, errors = load_vectors([tmp_path])
    assert [v.id for v in vectors] == ["core/hello"]
    assert sorted(str(error) for error in errors) == [
        f"{core / 'back'}: is a directory already searched (a link loop)",
        f"{core / 'broken.yaml'}: is a broken symbolic link (to nowhere.yaml)",
        f"{core / 'other.yml'}: vector files end in .yaml",
        f"{core / 'ping.yaml'}: is a symbolic link in a loop",
        f"{core / 'pipe.yaml'}: is not a regular file",
        f"{core / 'pong.yaml'}: is a symbolic link in a loop",
        f"{core / 'upper.YAML'}: vector files end in .yaml",
    ]


# -- each content checked once (the cache of contents that passed) -------------


@pytest.fixture
def checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every vector schema check made, with the cache in a directory of the test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    made: list[object] = []

    def counted(ref: str, instance: object) -> str | None:
        made.append(instance)
        return first_error(ref, instance)

    monkeypatch.setattr(vectors, "first_error", counted)
    return made


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "streamroute" / "vectors").iterdir())


def test_a_content_is_checked_once_and_a_changed_content_again(tmp_path: Path, checks: list[object]) -> None:
    root = tmp_path / "vectors"
    path = write_vector(root, hello())
    first = load_vectors([root])
    assert load_vectors([root]) == first
    assert len(checks) == 1
    path.write_text(path.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    assert load_vectors([root])[1] == []
    assert len(checks) == 2
    data = hello()
    data["expect"]["outcomes"][1]["delta"] = 5
    write_vector(root, data)
    assert load_vectors([root])[1] != []
    assert load_vectors([root])[1] != []
    assert len(checks) == 4  # a content that failed is checked every time
    assert len(_entries(tmp_path)) == 2


def test_a_known_content_still_needs_its_id_to_be_its_path(tmp_path: Path, checks: list[object]) -> None:
    write_vector(tmp_path / "vectors", hello())
    assert load_vectors([tmp_path / "vectors"])[1] == []
    write_vector(tmp_path / "moved", hello(), name="core/elsewhere.yaml")
    assert "must be its path under the vectors root" in _only_error(tmp_path / "moved")
    assert len(checks) == 1


def _document(entry: Path) -> object:
    name, digest, text = entry.read_bytes().split(b"\n", 2)
    assert name == entry.name.encode()
    assert digest == hashlib.blake2b(text, digest_size=20).hexdigest().encode()
    return json.loads(text)


def test_an_entry_holds_the_parsed_document_and_a_load_uses_it(tmp_path: Path, checks: list[object]) -> None:
    write_vector(tmp_path / "vectors", hello())
    [first] = load_vectors([tmp_path / "vectors"])[0]
    [entry] = _entries(tmp_path)
    assert _document(entry) == first.data
    [again] = load_vectors([tmp_path / "vectors"])[0]
    assert again.data == first.data
    assert len(checks) == 1


def _altered(entry: bytes) -> bytes:
    name, digest, text = entry.split(b"\n", 2)
    return b"\n".join([name, digest, text.replace(b'"core/hello"', b'"core/other"')])


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda entry: b"",
        lambda entry: b"0" * 40,
        lambda entry: b"garbage\n",
        lambda entry: entry[:-1],
        _altered,
    ],
    ids=["empty", "another name", "garbage", "cut short", "document altered"],
)
def test_a_corrupt_entry_is_not_trusted_and_is_replaced(
    tmp_path: Path, checks: list[object], corrupt: Callable[[bytes], bytes]
) -> None:
    write_vector(tmp_path / "vectors", hello())
    [first] = load_vectors([tmp_path / "vectors"])[0]
    [written] = _entries(tmp_path)
    written.write_bytes(corrupt(written.read_bytes()))
    loaded, errors = load_vectors([tmp_path / "vectors"])
    assert errors == []
    assert [vector.data for vector in loaded] == [first.data]
    assert len(checks) == 2
    assert _document(written) == first.data


def test_a_document_json_cannot_hold_as_it_is_is_checked_every_time(
    tmp_path: Path, checks: list[object]
) -> None:
    data = hello()
    data["events"][0]["sequence_number_of"] = {1: "a key that is not a string"}  # events are any JSON-ish
    write_vector(tmp_path / "vectors", data)
    for _ in range(2):
        assert load_vectors([tmp_path / "vectors"])[1] == []
    assert len(checks) == 2
    assert not (tmp_path / "cache" / "streamroute" / "vectors").exists()


def test_an_entry_made_by_other_checks_is_not_used(
    tmp_path: Path, checks: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_vector(tmp_path / "vectors", hello())
    load_vectors([tmp_path / "vectors"])
    monkeypatch.setattr(vectors, "_checks_digest", lambda: b"other schemas, code or libraries")
    load_vectors([tmp_path / "vectors"])
    assert len(checks) == 2


def test_the_checks_digest_covers_every_schema_of_the_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    for schema in SPEC_DIR.glob("*.schema.json"):
        (spec / schema.name).write_bytes(schema.read_bytes())
    monkeypatch.setattr(vectors, "SPEC_DIR", spec)
    digests = set()
    for schema in [None, *sorted(spec.iterdir())]:
        if schema is not None:
            schema.write_bytes(schema.read_bytes() + b" ")
        vectors._checks_digest.cache_clear()
        digests.add(vectors._checks_digest())
    vectors._checks_digest.cache_clear()
    assert len(digests) == 1 + len(list(spec.iterdir())) > 4


@pytest.mark.parametrize("where", ["a file", "relative"])
def test_a_cache_that_cannot_be_used_means_no_cache(
    tmp_path: Path, checks: list[object], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    if where == "a file":
        (tmp_path / "cache").write_text("not a directory", encoding="utf-8")
    else:  # a relative XDG_CACHE_HOME is ignored: ~/.cache it is, and here HOME is a file too
        monkeypatch.setenv("XDG_CACHE_HOME", "cache")
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        (tmp_path / "home").write_text("not a directory", encoding="utf-8")
    write_vector(tmp_path / "vectors", hello())
    for _ in range(2):
        vectors_loaded, errors = load_vectors([tmp_path / "vectors"])
        assert errors == []
        assert [v.id for v in vectors_loaded] == ["core/hello"]
    assert len(checks) == 2


def test_a_cut_every_n_bytes_gives_chunks_of_n_and_the_rest(tmp_path: Path) -> None:
    data = hello(id="sse/hello", profile="sse")
    events = data.pop("events")
    data["stream"] = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
    data["cuts"] = [{"every": 7}, "every_byte"]
    data["expect"]["dispatched"] = len(events)
    write_vector(tmp_path / "vectors", data, name="sse/hello.yaml")
    [vector], errors = load_vectors([tmp_path / "vectors"])
    assert errors == []
    every_seven = vector.cuts()[0]
    assert every_seven.label == "every 7 bytes"
    assert b"".join(every_seven.chunks) == vector.stream
    assert {len(chunk) for chunk in every_seven.chunks[:-1]} == {7}
    assert 0 < len(every_seven.chunks[-1]) <= 7
