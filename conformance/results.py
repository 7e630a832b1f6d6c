"""Running one vector against one implementation, and what can come of it."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from enum import Enum
from typing import Any

from .attribution import charged
from .compare import (
    ItemNames,
    at_key,
    compare,
    compare_stopped,
    compared,
    first_fault,
    json_equal,
    made_before_a_later_fault,
    stopped_expectation,
    to_canonical_point,
    to_expected_response_ids,
    to_parsed_arguments,
    to_shown,
)
from .conditions import Context
from .differences import Difference, Pair
from .differences import differences as differences_of
from .implementation import AdapterFailure, AdapterSkipped, Implementation, Produced
from .limits import MAX_DETAILS_CHARS, MAX_MESSAGE_CHARS, clip, printable
from .observation import observes_of
from .schemas import OUTCOME, VECTOR, first_error, option_defaults, schema
from .signature import difference_words, signature
from .vectors import At, Vector

# Compared only in execution vectors, so that an implementation can claim
# `core` and `execution` with its executor always on (spec/execution.md section 10).
EXECUTION_KINDS = frozenset(schema(OUTCOME + "#/$defs/execution_kind")["enum"])
# The codes of a producer's faults: a stream's first one is where `producer_fault: ends_stream` stops.
FAULT_CODES = frozenset(schema(OUTCOME + "#/$defs/fault_code")["enum"])
CLASSES = tuple(schema(VECTOR + "#/$defs/class")["enum"])  # the conformance classes, routing first
_AT = frozenset({"at"})  # an expected outcome's event, which is no field of the outcome

# A failing comparison and one of its rows, as JSON data (spec/report.schema.json `$defs/comparison`).
Comparison = dict[str, Any]
Row = dict[str, Any]


class Status(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"  # the implementation did not answer: never a pass
    SKIPPED = "skipped"  # the implementation declined it, with a reason: neither a pass nor a failure
    NOT_APPLICABLE = "not applicable"  # a profile or option value it does not declare
    EXPECTED_FAILURE = "expected failure"  # failed or errored, and listed as such

    @property
    def is_failure(self) -> bool:
        return self in (Status.FAILED, Status.ERRORED)

    @property
    def executed(self) -> bool:
        """The vector ran: the implementation answered it, or failed to."""
        return self in (Status.PASSED, Status.FAILED, Status.ERRORED, Status.EXPECTED_FAILURE)


def executed(counts: Mapping[Status, int]) -> int:
    """How many vectors ran, of those counted by status."""
    return sum(counts.get(status, 0) for status in Status if status.executed)


@dataclass(frozen=True)
class Result:
    vector_id: str
    status: Status
    message: str = ""
    details: str = ""
    # Each failing comparison (of each failing cut of an sse vector), as the report keeps it.
    comparisons: tuple[Comparison, ...] = ()
    # The requirements the vector checks that the implementation's API shows (spec/observation.md);
    # None when it declares no `observes`, and so shows them all.
    observed: tuple[str, ...] | None = None
    # The requirements a failure charges (spec/vectors.md section 5); empty unless it failed or errored.
    charged: tuple[str, ...] = ()
    # How it failed, as an expected-failures file pins it (conformance/signature.py); empty unless it
    # failed or errored on its own (a stale expected failure has none).
    signature: str = ""

    def __post_init__(self) -> None:  # what an implementation said is kept within the report's limits
        object.__setattr__(self, "message", clip(self.message, MAX_MESSAGE_CHARS))
        object.__setattr__(self, "details", clip(self.details, MAX_DETAILS_CHARS))


def not_applicable_reason(implementation: Implementation, vector: Vector) -> str | None:
    if vector.profile not in implementation.profiles:
        return f"profile {vector.profile!r} is not among those {implementation.name} declares"
    for name, needed in vector.options.items():
        declared = implementation.options.get(name)
        if declared not in (needed if isinstance(needed, list) else [needed]):
            wanted = " or ".join(needed) if isinstance(needed, list) else needed
            return f"needs option {name}={wanted}; {implementation.name} declares {name}={declared}"
    claimed = implementation.info.get("classes") or CLASSES
    if vector.conformance_class not in claimed:
        return f"class {vector.conformance_class!r} is not among those {implementation.name} claims"
    fault = (
        first_fault(vector.expected, FAULT_CODES)
        if _stops_at_faults(implementation.options, vector)
        else None
    )
    if (
        fault is not None
        and implementation.options.get("tool_call_point") == "arguments_done"
        and vector.stream is None
    ):
        made = made_before_a_later_fault(vector.expected, vector.events, fault)
        if made is not None:  # spec/vectors.md section 3.2
            point = "tool_call_point=arguments_done"
            return f"under {point}, call {made} is made before the stream's first fault"
    # spec/core.md section 5.1: the tool registry says which call types a vector needs.
    declared_types = implementation.options.get("call_types") or option_defaults()["call_types"]
    needed = sorted(vector.call_types - set(declared_types))
    if needed:
        declared = ", ".join(declared_types)
        return f"needs call type {needed[0]!r}; {implementation.name} declares {declared}"
    return None


def run_vector(implementation: Implementation, vector: Vector) -> Result:
    reason = not_applicable_reason(implementation, vector)
    if reason is not None:
        return Result(vector.id, Status.NOT_APPLICABLE, reason)
    observes = observes_of(implementation.info)
    if observes is None:
        return _judged(implementation, vector)
    # spec/observation.md: judged on every outcome its API shows, the absence of one included, and
    # counted toward the requirements it cites that are observable.
    if not observes.compares(vector.compare):
        shown = observes.not_shown(vector.spec)
        reason = f"the vector compares none of the kinds {implementation.name} shows: {shown}"
        return Result(vector.id, Status.NOT_APPLICABLE, reason, observed=())
    return replace(_judged(implementation, vector), observed=observes.observable(vector.spec))


def _judged(implementation: Implementation, vector: Vector) -> Result:
    if vector.stream is not None:
        return _run_stream(implementation, vector)
    try:
        produced = implementation.produce(vector)
    except AdapterFailure as failure:
        return _errored(implementation, vector, failure.message, failure.details)
    except AdapterSkipped as skipped:
        return Result(vector.id, Status.SKIPPED, skipped.reason)
    return _check(implementation, vector, produced)[0]


_AT_EVENT = re.compile(r"\bevent (\d+|close)\b")
_UNREADABLE = re.compile(r"\boutcome \d+ \(from event (?:\d+|close)\): ")  # conformance/implementation.py


def _errored(implementation: Implementation, vector: Vector, message: str, details: str) -> Result:
    """The implementation raised or did not answer: a `raised` difference at the event the
    message names (its first expected outcome from there on), or at the stream's start. An outcome
    that is no JSON value (a NaN, a cycle, a nesting deeper than JSON text can be written here) is
    an `invalid` one of the outcome itself (`/`), unread."""
    named = _AT_EVENT.search(message)
    at: At = 0 if named is None else "close" if named.group(1) == "close" else int(named.group(1))
    unreadable = _UNREADABLE.search(message) is not None
    if vector.stream is not None and not unreadable:
        at = 0  # a chunk of bytes, not an event
    if at != "close" and vector.stream is None and at >= len(vector.events):
        at = 0
    first = next((w for w in vector.expected if at_key(w["at"]) >= at_key(at)), None)
    event = _event_at(vector, at)
    if unreadable:
        difference = Difference(first, None, event, "/", "invalid")
    else:
        difference = Difference(first, None, event, failure="raised")
    stated_at = at if named is not None and vector.stream is None and isinstance(at, int) else None
    words = difference_words(difference, stated_at)
    charges = _charges(implementation, vector, [difference])
    return _failure(vector.id, Status.ERRORED, message, details, (), charges, words)


def _failure(
    vector_id: str,
    status: Status,
    message: str,
    details: str,
    comparisons: tuple[Comparison, ...],
    charged: tuple[str, ...],
    words: str,
) -> Result:
    """A failed or errored vector, with its signature: `words` says its first difference."""
    shape = signature(status.value, charged, words)
    return Result(vector_id, status, message, details, comparisons, charged=charged, signature=shape)


def _charges(
    implementation: Implementation,
    vector: Vector,
    differences: Sequence[Difference],
    dispatched: int | None = None,
    produced: Sequence[Produced] = (),
) -> tuple[str, ...]:
    """What the differences charge; `dispatched` is the number of SSE events an sse vector's run
    dispatched, when it is known, and `produced` the outcomes compared."""
    events = None if vector.stream is not None else vector.events
    miscounted = None if dispatched is None else dispatched != vector.dispatched
    outcomes = [{**entry.outcome, "at": entry.at} for entry in produced]
    names = (
        () if events is None else ItemNames(events, implementation.options.get("item_correlation", "")).names
    )
    context = Context(
        vector.profile,
        implementation.options,
        vector.expected,
        events,
        miscounted,
        outcomes,
        names,
        vector.tools,
    )
    return charged(differences, vector.spec, context)


def _run_stream(implementation: Implementation, vector: Vector) -> Result:
    """An sse vector runs once per cut, and every run must meet it (spec/sse.md section 7); a
    failure reports every failing cut, an error or a skip the first."""
    cuts = vector.cuts()
    failing: list[tuple[str, Result, str]] = []  # each failing cut, its result and first difference
    answers: set[str] = set()  # what each cut's run produced, event by event
    for number, cut in enumerate(cuts):
        try:
            streamed = implementation.produce_stream(vector, cut.chunks)
        except AdapterFailure as failure:
            errored = _errored(implementation, vector, f"{cut.label}: {failure.message}", failure.details)
            charges = _cut_dependent(len(answers) > 1 or number > len(failing), errored.charged)
            return _failure(
                vector.id, Status.ERRORED, errored.message, errored.details, (), charges, "no answer"
            )
        except AdapterSkipped as skipped:
            return Result(vector.id, Status.SKIPPED, skipped.reason)
        answers.add(json.dumps([streamed.events, streamed.close], sort_keys=True, default=repr))
        result, words = _check(implementation, vector, streamed.produced, len(streamed.events))
        if result.status is Status.PASSED and len(streamed.events) != vector.dispatched:
            message = f"dispatched {len(streamed.events)} SSE events; the stream has {vector.dispatched}"
            difference = Difference(None, None, failure="dispatched")
            charges = _charges(implementation, vector, [difference])
            result, words = (
                Result(vector.id, Status.FAILED, message, charged=charges),
                difference_words(difference),
            )
        if result.status is not Status.PASSED:
            failing.append((cut.label, result, words))
    if not failing:
        return Result(vector.id, Status.PASSED)
    label, first, words = failing[0]
    message = f"{label}: {first.message}"
    if len(cuts) > 1:
        message += f"; {len(failing)} of {len(cuts)} cuts fail"
    charges = _cut_dependent(
        len(answers) > 1, tuple(dict.fromkeys(c for _, r, _ in failing for c in r.charged))
    )
    by_cut = _by_cut([(label, result) for label, result, _ in failing])
    return _failure(vector.id, Status.FAILED, message, first.details, by_cut, charges, words)


def _cut_dependent(cuts_differ: bool, charges: tuple[str, ...]) -> tuple[str, ...]:
    """An sse vector whose outcomes depend on where its bytes were cut (some cuts pass, or the cuts
    produce different outcomes) charges SSE-CHUNK-1 alone (spec/attribution.md section 1.4): the
    events it dispatches may not depend on the chunks."""
    return ("SSE-CHUNK-1",) if cuts_differ else charges


def _by_cut(failing: Sequence[tuple[str, Result]]) -> tuple[Comparison, ...]:
    """The failing cuts' comparisons, those that are the same told once with all their cuts."""
    grouped: dict[str, Comparison] = {}
    for label, result in failing:
        comparison = result.comparisons[0] if result.comparisons else {"reason": result.message, "rows": []}
        key = json.dumps(comparison, sort_keys=True)
        grouped.setdefault(key, {"cuts": [], **comparison})["cuts"].append(label)
    return tuple(grouped.values())


