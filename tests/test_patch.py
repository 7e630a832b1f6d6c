"""The `patch` consumer's parser, throttle and cost, and the consumer catalogue's plumbing."""

from __future__ import annotations

from typing import Any

import pytest
from streamroute.reference import Router, consumers_for
from streamroute.reference.consumers import CATALOGUE, Finished, Patch, Rejected
from streamroute.reference.patch import PatchError, PatchParser, parse

PATCH = (
    "*** Begin Patch\n"
    "*** Add File: docs/notes.md\n"
    "+# Notes\n"
    "+\n"
    "*** Update File: src/config.py\n"
    "*** Move to: src/settings.py\n"
    "@@ class Config:\n"
    "     debug = False\n"
    "-    timeout = 30\n"
    "+    timeout = 60\n"
    "\n"
    "@@\n"
    "-VERSION = 1\n"
    "+VERSION = 2\n"
    "*** End of File\n"
    "*** Delete File: src/legacy.py\n"
    "*** End Patch\n"
)

EXPECTED = [
    {"op": "add", "path": "docs/notes.md", "content": "# Notes\n\n"},
    {
        "op": "update",
        "path": "src/config.py",
        "move_to": "src/settings.py",
        "hunks": [
            {
                "context": "class Config:",
                "lines": ["     debug = False", "-    timeout = 30", "+    timeout = 60", " "],
                "end_of_file": False,
            },
            {"context": None, "lines": ["-VERSION = 1", "+VERSION = 2"], "end_of_file": True},
        ],
    },
    {"op": "delete", "path": "src/legacy.py"},
]


def test_a_patch_parses_to_its_preview() -> None:
    assert parse(PATCH) == EXPECTED


def test_crlf_is_tolerated() -> None:
    assert parse(PATCH.replace("\n", "\r\n")) == EXPECTED


@pytest.mark.parametrize("cut", range(0, len(PATCH) + 1, 7))
def test_a_cut_anywhere_gives_the_same_preview(cut: int) -> None:
    parser = PatchParser()
    parser.feed(PATCH[:cut])
    parser.feed(PATCH[cut:])
    parser.finish()
    assert parser.files() == EXPECTED


def test_fed_one_character_at_a_time_the_preview_only_grows() -> None:
    parser = PatchParser()
    previous: list[dict[str, Any]] = []
    changes = 0
    for character in PATCH:
        if parser.feed(character):
            changes += 1
            files = parser.files()
            assert len(files) >= len(previous)
            assert files != previous
            previous = files
    parser.finish()
    assert parser.files() == previous == EXPECTED
    assert changes == PATCH.count("\n") - 2  # every line but Begin Patch and End Patch


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", 1, "does not end"),
        ("*** Begin Patch", 1, "does not end"),
        ("Begin Patch\n", 1, "first line"),
        ("*** Begin Patch\n+x\n", 2, "file header"),
        ("*** Begin Patch\n*** Add File: a\nx\n", 3, "starts with '+'"),
        ("*** Begin Patch\n*** Delete File: a\n+x\n", 3, "file header"),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch", 2, "has no hunk"),
        ("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** Delete File: c\n", 2, "has no hunk"),
        ("*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n", 4, "without a line"),
        ("*** Begin Patch\n*** Update File: a\n@@\n@@ f\n", 4, "without a line"),
        ("*** Begin Patch\n*** Update File: a\n-x\n@@\n*** End Patch\n", 5, "has no line"),
        ("*** Begin Patch\n*** Update File: a\n-x\n*** End of File\n x\n", 5, "starts with '@@'"),
        ("*** Begin Patch\n*** Update File: a\n-x\n*** End of File\n+y\n", 5, "after '*** End of File'"),
        ("*** Begin Patch\n*** Update File: a\n-x\n*** Move to: b\n", 4, "every line of an update"),
        ("*** Begin Patch\n*** Add File: \n", 2, "file header"),
        ("*** Begin Patch\n*** Delete File: a\n*** End Patch\n\nthanks\n", 5, "after"),
        ("*** Begin Patch\n*** Delete File: a\n", 2, "does not end"),
        ("*** End Patch", 1, "first line"),
        ("*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** End Patch\n", 4, "after"),
        ("*** Begin Patch\n*** Environment ID: \t\n", 2, "environment id is empty"),
        ("*** Begin Patch\n*** Environment ID: a\n*** Environment ID: b\n", 3, "second environment"),
        ("*** Begin Patch\n*** Delete File: a\n*** Environment ID: b\n", 3, "file header"),
        ("*** Begin Patch\x1c\n", 1, "first line"),
    ],
)
def test_a_malformed_patch_names_its_line(text: str, line: int, words: str) -> None:
    with pytest.raises(PatchError) as caught:
        parse(text)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"line {line}: ")
    assert words in str(caught.value)


