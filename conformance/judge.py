"""The judge: what a vector's run comes to, decided in one place for every front end (the CLI, the
pytest plugin, the matrix, `fuzz` and `probe`).

From the vector's expected outcomes and what the implementation produced (or raised, or
declined), under the options and the observation it declares: whether the vector applies
(profile, options, class, call types, what its API shows); each produced outcome checked against
the outcome schema; both sides read in canonical form (conformance/compare.py: arguments as JSON
text, response ids of its own, calls handed over at another point, a stream that stops at its
first fault) and projected to what the API shows (conformance/observation.py); compared; a
failure aligned for the report (conformance/alignment.py), charged to requirements
(conformance/attribution.py) and given its signature (conformance/signature.py); and last, the
expected-failures list (conformance/expected_failures.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from .alignment import aligned, pair_outcomes
from .attribution import charged
from .compare import (
    ItemNames,
    at_key,
    compare,
    compare_stopped,
    compared,
    first_fault,
    made_before_a_later_fault,
    stopped_expectation,
    stopped_with_its_close,
    to_canonical_point,
    to_expected_response_ids,
    to_parsed_arguments,
    to_shown,
)
from .conditions import Context
from .decoded import decoded_events, decoder_did_its_part, routed_outcomes
from .differences import Difference
from .differences import differences as differences_of
from .expected_failures import ExpectedFailures
from .implementation import AdapterFailure, AdapterSkipped, Implementation, Produced
from .observation import observes_of
from .results import CLASSES, Comparison, Result, Status
from .schemas import OUTCOME, first_error, option_defaults, schema
from .signature import difference_words, signature
from .unseen import without_completions, without_unseen
from .vectors import At, Vector

# Compared only in execution vectors, so that an implementation can claim
# `core` and `execution` with its executor always on (spec/execution.md section 10).
EXECUTION_KINDS = frozenset(schema(OUTCOME + "#/$defs/execution_kind")["enum"])
# The codes of a producer's faults: a stream's first one is where `producer_fault: ends_stream` stops.
FAULT_CODES = frozenset(schema(OUTCOME + "#/$defs/fault_code")["enum"])


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


def run_vector(
    implementation: Implementation, vector: Vector, expected_failures: ExpectedFailures | None = None
) -> Result:
    """The vector run against the implementation and judged, as `expected_failures` (an
    implementer's list of vectors known to fail) then has it."""
    result = _verdict(implementation, vector)
    return result if expected_failures is None else expected_failures.apply(result)


def _verdict(implementation: Implementation, vector: Vector) -> Result:
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
    decoder: bool | None = None,
    decoded: Sequence[Any] | None = None,
) -> tuple[str, ...]:
    """What the differences charge; `dispatched` is the number of SSE events an sse vector's run
    dispatched, when it is known, and `produced` the outcomes compared; for an sse vector, `decoder`
    says whether its decoder is shown to have done its part, and `decoded` are the events its bytes
    decode to when it has (spec/attribution.md section 1.5)."""
    events = decoded if vector.stream is not None else vector.events
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
        decoder,
    )
    return charged(differences, vector.spec, context)


def _run_stream(implementation: Implementation, vector: Vector) -> Result:
    """An sse vector runs once per cut, and every run must meet it (spec/sse.md section 7); a
    failure reports every failing cut, an error or a skip the first."""
    cuts = vector.cuts()
    failing: list[tuple[str, Result, str]] = []  # each failing cut, its result and first difference
    # What each cut's run produced, event by event, and its verdict: a cut that answers as an
    # earlier one did is judged as that one was, for the verdict is a function of the answer.
    judged: dict[str, tuple[Result, str]] = {}
    stream = vector.stream
    assert stream is not None
    events = cache(lambda: decoded_events(stream))  # asked only of a failure
    from_events = cache(lambda: routed_outcomes(implementation, vector, events()))
    for number, cut in enumerate(cuts):
        try:
            streamed = implementation.produce_stream(vector, cut.chunks)
        except AdapterFailure as failure:
            errored = _errored(implementation, vector, f"{cut.label}: {failure.message}", failure.details)
            charges = _cut_dependent(len(judged) > 1 or number > len(failing), errored.charged)
            return _failure(
                vector.id, Status.ERRORED, errored.message, errored.details, (), charges, "no answer"
            )
        except AdapterSkipped as skipped:
            return Result(vector.id, Status.SKIPPED, skipped.reason)
        answer = json.dumps([streamed.events, streamed.close], sort_keys=True, default=repr)
        if answer not in judged:
            produced = streamed.produced
            decoder = _decoder(events, produced, from_events)
            judged[answer] = _cut_verdict(implementation, vector, produced, len(streamed.events), decoder)
        result, words = judged[answer]
        if result.status is not Status.PASSED:
            failing.append((cut.label, result, words))
    if not failing:
        return Result(vector.id, Status.PASSED)
    label, first, words = failing[0]
    message = f"{label}: {first.message}"
    if len(cuts) > 1:
        message += f"; {len(failing)} of {len(cuts)} cuts fail"
    charges = _cut_dependent(
        len(judged) > 1, tuple(dict.fromkeys(c for _, r, _ in failing for c in r.charged))
    )
    by_cut = _by_cut([(label, result) for label, result, _ in failing])
    return _failure(vector.id, Status.FAILED, message, first.details, by_cut, charges, words)


