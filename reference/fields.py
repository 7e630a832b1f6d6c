"""Typed access to the fields of one decoded event, and the strict JSON of a call's arguments.

Every accessor either returns a value of the promised type or raises
`Violation`, so the router's handlers read fields without checking types
themselves and a malformed event can never reach the router's state.

Speed lives here. The router reads a few fields of nearly every event of a
stream (its type, its delta, an index, an item id), so each accessor takes
the common case first, with an exact type test (`type(value) is str` is
cheaper than `isinstance`, and excludes `bool` from the integers for free),
and leaves anything else to the general test after it, which decides it and
names what is wrong. Both answer the same: tests/test_reference.py feeds
each accessor every kind of JSON value.
"""

from __future__ import annotations

import json
import math
from typing import Any

from streamroute.wire.strict_json import not_json

from .types import JSONObject


def _overflow(literal: str) -> ValueError:
    shown = literal if len(literal) <= 24 else literal[:20] + "..."
    return ValueError(f"the number {shown} is beyond the range of a binary64")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise _overflow(literal)
    return value


def _finite_int(literal: str) -> int:
    if len(literal) < 309:  # below 1e308, sign included: finite
        return int(literal)
    # Python reads any integer exactly; JavaScript, Go and Rust read it as a binary64.
    try:
        if len(literal.lstrip("-")) <= 309:  # the largest finite binary64 is about 1.8e308
            value = int(literal)
            float(value)
            return value
    except OverflowError:
        pass
    raise _overflow(literal)


def _unique_members(pairs: list[tuple[str, Any]]) -> JSONObject:
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise ValueError(f"the member name {name!r} appears twice in one object")
            seen.add(name)
    return obj


# A call's arguments (CORE-CALL-3, -10, -11): strict JSON, and the two I-JSON (RFC 7493)
# rules without which parsers disagree: unique member names, numbers a binary64 can hold.
_ARGUMENTS = json.JSONDecoder(
    parse_constant=not_json,
    parse_float=_finite_float,
    parse_int=_finite_int,
    object_pairs_hook=_unique_members,
)


def loads_arguments(text: str) -> Any:
    """`loads_strict` (streamroute.wire.strict_json), also refusing (ValueError) a member name
    repeated in one object and a number that overflows a binary64."""
    return _ARGUMENTS.decode(text)


class Violation(Exception):
    """An event the router refuses to route, reported as an `error` outcome."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _malformed(field: str, wanted: str, value: object) -> Violation:
    return Violation("malformed_event", f"field {field!r} must be {wanted}, got {_type_name(value)}")


def required_str(obj: JSONObject, field: str, where: str = "") -> str:
    value = obj.get(field)
    if type(value) is str:  # the common case, first
        return value
    if not isinstance(value, str):
        raise _malformed(where + field, "a string", value)
    return value


def optional_str(obj: JSONObject, field: str, where: str = "") -> str | None:
    value = obj.get(field)
    if value is None or type(value) is str:  # the common cases, first
        return value
    if not isinstance(value, str):
        raise _malformed(where + field, "a string", value)
    return value


def optional_index(obj: JSONObject, field: str) -> int | None:
    value = obj.get(field)
    if value is None or (type(value) is int and value >= 0):  # the common cases, first
        return value
    if type(value) is float and value.is_integer() and value >= 0:  # 1.0, 1e0: worth 1 (CORE-EVT-12)
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _malformed(field, "a non-negative integer", value)
    return value


def index_or_zero(obj: JSONObject, field: str) -> int:
    """`optional_index`, 0 when absent: a content part's or summary's index (CORE-ITEM-7)."""
    value = obj.get(field)
    if type(value) is int and value >= 0:  # the common case, first
        return value
    return optional_index(obj, field) or 0


def item_reference(obj: JSONObject) -> tuple[str | None, int | None]:
    """`optional_str` of `item_id` and `optional_index` of `output_index`: the two fields
    that name the item of an item event (CORE-ITEM-2, -3), read in one call."""
    item_id, output_index = obj.get("item_id"), obj.get("output_index")
    if type(item_id) is str and (output_index is None or (type(output_index) is int and output_index >= 0)):
        return item_id, output_index  # the common case, first
    return optional_str(obj, "item_id"), optional_index(obj, "output_index")


def delta_fields(obj: JSONObject, index_field: str | None) -> tuple[int, str, str | None, int | None]:
    """The fields of a delta event, read in one call: its index (`index_or_zero` of
    `index_field`; 0 for an event without one), its `delta`, and its `item_reference`."""
    index = 0 if index_field is None else obj.get(index_field, 0)
    delta, item_id, output_index = obj.get("delta"), obj.get("item_id"), obj.get("output_index")
    if (
        type(index) is int
        and index >= 0
        and type(delta) is str
        and type(item_id) is str
        and (output_index is None or (type(output_index) is int and output_index >= 0))
    ):  # the common case, first
        return index, delta, item_id, output_index
    index = 0 if index_field is None else index_or_zero(obj, index_field)
    return (index, required_str(obj, "delta"), *item_reference(obj))


def required_object(obj: JSONObject, field: str) -> JSONObject:
    value = obj.get(field)
    if not isinstance(value, dict):
        raise _malformed(field, "an object", value)
    return value


def optional_object(obj: JSONObject, field: str) -> JSONObject | None:
    value = obj.get(field)
    if value is not None and not isinstance(value, dict):
        raise _malformed(field, "an object", value)
    return value


def label(obj: JSONObject, field: str) -> str | None:
    """A field read only as a label: its value when it is a string, else None, never malformed."""
    value = obj.get(field)
    return value if type(value) is str else None


def agent_name(obj: JSONObject) -> str | None:
    """An item's `agent`, read as a label: its `agent_name` when it is an object with a string one,
    else None, never malformed (CORE-TEXT-12, CORE-EVT-11)."""
    agent = obj.get("agent")
    return label(agent, "agent_name") if type(agent) is dict else None


def natural(obj: JSONObject, field: str, otherwise: int) -> int:
    """A field read only when valid: a JSON integer (not a bool) of 0 or more, else `otherwise`."""
    value = obj.get(field)
    return value if type(value) is int and value >= 0 else otherwise