def test_blank_lines_after_end_patch_are_fine() -> None:
    assert parse("*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n  \r\n") == [
        {"op": "delete", "path": "a"}
    ]


def test_in_an_update_lines_are_trimmed_at_the_end_only() -> None:
    """As Codex: an indented marker inside an update is a context line, not a header."""
    text = (
        "*** Begin Patch\n*** Update File: a.txt\n *** Move to: b.txt\n-old\n"
        " *** Update File: c.txt\n @@ f\n *** End of File\n@@ g  \n+new\n*** End of File \t\n*** End Patch\n"
    )
    assert parse(text) == [
        {
            "op": "update",
            "path": "a.txt",
            "move_to": None,
            "hunks": [
                {
                    "context": None,
                    "lines": [
                        " *** Move to: b.txt",
                        "-old",
                        " *** Update File: c.txt",
                        " @@ f",
                        " *** End of File",
                    ],
                    "end_of_file": False,
                },
                {"context": "g", "lines": ["+new"], "end_of_file": True},
            ],
        }
    ]


def test_elsewhere_markers_are_trimmed_on_both_sides_and_paths_kept_as_written() -> None:
    text = (
        "\u3000*** Begin Patch\u0085\n *** Add File:  a b.txt \n+1\n\t*** Delete File: c\n  *** End Patch\n"
    )
    assert parse(text) == [
        {"op": "add", "path": " a b.txt", "content": "1\n"},
        {"op": "delete", "path": "c"},
    ]


def _update(path: str, *hunks: tuple[list[str], bool]) -> dict[str, Any]:
    return {
        "op": "update",
        "path": path,
        "move_to": None,
        "hunks": [{"context": None, "lines": lines, "end_of_file": end} for lines, end in hunks],
    }


@pytest.mark.parametrize(
    ("head", "quiet", "tail", "expected"),
    [
        (  # blank lines after *** End of File are nothing
            "*** Begin Patch\n*** Update File: a\n@@\n+x\n*** End of File\n",
            "\n \t\n",
            "@@\n-y\n*** End Patch\n",
            [_update("a", (["+x"], True), (["-y"], False))],
        ),
        (  # *** End of File before an update's first hunk ends nothing
            "*** Begin Patch\n*** Update File: a\n",
            "*** End of File\n",
            "-x\n*** End Patch\n",
            [_update("a", (["-x"], False))],
        ),
        (  # an environment id after *** Begin Patch is no part of the preview
            "*** Begin Patch\n",
            "*** Environment ID:remote \n",
            "*** Delete File: a\n*** End Patch\n",
            [{"op": "delete", "path": "a"}],
        ),
    ],
)
def test_lines_that_change_nothing(head: str, quiet: str, tail: str, expected: list[dict[str, Any]]) -> None:
    parser = PatchParser()
    parser.feed(head)
    assert parser.feed(quiet) is False
    parser.feed(tail)
    parser.finish()
    assert parser.files() == expected


@pytest.mark.parametrize(
    "last",
    [" *** End Patch", "*** End Patch\t", "*** End Patch\r"],
)
def test_an_unterminated_last_line_trimmed_to_end_patch_ends_any_state(last: str) -> None:
    """As Codex's finish: in an update too, where an indented marker is otherwise a context line."""
    for body in ["*** Update File: a\n-x\n", "*** Add File: a\n+x\n", "*** Delete File: a\n*** End Patch\n"]:
        parser = PatchParser()
        parser.feed("*** Begin Patch\n" + body + last)
        parser.finish()
        assert parser.ended


def _feed(consumer: Patch, deltas: list[tuple[str, int]]) -> list[Any]:
    return [consumer.consume(delta, at_ms) for delta, at_ms in deltas]


