"""What the reference and the harness do to stay fast must not change what they answer."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from streamroute.conformance.schemas import OUTCOME, first_error, outcome_kinds, schema, validator
from streamroute.conformance.suite import Suite
from streamroute.reference.patch import PatchParser, parse
from streamroute.reference.router import DELTAS_PER_RUN, Part
from streamroute.wire.event_stream import SPILL_BYTES, Decoder, Event


def _decode(data: bytes, size: int) -> list[Event]:
    decoder = Decoder()
    events: list[Event] = []
    for start in range(0, len(data), size):
        events += decoder.feed(data[start : start + size])
    return events


@pytest.mark.slow
@pytest.mark.parametrize("size", [1, 7, 4096, SPILL_BYTES - 1, SPILL_BYTES + 3, 1 << 20])
def test_a_long_line_decodes_the_same_however_it_is_read(size: int) -> None:
    """A line longer than SPILL_BYTES is decoded as it comes, characters cut between reads included."""
    rng = random.Random(size)
    text = "".join(rng.choice('aé€😀\\"x ') for _ in range(3 * SPILL_BYTES))
    data = ("\ufeffdata: first\n\n" + "data: " + text + "\n" + "data:" + text[:50] + "\n\n").encode()
    data += b"data: \xff\xfe broken " + "é".encode()[:1] + b"\n\nevent: x\ndata\n\n"
    assert _decode(data, size) == [
        Event("first"),
        Event(text + "\n" + text[:50]),
        Event("\ufffd\ufffd broken \ufffd"),
        Event("", "x"),
    ]


def test_an_unfinished_long_line_is_discarded_at_close() -> None:
    decoder = Decoder()
    assert decoder.feed(b"data: a\n\ndata: " + b"x" * (2 * SPILL_BYTES)) == [Event("a")]
    assert decoder.close() is True
    assert decoder.feed(b"data: b\n\n") == [Event("b")]


@pytest.mark.parametrize(
    "count", [0, 1, DELTAS_PER_RUN - 1, DELTAS_PER_RUN, DELTAS_PER_RUN + 1, 5 * DELTAS_PER_RUN + 3]
)
def test_a_part_compares_its_deltas_without_joining_them(count: int) -> None:
    deltas = [f"{index}," for index in range(count)]
    complete = "".join(deltas)
    for stated, agrees in [
        (complete, True),
        (complete + "x", False),
        (complete[:-1], count == 0),
        ("y" + complete[1:], count == 0),
    ]:
        part = Part()
        for delta in deltas:
            part.append(delta)
        problems = part.check(stated, "done text")
        assert (problems == []) is (agrees or count == 0), (stated, problems)
    empty = Part()
    empty.append("")
    assert empty.check("", "done text") == []
    assert empty.check("x", "done text") == []  # checked once: the deltas are gone


def test_an_empty_delta_is_a_delta() -> None:
    part = Part()
    part.append("")
    assert [o["code"] for o in part.check("x", "done text")] == ["done_mismatch"]


def test_the_patch_preview_shares_closed_files_and_equals_a_fresh_parse() -> None:
    text = "*** Begin Patch\n*** Add File: a\n+1\n+2\n*** Delete File: b\n*** Update File: c\n@@\n-x\n+y\n"
    parser = PatchParser()
    previews = []
    for character in text:
        if parser.feed(character):
            previews.append(parser.files())
    parser.feed("*** End Patch\n")
    parser.finish()
    final = parser.files()
    assert final[0] is previews[-1][0]  # built once, when the next header closed it
    assert final == parse(text + "*** End Patch\n")


def _kind_branches(node: Any) -> dict[str, str]:
    """Every `if kind == K then $ref` of the outcome schema's `stated`, nested ones included."""
    found: dict[str, str] = {}
    for branch in node.get("allOf", []):
        condition = branch.get("if", {}).get("properties", {}).get("kind", {})
        if "const" in condition:
            assert condition["const"] not in found
            found[condition["const"]] = branch["then"]["$ref"]
        elif "then" in branch:
            found.update(_kind_branches(branch["then"]))
    return found


def test_the_outcome_schema_applies_exactly_the_entry_of_each_kind() -> None:
    """What makes checking `fields`, `of_kind/K` and `message` the same as the whole schema."""
    stated = schema(OUTCOME + "#/$defs/stated")
    assert stated["allOf"][0] == {"$ref": "#/$defs/fields"}
    kinds = set(schema(OUTCOME + "#/$defs/kind")["anyOf"][0]["enum"])
    kinds |= set(schema(OUTCOME + "#/$defs/execution_kind")["enum"])
    kinds |= set(schema(OUTCOME + "#/$defs/session_kind")["enum"])
    assert _kind_branches(stated) == {kind: f"#/$defs/of_kind/{kind}" for kind in kinds}
    assert outcome_kinds() == kinds
    assert schema(OUTCOME)["allOf"] == [{"$ref": "#/$defs/stated"}, {"$ref": "#/$defs/message"}]


def _outcomes() -> list[Any]:
    suite = Suite.prepare()
    produced: list[Any] = []
    for vector in suite.vectors:
        if vector.stream is None:
            produced += [entry.outcome for entry in suite.implementation.produce(vector)]
    return produced


@pytest.mark.slow
def test_checking_by_kind_agrees_with_the_whole_schema() -> None:
    rng = random.Random(7)
    outcomes = _outcomes()
    assert len(outcomes) > 500
    values: list[Any] = [None, 1, "x", True, [], {}, -1, {"a": 1}]
    cases = list(outcomes)
    for outcome in outcomes:
        for _ in range(3):  # each outcome with one field removed, changed or added
            broken = copy.deepcopy(outcome)
            name = rng.choice([*broken, "message", "code", "call_id", "pointer", "input", "arguments"])
            if name in broken and rng.random() < 0.5:
                del broken[name]
            else:
                broken[name] = rng.choice(values)
            cases.append(broken)
    invalid = 0
    whole = validator(OUTCOME)
    for case in cases:
        by_kind = first_error(OUTCOME, case) is None
        assert by_kind == whole.is_valid(case), case
        invalid += not by_kind
    assert invalid > len(outcomes)  # the broken ones are mostly invalid, so both ways were exercised
