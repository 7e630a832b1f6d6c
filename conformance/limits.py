"""The limits the harness enforces (spec/protocol.md, section 9), each defined once.

Whatever an adapter writes, or a vector file, a capture or a report holds, the
harness keeps at most these sizes of it. Past one, the input is refused with a
line that names the limit; it is never held whole, and never repeated whole in
a message.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from enum import Enum
from typing import Any

from streamroute.wire.strict_json import STRICT, not_json

KiB = 1 << 10
MiB = 1 << 20

# One line an adapter writes on stdout, its line feed not counted.
MAX_REPLY_LINE_BYTES = 64 * MiB
# The end of an adapter's stderr that the harness keeps, to show when the adapter fails.
STDERR_TAIL_BYTES = 16 * KiB
# A vector file as stored, and its document once every YAML alias in it is expanded, counted in
# nodes (each mapping, sequence and scalar once per place it appears) plus string characters.
MAX_VECTOR_FILE_BYTES = 4 * MiB
MAX_VECTOR_EXPANDED = 16 * MiB
# Arrays and objects (YAML sequences and mappings) open at once, in every document the harness
# parses: twice CORE-LIMIT-2's 128, so that arguments a router may route fit in any envelope.
MAX_JSON_DEPTH = 256
# A one-line message (a result's, a schema error's, an adapter's), and a result's details, as the
# console and reports show them; spec/report.schema.json states both as `maxLength`.
MAX_MESSAGE_CHARS = 1000
MAX_DETAILS_CHARS = 64 * KiB


def clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: its start, and how long it was when it is cut."""
    if len(text) <= limit:
        return text
    mark = f"… (cut: {len(text)} characters in all)"
    return text[: max(limit - len(mark), 0)] + mark


class Shown(Enum):
    """Where a text that an implementation supplied (its name, version, language, messages, outcomes)
    is shown; `printable` escapes it for each."""

    LINES = "lines of a terminal or a CI log"
    LINE = "one line of a terminal or a CI log"
    MARKDOWN = "one line of Markdown: a heading or a table cell"
    XML = "lines of XML character data or attribute values (JUnit)"


# What no terminal should be handed: control characters (C0 but tab and line feed, DEL, C1), which
# act on it, and lone surrogates (an implementation may send one), which no encoding prints.
_UNPRINTABLE = "\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff"
_ESCAPED = {
    Shown.LINES: re.compile(f"[{_UNPRINTABLE}]"),
    # One line: its line breaks too, those of Unicode included, and tab.
    Shown.LINE: re.compile(f"[{_UNPRINTABLE}\t\n\u2028\u2029]"),
    Shown.MARKDOWN: re.compile(f"[{_UNPRINTABLE}\t\n\u2028\u2029]"),
    # XML 1.0 cannot carry U+FFFE and U+FFFF even escaped.
    Shown.XML: re.compile(f"[{_UNPRINTABLE}\ufffe\uffff]"),
}
# What the GitHub Actions runner reads as a workflow command in a line of a job's log: `::` at
# its start, leading white space aside, and the older `##[` anywhere in it (actions/runner,
# src/Runner.Common/ActionCommand.cs, `TryParseV2` and `TryParse`). Its first character is escaped.
_COMMAND = re.compile(r"^(?P<space>\s*):(?=:)|#(?=#\[)", re.MULTILINE)
# What GitHub's Markdown reads as syntax inside a line (a text shown here never starts one): code,
# emphasis, links and images, raw HTML, entities, strikethrough, table cells, math. Each is shown as
# written with a backslash before it (CommonMark section 2.4), and so is a backslash.
_MARKDOWN_SYNTAX = re.compile(r"([\\`*_\[\]<>&~|$])")


def _escaped(character: str) -> str:
    return f"\\u{ord(character):04x}"


def printable(text: str, shown: Shown = Shown.LINES) -> str:
    """`text` as it can be shown where `shown` says, so that what an implementation says is never read
    as anything but text: each character that would act on a terminal or cannot be written there as
    its escape (`\\u001b`); in one line, its line breaks too; in a log, the start of a workflow
    command; in Markdown, every character of its syntax, behind a backslash."""
    text = _ESCAPED[shown].sub(lambda found: _escaped(found.group()), text)
    if shown is Shown.MARKDOWN:
        return _MARKDOWN_SYNTAX.sub(r"\\\1", text)
    return _COMMAND.sub(lambda found: (found.group("space") or "") + _escaped(found.group()[-1]), text)


