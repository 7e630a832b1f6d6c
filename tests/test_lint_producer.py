"""`streamroute lint` checks each vector's stream against spec/producer.md: it must break exactly the
producer requirements its `producer_faults` declares, no more and no fewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import write_vector
from streamroute.conformance.lint import lint, producer_faults
from streamroute.conformance.vectors import Vector

RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1764505140,
    "status": "in_progress",
    "model": "gpt-5.1",
    "output": [],
}
MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
PART = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
DONE_PART = {**PART, "text": "Hi"}
DONE_MESSAGE = {**MESSAGE, "status": "completed", "content": [DONE_PART]}
TEXT = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
EVENTS: list[dict[str, Any]] = [
    {"type": "response.created", "response": RESPONSE},
    {"type": "response.output_item.added", "output_index": 0, "item": MESSAGE},
    {"type": "response.content_part.added", **TEXT, "part": PART},
    {"type": "response.output_text.delta", **TEXT, "delta": "Hi", "logprobs": []},
    {"type": "response.output_text.done", **TEXT, "text": "Hi", "logprobs": []},
    {"type": "response.content_part.done", **TEXT, "part": DONE_PART},
    {"type": "response.output_item.done", "output_index": 0, "item": DONE_MESSAGE},
    {"type": "response.completed", "response": {**RESPONSE, "status": "completed", "output": [DONE_MESSAGE]}},
]


def _numbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


def _vector(events: list[Any], **changes: Any) -> dict[str, Any]:
    return {
        "format": 1,
        "id": "core/realistic",
        "title": "A realistic answer",
        "spec": ["CORE-TEXT-1"],
        "level": "MUST",
        "profile": "core",
        "tools": [],
        "events": events,
        "expect": {"outcomes": [{"at": "close", "kind": "end", "status": "completed"}], "compare": ["end"]},
        **changes,
    }


def _problems(tmp_path: Path, data: dict[str, Any]) -> list[str]:
    write_vector(tmp_path, data)
    problems: list[str] = lint([tmp_path], check_coverage=False)[1]
    return problems


def test_a_stream_a_producer_could_send_needs_no_declaration(tmp_path: Path) -> None:
    assert _problems(tmp_path, _vector(_numbered(EVENTS))) == []


def test_an_undeclared_fault_names_the_vector_the_event_and_the_requirement(tmp_path: Path) -> None:
    without_part = _numbered([e for e in EVENTS if not e["type"].startswith("response.content_part")])
    [problem] = _problems(tmp_path, _vector(without_part))
    assert "core/realistic: event 2: PROD-PART-2 is broken but not in producer_faults" in problem


def test_a_declared_fault_is_accepted(tmp_path: Path) -> None:
    without_part = _numbered([e for e in EVENTS if not e["type"].startswith("response.content_part")])
    assert _problems(tmp_path, _vector(without_part, producer_faults=["PROD-PART-2"])) == []


def test_a_declared_fault_the_stream_does_not_break_is_reported(tmp_path: Path) -> None:
    [problem] = _problems(tmp_path, _vector(_numbered(EVENTS), producer_faults=["PROD-SEQ-2"]))
    assert problem.endswith(
        "core/realistic: producer_faults names PROD-SEQ-2, but the stream does not break it"
    )


def test_a_declared_fault_the_spec_does_not_define_is_reported(tmp_path: Path) -> None:
    [problem] = _problems(tmp_path, _vector(_numbered(EVENTS), producer_faults=["PROD-NOPE-1"]))
    assert problem.endswith("producer_faults names PROD-NOPE-1, which spec/producer.md does not define")


@pytest.mark.parametrize("declared", [["CORE-TEXT-1"], ["PROD-SEQ-2", "PROD-SEQ-2"]])
def test_producer_faults_must_be_distinct_producer_ids(tmp_path: Path, declared: list[str]) -> None:
    [problem] = _problems(tmp_path, _vector(_numbered(EVENTS), producer_faults=declared))
    assert "does not match the vector schema" in problem


def test_every_violation_counts_not_only_the_first_of_its_kind(tmp_path: Path) -> None:
    events = _numbered(EVENTS)
    events[-1]["sequence_number"] = 8  # PROD-SEQ-2, after a vendor event without a number: PROD-EVT-2
    events.insert(1, {"type": "acme:trace"})
    problems = _problems(tmp_path, _vector(events, producer_faults=["PROD-EVT-2"]))
    assert [p.split(": ")[2:4] for p in problems] == [
        ["event 8", "PROD-SEQ-2 is broken but not in producer_faults"]
    ]


def _sse(events: list[dict[str, Any]], tail: str = "") -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events) + tail


def test_an_sse_vector_is_checked_on_its_bytes(tmp_path: Path) -> None:
    stream = _sse(_numbered(EVENTS), tail="data: [DONE]\n\ndata: {}")  # the last event never ends
    data = _vector(
        [],
        id="sse/realistic",
        spec=["SSE-EVENT-2"],
        profile="sse",
        stream=stream,
        cuts=["every_byte", []],
        expect={
            "dispatched": 9,
            "outcomes": [{"at": "close", "kind": "end", "status": "completed"}],
            "compare": ["end"],
        },
    )
    del data["events"]
    [problem] = _problems(tmp_path, data)
    assert "sse/realistic: end of stream: PROD-SSE-2 is broken but not in producer_faults" in problem


def _execution(events: list[Any]) -> dict[str, Any]:
    return _vector(events, id="execution/realistic", spec=["EXEC-RESTART-1"], profile="execution")


def test_a_stream_replayed_after_a_restart_is_a_stream_of_its_own(tmp_path: Path) -> None:
    cut = _numbered(EVENTS)[:4]  # the process dies mid-answer: its client stopped reading
    replay = _numbered(EVENTS)
    assert _problems(tmp_path, _execution([*cut, {"control": "restart"}, *replay])) == []


def test_a_stream_that_ends_early_without_a_restart_is_reported(tmp_path: Path) -> None:
    cut = _numbered(EVENTS)[:4]
    [problem] = _problems(tmp_path, _execution([*cut, {"control": "audit"}, *_numbered(EVENTS)]))
    assert "end of stream: PROD-LIFE-2 is broken" in problem


def test_producer_faults_is_what_a_generated_vector_declares(tmp_path: Path) -> None:
    events = _numbered([e for e in EVENTS if e["type"] != "response.output_item.done"])
    data = _vector(events)
    declared = producer_faults(Vector(tmp_path / "v.yaml", data))
    assert declared == ["PROD-LIFE-5"]  # response.completed while the message is not done
    assert _problems(tmp_path, {**data, "producer_faults": declared}) == []
