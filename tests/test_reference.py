"""The reference passes every bundled vector, and says what the spec says."""

from __future__ import annotations

import itertools
import math
import re
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from conftest import calls_made, options_met
from streamroute.bench import growth
from streamroute.conformance.lint import lint
from streamroute.conformance.results import Status
from streamroute.conformance.schemas import BUNDLED_VECTORS, PROTOCOL_RUN_REPLY, SPEC_DIR, first_error
from streamroute.conformance.suite import Suite
from streamroute.conformance.vectors import Vector
from streamroute.reference import EVENT_TYPES, Outcome, Router, fields, serve
from streamroute.reference.fields import Violation
from streamroute.wire.strict_json import loads_strict

REFERENCE_ADAPTERS = [
    f"streamroute.reference.adapter:{name}"
    for name in (
        "router",
        "arguments_done_router",
        "response_done_router",
        "json_text_router",
        "error_ends_stream_router",
        "nested_error_ends_stream_router",
        "output_index_router",
        "fault_ends_stream_router",
    )
]


def _applies(vector: Vector, profiles: frozenset[str], options: dict[str, Any]) -> bool:
    """A vector's profile and options, as the implementation declares them (every call type: the
    reference routes them all)."""
    return vector.profile in profiles and options_met(vector, options)


@pytest.mark.parametrize("adapter", REFERENCE_ADAPTERS)
def test_reference_passes_every_applicable_vector(adapter: str) -> None:
    suite = Suite.prepare(adapter)
    results = [suite.run(vector) for vector in suite.vectors]
    failures = [
        f"{r.vector_id}: {r.message}\n{r.details}"
        for r in results
        if r.status is not Status.PASSED and r.status is not Status.NOT_APPLICABLE
    ]
    assert not failures, "\n".join(failures)
    implementation = suite.implementation
    not_applicable = {r.vector_id for r in results if r.status is Status.NOT_APPLICABLE}
    assert not_applicable == {
        v.id for v in suite.vectors if not _applies(v, implementation.profiles, implementation.options)
    }


def test_the_core_profile_has_at_least_sixty_vectors(bundled: list[Vector]) -> None:
    assert sum(v.profile == "core" for v in bundled) >= 60


def test_the_custom_tools_profile_has_at_least_thirty_vectors(bundled: list[Vector]) -> None:
    assert sum(v.profile == "custom-tools" for v in bundled) >= 30


def test_each_tool_call_point_has_vectors_of_its_own(bundled: list[Vector]) -> None:
    stated = [v.options.get("tool_call_point") for v in bundled]
    only = {point for point in stated if isinstance(point, str)}
    assert {"output_item_done", "arguments_done", "response_done"} <= only


@pytest.mark.slow
def test_bundled_vectors_lint_clean_with_full_coverage() -> None:
    count, problems = lint([BUNDLED_VECTORS], check_coverage=True)
    assert count > 0
    assert problems == []


def _routing_table_types() -> set[str]:
    """The event types named in the first column of spec/core.md's routing table."""
    text = (SPEC_DIR / "core.md").read_text(encoding="utf-8")
    table = text.split("## 9. Routing table", 1)[1].split("\n## ", 1)[0]
    types: set[str] = set()
    for row in table.splitlines():
        if not row.startswith("| `"):
            continue
        names = re.findall(r"`([^`]+)`", row.split("|")[1])
        family = ""
        for name in names:
            if name.startswith("."):
                types.add(family + name)
            else:
                family = name.rsplit(".", 1)[0]
                types.add(name)
    return types


def test_the_routing_table_and_the_reference_name_the_same_event_types() -> None:
    assert _routing_table_types() == set(EVENT_TYPES)


def _call_done(item_id: str, arguments: str) -> dict[str, Any]:
    item = {"id": item_id, "type": "function_call", "call_id": "call_" + item_id, "name": "f"}
    return {"type": "response.output_item.done", "item": {**item, "arguments": arguments}}


def test_nothing_follows_close() -> None:
    """CORE-LIFE-5: `end` is the last outcome a router ever produces."""
    router = Router()
    assert router.feed(_call_done("fc_1", "{}"))[0]["kind"] == "tool.call"
    assert router.close() == [{"kind": "end", "status": "truncated"}]
    after = [_call_done("fc_2", "{}"), {"type": "response.completed"}, {"type": "error", "message": "x"}, 7]
    assert [router.feed(event) for event in after] == [[], [], [], []]
    assert router.close() == []


def _resolve_cost(size: int) -> tuple[int, int]:
    """The calls made and the peak bytes allocated to route a done call whose arguments hold `size`
    `[` inside one string (CORE-LIMIT-2 counts them, and must not pay for them)."""
    event = growth.brackets_in_a_string(size)
    outcomes: list[Outcome] = []
    calls = calls_made(lambda: outcomes.extend(Router().feed(event)))
    assert outcomes[0]["kind"] == "tool.call"
    tracemalloc.start()
    Router().feed(event)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return calls, peak


@pytest.mark.slow
def test_brackets_inside_a_string_cost_linear_work_and_the_value_alone() -> None:
    """Counted, not timed; `streamroute bench` reports the times (bench/growth.py)."""
    small_calls, small_peak = _resolve_cost(1 << 20)
    large_calls, large_peak = _resolve_cost(4 << 20)
    assert large_calls < 4.5 * small_calls  # linear: about 4 at most
    # The call holds the decoded string (one byte a character) and little else.
    assert small_peak < 2 * (1 << 20)
    assert large_peak < 2 * (4 << 20)