def _check(
    implementation: Implementation, vector: Vector, produced: list[Produced], dispatched: int | None = None
) -> tuple[Result, str]:
    """The produced outcomes judged against the vector, and the failure's first difference in words."""
    observes = observes_of(implementation.info)
    options = implementation.options
    if options.get("call_arguments") == "json_text":  # read before it is validated
        produced = to_parsed_arguments(produced)
    for index, entry in enumerate(produced):
        problem = first_error(OUTCOME, entry.outcome) if observes is None else observes.problem(entry.outcome)
        if problem is not None:
            shown = json.dumps(entry.outcome, ensure_ascii=False, default=repr)
            path = _error_path(problem)
            produced_here = {**entry.outcome, "at": entry.at} if isinstance(entry.outcome, dict) else None
            difference = Difference(None, produced_here, _event_at(vector, entry.at), path, "invalid")
            message = f"outcome {index} (from event {entry.at}) is not a valid outcome: {problem}"
            charges = _charges(implementation, vector, [difference])
            words = difference_words(difference)
            return _failure(vector.id, Status.FAILED, message, shown, (), charges, words), words
    if vector.profile != "execution":
        produced = [entry for entry in produced if entry.outcome["kind"] not in EXECUTION_KINDS]
    expected = vector.expected
    fault = first_fault(expected, FAULT_CODES) if _stops_at_faults(options, vector) else None
    # A stream vector has no events to move outcomes along; none needs it (spec/vectors.md 3.1).
    point = options.get("tool_call_point", "output_item_done")
    if point != "output_item_done" and vector.stream is None:
        correlation = options.get("item_correlation", "item_id")
        stopped_at = None if fault is None else expected[fault]["at"]
        produced = to_canonical_point(produced, vector.events, point, correlation, expected, stopped_at)
    # What the API does not show is never compared (spec/observation.md): the outcomes are moved
    # first, by the item they name; ids are paired after, among the outcomes shown.
    end_status: str | None = None
    if fault is not None:  # spec/vectors.md section 3.2, found before anything is projected away
        expected, end_status = stopped_expectation(expected, fault, point)
        if observes is not None and observes.projected({"kind": "end"}) is None:
            end_status = None
    if observes is not None:
        expected, produced = to_shown(observes, expected, produced)
    if options.get("response_id") == "rewritten":
        produced = to_expected_response_ids(expected, produced, vector.compare)
    if fault is None:
        mismatch = compare(expected, produced, vector.compare)
    else:
        mismatch = compare_stopped(expected, end_status, produced, vector.compare)
    if mismatch is None:
        return Result(vector.id, Status.PASSED), ""
    message = f"outcome {mismatch.index}: {mismatch.reason}"
    kinds = vector.compare
    actual = compared(produced, kinds)
    pairs = _pairs(expected, actual)
    comparison = {
        "reason": message,
        "compare": None if kinds is None else sorted(kinds),
        "rows": aligned(expected, actual, None if vector.stream else vector.events, pairs),
    }
    differences = differences_of(expected, actual, pairs, None if vector.stream else vector.events)
    charges = _charges(implementation, vector, differences, dispatched, actual)
    words = difference_words(differences[0] if differences else None)
    return _failure(vector.id, Status.FAILED, message, "", (comparison,), charges, words), words


