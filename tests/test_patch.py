"""The `patch` consumer's parser, throttle and cost, and the consumer catalogue's plumbing."""

from __future__ import annotations

import time
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
        ("*** Begin Patch\n*** Update File: a\n*** End Patch", 3, "changes nothing"),
        ("*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n", 4, "End of File"),
        ("*** Begin Patch\n*** Update File: a\n-x\n*** End of File\n+y\n", 5, "after '*** End of File'"),
        ("*** Begin Patch\n*** Update File: a\n-x\n*** Move to: b\n", 4, "every line of an update"),
        ("*** Begin Patch\n*** Add File: \n", 2, "file header"),
        ("*** Begin Patch\n*** Delete File: a\n*** End Patch\n\nthanks\n", 5, "after"),
        ("*** Begin Patch\n*** Delete File: a\n", 2, "does not end"),
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


def _big_patch(size: int) -> str:
    """A valid patch of exactly `size` characters (ASCII, so bytes): half an added file, half hunks."""
    head, tail = "*** Begin Patch\n*** Add File: big.txt\n", "*** End Patch\n"
    update = "*** Update File: src/app.py\n@@ def main():\n"
    added = ("+" + "x" * 62 + "\n") * (size // 2 // 64)
    rest = size - len(head) - len(added) - len(update) - len(tail)
    count, pad = divmod(rest, 16)
    if pad == 1:
        count, pad = count - 1, pad + 16
    hunks = " same\n-old\n+new\n" * count + ("+" + "y" * (pad - 2) + "\n" if pad else "")
    text = head + added + update + hunks + tail
    assert len(text) == size
    return text


def _feed_one_character_at_a_time(text: str) -> float:
    consumer = Patch()
    started = time.perf_counter()
    for character in text:
        consumer.consume(character, 0)
    answer = consumer.finish(text, 0)
    elapsed = time.perf_counter() - started
    assert isinstance(answer, Finished)
    return elapsed


def test_feeding_a_patch_one_character_at_a_time_costs_linear_time() -> None:
    small, large = _big_patch(256 * 1024), _big_patch(1024 * 1024)
    # Best of two, so one pause of the machine does not decide; a quadratic
    # parser would take about 16 times as long for 4 times the input.
    small_time = min(_feed_one_character_at_a_time(small) for _ in range(2))
    large_time = min(_feed_one_character_at_a_time(large) for _ in range(2))
    assert large_time / small_time < 8, (small_time, large_time)


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
