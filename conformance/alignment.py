"""The aligned comparison of a failed vector, as a report keeps it (spec/report.schema.json
`$defs/comparison`): expected and actual outcomes paired row by row, each with the event that
produced it."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

from .compare import compare, json_equal
from .differences import Pair
from .implementation import Produced
from .limits import clip, printable
from .vectors import At

Row = dict[str, Any]  # one row of an aligned comparison, as JSON data

CONTEXT = 2  # equal outcomes shown on each side of a difference
MAX_ROWS = 60
MAX_CELL_CHARS = 300
# A field that differs from its pair is never cut for the cell's length: it is kept whole up to this
# many characters, beyond the cell's own 300 (spec/report.schema.json `$defs/cell`).
MAX_DIFFERING_CHARS = 10_000
# Past this many outcomes on both sides, outcomes pair by position: aligning costs up to the
# product of the two lengths, and an implementation must not make the harness hang.
MAX_ALIGNED = 4000
_ERROR_KINDS = ("error", "tool.error")  # whose `message`, free text, is shown though never compared


def _meets(want: dict[str, Any], got: Produced) -> bool:
    return compare([want], [got], None) is None


def pair_outcomes(expected: Sequence[dict[str, Any]], actual: Sequence[Produced]) -> list[Pair]:
    """Expected and actual outcomes paired by a longest common subsequence over what is compared,
    so that one outcome too many or too few is one unpaired row. An actual outcome stands for the
    expected one it meets: the one at its own position if it meets that, else the first from the
    same event and of the same kind."""
    if len(expected) + len(actual) > MAX_ALIGNED:
        return list(itertools.zip_longest(range(len(expected)), range(len(actual))))
    keys = [json.dumps(want, sort_keys=True, default=repr) for want in expected]
    by_place: dict[tuple[At, str], list[int]] = {}
    for index, want in enumerate(expected):
        by_place.setdefault((want["at"], want["kind"]), []).append(index)
    stands_for: list[object] = []
    for index, got in enumerate(actual):
        if index < len(expected) and _meets(expected[index], got):
            stands_for.append(keys[index])
            continue
        place = by_place.get((got.at, got.outcome["kind"]), [])
        met = next((keys[i] for i in place if _meets(expected[i], got)), None)
        stands_for.append(met if met is not None else ("unmatched", index))
    pairs: list[Pair] = []
    matcher = SequenceMatcher(None, keys, stands_for, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs += zip(range(i1, i2), range(j1, j2), strict=True)
            continue
        for step in range(max(i2 - i1, j2 - j1)):
            pairs.append((i1 + step if i1 + step < i2 else None, j1 + step if j1 + step < j2 else None))
    return pairs


def _event(events: Sequence[Any] | None, at: At) -> str | None:
    if events is None or at == "close" or not 0 <= at < len(events):
        return None
    event = events[at]
    kind = event.get("type") if isinstance(event, dict) else None
    return clip(_json(kind)[1:-1], MAX_CELL_CHARS) if isinstance(kind, str) else None


def _json(value: Any) -> str:
    """Compact JSON as it reads, and as it prints."""
    return printable(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _cell(
    index: int, at: At, fields: dict[str, Any], events: Sequence[Any] | None, kept: Sequence[str] = ()
) -> dict[str, Any]:
    """One outcome of a row, its fields as text in MAX_CELL_CHARS, the fields in `kept` (those
    that differ from its pair's) whole: when the text is too long, the others are cut first."""
    pieces = {name: f"{name}={_json(value)}" for name, value in fields.items() if name != "kind"}
    shown = " ".join(pieces.values())
    if len(shown) > MAX_CELL_CHARS and not set(kept) & set(pieces):
        shown = clip(shown, MAX_CELL_CHARS)
    elif len(shown) > MAX_CELL_CHARS:
        room = MAX_CELL_CHARS - sum(len(pieces[name]) + 1 for name in kept if name in pieces)
        for name, piece in pieces.items():
            if name not in kept:
                pieces[name] = piece if len(piece) < room else f"{name}=…"
                room -= len(pieces[name]) + 1
        shown = clip(" ".join(pieces.values()), MAX_CELL_CHARS + MAX_DIFFERING_CHARS)
    cell = {"index": index, "at": at, "kind": fields["kind"], "fields": shown}
    return {**cell, "event": _event(events, at)}


def aligned(
    expected: Sequence[dict[str, Any]],
    actual: Sequence[Produced],
    events: Sequence[Any] | None,
    pairs: Sequence[Pair] | None = None,
) -> list[Row]:
    """The rows of an aligned comparison: `equal`, `differs` (paired, unequal), `missing` (expected
    only), `unexpected` (actual only), each with its cells; equal rows further than CONTEXT from a
    difference, and rows past MAX_ROWS, are counted in `omitted` rows. `events` names the event of
    each `at` (None for an sse vector, whose events the harness does not decode)."""
    pairs = pair_outcomes(expected, actual) if pairs is None else pairs
    differs = {
        index
        for index, (i, j) in enumerate(pairs)
        if i is None or j is None or not _meets(expected[i], actual[j])
    }
    shown = {near for index in differs for near in range(index - CONTEXT, index + CONTEXT + 1)}
    rows: list[Row] = []
    for index, (i, j) in enumerate(pairs):
        if index not in shown or len(rows) >= MAX_ROWS:
            if rows and rows[-1]["op"] == "omitted":
                rows[-1]["count"] += 1
            else:
                rows.append({"op": "omitted", "count": 1})
            continue
        row: Row = {"op": "equal" if index not in differs else "differs"}
        kept: list[str] = []
        if row["op"] == "differs" and i is not None and j is not None:
            kept = _differing(expected[i], actual[j].outcome)
            if kept:
                row["fields"] = kept
        if i is not None:
            want = expected[i]
            fields = {k: v for k, v in want.items() if k != "at"}
            row["expected"] = _cell(i, want["at"], fields, events, kept)
        if j is not None:
            got = actual[j]
            shows_message = got.outcome["kind"] in _ERROR_KINDS
            fields = {k: v for k, v in got.outcome.items() if k != "message" or shows_message}
            row["actual"] = _cell(j, got.at, fields, events, kept)
        if i is None or j is None:
            row["op"] = "missing" if j is None else "unexpected"
        rows.append(row)
    return rows


def _differing(want: dict[str, Any], got: Mapping[str, Any]) -> list[str]:
    """The fields an expected outcome states that a produced one of its kind does not meet."""
    return [
        n for n, v in want.items() if n not in ("at", "kind") and (n not in got or not json_equal(v, got[n]))
    ]
