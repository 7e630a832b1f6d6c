"""How an implementation's outcomes for a generated stream part from its ground truth, in words.

`check_properties` says what went wrong in the terms of the properties behind
the exact outcomes: every outcome valid, each part's answer text, each call's
one `tool.call` or `tool.error`, the end status.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..compare import json_equal
from ..schemas import OUTCOME, first_error
from .streams import GeneratedStream
from .truth import expected_outcomes
from .vocabulary import CANONICAL_POINT, Outcome, ToolCallPoint


def _texts_of(outcomes: Sequence[Any]) -> dict[tuple[str, int], str]:
    shown: dict[tuple[str, int], str] = {}
    for outcome in outcomes:
        if outcome["kind"] == "text.delta":
            key = (outcome["item_id"], outcome["content_index"])
            shown[key] = shown.get(key, "") + outcome["delta"]
    return shown


def _calls_of(outcomes: Sequence[Any]) -> dict[str, list[Outcome]]:
    calls: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        if outcome["kind"] in ("tool.call", "tool.error"):
            calls.setdefault(outcome["item_id"], []).append(outcome)
    return calls


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:60]) + f"... ({len(text)} characters)"


def _said(outcome: Outcome) -> str:
    if outcome["kind"] == "tool.error":
        return f"tool.error {outcome.get('code')}"
    value = outcome.get("arguments", outcome.get("input"))
    return f"tool.call {outcome.get('name')}({json.dumps(value, ensure_ascii=False, default=repr)[:60]})"


def check_properties(
    stream: GeneratedStream, outcomes: Sequence[Any], tool_call_point: ToolCallPoint = CANONICAL_POINT
) -> list[str]:
    """How an implementation's outcomes for a generated stream part from its ground truth, in words:
    every outcome valid, each part's answer text, each call's one tool.call or tool.error, the end."""
    for index, outcome in enumerate(outcomes):
        problem = first_error(OUTCOME, outcome)
        if problem is not None:
            return [f"outcome {index} is not valid against the outcome schema: {problem}"]
    expected = expected_outcomes(stream, tool_call_point)
    problems = []
    wanted, shown = _texts_of(expected), _texts_of(outcomes)
    for (item_id, index), text in shown.items():
        if (item_id, index) not in wanted:
            problems.append(
                f"text.delta for {item_id} part {index}, which has no answer text: {_shown(text)}"
            )
        elif text != wanted[item_id, index]:
            truth = _shown(wanted[item_id, index])
            problems.append(f"the text deltas of {item_id} part {index} make {_shown(text)}, not {truth}")
    for (item_id, index), text in wanted.items():
        if (item_id, index) not in shown:
            problems.append(f"no text.delta for {item_id} part {index}, which shows {_shown(text)}")
    want_calls, got_calls = _calls_of(expected), _calls_of(outcomes)
    for item_id in dict.fromkeys([*want_calls, *got_calls]):
        want, got = want_calls.get(item_id, []), got_calls.get(item_id, [])
        same = len(want) == len(got) and all(
            w["kind"] == g["kind"] and all(json_equal(v, g.get(k)) for k, v in w.items() if k != "at")
            for w, g in zip(want, got, strict=False)
        )
        if not same:
            wanted_calls, got_ones = ", ".join(map(_said, want)) or "no call", ", ".join(map(_said, got))
            problems.append(f"{item_id}: expected {wanted_calls}, got {got_ones or 'none'}")
    ends = [o for o in outcomes if o["kind"] == "end"]
    status = expected[-1]["status"]
    if len(ends) != 1 or outcomes[-1]["kind"] != "end" or ends[0]["status"] != status:
        problems.append(f"expected one end {status!r}, last; got {[e.get('status') for e in ends]}")
    return problems
