"""Texts, JSON values and call arguments, each drawn with what it means.

Characters that matter to routers come often: JSON's own, every UTF-8 length, a newline,
U+FFFD. Arguments are mostly an object, sometimes not one, not JSON (RFC 8259), JSON whose
meaning a parser must not choose (CORE-CALL-10, CORE-CALL-11), or nested too deep
(CORE-LIMIT-2), each with its `Verdict`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from .choices import Choices
from .plans import Verdict
from .vocabulary import MAX_BUFFERED_BYTES, MAX_DEPTH

ALPHABET = 'ab {}[]",:\\é€中😀\n\ufffd'
# Code point ranges a character is drawn from besides the alphabet: control characters, ASCII,
# the rest of the basic plane around the surrogates, and the astral planes.
_RANGES = ((0, 0x1F), (0x20, 0x7E), (0x80, 0xD7FF), (0xE000, 0xFFFD), (0x10000, 0x10FFFF))


def char(c: Choices) -> str:
    if c.coin():
        return c.pick(ALPHABET)
    lo, hi = c.pick(_RANGES)
    return chr(c.integer(lo, hi))


def text(c: Choices, max_size: int = 12, chars: Callable[[Choices], str] = char) -> str:
    return "".join(chars(c) for _ in range(c.below(max_size + 1)))


def small_text(c: Choices) -> str:
    """A short extra delta: closing brackets, a space, a quote, a non-ASCII letter."""
    return text(c, 3, lambda c: c.pick('}] x"é'))


_INTEGERS = (0, 1, -1, 2**31, -(2**53), 2**53)
_FLOATS = (0.0, -0.0, 0.5, -2.25, 0.1, 1e-300, 5e-324, 2.0**53, -(2.0**52) - 0.5)


def _integer(c: Choices) -> int:
    return c.pick(_INTEGERS) if c.coin() else c.integer(-(2**53), 2**53)


def _float(c: Choices) -> float:
    """Below 2**53 in magnitude: a larger double with an integer value is written by some JSON
    encoders (JavaScript's) as an integer literal whose exact value is not the double's."""
    if c.coin():
        return c.pick(_FLOATS)
    magnitude = math.ldexp(c.below(1 << 53), -c.below(1100))
    return -magnitude if c.coin() else magnitude


def _scalar(c: Choices) -> Any:
    kind = c.below(5)
    if kind == 0:
        return None
    if kind == 1:
        return c.coin()
    if kind == 2:
        return _integer(c)
    if kind == 3:
        return _float(c)
    return text(c, 8)


def json_value(c: Choices, leaves: int = 8) -> Any:
    """A JSON value of at most `leaves` scalars, nested in lists and objects of up to 3 entries."""
    if leaves <= 1 or c.below(3) == 0:
        return _scalar(c)
    count = c.below(4)
    share = max(1, (leaves - 1) // max(count, 1))
    if c.coin():
        return [json_value(c, share) for _ in range(count)]
    return {text(c, 5): json_value(c, share) for _ in range(count)}


def argument_object(c: Choices) -> dict[str, Any]:
    return {text(c, 6): json_value(c) for _ in range(c.below(5))}


def dumps(c: Choices, value: Any) -> str:
    """`value` as JSON text: non-ASCII as it is or as \\u escapes (astral ones as surrogate pairs),
    compact or spaced."""
    ensure_ascii = c.coin()
    separators = c.pick([(",", ":"), (", ", ": ")])
    return json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)


# Text that is not JSON (RFC 8259) for any parser, by the mistake a lenient parser makes with it.
NOT_JSON_ANYWHERE: tuple[tuple[str, ...], ...] = (
    (
        "",
        "{",
        '{"city": "Paris"',
        "{'a': 1}",
        '{"a": 01}',
        '{"a": 1,}',
        "{a: 1}",
        '{"a": "\x01"}',
        '{"a": "\\x"}',
    ),
    ('{"a": 1} x', '{"city": "Paris"}}', '{"a": 1}{"b": 2}', '{"a": tru}', '{"a": 1} // done'),
)
# JSON whose meaning RFC 8259 leaves to the parser, which the strict rules refuse (CORE-CALL-3,
# CORE-CALL-10, CORE-CALL-11) and a platform's parser reads (`arguments_parser: platform`, core.md 12.9).
LEFT_TO_THE_PARSER: tuple[tuple[str, ...], ...] = (
    ('{"a": NaN}', '{"a": Infinity}', '{"a": [-Infinity]}'),
    ('{"a": 1, "a": 2}', '{"x": {"b": [1], "b": [1]}}', '{"a": 1, "\\u0061": 2}'),
    ('{"n": 1e999}', '{"n": [-1e400]}', '{"n": 2e308}'),
    ('{"n": 1' + "0" * 400 + "}", '{"n": [-9' + "9" * 330 + "]}"),
)
NOT_JSON = NOT_JSON_ANYWHERE + LEFT_TO_THE_PARSER
NOT_OBJECTS = ("[]", "[1, 2]", '"text"', "5", "-1.5", "null", "true", " [] ")
# Arguments a parser reads in one way only, which a careless one reads otherwise: a number too small
# for a binary64 is 0 (RFC 8259 section 6 leaves only the large ones to the parser).
UNDERFLOWS: tuple[tuple[str, Any], ...] = (
    ('{"n": 1e-999}', {"n": 0.0}),
    ('{"n": [5e-324, -1e-400]}', {"n": [5e-324, -0.0]}),
)

Objects = Callable[[Choices], tuple[Any, "str | None"]]  # an object and where it fails a schema


def any_object(c: Choices) -> tuple[Any, str | None]:
    return argument_object(c), None


def _nested(depth: int, inner: str) -> tuple[str, Any]:
    """Arguments whose nesting is `depth` levels (the object is level 1)."""
    text, value = inner, json.loads(inner)
    for _ in range(depth - 1):
        text, value = f"[{text}]", [value]
    return f'{{"a": {text}}}', {"a": value}


_SHAPES: tuple[str, ...] = ("object",) * 6 + ("not_json",) * 6 + ("not_object", "not_object", "deep", "deep")
_SHAPES += ("strings", "underflow", "encoded_twice")


def argument_text(c: Choices, objects: Objects, schema: bool) -> tuple[str, Verdict]:
    """Arguments text and what it means: mostly an object, sometimes not one, not JSON, too deep.
    `schema`: the tool has an argument schema, which only `objects` knows how to meet or fail."""
    shape = c.pick(_SHAPES)
    if schema and shape in ("deep", "strings"):
        return '{"a": ' + "[" * (MAX_DEPTH + 1), Verdict("too_deep")
    if shape == "object" or (schema and shape in ("underflow", "encoded_twice")):
        value, pointer = objects(c)
        return dumps(c, value), Verdict(None, value, pointer)
    if shape == "not_json":
        group = c.pick(NOT_JSON)
        return c.pick(group), Verdict("invalid_json", parser_decides=group in LEFT_TO_THE_PARSER)
    if shape == "not_object":
        return c.pick(NOT_OBJECTS), Verdict("invalid_arguments")
    if shape == "encoded_twice":  # a string holding an object's JSON text is a string, no object
        return json.dumps(dumps(c, objects(c)[0])), Verdict("invalid_arguments")
    if shape == "underflow":
        written, value = c.pick(UNDERFLOWS)
        return written, Verdict(None, value)
    if shape == "strings":  # brackets inside strings do not nest (CORE-LIMIT-2)
        value = {"a": "[" * c.integer(130, 300), "b": "{"}
        return json.dumps(value), Verdict(None, value)
    depth = c.pick([MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 7])
    if depth > MAX_DEPTH and c.coin():  # too deep, whether or not it is JSON at all
        return '{"a": ' + "[" * depth, Verdict("too_deep")
    nested, value = _nested(depth, c.pick(["1", "null", '"x"']))
    return nested, Verdict(None, value) if depth <= MAX_DEPTH else Verdict("too_deep")


def big(c: Choices) -> str:
    """A text around CORE-LIMIT-1's 1 MiB in UTF-8, cut into few large deltas. It ends in 5,000
    2-, 3- or 4-byte characters or lone surrogates (3 bytes, CORE-LIMIT-4), so a router that counts
    characters or counts a surrogate as 1 byte sees it 5,000 bytes or more smaller, and one that
    counts a character beyond the BMP as two 3-byte surrogates (CESU-8) 10,000 bytes larger; the
    rest is ASCII, so a vector of it stays well below the vector file size limit."""
    unit = c.pick(["a", "é", "€", "\ud800", "😀"])
    size = len(unit.encode("utf-8", "surrogatepass"))
    # At the limit, just past it, well past it, far past it: a router sees deltas after the one
    # that passes the limit (CORE-LIMIT-5) only when the text goes on after it.
    over = c.pick([0, 1, 1, 2, 700, 30_000, 30_000])
    tail = unit * 5_000
    return "a" * (MAX_BUFFERED_BYTES + over - len(tail) * size) + tail


def split_surrogates(text: str) -> str:
    """The text with each astral character as its two UTF-16 halves, as two lone surrogates."""
    out = []
    for character in text:
        if ord(character) > 0xFFFF:
            code = ord(character) - 0x10000
            out += [chr(0xD800 + (code >> 10)), chr(0xDC00 + (code & 0x3FF))]
        else:
            out.append(character)
    return "".join(out)
