"""The library adapters' shared mappings: how a raw SDK's application decides a done call item.

adapters/responses_events.py (Python) and adapters/node-common/responses_events.js (JavaScript)
map the events a raw SDK hands over; the one decision they make is the application's, whether
to run a done call item by the fields it states. The twins must decide alike.
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
from responses_events import Translation  # noqa: E402

CALL = {"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_1", "name": "f"}
REFUSED = {"kind": "tool.error", "item_id": "fc_1", "call_id": "call_1", "code": "incomplete"}
DONE_ITEMS = [
    ({**CALL, "arguments": "{}"}, [{"kind": "tool.call", "tool_type": "function", "arguments": "{}"}]),
    ({**CALL, "arguments": '{"a":', "status": "incomplete"}, [REFUSED]),
    (CALL, [REFUSED]),  # no arguments: no complete source
    ({**CALL, "arguments": "{}", "name": None}, [REFUSED]),
    ({**CALL, "type": "custom_tool_call", "input": "x"}, [{"kind": "tool.call", "input": "x"}]),
    ({**CALL, "type": "custom_tool_call", "input": "x", "status": "incomplete"}, [REFUSED]),
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


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_javascript_twin_decides_each_done_item_alike() -> None:
    script = (
        f"const {{ Translation }} = require({str(ADAPTERS / 'node-common' / 'responses_events.js')!r});"
        "const events = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(events.map((e) => new Translation({ textPhase: false }).outcomes(e))));"
    )
    events = [done(item) for item, _ in DONE_ITEMS]
    given = json.dumps(events)
    ran = subprocess.run(
        ["node", "-e", script], input=given, capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(ran.stdout) == [Translation().outcomes(event) for event in events]
