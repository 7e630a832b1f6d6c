"""The `session` profile (spec/session.md): the reference connection in process and over the
protocol, the steering table of the spec against the code's, generated sessions against their
ground truth, and the producer checker on recorded sessions."""

from __future__ import annotations

import copy
import json
import re
import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamroute.conformance.cli import main
from streamroute.conformance.fuzz import Sources, draw_streams
from streamroute.conformance.implementation import Implementation, PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.protocol import ProtocolImplementation
from streamroute.conformance.results import Status
from streamroute.conformance.schemas import OUTCOME, SPEC_DIR, first_error
from streamroute.conformance.strategies import GeneratedSession, cited, sessions
from streamroute.conformance.strategies.sessions import STEER_MOVES, STRAYS
from streamroute.conformance.vectors import Vector
from streamroute.producer.checker import check_capture
from streamroute.producer.session_checker import check_session, is_session
from streamroute.reference.adapter import router
from streamroute.reference.connection import TRANSITIONS, Connection
from streamroute.reference.router import Router
from streamroute.wire.session import is_step

REFERENCE = shlex.join([sys.executable, "-m", "streamroute.reference.serve"])


@pytest.fixture(scope="module")
def session_vectors(bundled: list[Vector]) -> list[Vector]:
    return [v for v in bundled if v.profile == "session"]


def _routed(entries: list[Any]) -> list[tuple[int | str, dict[str, Any]]]:
    """The reference's outcomes of a session, each with the entry (or close) that made it."""
    connection = router([])
    answers = [(index, o) for index, entry in enumerate(entries) for o in connection.feed(entry)]
    return answers + [("close", o) for o in connection.close()]


def _stated(routed: list[tuple[int | str, dict[str, Any]]]) -> list[tuple[int | str, dict[str, Any]]]:
    """As a ground truth states them: `message` is free text."""
    return [(at, {k: v for k, v in o.items() if k != "message"}) for at, o in routed]


# -- the vectors, in process and over the protocol -------------------------------------


def test_the_session_profile_has_forty_vectors_and_every_step(session_vectors: list[Vector]) -> None:
    assert len(session_vectors) >= 40
    steps = Counter(
        step["message"]["type"] if step.get("control") == "send" else step["control"]
        for v in session_vectors
        for step in v.events
        if is_step(step)
    )
    assert set(steps) == {"response.create", "response.steer", "response.inject", "disconnect", "connect"}
    assert all(v.events[0]["control"] == "send" for v in session_vectors)


def test_the_reference_passes_every_session_vector_in_process_and_over_the_protocol(
    session_vectors: list[Vector],
) -> None:
    in_process = PythonImplementation.load("streamroute.reference.adapter:router")
    served = ProtocolImplementation.start(REFERENCE, 30)
    try:
        for implementation in (in_process, served):
            failures = [
                r
                for r, applies in (
                    (run_vector(implementation, v), _applies(implementation, v)) for v in session_vectors
                )
                if r.status is not (Status.PASSED if applies else Status.NOT_APPLICABLE)
            ]
            assert failures == []
    finally:
        served.close()


def _applies(implementation: Implementation, vector: Vector) -> bool:
    """Whether the implementation declares every option value the vector states (spec/README.md)."""
    return all(implementation.options.get(name) == value for name, value in vector.options.items())


def test_every_session_vector_is_producer_clean_per_turn_or_says_what_it_breaks(
    session_vectors: list[Vector],
) -> None:
    for vector in session_vectors:
        found = {violation.requirement for violation in check_session(vector.events)}
        assert found == set(vector.data.get("producer_faults", [])), vector.id


# -- the spec and the code agree -------------------------------------------------------


