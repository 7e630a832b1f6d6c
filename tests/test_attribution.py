"""The attribution table (spec/attribution.md): how it reads, and what hand-made differences charge.

tests/test_mutants.py runs every mutant over the bundled vectors; these tests pin the rules one
at a time, fast: the differences a comparison is read as, the main rows and conditions, the
charging rule (the first of a row's requirements the vector cites, a difference that follows
from an earlier one, the last resort), and the table's own errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from mutants import all_mutants, bundled_vectors
from streamroute.conformance import attribution
from streamroute.conformance.attribution import AttributionTableError, charged, read_table, rules
from streamroute.conformance.conditions import Context, holds
from streamroute.conformance.decoded import UNROUTED, decoded_events
from streamroute.conformance.differences import Difference, differences
from streamroute.conformance.implementation import Produced, PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.lint import lint
from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.schemas import SPEC_DIR

HEADER = "| # | expected | produced | differs | event | when | charges |\n|---|---|---|---|---|---|---|\n"
DELTA = {"type": "response.output_text.delta", "item_id": "m", "output_index": 0, "content_index": 0}


def _context(
    events: Sequence[Any] | None, expected: Sequence[Mapping[str, Any]] = (), **more: Any
) -> Context:
    return Context(more.pop("profile", "core"), more.pop("options", {}), expected, events, **more)


def test_the_table_reads_and_charges_only_requirements_of_the_spec() -> None:
    requirements, _ = read_requirements(SPEC_DIR)
    table = rules()
    assert len(table) > 100
    assert rules() is table, "the table is read once"
    unknown = [(rule.line, r) for rule in table for r in rule.charges if r not in requirements]
    assert unknown == []


def test_lint_names_a_row_that_charges_what_the_spec_does_not_define(tmp_path: Path) -> None:
    spec, vectors = tmp_path / "spec", tmp_path / "vectors"
    spec.mkdir()
    vectors.mkdir()
    (spec / "profile.md").write_text("- **X-A-1** A router MUST route it.\n", encoding="utf-8")
    table = spec / "attribution.md"
    table.write_text(HEADER + "| 1 | `*` | `*` | `*` | `*` | | X-A-1, X-A-2 |\n", encoding="utf-8")
    _, problems = lint([vectors], check_coverage=False, spec_dir=spec)
    assert problems == [f"{table}:3: charges X-A-2, which the spec does not define"]


@pytest.mark.parametrize(
    ("row", "error"),
    [
        ("| 1 | `*` | `*` | `*` | `*` | event is tall | CORE-EVT-1 |", "unknown condition 'event is tall'"),
        ("| 1 | `*` | `*` | `*` | `*` | event text is word | CORE-EVT-1 |", "unknown type 'word'"),
        ("| 1 | `*` | `*` | `*` | `*` | | the router |", "'the router' is not a list of requirement ids"),
    ],
)
def test_a_row_the_harness_cannot_read_is_one_line_naming_its_file_and_line(
    tmp_path: Path, row: str, error: str
) -> None:
    table = tmp_path / "attribution.md"
    table.write_text("# Table\n\n" + HEADER + row + "\n", encoding="utf-8")
    with pytest.raises(AttributionTableError) as raised:
        read_table(table)
    assert str(raised.value) == f"{table}:5: {error}"


# -- the differences a failing comparison is read as --------------------------------------------


def test_an_outcome_produced_at_another_event_is_moved_not_missing_and_unexpected() -> None:
    expected = [{"at": 0, "kind": "text.delta", "item_id": "m", "delta": "a"}]
    actual = [Produced(1, {"kind": "text.delta", "item_id": "m", "delta": "a"})]
    (moved,) = differences(expected, actual, [(0, None), (None, 0)], [DELTA, DELTA])
    assert (moved.field, moved.expected, moved.produced) == (
        "at",
        expected[0],
        {**actual[0].outcome, "at": 1},
    )


def test_outcomes_of_one_event_in_another_order_are_one_order_difference() -> None:
    delta = {"kind": "tool.arguments.delta", "item_id": "c", "delta": "x"}
    update = {"kind": "diff.update", "item_id": "c"}
    expected = [{**delta, "at": 0}, {**update, "at": 0}]
    actual = [Produced(0, update), Produced(0, delta)]
    (reordered,) = differences(expected, actual, [(None, 0), (0, 1), (1, None)], [DELTA])
    assert (reordered.field, reordered.expected) == ("order", expected[0])
    assert reordered.produced == {**update, "at": 0}


def test_a_pair_at_one_event_differs_in_its_first_differing_field() -> None:
    expected = [{"at": 0, "kind": "text.delta", "item_id": "m", "delta": "a"}]
    actual = [Produced(0, {"kind": "text.delta", "item_id": "m", "delta": "b"})]
    (paired,) = differences(expected, actual, [(0, None), (None, 0)], [DELTA])
    assert paired.field == "delta"


# -- rows and conditions ---------------------------------------------------------------------------


def test_an_implementation_that_raised_charges_feed_must_not_raise() -> None:
    raised = Difference({"at": 0, "kind": "text.delta"}, None, DELTA, failure="raised")
    assert charged([raised], ["CORE-TEXT-1"], _context([DELTA])) == ("CORE-EVT-2",)


def test_a_call_resolved_at_another_event_charges_the_requirement_of_the_point() -> None:
    done = {"type": "response.output_item.done", "item": {"id": "c", "type": "function_call"}}
    args = {"type": "response.function_call_arguments.done", "item_id": "c"}
    want = {"at": 1, "kind": "tool.call", "item_id": "c", "tool_type": "function"}
    moved = Difference(want, {**want, "at": 0}, done, "at")
    by_point = _context([args, done], [want], options={"tool_call_point": "arguments_done"})
    assert charged([moved], [], by_point) == ("CORE-CALL-8",)
    assert charged([moved], [], _context([args, done], [want])) == ("CORE-CALL-2",)


def test_a_row_charges_the_first_of_its_requirements_the_vector_cites_else_its_first() -> None:
    want = {"at": 0, "kind": "tool.error", "code": "too_large", "item_id": "c"}
    moved = Difference(want, {**want, "at": 1}, DELTA, "at")
    assert charged([moved], ["CORE-LIMIT-1"], _context([DELTA, DELTA])) == ("CORE-LIMIT-1",)
    assert charged([moved], ["CORE-ARGS-1"], _context([DELTA, DELTA])) == ("CORE-LIMIT-4",)


def test_an_event_a_router_refuses_for_a_null_field_charges_null_is_absent() -> None:
    event = {**DELTA, "delta": None}
    refused = Difference(
        {"at": 0, "kind": "text.delta"}, {"at": 0, "kind": "error", "code": "malformed_event"}, event
    )
    assert holds("event holds null", refused, _context([event]))
    assert charged([refused], [], _context([event])) == ("CORE-EVT-7",)


def test_an_event_out_of_sequence_that_a_router_does_not_report_charges_the_sequence_rule() -> None:
    events = [{**DELTA, "sequence_number": 2}, {**DELTA, "sequence_number": 2}]
    missing = Difference({"at": 1, "kind": "error", "code": "duplicate_event"}, None, events[1])
    assert holds("event out of sequence", missing, _context(events))
    assert not holds("event out of sequence", Difference({"at": 0}, None, events[0]), _context(events))


@pytest.mark.parametrize(
    ("condition", "held"),
    [
        ("event has item_id", True),
        ("event has logprobs", False),
        ("event item_id is string", True),
        ("produced delta is event delta", True),
        ("expected delta = a* or b", True),
        ("expected delta = b", False),
        ("not expected has obfuscation", True),
        ("produced delta longer", True),
        ("option tool_call_point=arguments_done", True),
        ("profile core", True),
        ("after response.output_text.delta", True),
        ("after response.created", False),
    ],
)
def test_the_subject_conditions_read_the_event_and_the_outcomes(condition: str, held: bool) -> None:
    events = [DELTA, {**DELTA, "delta": "abc"}]
    want = {"at": 1, "kind": "text.delta", "item_id": "m", "delta": "ab"}
    difference = Difference(want, {**want, "delta": "abc"}, events[1], "delta")
    context = _context(events, [want], options={"tool_call_point": "arguments_done"})
    assert holds(condition, difference, context) is held


def test_a_patch_preview_within_the_throttle_is_told_from_one_that_repeats() -> None:
    events = [{**DELTA, "at_ms": 0}, {**DELTA, "at_ms": 100}, {**DELTA, "at_ms": 900}]
    update = {"kind": "diff.update", "item_id": "c", "files": []}
    produced = [{**update, "at": 0}, {**update, "at": 1}, {**update, "files": ["a"], "at": 2}]
    context = _context(events, (), produced=produced, profile="custom-tools")
    soon = Difference(None, produced[1], events[1])
    late = Difference(None, produced[2], events[2])
    assert holds("produced within the throttle", soon, context)
    assert holds("produced repeats", soon, context)
    assert not holds("produced within the throttle", late, context)
    assert not holds("produced repeats", late, context)


def test_an_echo_answer_that_lags_its_own_delta_is_told() -> None:
    want = {"at": 1, "kind": "diff.update", "item_id": "c", "delta": "b", "buffer": "ab"}
    lagging = Difference(want, {**want, "buffer": "a"}, DELTA, "buffer")
    assert holds("buffer lags", lagging, _context([DELTA, DELTA]))
    assert not holds(
        "buffer lags", Difference(want, {**want, "buffer": "x"}, DELTA, "buffer"), _context([DELTA])
    )


# -- the charging rule -------------------------------------------------------------------------------


def test_a_difference_of_an_item_an_earlier_difference_was_of_charges_nothing_of_its_own() -> None:
    done = {"type": "response.output_text.done", "item_id": "m", "output_index": 0, "content_index": 0}
    events = [DELTA, done]
    first = Difference({"at": 0, "kind": "text.delta", "item_id": "m", "delta": "a"}, None, DELTA)
    then = Difference({"at": 1, "kind": "text.done", "item_id": "m", "text": "a"}, None, done)
    assert charged([first, then], [], _context(events)) == ("CORE-TEXT-1",)
    assert charged([then], [], _context(events)) == ("CORE-TEXT-2",)


def test_what_a_refused_event_would_have_made_follows_from_the_refusal() -> None:
    error = {"kind": "error", "code": "malformed_event"}
    refused = Difference({"at": 0, "kind": "lifecycle", "event": "created"}, {**error, "at": 0}, DELTA)
    missing = Difference({"at": 0, "kind": "text.delta", "item_id": "n", "delta": "a"}, None, DELTA)
    assert charged([missing], [], _context([DELTA])) != ()
    assert charged([refused, missing], [], _context([DELTA])) == charged([refused], [], _context([DELTA]))


def test_an_sse_vector_charges_its_first_difference_alone() -> None:
    want = {"at": 0, "kind": "text.delta", "item_id": "m", "delta": "a"}
    first = Difference(want, {**want, "delta": "b"}, None, "delta")
    then = Difference(None, {"at": 1, "kind": "error", "code": "invalid_data"})
    assert charged([first, then], [], _context(None, [want], profile="sse")) == ("SSE-LINE-1",)


def test_an_sse_stream_decodes_to_the_values_its_events_route() -> None:
    stream = b'data: {"a":1}\n\ndata: not json\n\ndata: [1]\n\ndata: [DONE]\n\ndata: {"b":2}\n\n'
    assert decoded_events(stream) == [{"a": 1}, UNROUTED, [1], UNROUTED, UNROUTED]


@pytest.mark.parametrize(
    ("mutant", "vector", "charges"),
    [
        # A router that strips text deltas, through bytes cut inside multi-byte characters: its
        # decoder did its part (its outcomes are those of the decoded events), so it is the router's.
        ("core.text-delta-stripped", "sse/utf8/multibyte-cut-between-reads", ("CORE-TEXT-1",)),
        # A decoder that routes a JSON array as a batch of events: only sse requirements.
        ("sse.arrays-are-batches", "sse/data/json-that-is-not-an-event", ("SSE-DATA-1",)),
        # A decoder that raises: raising is CORE-EVT-2's, whatever part raised.
        ("sse.raises-past-line-limit", "sse/limits/event-past-64-kib", ("CORE-EVT-2",)),
        # No core profile claimed: nothing to ask, the bytes are read undecoded.
        ("sse.keeps-bom", "sse/lines/bom-stripped", ("SSE-LINE-2",)),
    ],
)
def test_an_sse_vector_charges_the_part_its_own_run_on_the_decoded_events_shows_at_fault(
    mutant: str, vector: str, charges: tuple[str, ...]
) -> None:
    """spec/attribution.md section 1.5."""
    target = next(m.target for m in all_mutants() if m.name == mutant)
    run = next(v for v in bundled_vectors() if v.id == vector)
    assert run_vector(PythonImplementation.load(target), run).charged == charges


def test_a_difference_no_row_matches_charges_every_requirement_the_vector_cites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tmp_path / "attribution.md"
    table.write_text(HEADER + "| 1 | `text.*` | `*` | `*` | `*` | | CORE-TEXT-1 |\n", encoding="utf-8")
    monkeypatch.setattr(attribution, "rules", lambda: tuple(read_table(table)))
    unmatched = Difference({"at": 0, "kind": "lifecycle", "event": "created"}, None, DELTA)
    matched = Difference({"at": 0, "kind": "text.delta", "item_id": "n"}, None, DELTA)
    assert charged([unmatched], ["CORE-LIFE-1", "CORE-EVT-1"], _context([DELTA])) == (
        "CORE-LIFE-1",
        "CORE-EVT-1",
    )
    assert charged([matched], ["CORE-LIFE-1"], _context([DELTA])) == ("CORE-TEXT-1",)