def test_a_surrogate_pair_split_over_two_code_points_is_one_character() -> None:
    """CORE-TEXT-8 in a Python caller's strings, where a YAML loader leaves a pair as two code points."""
    router = Router()
    router.feed({"type": "response.output_item.added", "item": {"id": "msg_1", "type": "message"}})
    router.feed(_text("delta", "\ud83d\ude00", 0))
    assert [o["kind"] for o in router.feed(_text("text", "\U0001f600", 0))] == ["text.done"]
    router.feed(_text("delta", "\ud83d", 1))
    router.feed(_text("delta", "\ude00", 1))
    outcomes = router.feed(_text("text", "\U0001f600", 1))
    assert [o.get("code") for o in outcomes] == ["done_mismatch", None]


def _text(field: str, text: str, content_index: int) -> dict[str, Any]:
    """An output_text delta (`field` "delta") or done ("text") of item msg_1."""
    kind = "response.output_text.delta" if field == "delta" else "response.output_text.done"
    return {"type": kind, "item_id": "msg_1", "content_index": content_index, field: text}


def test_the_protocol_server_writes_strict_json_or_an_errored_reply() -> None:
    def reply(seq: int, limit: float) -> dict[str, Any]:
        call = {"kind": "tool.call", "item_id": "fc_1", "call_id": "c", "name": "f", "tool_type": "function"}
        return {"seq": seq, "events": [[{**call, "arguments": {"limit": limit}}]], "close": []}

    assert loads_strict(serve.reply_line(reply(4, 1e300))) == reply(4, 1e300)
    errored = loads_strict(serve.reply_line(reply(5, math.inf)))
    assert first_error(PROTOCOL_RUN_REPLY, errored) is None
    assert (errored["seq"], errored["errored"]) == (5, True)
    assert "cannot be written as JSON" in errored["message"]


# -- the accessors of fields.py: their common case first, the same answers ------------------

JSON_VALUES: list[Any] = [None, True, False, 0, 7, -1, 2**64, 1.5, 1.0, -0.0, "", "x"]
JSON_VALUES += [[], ["x"], {}, {"a": 1}]


def _answer(read: Callable[..., Any], *arguments: Any) -> Any:
    """What an accessor answers: its value, or the code and message of the Violation it raises."""
    try:
        return ("value", read(*arguments))
    except Violation as violation:
        return ("violation", violation.code, violation.message)


def _malformed(field: str, wanted: str, value: Any) -> tuple[str, str, str]:
    shown = "null" if value is None else type(value).__name__
    return ("violation", "malformed_event", f"field {field!r} must be {wanted}, got {shown}")


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_whole(value: Any) -> bool:
    """A number written with a fraction or exponent and worth a whole number: an index (CORE-EVT-12)."""
    return isinstance(value, float) and value.is_integer() and value >= 0


@pytest.mark.parametrize("value", JSON_VALUES, ids=repr)
def test_each_accessor_answers_what_its_type_says_for_every_kind_of_value(value: Any) -> None:
    present, absent = {"f": value}, {}
    string, index = isinstance(value, str), _is_index(value) or _is_whole(value)
    assert _answer(fields.required_str, present, "f") == (
        ("value", value) if string else _malformed("f", "a string", value)
    )
    assert _answer(fields.optional_str, present, "f") == (
        ("value", value) if string or value is None else _malformed("f", "a string", value)
    )
    assert _answer(fields.optional_index, present, "f") == (
        ("value", value) if index or value is None else _malformed("f", "a non-negative integer", value)
    )
    assert _answer(fields.index_or_zero, present, "f") == (
        ("value", 0 if value is None else value)
        if index or value is None
        else _malformed("f", "a non-negative integer", value)
    )
    if index:  # an index is stated as an integer, however it was written
        assert type(fields.optional_index(present, "f")) is int
    assert fields.label(present, "f") == (value if string else None)
    assert fields.natural(present, "f", 9) == (value if _is_index(value) else 9)  # at_ms: no index
    assert _answer(fields.required_str, absent, "f") == _malformed("f", "a string", None)
    assert (fields.optional_str(absent, "f"), fields.index_or_zero(absent, "f")) == (None, 0)


def _reference_separately(event: dict[str, Any]) -> tuple[str | None, int | None]:
    return fields.optional_str(event, "item_id"), fields.optional_index(event, "output_index")


def _delta_separately(event: dict[str, Any], index_field: str | None) -> tuple[Any, ...]:
    index = 0 if index_field is None else fields.index_or_zero(event, index_field)
    return (index, fields.required_str(event, "delta"), *fields.item_reference(event))


def test_the_accessors_of_several_fields_answer_what_the_single_ones_do() -> None:
    """`item_reference` and `delta_fields` take the common case in one call; for every
    combination of values they answer what their single accessors answer, in order."""
    for item_id, output_index in itertools.product(JSON_VALUES, repeat=2):
        event = {"item_id": item_id, "output_index": output_index}
        assert _answer(fields.item_reference, event) == _answer(_reference_separately, event)
    few = [None, True, 0, 3, -1, "", "x", []]
    for index, delta, item_id, output_index in itertools.product(few, repeat=4):
        event = {"content_index": index, "delta": delta, "item_id": item_id, "output_index": output_index}
        for index_field in ("content_index", None):
            fast = _answer(fields.delta_fields, event, index_field)
            assert fast == _answer(_delta_separately, event, index_field), (event, index_field)