def _cut_verdict(
    implementation: Implementation,
    vector: Vector,
    produced: list[Produced],
    dispatched: int,
    decoder: Callable[[], tuple[bool | None, list[Any] | None]],
) -> tuple[Result, str]:
    """One cut's run judged, and its first difference in words: its outcomes, then the number of
    SSE events it dispatched."""
    result, words = _check(implementation, vector, produced, dispatched, decoder)
    if result.status is not Status.PASSED or dispatched == vector.dispatched:
        return result, words
    message = f"dispatched {dispatched} SSE events; the stream has {vector.dispatched}"
    difference = Difference(None, None, failure="dispatched")
    charges = _charges(implementation, vector, [difference])
    return Result(vector.id, Status.FAILED, message, charged=charges), difference_words(difference)


def _decoder(
    events: Callable[[], list[Any]],
    from_bytes: Sequence[Produced],
    from_events: Callable[[], list[Produced] | None],
) -> Callable[[], tuple[bool | None, list[Any] | None]]:
    """Asked of a failing cut: whether its decoder is shown to have done its part (None when the
    implementation cannot show it), and the events its bytes decode to when it has."""

    def asked() -> tuple[bool | None, list[Any] | None]:
        routed = from_events()
        if routed is None:
            return None, None
        did = decoder_did_its_part(events(), from_bytes, routed)
        return did, events() if did else None

    return asked


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


def _json_text_problem(outcome: Any) -> str | None:
    """Under `call_arguments: json_text`, a function call's `arguments` is its text (CORE-JSON-1),
    read only then as a conforming router parses it: an object handed over is not that text."""
    function_call = isinstance(outcome, dict) and outcome.get("kind") == "tool.call"
    if not function_call or outcome.get("tool_type") != "function" or "arguments" not in outcome:
        return None
    arguments = outcome["arguments"]
    return (
        None
        if isinstance(arguments, str)
        else "arguments are no JSON text, as json_text has them (at /arguments)"
    )


def _check(
    implementation: Implementation,
    vector: Vector,
    produced: list[Produced],
    dispatched: int | None = None,
    decoder: Callable[[], tuple[bool | None, list[Any] | None]] | None = None,
) -> tuple[Result, str]:
    """The produced outcomes judged against the vector, and the failure's first difference in
    words; `decoder` answers, for an sse vector, what `_decoder` says."""
    observes = observes_of(implementation.info)
    options = implementation.options
    json_text = options.get("call_arguments") == "json_text"
    as_handed_over = produced
    if json_text:  # read before it is validated
        produced = to_parsed_arguments(produced)
    for index, entry in enumerate(produced):
        problem = first_error(OUTCOME, entry.outcome) if observes is None else observes.problem(entry.outcome)
        if json_text:
            problem = _json_text_problem(as_handed_over[index].outcome) or problem
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
    if vector.stream is None:  # a completed preview, read at the event it was produced at
        produced = without_completions(produced, vector.events)
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
    expected, produced = without_unseen(expected, produced, None if vector.stream else vector.events)
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
    if fault is not None:
        expected = stopped_with_its_close(expected, end_status, actual)
    pairs = pair_outcomes(expected, actual)
    comparison = {
        "reason": message,
        "compare": None if kinds is None else sorted(kinds),
        "rows": aligned(expected, actual, None if vector.stream else vector.events, pairs),
    }
    did, decoded = (None, None) if decoder is None else decoder()
    events = decoded if vector.stream is not None else vector.events
    differences = differences_of(expected, actual, pairs, events)
    charges = _charges(implementation, vector, differences, dispatched, actual, did, decoded)
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


def _stops_at_faults(options: Mapping[str, Any], vector: Vector) -> bool:
    """Option `producer_fault: ends_stream` on a vector whose stream has faults (spec/vectors.md 3.2)."""
    return options.get("producer_fault") == "ends_stream" and vector.conformance_class == "robustness"