_REQUIRED = re.compile(r"^'([^']+)' is a required property \(at (/[^)]*)\)$")
_AT_PATH = re.compile(r"\(at (/[^)]*)\)$")


def _error_path(problem: str) -> str:
    """Where an outcome's first schema error is, as attribution reads it: the missing field's path
    for a required one (`/output_index`), else the path the error names (`/arguments`), else `/`."""
    required = _REQUIRED.match(problem)
    if required is not None:
        return required.group(2).rstrip("/") + "/" + required.group(1)
    at = _AT_PATH.search(problem)
    return at.group(1) if at is not None else "/"


def _event_at(vector: Vector, at: At) -> Any:
    """The event of an `at`: None at close and in an sse vector, whose events are not decoded."""
    return None if at == "close" or vector.stream is not None else vector.events[at]


def _differing(want: dict[str, Any], got: Mapping[str, Any]) -> list[str]:
    """The fields an expected outcome states that a produced one of its kind does not meet."""
    return [
        n for n, v in want.items() if n not in ("at", "kind") and (n not in got or not json_equal(v, got[n]))
    ]


def _stops_at_faults(options: Mapping[str, Any], vector: Vector) -> bool:
    """Option `producer_fault: ends_stream` on a vector whose stream has faults (spec/vectors.md 3.2)."""
    return options.get("producer_fault") == "ends_stream" and vector.conformance_class == "robustness"


# -- the aligned comparison, as a report keeps it (spec/report.schema.json `$defs/comparison`) ------

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


def _pairs(expected: Sequence[dict[str, Any]], actual: Sequence[Produced]) -> list[Pair]:
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
    pairs = _pairs(expected, actual) if pairs is None else pairs
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
