"""The options for library designs (spec/core.md section 12): the harness's own reading of
arguments text agrees with the reference router's, its renaming of response ids is one to one,
and the reference passes every vector under each option value it supports."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from streamroute.conformance.arguments import Refused, nests_deeper, read_arguments
from streamroute.conformance.compare import to_expected_response_ids, to_parsed_arguments
from streamroute.conformance.implementation import Produced, PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.results import Status
from streamroute.conformance.vectors import Vector
from streamroute.reference import router as reference

# Texts on the edges of the rules, beside those the bundled vectors hold.
EDGE_TEXTS = [
    "",
    " ",
    "{}",
    " {} ",
    "[]",
    '"text"',
    "null",
    "1",
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":-Infinity}',
    '{"a":1}x',
    '{"a":1}{"b":2}',
    '{"a":1,}',
    "{'a':1}",
    '{"a":1,"a":1}',
    '{"a":{"b":1,"b":2}}',
    '{"a":1,"b":{"a":2}}',
    '{"n":1e308}',
    '{"n":1e309}',
    '{"n":-1e309}',
    '{"n":1e-400}',
    '{"n":' + "9" * 308 + "}",
    '{"n":' + "9" * 309 + "}",
    '{"n":-' + "9" * 309 + "}",
    '{"n":' + "1" * 5000 + "}",
    '{"n":179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000}',
    '{"n":9007199254740993,"f":0.1,"z":-0.0,"e":1E2}',
    '{"s":"\\ud83d","t":"\\ude00\\ud83d\\ude00"}',
    '{"s":"\\u00e9\\n\\"\\\\"}',
    '{"s":"unterminated',
    '{"a":' + "[" * 127 + "]" * 127 + "}",
    '{"a":' + "[" * 128 + "]" * 128 + "}",
    '{"a":' + "[" * 200 + "]" * 200 + "}",
    '{"a":' + "[" * 200,
    '{"a":"' + "[" * 300 + '"}',
    '{"a":"\\"' + "[" * 300 + '"}',
    "]" * 5 + "[" * 129,
    '{"a":' + "{" * 127 + "}" * 127 + "}",
    '{"a":' + '{"b":' * 128 + "1" + "}" * 128 + "}",
]


def _function_texts(vector: Vector) -> Iterator[str]:
    """Every text a router could parse as a function call's arguments in the vector's stream."""
    deltas: dict[Any, list[str]] = {}
    for event in vector.events:
        if not isinstance(event, dict):
            continue
        item = event.get("item")
        if (
            isinstance(item, dict)
            and item.get("type") == "function_call"
            and isinstance(item.get("arguments"), str)
        ):
            yield item["arguments"]
        if event.get("type") == "response.function_call_arguments.done" and isinstance(
            event.get("arguments"), str
        ):
            yield event["arguments"]
        if event.get("type") == "response.function_call_arguments.delta" and isinstance(
            event.get("delta"), str
        ):
            deltas.setdefault(event.get("item_id"), []).append(event["delta"])
    yield from map("".join, deltas.values())


def _same(left: Any, right: Any) -> bool:
    """Equal JSON values of the same Python types all the way down (so 1 is not 1.0)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_same, left, right))
    return bool(left == right)


def test_the_harness_reads_arguments_as_the_reference_router_does(bundled: list[Vector]) -> None:
    texts = {text for v in bundled if v.stream is None for text in _function_texts(v)} | set(EDGE_TEXTS)
    assert len(texts) > 150  # the bundled vectors' texts are there
    for text in sorted(texts):
        parsed = reference._parse_arguments(text)
        read = read_arguments(text)
        shown = text if len(text) < 80 else text[:77] + "..."
        if isinstance(read, Refused):
            assert isinstance(parsed, reference.ToolError), shown
            assert parsed.code == read.code, shown
        else:
            assert not isinstance(parsed, reference.ToolError), shown
            assert _same(read, parsed), shown


@pytest.mark.parametrize("text", EDGE_TEXTS)
def test_the_depth_check_agrees_with_the_reference(text: str) -> None:
    assert nests_deeper(text) == reference._nests_deeper(text, reference.MAX_ARGUMENTS_DEPTH)


def _call(arguments: Any, tool_type: str = "function") -> dict[str, Any]:
    call = {"kind": "tool.call", "item_id": "fc_1", "call_id": "call_1", "name": "f", "tool_type": tool_type}
    return {**call, ("arguments" if tool_type == "function" else "input"): arguments}


