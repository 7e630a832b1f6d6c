"""`streamroute vectorize`: a recording becomes vectors whose expectations are its own ground truth.

Every capture under tests/captures, well-formed or broken, SSE or JSON Lines,
that has a terminal event becomes lint-clean vectors the reference passes at
both tool-call points; a router that gets what the final response states
wrong fails them; what cannot become a vector is refused in one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamroute.conformance.cli import main
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.limits import MAX_VECTOR_FILE_BYTES
from streamroute.conformance.lint import lint
from streamroute.conformance.results import Status
from streamroute.conformance.vectors import load_vectors
from streamroute.producer.checker import check_capture
from streamroute.producer.vectorize import VectorizeError, events_of, vectorize

CAPTURES = Path(__file__).parent / "captures"
RECORDINGS = sorted(p for p in CAPTURES.glob("*/*") if p.suffix in (".sse", ".jsonl"))
REFUSED = {  # recordings with no ground truth to take, and why
    "completed-output-null.jsonl": "event 10 .response.completed. breaks PROD-EVT-2",
    "data-not-json.sse": "event 7 is not JSON",
    "duplicate-member-names.jsonl": "event 1 names 'status' more than once .PROD-EVT-3.",
    "event-nested-too-deep.jsonl": "event 1 is not JSON",
    "in-progress-output-null.jsonl": "event 1 .response.in_progress. breaks PROD-EVT-2",
    "latin-1-after-done.sse": "event 8 is not JSON",
    "last-event-unterminated.sse": "no terminal event",
    "last-event-without-empty-line.sse": "no terminal event",
    "no-terminal-event.sse": "no terminal event",
    "text-deltas-pass-a-mebibyte.jsonl": "no terminal event",
}
ROUTERS = ["streamroute.reference.adapter:router", "streamroute.reference.adapter:arguments_done_router"]


def _written(path: Path, root: Path, *extra: str) -> list[str]:
    assert main(["vectorize", str(path), "--output", str(root), *extra]) == 0
    vectors, errors = load_vectors([root])
    assert errors == []
    return [vector.id for vector in vectors]


@pytest.mark.parametrize("path", [p for p in RECORDINGS if p.name not in REFUSED], ids=lambda p: p.name)
def test_a_recording_becomes_vectors_the_reference_passes(path: Path, tmp_path: Path) -> None:
    _written(path, tmp_path)
    assert lint([tmp_path], check_coverage=False)[1] == []
    vectors, _ = load_vectors([tmp_path])
    for adapter in ROUTERS:
        implementation = PythonImplementation.load(adapter)
        for vector in vectors:
            result = run_vector(implementation, vector)
            # A vector whose calls differ between the tool-call points states the one it holds for.
            applies = all(implementation.options.get(name) == value for name, value in vector.options.items())
            assert result.status is (Status.PASSED if applies else Status.NOT_APPLICABLE), (
                adapter,
                vector.id,
                result.message,
            )


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name)
def test_faults_are_declared_and_only_what_they_leave_is_compared(path: Path) -> None:
    if path.name in REFUSED:
        with pytest.raises(VectorizeError, match=REFUSED[path.name]):
            vectorize(path.read_bytes(), path.name, "recorded/x")
        return
    (made,) = vectorize(path.read_bytes(), path.name, "recorded/x")
    found = sorted({v.requirement for v in check_capture(path.read_bytes()).violations})
    events_found = [v for v in found if not v.startswith("PROD-SSE-")]  # bytes-level faults stay behind
    assert made.get("producer_faults", []) == events_found
    if events_found:
        assert set(made["expect"]["compare"]) <= {"lifecycle", "end"}


def test_two_responses_in_one_recording_become_two_vectors(tmp_path: Path) -> None:
    one = (CAPTURES / "well-formed/parallel-calls.jsonl").read_bytes()
    two = (CAPTURES / "well-formed/text-answer.sse").read_bytes()
    lines = [json.dumps(event) for event in events_of(one, "one") + events_of(two, "two")]
    recording = tmp_path / "Two Responses.jsonl"
    recording.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ids = _written(recording, tmp_path / "out")
    assert ids == ["recorded/two-responses-1", "recorded/two-responses-2"]


class DropsTextDone:
    """The reference, but the authoritative text of each part never reaches the application."""

    def __init__(self, tools: object) -> None:
        from streamroute.reference.router import Router

        self.router = Router()

    def feed(self, event: object) -> list[dict[str, object]]:
        return [o for o in self.router.feed(event) if o["kind"] != "text.done"]

    def close(self) -> list[dict[str, object]]:
        return self.router.close()


@pytest.mark.parametrize(
    ("adapter", "recording"),
    [
        ("broken_routers:EarlyCall", "well-formed/parallel-calls.jsonl"),
        ("test_vectorize:DropsTextDone", "well-formed/text-answer.sse"),
    ],
)
def test_a_router_that_gets_the_ground_truth_wrong_fails(
    adapter: str, recording: str, tmp_path: Path
) -> None:
    _written(CAPTURES / recording, tmp_path)
    (vector,), _ = load_vectors([tmp_path])
    assert run_vector(PythonImplementation.load(adapter), vector).status is Status.FAILED


def test_what_cannot_become_a_vector_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = CAPTURES / "broken/no-terminal-event.sse"
    assert main(["vectorize", str(recording), "--output", str(tmp_path)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"streamroute vectorize: {recording}: response 1: no terminal event: the recording states no "
        "final response to take outcomes from"
    ]
    assert main(["vectorize", str(tmp_path / "absent.sse")]) == 2
    assert capsys.readouterr().err.startswith("streamroute: cannot read the capture: ")
    text = CAPTURES / "well-formed/text-answer.sse"
    _written(text, tmp_path)
    assert main(["vectorize", str(text), "--output", str(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith("exists; --force replaces it")
    _written(text, tmp_path, "--force")


def test_check_capture_checks_back_to_back_responses_each_on_its_own() -> None:
    one = (CAPTURES / "well-formed/parallel-calls.jsonl").read_bytes()
    two = (CAPTURES / "well-formed/catalogue-calls.jsonl").read_bytes()
    assert check_capture(one + two).violations == []
    cut = b"\n".join(one.rstrip(b"\n").split(b"\n")[:-1]) + b"\n"  # its terminal event left out
    unended = len(cut.splitlines())
    reported = {(v.at, v.requirement) for v in check_capture(cut + two).violations}
    assert (unended, "PROD-SEQ-1") in reported  # no terminal event before it: the same response goes on


@pytest.mark.parametrize("bad_id", ["Bad ID", "../../etc/x", "/abs", "a//b", "x.yaml"])
def test_an_id_that_is_no_vector_id_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_id: str
) -> None:
    text = CAPTURES / "well-formed/text-answer.sse"
    assert main(["vectorize", str(text), "--id", bad_id, "--output", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.startswith(f"streamroute: --id {bad_id!r} is not a vector id")
    assert not (tmp_path / "out").exists()


def test_a_malformed_lifecycle_event_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from streamroute.producer.vectorize import events_of

    events = events_of((CAPTURES / "well-formed/parallel-calls.jsonl").read_bytes(), "one")
    events[-1]["response"]["status"] = ["completed"]  # a router cannot read this terminal event
    recording = tmp_path / "status-list.jsonl"
    recording.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    assert main(["vectorize", str(recording), "--output", str(tmp_path / "out")]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert f"event {len(events) - 1} (response.completed) breaks PROD-EVT-2" in line


SESSIONS = Path(__file__).parent.parent / "vectors" / "session"


def _server_events(vector: str) -> list[dict[str, object]]:
    """What a recording of the session vector holds: its server events, without the client steps."""
    from streamroute.conformance.vectors import read_yaml

    events = read_yaml((SESSIONS / f"{vector}.yaml").read_text(encoding="utf-8"))["events"]
    return [event for event in events if "control" not in event]


def _recording(path: Path, events: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("recorded", "mutant"),
    [
        ("lanes/interleaved-text", "OneLane"),
        ("lanes/interleaved-calls", "OneLane"),
        ("lanes/default-and-named", "SendsReachTheTurn"),
        ("lanes/fifo-two-requests", "OneRouterForTheConnection"),
        ("turns/several-tool-turns", "OneRouterForTheConnection"),
        ("turns/after-a-failed-turn", "EndsTurnsOnlyAtClose"),
        ("turns/incomplete", "SilentWhenTheClientCloses"),
    ],
)
def test_a_recorded_session_becomes_one_session_vector(recorded: str, mutant: str, tmp_path: Path) -> None:
    events = _server_events(recorded)
    root = tmp_path / "vectors"
    assert _written(_recording(tmp_path / "session.jsonl", events), root) == ["recorded/session"]
    assert main(["lint", "--vectors", str(root)]) == 0
    assert main(["run", "--vectors", str(root)]) == 0
    (vector,), _ = load_vectors([root])
    assert vector.data["profile"] == "session"
    assert [entry for entry in vector.data["events"] if "control" not in entry] == events
    assert vector.data["events"][0]["control"] == "send"
    assert "connection.closed" in vector.data["expect"]["compare"]
    result = run_vector(PythonImplementation.load(f"mutants.session:{mutant}"), vector)
    assert result.status is Status.FAILED, result.message


def _last_left_out(events: list[dict[str, object]]) -> list[dict[str, object]]:
    """The last turn's terminal event left out: that turn never ends."""
    assert events[-1]["type"] == "response.completed"
    return events[:-1]


