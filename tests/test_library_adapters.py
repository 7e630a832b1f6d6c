"""The library adapters' shared mappings: how a raw SDK's application decides a done call item.

adapters/responses_events.py (Python) and adapters/node-common/responses_events.js (JavaScript)
map the events a raw SDK hands over; the one decision they make is the application's, whether
to run a done call item by the fields it states. A call not run produces nothing: the SDK has no
notice of it (`OBSERVES` shows no `tool.error`). The twins must decide alike.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ADAPTERS = Path(__file__).resolve().parent.parent / "adapters"
sys.path.insert(0, str(ADAPTERS))
from responses_events import OBSERVES, Translation  # noqa: E402

CALL = {"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_1", "name": "f"}
DONE_ITEMS = [
    ({**CALL, "arguments": "{}"}, [{"kind": "tool.call", "tool_type": "function", "arguments": "{}"}]),
    ({**CALL, "arguments": '{"a":', "status": "incomplete"}, []),
    (CALL, []),  # no arguments: no complete source
    ({**CALL, "arguments": "{}", "name": None}, []),
    ({**CALL, "type": "custom_tool_call", "input": "x"}, [{"kind": "tool.call", "input": "x"}]),
    ({**CALL, "type": "custom_tool_call", "input": "x", "status": "incomplete"}, []),
    ({"id": "msg_1", "type": "message", "status": "completed", "content": []}, []),
]


def done(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": 0, "item": item}


def stated(outcomes: list[dict[str, Any]], expected: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The outcomes cut to the fields the expectation states."""
    return [{name: got.get(name) for name in want} for got, want in zip(outcomes, expected, strict=True)]


@pytest.mark.parametrize(("item", "expected"), DONE_ITEMS)
def test_a_done_call_item_runs_only_when_whole_and_not_incomplete(
    item: dict[str, Any], expected: list[dict[str, Any]]
) -> None:
    outcomes = Translation().outcomes(done(item))
    assert len(outcomes) == len(expected)
    assert stated(outcomes, expected) == expected


def javascript_outcomes(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each event's outcomes by the JavaScript twin, each from a new Translation."""
    script = (
        f"const {{ Translation }} = require({str(ADAPTERS / 'node-common' / 'responses_events.js')!r});"
        "const events = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(events.map((e) => new Translation({ textLabels: false }).outcomes(e))));"
    )
    given = json.dumps(events)
    ran = subprocess.run(
        ["node", "-e", script], input=given, capture_output=True, text=True, timeout=60, check=True
    )
    return list(json.loads(ran.stdout))


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_javascript_twin_decides_each_done_item_alike() -> None:
    events = [done(item) for item, _ in DONE_ITEMS]
    assert javascript_outcomes(events) == [Translation().outcomes(event) for event in events]


MESSAGE = {"id": "msg_1", "type": "message", "phase": "final_answer", "agent": {"agent_name": "triage"}}
DELTA = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0}


def test_a_message_labels_its_text_with_its_phase_and_agent() -> None:
    """CORE-TEXT-9 and CORE-TEXT-12: the strings its announcement states, and nothing else."""
    translation = Translation()
    assert translation.outcomes({"type": "response.output_item.added", "item": MESSAGE}) == []
    text = translation.outcomes({**DELTA, "delta": "hi"})
    assert [(o["phase"], o["agent"]) for o in text] == [("final_answer", "triage")]
    other = Translation()
    other.outcomes({"type": "response.output_item.added", "item": {**MESSAGE, "phase": 7, "agent": "x"}})
    assert not {"phase", "agent"} & set(other.outcomes({**DELTA, "delta": "hi"})[0])


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_javascript_twin_shows_and_labels_alike() -> None:
    twin = str(ADAPTERS / "node-common" / "responses_events.js")
    script = (
        f"const {{ OBSERVES, Translation }} = require({twin!r});"
        "const t = new Translation({ textLabels: true });"
        f"t.outcomes({{ type: 'response.output_item.added', item: {json.dumps(MESSAGE)} }});"
        f"console.log(JSON.stringify([OBSERVES, t.outcomes({{ ...{json.dumps(DELTA)}, delta: 'hi' }})]));"
    )
    ran = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60, check=True)
    translation = Translation()
    translation.outcomes({"type": "response.output_item.added", "item": MESSAGE})
    assert json.loads(ran.stdout) == [OBSERVES, translation.outcomes({**DELTA, "delta": "hi"})]


# Types a malformed event states (members-of-the-wrong-json-type): none is a key of the tables.
TYPES_NOT_STRINGS = [["response.output_text.delta"], {"name": "response.completed"}, 7, None]


@pytest.mark.parametrize("kind", TYPES_NOT_STRINGS)
def test_an_event_whose_type_is_no_string_is_shown_as_it_came(kind: Any) -> None:
    """Never looked up in the tables (a list is no key of a dict): not routed, its type as handed over."""
    event = {**DELTA, "type": kind, "delta": "x"}
    assert Translation().outcomes(event) == [{"kind": "ignored", "type": kind}]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_javascript_twin_routes_no_type_that_is_no_string() -> None:
    """`in` would find a one-element array by its text, and route it as the type it spells."""
    events = [{**DELTA, "type": kind, "delta": "x"} for kind in TYPES_NOT_STRINGS]
    assert javascript_outcomes(events) == [Translation().outcomes(event) for event in events]
