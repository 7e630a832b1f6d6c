"""A function call's arguments text, read as a conforming router reads it.

Option `call_arguments: json_text` (spec/core.md section 12) lets an
implementation hand over a call's arguments as the JSON text the API
delivers; the harness then reads that text here, under the router's rules:
CORE-LIMIT-2 (nesting deeper than 128 levels, checked first, whatever else
is wrong), CORE-CALL-3 (RFC 8259 JSON, an object), CORE-CALL-10 (no member
name twice in one object) and CORE-CALL-11 (every number a binary64 can
hold). The harness never imports the reference: this is its own reading.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

MAX_ARGUMENTS_DEPTH = 128  # CORE-LIMIT-2


@dataclass(frozen=True)
class Refused:
    """What a conforming router makes of a text it refuses: the `tool.error` code and why."""

    code: str  # too_deep, invalid_json or invalid_arguments
    message: str


# Outside a string, a run of openers or of closers, or a whole string (an unterminated one runs to
# the end): one search per token, and a string's brackets are never seen.
_TOKEN = re.compile(r'[\[{]+|[\]}]+|"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)


def nests_deeper(text: str, limit: int = MAX_ARGUMENTS_DEPTH) -> bool:
    """Whether more than `limit` arrays and objects are open at once, strings aside. A closer with
    nothing open closes nothing (the text is not JSON then, but may still nest too deep)."""
    depth = 0
    for token in _TOKEN.finditer(text):
        first = text[token.start()]
        if first in "[{":
            depth += token.end() - token.start()
            if depth > limit:
                return True
        elif first in "]}":
            depth = max(depth - (token.end() - token.start()), 0)
    return False


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _binary64(literal: str) -> float | int:
    """A number as a binary64 reads it must be finite (CORE-CALL-11); integers keep their value."""
    number = float(literal)
    if math.isinf(number):
        raise ValueError(f"the number {literal[:24]} overflows a binary64")
    return int(literal) if re.fullmatch(r"-?\d+", literal) else number


def _members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members = dict(pairs)
    if len(members) < len(pairs):  # CORE-CALL-10
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise ValueError(f"the member name {name!r} appears twice in one object")
            seen.add(name)
    return members


_DECODER = json.JSONDecoder(
    parse_constant=_not_json, parse_float=_binary64, parse_int=_binary64, object_pairs_hook=_members
)


def read_arguments(text: str) -> dict[str, Any] | Refused:
    """The arguments object a conforming router takes from `text`, or how it refuses the text."""
    if nests_deeper(text):
        return Refused("too_deep", f"arguments nest deeper than {MAX_ARGUMENTS_DEPTH} levels")
    try:
        value = _DECODER.decode(text)
    except ValueError as exc:
        return Refused("invalid_json", f"arguments are not JSON: {exc}")
    if not isinstance(value, dict):
        return Refused("invalid_arguments", f"arguments must be a JSON object, got {type(value).__name__}")
    return value