def _renumbered(events: list[dict[str, object]]) -> list[dict[str, object]]:
    """One event of a turn numbered as if others had been sent before it."""
    return [{**event, "sequence_number": 99} if index == 3 else event for index, event in enumerate(events)]


@pytest.mark.parametrize(
    ("recorded", "change", "refusal"),
    [
        ("steer/accepted-is-not-committed", None, "(response.steer.accepted) acknowledges a steer"),
        ("errors/error-ends-oldest-turn", None, "is an error event"),
        ("lanes/interleaved-text", _last_left_out, "turn 1 (from event 0) has no terminal event"),
        ("lanes/interleaved-text", _renumbered, "event 3 breaks PROD-SEQ-"),
    ],
)
def test_what_a_recorded_session_cannot_decide_is_refused_in_one_line(
    recorded: str,
    change: object,
    refusal: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    events = _server_events(recorded)
    recording = _recording(tmp_path / "session.jsonl", change(events) if callable(change) else events)
    assert main(["vectorize", str(recording), "--output", str(tmp_path / "out")]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"streamroute vectorize: {recording}: a WebSocket session: ")
    assert refusal in line
    assert not (tmp_path / "out").exists()


def test_a_recording_holding_a_client_step_is_refused(tmp_path: Path) -> None:
    from streamroute.conformance.vectors import read_yaml

    entries = read_yaml((SESSIONS / "lanes/interleaved-text.yaml").read_text(encoding="utf-8"))["events"]
    data = _recording(tmp_path / "steps.jsonl", entries).read_bytes()
    with pytest.raises(VectorizeError, match="event 0 is a client step"):
        vectorize(data, "steps.jsonl", "recorded/x")


def test_a_call_is_taken_from_its_done_item_and_a_lying_final_response_is_a_declared_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 26, attack 6: the deltas, the `.done` and the done item read notes.txt, the announced item
    and the final response /etc/passwd. check-capture reports it; the vector declares it and expects
    nothing of the call, so the reference passes it, and no conforming router fails it."""
    recording = CAPTURES / "broken/final-output-states-other-arguments.jsonl"
    assert main(["check-capture", str(recording)]) == 1
    assert (
        "event 6: PROD-LIFE-7 (MUST) response.output states 'fc_1' with arguments" in capsys.readouterr().out
    )
    _written(recording, tmp_path)
    (vector,), _ = load_vectors([tmp_path])
    assert vector.data["producer_faults"] == ["PROD-LIFE-7"]
    assert vector.compare == {"lifecycle", "end"}
    assert "/etc/passwd" not in json.dumps(vector.expected)
    for adapter in ROUTERS:
        assert run_vector(PythonImplementation.load(adapter), vector).status is Status.PASSED
    assert lint([tmp_path], check_coverage=False)[1] == []


def test_the_call_a_vector_expects_is_its_done_items(tmp_path: Path) -> None:
    """Where the final response agrees, the expectation is the done item's call, as a router takes it."""
    recording = CAPTURES / "well-formed/parallel-calls.jsonl"
    events = events_of(recording.read_bytes(), "parallel")
    done = {e["item"]["id"]: e["item"] for e in events if e["type"] == "response.output_item.done"}
    (made,) = vectorize(recording.read_bytes(), "parallel", "recorded/parallel")
    calls = [outcome for outcome in made["expect"]["outcomes"] if outcome["kind"] == "tool.call"]
    assert [call["arguments"] for call in calls] == [
        json.loads(done[c["item_id"]]["arguments"]) for c in calls
    ]
    assert len(calls) == 2


def test_a_vector_past_the_size_limit_is_refused_naming_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 26, attack 9: a recording too large for a vector file was said not to read back."""
    events = events_of((CAPTURES / "well-formed/text-answer.sse").read_bytes(), "text")
    for event in events:
        if event["type"] == "response.output_text.delta":
            event["delta"] = "x" * MAX_VECTOR_FILE_BYTES
            break
    recording = tmp_path / "large.jsonl"
    recording.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    assert main(["vectorize", str(recording), "--output", str(tmp_path / "out")]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.endswith(
        f"large.yaml: the vector does not read back: is larger than {MAX_VECTOR_FILE_BYTES} bytes "
        "(the vector file size limit)"
    )
    assert not (tmp_path / "out" / "recorded" / "large.yaml").exists()