def test_json_text_becomes_what_a_router_makes_of_it() -> None:
    produced = [
        Produced(1, _call('{"city":"Oslo"}')),
        Produced(2, _call("[1]")),
        Produced(3, _call('{"a":1,"a":2}')),
        Produced(4, _call('{"a":' + "[" * 128 + "]" * 128 + "}")),
    ]
    parsed, *refused = to_parsed_arguments(produced)
    assert parsed == Produced(1, _call({"city": "Oslo"}))
    assert [(entry.at, entry.outcome["kind"], entry.outcome["code"]) for entry in refused] == [
        (2, "tool.error", "invalid_arguments"),
        (3, "tool.error", "invalid_json"),
        (4, "tool.error", "too_deep"),
    ]
    assert all(
        entry.outcome["item_id"] == "fc_1" and entry.outcome["call_id"] == "call_1" for entry in refused
    )
    assert all(isinstance(entry.outcome["message"], str) for entry in refused)


def test_only_function_calls_with_text_are_read() -> None:
    kept = [
        Produced(1, _call({"already": "parsed"})),
        Produced(2, _call('{"not": "parsed"}', tool_type="custom")),
        Produced(3, {"kind": "tool.arguments.delta", "item_id": "fc_1", "delta": "{"}),
        Produced("close", ["not", "an", "outcome"]),
    ]
    assert to_parsed_arguments(kept) == kept


# Two responses' lifecycle events, and one without a response.
EXPECTED_IDS = ["resp_a", "resp_a", "resp_b", None]


def _lifecycle(at: int, response_id: str | None) -> dict[str, Any]:
    return {"at": at, "kind": "lifecycle", "event": "created", "response_id": response_id}


def _produced(*ids: str | None) -> list[Produced]:
    return [
        Produced(at, {k: v for k, v in _lifecycle(at, rid).items() if k != "at"})
        for at, rid in enumerate(ids)
    ]


def test_response_ids_are_renamed_when_they_map_one_to_one() -> None:
    expected = [
        _lifecycle(0, "resp_a"),
        _lifecycle(1, "resp_a"),
        _lifecycle(2, "resp_b"),
        _lifecycle(3, None),
    ]
    renamed = to_expected_response_ids(expected, _produced("gw_1", "gw_1", "gw_2", None), None)
    assert [entry.outcome["response_id"] for entry in renamed] == EXPECTED_IDS


@pytest.mark.parametrize(
    "ids",
    [
        ("gw_1", "gw_2", "gw_3", None),  # one response, two ids
        ("gw_1", "gw_1", "gw_1", None),  # two responses, one id
        ("gw_1", "gw_1", "gw_2", "gw_3"),  # an id where the producer states none
        ("gw_1", "gw_1", None, None),  # none where the producer states one
    ],
)
def test_response_ids_that_do_not_map_one_to_one_are_left_as_produced(ids: tuple[str | None, ...]) -> None:
    expected = [
        _lifecycle(0, "resp_a"),
        _lifecycle(1, "resp_a"),
        _lifecycle(2, "resp_b"),
        _lifecycle(3, None),
    ]
    produced = _produced(*ids)
    assert to_expected_response_ids(expected, produced, None) == produced


def test_response_ids_of_outcomes_not_compared_are_not_paired() -> None:
    produced = [
        Produced(0, {"kind": "error", "code": None, "message": "m", "response_id": "gw_0"}),
        *_produced("gw_1"),
    ]
    renamed = to_expected_response_ids([_lifecycle(0, "resp_a")], produced, frozenset({"lifecycle"}))
    assert [entry.outcome["response_id"] for entry in renamed] == ["gw_0", "resp_a"]


REFERENCE = "streamroute.reference.adapter:router"


@pytest.mark.parametrize(
    ("adapter", "declared"),
    [
        ("json_text_router", {}),
        ("error_ends_stream_router", {}),
        # The reference routes whole streams as every router does, and its ids map to themselves.
        ("router", {"stream_start": "response_created"}),
        ("router", {"response_id": "rewritten"}),
    ],
)
def test_the_reference_passes_under_each_option_value_it_supports(
    bundled: list[Vector], adapter: str, declared: dict[str, str]
) -> None:
    implementation = PythonImplementation.load(f"streamroute.reference.adapter:{adapter}")
    implementation = dataclasses.replace(implementation, options={**implementation.options, **declared})
    results = [run_vector(implementation, vector) for vector in bundled]
    failures = [f"{r.vector_id}: {r.message}" for r in results if r.status.is_failure]
    assert not failures, "\n".join(failures)
    passed = {r.vector_id for r in results if r.status is Status.PASSED}
    options = implementation.options
    stating = {v.id for v in bundled if all(options.get(name) == value for name, value in v.options.items())}
    assert stating - {r.vector_id for r in results if r.status is Status.NOT_APPLICABLE} <= passed