def test_the_throttle_shows_the_first_change_at_once_then_one_per_500_ms() -> None:
    consumer = Patch()
    lines = ["*** Begin Patch\n*** Add File: a\n", "+1\n", "+2\n", "+3\n", "+4\n", "x"]
    answers = _feed(consumer, list(zip(lines, [0, 100, 499, 500, 900, 1400], strict=True)))
    shown = [a["files"][0]["content"] if a else None for a in answers]
    assert shown == ["", None, None, "1\n2\n3\n", None, "1\n2\n3\n4\n"]


def test_finish_flushes_the_pending_preview_then_finishes() -> None:
    consumer = Patch()
    text = "*** Begin Patch\n*** Add File: a\n+1\n*** End Patch"
    _feed(consumer, [(text[:32], 0), (text[32:], 10)])
    answer = consumer.finish(text, 10)
    files = [{"op": "add", "path": "a", "content": "1\n"}]
    assert answer == Finished(updates=({"files": files},), result={"files": files})


def test_finish_judges_the_complete_input_not_the_stream() -> None:
    good = "*** Begin Patch\n*** Add File: a\n+1\n*** End Patch"
    garbled = Patch()
    _feed(garbled, [(good.replace("+1", "1"), 0)])
    assert garbled.finish(good, 0) == Finished(
        result={"files": [{"op": "add", "path": "a", "content": "1\n"}]}
    )
    lost = Patch()
    _feed(lost, [(good, 0)])
    answer = lost.finish(good.replace("+1", "1"), 0)
    assert isinstance(answer, Rejected)
    assert answer.message.startswith("line 3: ")


@pytest.mark.parametrize("piece", [1, 3, 64])
def test_each_character_is_parsed_once_however_the_text_is_cut(
    piece: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What makes the cost linear (section 9, Cost): every line reaches the grammar exactly once."""
    parsed: list[str] = []
    parse_line = PatchParser._parse_line

    def counting(self: PatchParser, raw: str) -> bool:
        parsed.append(raw)
        return parse_line(self, raw)

    monkeypatch.setattr(PatchParser, "_parse_line", counting)
    parser = PatchParser()
    for start in range(0, len(PATCH), piece):
        parser.feed(PATCH[start : start + piece])
    parser.finish()
    assert parsed == PATCH.split("\n")[:-1]  # PATCH ends with "\n": no last partial line


def test_consumers_for_installs_the_catalogue_in_one_line() -> None:
    tools = [
        {"name": "apply_patch", "type": "custom", "consumer": "patch"},
        {"name": "query", "type": "custom", "namespace": "warehouse", "consumer": "echo"},
        {"name": "plain", "type": "custom"},
        {"name": "get_weather", "type": "function", "consumer": "echo"},
    ]
    registry = consumers_for(tools)
    assert registry == {(None, "apply_patch"): CATALOGUE["patch"], ("warehouse", "query"): CATALOGUE["echo"]}
    assert isinstance(registry[(None, "apply_patch")](), Patch)


def test_a_consumer_that_cannot_be_created_is_contained() -> None:
    def broken_factory() -> Patch:
        raise RuntimeError("no preview today")

    router = Router({(None, "apply_patch"): broken_factory})
    item = {
        "id": "ctc_1",
        "type": "custom_tool_call",
        "call_id": "call_1",
        "name": "apply_patch",
        "input": "",
    }
    added = router.feed({"type": "response.output_item.added", "output_index": 0, "item": item})
    assert [(o["kind"], o["code"], o["item_id"], o["call_id"]) for o in added] == [
        ("error", "consumer_failed", "ctc_1", "call_1")
    ]
    delta = router.feed({"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "delta": "x"})
    assert [o["kind"] for o in delta] == ["tool.arguments.delta"]
    done = router.feed({"type": "response.output_item.done", "item": {**item, "input": "x"}})
    assert [o["kind"] for o in done] == ["tool.call"]


def test_a_payload_cannot_override_the_routers_fields() -> None:
    class Liar:
        def consume(self, delta: str, at_ms: int) -> dict[str, Any]:
            return {"kind": "tool.call", "call_id": "call_other", "item_id": "x", "note": delta}

        def finish(self, input_text: str, at_ms: int) -> Finished:
            return Finished()

    router = Router({(None, "t"): Liar})
    item = {"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_1", "name": "t", "input": ""}
    router.feed({"type": "response.output_item.added", "item": item})
    outcomes = router.feed(
        {"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "delta": "d"}
    )
    assert outcomes[1] == {"kind": "diff.update", "item_id": "ctc_1", "call_id": "call_1", "note": "d"}
