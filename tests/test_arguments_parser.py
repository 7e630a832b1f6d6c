"""Option `arguments_parser` (spec/core.md section 12.9): the vectors whose function arguments a
platform's JSON parser reads otherwise than the strict rules state `arguments_parser: strict`, so
an implementation that declares `platform` is never judged on what its parser decides."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from streamroute.conformance.vectors import Vector
from streamroute.reference.fields import loads_arguments


def _argument_texts(vector: Vector) -> Iterator[str]:
    """Every text a router may parse as a function call's arguments: stated whole, or the deltas."""
    deltas: dict[Any, str] = {}
    for event in vector.events if vector.stream is None else ():
        if not isinstance(event, dict):
            continue
        if event.get("type") == "response.function_call_arguments.delta" and isinstance(
            event.get("delta"), str
        ):
            deltas[event.get("item_id")] = deltas.get(event.get("item_id"), "") + event["delta"]
        response = event.get("response")
        outputs = response.get("output") if isinstance(response, dict) else None
        for holder in (event, event.get("item"), *(outputs if isinstance(outputs, list) else ())):
            if isinstance(holder, dict) and isinstance(holder.get("arguments"), str):
                yield holder["arguments"]
    yield from deltas.values()


def _read(loads: Any, text: str) -> str | None:
    """What a parser makes of the text, as JSON text; None when it refuses it."""
    try:
        return json.dumps(loads(text), sort_keys=True)
    except (ValueError, RecursionError):
        return None


def _platform_reads_otherwise(text: str) -> bool:
    return _read(json.loads, text) != _read(loads_arguments, text)


def test_a_platform_parser_reads_these_texts_otherwise() -> None:
    for text in ('{"a": 1, "a": 2}', '{"n": 1e999}', '{"n": NaN}', '{"n": ' + "9" * 400 + "}"):
        assert _platform_reads_otherwise(text), text
    for text in ('{"a": 1}', '{"a": 1} x', "[1]", '{"n": 1e-999}'):
        assert not _platform_reads_otherwise(text), text


def test_the_vectors_a_platform_parser_reads_otherwise_state_the_strict_parser(bundled: list[Vector]) -> None:
    unstated = [
        vector.id
        for vector in bundled
        if any(_platform_reads_otherwise(text) for text in _argument_texts(vector))
        and vector.options.get("arguments_parser") != "strict"
    ]
    assert unstated == []