TOO_DEEP = f"nests arrays and objects deeper than {MAX_JSON_DEPTH} levels (the JSON depth limit)"


class TooDeep(ValueError):
    """JSON text that is JSON, but nested deeper than MAX_JSON_DEPTH."""


def loads(text: str) -> Any:
    """JSON text as RFC 8259 defines it (`NaN` and `Infinity` are not JSON), nested at most
    MAX_JSON_DEPTH levels: the value, or ValueError saying what is wrong (TooDeep for that)."""
    return _decoded(STRICT, text)


def loads_noting_duplicates(text: str) -> tuple[Any, list[str]]:
    """As `loads`, and each member name an object of the text holds more than once, as often as it
    is repeated. Of two members of one name the last is kept, as `loads` (and JavaScript's
    `JSON.parse`) keeps it; RFC 8259 leaves that to each parser (section 4)."""
    repeated: list[str] = []

    def members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        value = dict(pairs)
        if len(value) < len(pairs):
            seen: set[str] = set()
            for name, _ in pairs:
                if name in seen:
                    repeated.append(name)
                seen.add(name)
        return value

    return _decoded(json.JSONDecoder(parse_constant=not_json, object_pairs_hook=members), text), repeated


def _decoded(decoder: json.JSONDecoder, text: str) -> Any:
    try:
        value = decoder.decode(text)
    except RecursionError:  # deeper than the parser's own stack allows: deeper than the limit too
        raise TooDeep(TOO_DEEP) from None
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:  # too few brackets to nest past the limit
        return value
    if extent(value, MAX_JSON_DEPTH, None) is not None:  # JSON cannot contain itself: too deep
        raise TooDeep(TOO_DEEP)
    return value


def _children(value: dict[Any, Any] | list[Any]) -> Iterator[Any]:
    return itertools.chain.from_iterable(value.items()) if isinstance(value, dict) else iter(value)


def _leaf_size(value: Any) -> int:
    return 1 + len(value) if isinstance(value, str) else 1


def extent(value: Any, max_depth: int, max_size: int | None) -> str | None:
    """What is wrong with the shape of `value`, or None: nested deeper than `max_depth`, larger
    than `max_size` (nodes plus string characters, a value that several places share counted at
    each), or containing itself. One pass without recursion, each shared value measured once."""
    if not isinstance(value, (dict, list)):
        return None
    measured: dict[int, tuple[int, int]] = {}  # id -> (size, depth) of a container measured
    # The open containers, outermost first: each with its children still to see, and its size
    # and depth so far.
    path: list[tuple[Any, Iterator[Any], list[int]]] = [(value, _children(value), [1, 0])]
    open_ids = {id(value)}
    total = 1  # the size of everything seen so far
    while path:
        container, children, totals = path[-1]
        child = next(children, path)  # `path` itself: no child left
        if child is path:
            path.pop()
            open_ids.discard(id(container))
            measured[id(container)] = size_depth = (totals[0], totals[1] + 1)
            if path:
                _add(path[-1][2], size_depth)
            continue
        if isinstance(child, (dict, list)) and id(child) not in measured:
            if id(child) in open_ids:
                return "contains itself (a YAML alias inside the node it names)"
            if len(path) == max_depth:
                return TOO_DEEP
            path.append((child, _children(child), [1, 0]))
            open_ids.add(id(child))
            total += 1  # the rest of it is counted as it is seen
        else:
            size_depth = measured[id(child)] if isinstance(child, (dict, list)) else (_leaf_size(child), 0)
            if len(path) + size_depth[1] > max_depth:
                return TOO_DEEP
            _add(totals, size_depth)
            total += size_depth[0]
        if max_size is not None and total > max_size:
            return (
                f"is larger than {max_size} nodes and characters once its aliases are expanded "
                "(the expanded vector size limit)"
            )
    return None


def _add(totals: list[int], size_depth: tuple[int, int]) -> None:
    totals[0] += size_depth[0]
    totals[1] = max(totals[1], size_depth[1])
