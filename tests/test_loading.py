"""Bad vector files are reported with their path and the fault, never skipped."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import hello, write_vector
from streamroute.conformance.cli import main
from streamroute.conformance.limits import (
    MAX_JSON_DEPTH,
    MAX_VECTOR_EXPANDED,
    MAX_VECTOR_FILE_BYTES,
    TOO_DEEP,
)
from streamroute.conformance.lint import lint
from streamroute.conformance.report import Report
from streamroute.conformance.vectors import load_vectors

pytest_plugins = ["pytester"]


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


def test_an_outcome_expected_at_an_event_the_vector_lacks_is_an_error(tmp_path: Path) -> None:
    """No run can be judged against it: the judge would look for an event that is not there."""
    data = hello()
    data["expect"]["outcomes"].append({"at": 9, "kind": "end", "status": "completed"})
    write_vector(tmp_path, data)
    assert "expected outcome 4 names event 9, but there are 4" in _only_error(tmp_path)


@pytest.mark.parametrize(
    ("field", "value", "pointer"),
    [
        ("parameters", {"type": "text"}, "/tools/0/parameters/type"),
        ("permitted", {"required": "city"}, "/tools/0/permitted/required"),
    ],
)
def test_a_tool_whose_schema_is_no_json_schema_is_an_error(
    tmp_path: Path, field: str, value: Any, pointer: str
) -> None:
    """An executor would refuse the schema when it builds the tool: the vector is bad, not the run."""
    data = hello()
    data["tools"] = [{"name": "get_weather", "type": "function", field: value}]
    write_vector(tmp_path, data)
    assert pointer in _only_error(tmp_path)


def test_lint_finds_what_the_schema_cannot(tmp_path: Path) -> None:
    data = hello(spec=["CORE-TEXT-1", "CORE-NOPE-1"], level="SHOULD")
    data["expect"]["outcomes"].insert(0, {"at": 3, "kind": "end", "status": "completed"})
    data["expect"]["compare"] = ["lifecycle", "text.delta", "ignored"]
    write_vector(tmp_path, data)
    count, problems = lint([tmp_path], check_coverage=False)
    assert count == 1
    text = "\n".join(problems)
    assert "cites CORE-NOPE-1, which the spec does not define" in text
    assert "level SHOULD, but the strongest cited requirement is MUST" in text
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


# -- JSON data only, and integers as the harness counts them -------------------


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        ("cuts: !!pairs [{10: 20}, {30: 40}]", "a YAML !!pairs is not JSON data"),
        ("cuts: !!omap [{a: 1}]", "a YAML !!omap is not JSON data"),
        ("cuts: !!set {? a}", "a YAML !!set is not JSON data"),
        ("title: 2026-12-01", "a YAML timestamp (quote a date to make it a string) is not JSON data"),
        ("title: !!binary aGVsbG8=", "a YAML !!binary value is not JSON data"),
        ("title: {1: one}", "the key 1 is not a string, as JSON's are"),
        ("title: {null: none}", "the key None is not a string, as JSON's are"),
        ("title: .nan", ".nan is not a JSON number"),
        ("title: -.inf", "-.inf is not a JSON number"),
    ],
)
def test_what_json_cannot_hold_is_refused_where_it_is_written(
    tmp_path: Path, written: str, problem: str
) -> None:
    """A vector file holds JSON data: a YAML value that JSON has no place for would reach the schema
    check as something else (a `!!pairs` list of tuples as arrays of offsets, a key 1 as "1")."""
    key = written.partition(":")[0]
    text = yaml.safe_dump({k: v for k, v in hello().items() if k != key}, sort_keys=False)
    write_vector(tmp_path, f"{text}{written}\n", name="core/hello.yaml")
    message = _only_error(tmp_path)
    assert problem in message
    assert f"line {text.count(chr(10)) + 1}" in message


def test_integers_written_as_floats_are_read_as_integers_where_the_harness_counts(tmp_path: Path) -> None:
    """JSON Schema takes 2.0 for an integer; the harness counts with `at`, `cuts` and `dispatched`,
    so there it is the integer 2 (spec/vectors.md section 1), and every cut and index works."""
    data = hello(id="sse/hello", profile="sse")
    events = data.pop("events")
    data["stream"] = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
    data["cuts"] = [{"every": 2.0}, [0.0, 10.0], "every_byte"]
    data["expect"]["dispatched"] = float(len(events))
    data["expect"]["outcomes"][0]["at"] = 0.0
    write_vector(tmp_path, data, name="sse/hello.yaml")
    [vector], errors = load_vectors([tmp_path])
    assert errors == []
    cuts = vector.data["cuts"]
    counted = [vector.expected[0]["at"], vector.dispatched, cuts[0]["every"], *cuts[1]]
    assert counted == [0, len(events), 2, 0, 10]
    assert all(type(number) is int for number in counted)
    assert [cut.label for cut in vector.cuts()] == ["every 2 bytes", "cut at 0, 10", "every byte"]
    assert b"".join(vector.cuts()[0].chunks) == vector.stream


def test_a_lone_surrogate_in_an_sse_stream_is_a_bad_vector_file(tmp_path: Path) -> None:
    """`!json` can write a lone surrogate into `stream`, whose bytes are its UTF-8 encoding, which
    has none: the file is bad (bytes that are not UTF-8 are written as stream_base64)."""
    data = hello(id="sse/hello", profile="sse")
    data.pop("events")
    data["stream"] = "STREAM"
    data["cuts"] = ["every_byte", []]
    data["expect"]["dispatched"] = 1
    written = r"""stream: !json '"data: \ud83d\n\n"'"""
    text = yaml.safe_dump(data, sort_keys=False).replace("stream: STREAM", written)
    write_vector(tmp_path, text, name="sse/hello.yaml")
    assert _only_error(tmp_path).endswith(
        "stream holds a lone surrogate (U+D83D at character 6), which has no UTF-8 bytes; "
        "write bytes that are not UTF-8 as stream_base64"
    )


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


def _sse_hello_in_pieces(pieces: str) -> tuple[dict[str, Any], str]:
    """The hello vector as an sse vector, its stream one string, and its file with `stream:` as
    the YAML `pieces` instead."""
    data = hello(id="sse/hello", profile="sse")
    events = data.pop("events")
    data["stream"] = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
    data["cuts"] = [{"every": 7}, []]
    data["expect"]["dispatched"] = len(events)
    text = yaml.safe_dump({k: v for k, v in data.items() if k != "stream"}, sort_keys=False)
    return data, f"{text}stream: {pieces}\n"


def test_a_stream_in_pieces_is_the_text_they_join_in_order(tmp_path: Path) -> None:
    """spec/vectors.md section 1: strings and lists of pieces, joined in order, aliases repeating a
    piece; the vector is the one whose stream is the joined text."""
    data, _ = _sse_hello_in_pieces("")
    whole: str = data["stream"]
    first, rest = json.dumps(whole[:20]), json.dumps(whole[20:])
    pad = ": a comment the decoder skips\n"  # three times before the events, twice by an alias
    _, text = _sse_hello_in_pieces(f"[[&pad {json.dumps(pad)}, [*pad, *pad]], {first}, [{rest}]]")
    write_vector(tmp_path, text, name="sse/hello.yaml")
    [vector], errors = load_vectors([tmp_path])
    assert errors == []
    assert vector.stream == (pad * 3 + whole).encode("utf-8")
    assert b"".join(vector.cuts()[0].chunks) == vector.stream


@pytest.mark.parametrize(
    ("pieces", "problem"),
    [
        ("&loop [a, *loop]", "stream contains itself (a YAML alias inside the node it names)"),
        (
            "[&k " + "x" * 1024 + ", &m [" + ", ".join(["*k"] * 1024) + "], " + ", ".join(["*m"] * 129) + "]",
            "stream joins 136315904 bytes, more than a vector's 134217728",
        ),
    ],
)
def test_a_stream_in_pieces_past_its_bounds_is_a_bad_vector_file(
    tmp_path: Path, pieces: str, problem: str
) -> None:
    """Measured before anything joins it: one line naming the bound, never a MemoryError."""
    _, text = _sse_hello_in_pieces(pieces)
    write_vector(tmp_path, text, name="sse/hello.yaml")
    assert _only_error(tmp_path).endswith(problem)


def _valid_looking(root: Path) -> Path:
    """Files that are lint-clean or look it, each of which crashed a run of streamroute 1.3: integers
    written as floats in an sse vector and in a failing one, a lone surrogate in an sse stream,
    `!!pairs` in cuts. And one vector that is just right."""
    write_vector(root, hello())
    data = hello(id="sse/floats", profile="sse")
    events = data.pop("events")
    data["stream"] = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
    data["cuts"] = [{"every": 2.0}, [0.0, 7.0]]
    data["expect"]["dispatched"] = float(len(events))
    write_vector(root, data, name="sse/floats.yaml")
    wrong = hello(id="core/wrong")
    wrong["expect"]["outcomes"][0]["at"] = 0.0
    wrong["expect"]["outcomes"][1]["delta"] = "Help"
    write_vector(root, wrong)
    for name, key, written in [
        ("surrogate", "stream", "!json '\"\\ud83d\"'"),
        ("pairs", "cuts", "!!pairs [{20: 10}]"),
    ]:
        text = yaml.safe_dump(
            {k: v for k, v in {**data, "id": f"sse/{name}"}.items() if k != key}, sort_keys=False
        )
        write_vector(root, f"{text}{key}: {written}\n", name=f"sse/{name}.yaml")
    return root


def test_valid_looking_files_end_in_a_report_and_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _valid_looking(tmp_path / "vectors")
    report = tmp_path / "report.jsonl"
    assert main(["run", "--vectors", str(root), "--report", str(report), "-q", "--no-cache"]) == 1
    out = capsys.readouterr().out
    loaded = Report.load(report)
    assert {line["id"]: line["status"] for line in loaded.vectors} == {
        "core/hello": "passed",
        "core/wrong": "failed",
        "sse/floats": "passed",
    }
    errors = sorted(f"{Path(error['path']).name}: {error['message']}" for error in loaded.file_errors)
    assert errors[0].startswith("pairs.yaml: not valid YAML: a YAML !!pairs is not JSON data")
    assert errors[1].startswith("surrogate.yaml: ")
    assert "stream holds a lone surrogate (U+D83D at character 0)" in errors[1]
    assert "Traceback" not in out
    assert main(["lint", "--vectors", str(root), "--no-cache"]) == 1
    problems = capsys.readouterr().out.splitlines()
    assert problems[-1] == "streamroute lint: 3 vectors, 2 problems"


def test_valid_looking_files_under_pytest_fail_as_bad_files_and_the_others_run(
    pytester: pytest.Pytester,
) -> None:
    root = _valid_looking(pytester.path / "vectors")
    result = pytester.runpytest("--streamroute", "--streamroute-vectors", str(root), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=3)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