@pytest.mark.parametrize("moves", [TRANSITIONS, STEER_MOVES], ids=["connection", "generated sessions"])
def test_the_steering_table_of_the_spec_is_the_one_of_the_connection_and_of_the_ground_truth(
    moves: dict[str, dict[str, str]],
) -> None:
    """Every row of spec/session.md's table that moves a steer is a move of the reference's
    `TRANSITIONS` and of the generated sessions' `STEER_MOVES`, and the outcome it names is the kind
    of the state it moves to."""
    text = (SPEC_DIR / "session.md").read_text(encoding="utf-8")
    table = text.split("Every move, what triggers it", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| `(\w+)` \| `steer\.(\w+)` \|$", table, re.MULTILINE)
    assert all(target == kind for _, target, kind in rows)
    code = {(source, target) for source, moved in moves.items() for target in moved.values()}
    assert {(source, target) for source, target, _ in rows} == code


def test_the_states_of_the_spec_are_the_outcome_kinds_of_the_schema() -> None:
    text = (SPEC_DIR / "session.md").read_text(encoding="utf-8")
    steering = text.split("## 6. Steering", 1)[1].split("\n## ", 1)[0]
    states = set(re.findall(r"^\| `([a-z]+)` \|", steering, re.MULTILINE))
    assert states == set(TRANSITIONS)
    for state in states:
        outcome = {"kind": f"steer.{state}", "stream_id": None, "response_id": "r", "steer_id": "s"}
        outcome.update(successor_id="r2", code=None, reason=None, required_input=[])
        assert first_error(OUTCOME, outcome) is None


# -- generated sessions ------------------------------------------------------------------


@given(sessions())
def test_the_reference_routes_every_generated_session_as_its_ground_truth_says(
    session: GeneratedSession,
) -> None:
    routed = _routed(session.entries)
    assert _stated(routed) == session.expected
    assert all(first_error(OUTCOME, outcome) is None for _, outcome in routed)
    if not session.strays:
        assert check_session(session.entries) == []  # each turn as a producer streams it


@given(sessions(), st.data())
def test_a_changed_outcome_of_a_generated_session_is_seen(
    session: GeneratedSession, data: st.DataObject
) -> None:
    """The ground truth is exact: dropping or changing one outcome of it no longer matches."""
    actual = _stated(_routed(session.entries))
    index = data.draw(st.integers(0, len(actual) - 1))
    changed = copy.deepcopy(actual)
    changed[index][1]["stream_id"] = "another lane"
    assert changed != session.expected
    assert actual[:index] + actual[index + 1 :] != session.expected


def _continued(session: GeneratedSession) -> Counter[str]:
    """How the session's responses continue one another: the server's own successor of a steered
    response (SESSION-TURN-5), a lane's first turn continuing another lane's response, a request
    sent while the lane's turn before it is served (SESSION-LANE-2)."""
    found: Counter[str] = Counter()
    steered, lanes, waiting = set(), {}, Counter()
    for entry in session.entries:
        if not isinstance(entry, dict):
            continue
        if entry.get("control") == "send" and entry["message"]["type"] == "response.create":
            lane = entry["message"].get("stream_id")
            found["a request sent while its lane is served"] += waiting[lane] > 0
            waiting[lane] += 1
        response = entry.get("response")
        if not isinstance(response, dict) or not isinstance(response.get("id"), str):
            continue
        lane = entry.get("stream_id")
        if entry["type"] == "response.created":
            previous = response.get("previous_response_id")
            found["the server's successor of a steered response"] += previous in steered
            found["a lane continuing another's response"] += (
                previous is not None and lanes.get(previous) != lane
            )
            waiting[lane] -= previous not in steered
            lanes[response["id"]] = lane
        if (response.get("incomplete_details") or {}).get("reason") == "steered":
            steered.add(response["id"])
    return found


def test_every_stray_of_a_generated_session_exercises_requirements_the_spec_defines() -> None:
    for stray in STRAYS.values():
        assert stray.requirements, stray.name
        assert cited(stray.requirements)[0] == list(stray.requirements), stray.name


def test_a_few_hundred_generated_sessions_reach_every_situation_they_are_drawn_for() -> None:
    seen: Counter[str] = Counter()
    for case in draw_streams(Sources((), (), session=True), 300, seed=13):
        session = case.generated.drawn
        assert isinstance(session, GeneratedSession)
        seen.update({o["kind"] for _, o in session.expected})
        seen.update({f"error {o['code']}" for _, o in session.expected if o["kind"] == "error"})
        seen.update({stray.name for stray in session.strays})
        seen.update(set(session.ends) | {f"{len(session.ends)} connections"})
        seen.update(_continued(session))
        lanes = {e.get("stream_id") for e in session.entries if isinstance(e, dict) and "type" in e}
        seen["several lanes"] += len(lanes) > 1
    situations = [f"steer.{state}" for state in TRANSITIONS] + ["tool.error", "tool.call", "several lanes"]
    situations += ["lost", "limit_reached", "2 connections", "error server_error", *STRAYS]
    situations += [f"error {code}" for code in ("not_connected", "event_after_disconnect", "duplicate_steer")]
    situations += ["the server's successor of a steered response", "a lane continuing another's response"]
    situations += ["a request sent while its lane is served"]
    for situation in situations:
        assert seen[situation] >= 2, f"{seen[situation]} of 300 sessions reach {situation}"


# -- the connection itself ---------------------------------------------------------------


def test_a_closed_connection_takes_nothing_more() -> None:
    connection = Connection(Router)
    assert connection.close() == [{"kind": "connection.closed", "reason": "closed"}]
    assert connection.feed({"control": "send", "message": {"type": "response.create"}}) == []
    assert connection.feed({"type": "response.created"}) == []
    assert connection.close() == []


def test_a_stream_that_is_no_session_is_routed_as_a_stream(bundled: list[Vector]) -> None:
    """The first entry decides: a core stream is never taken for a session."""
    core = next(v for v in bundled if v.id == "core/args/parallel-interleaved")
    adapter = router(core.tools)
    outcomes = [o for event in core.events for o in adapter.feed(event)] + adapter.close()
    assert "stream_id" not in json.dumps(outcomes)
    assert outcomes[-1] == {"kind": "end", "status": "completed"}


# -- recorded sessions -------------------------------------------------------------------


def _recorded(vector: Vector) -> list[dict[str, Any]]:
    """The server events of a session vector, as a client would log them."""
    return [e for e in vector.events if isinstance(e, dict) and "type" in e]


def _jsonl(events: list[Any]) -> bytes:
    return "".join(json.dumps(event) + "\n" for event in events).encode()


def _checked(events: list[Any]) -> list[tuple[int | None, str]]:
    return [(v.at, v.requirement) for v in check_capture(_jsonl(events)).violations]


def _vector(bundled: list[Vector], vector_id: str) -> Vector:
    return next(v for v in bundled if v.id == vector_id)


def test_a_recorded_session_of_interleaved_lanes_is_well_formed(bundled: list[Vector]) -> None:
    events = _recorded(_vector(bundled, "session/steer/lane-of-the-target"))
    assert is_session(events)
    assert _checked(events) == []


def test_a_recorded_session_is_checked_per_turn(bundled: list[Vector]) -> None:
    events = _recorded(_vector(bundled, "session/lanes/interleaved-text"))
    gap = copy.deepcopy(events)
    lane = gap[5]["stream_id"]
    for event in gap[5:]:  # one lane's turn skips a number from event 5 on; the other's is untouched
        event["sequence_number"] += event["stream_id"] == lane
    assert _checked(gap) == [(5, "PROD-SEQ-2")]
    unfinished = events[:-1]  # lane docs' turn never ends
    assert _checked(unfinished) == [(None, "PROD-LIFE-2")]
    twice = copy.deepcopy(events)
    twice[1]["response"]["id"] = "resp_t2"  # lane tests' turn is created as another response than it ends
    assert [requirement for _, requirement in _checked(twice)] == ["PROD-LIFE-4"]


def test_a_lane_error_ends_its_turn_and_a_lone_error_is_no_turn(bundled: list[Vector]) -> None:
    for vector_id in ("session/errors/error-mid-call", "session/errors/request-refused"):
        assert _checked(_recorded(_vector(bundled, vector_id))) == []
    stray = {"type": "response.steer.accepted", "steer": {"id": "steer_1", "previous_response_id": "r"}}
    assert _checked([stray]) == []  # a session; without a sequence number outside a turn
    assert _checked([{**stray, "sequence_number": "one"}]) == [(0, "PROD-EVT-2")]


def test_check_capture_reads_a_recorded_session(
    bundled: list[Vector], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(_jsonl(_recorded(_vector(bundled, "session/steer/two-steers-in-order"))))
    assert main(["check-capture", str(path)]) == 0
    broken = _recorded(_vector(bundled, "session/lanes/fifo-two-requests"))
    del broken[3]
    path.write_bytes(_jsonl(broken))
    assert main(["check-capture", str(path)]) == 1
    assert "PROD-SEQ-2" in capsys.readouterr().out
