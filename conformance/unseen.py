"""Outcomes that show an application nothing the others do not (spec/vectors.md section 3.3).

A router may produce them or not: the harness drops them before comparing, from both sides where a
vector could expect them, so no implementation fails for what no user can tell, and one that errs
or loses text around them still fails where it does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .implementation import Produced

# The channels whose deltas are shown as they come: an empty one shows nothing.
_SHOWN_DELTAS = frozenset({"text.delta", "refusal.delta", "reasoning.delta"})


def _event(events: Sequence[Any] | None, at: object) -> Mapping[str, Any] | None:
    if events is None or not isinstance(at, int) or not 0 <= at < len(events):
        return None
    event = events[at]
    return event if isinstance(event, Mapping) else None


def _failed_without_error(event: Mapping[str, Any] | None) -> bool:
    """A `response.failed` whose response states no error object: it has no code, no message."""
    if event is None or event.get("type") != "response.failed":
        return False
    response = event.get("response")
    return not isinstance(response, Mapping) or not isinstance(response.get("error"), Mapping)


def _unseen(outcome: Any, at: object, events: Sequence[Any] | None) -> bool:
    """An empty delta of a shown channel, or an `error` without a code at a failed response that
    states no error (its lifecycle and the end tell the failure, CORE-LIFE-3)."""
    if not isinstance(outcome, dict):
        return False
    kind = outcome.get("kind")
    if kind in _SHOWN_DELTAS:
        return outcome.get("delta") == ""
    return kind == "error" and outcome.get("code") is None and _failed_without_error(_event(events, at))


def _told_again(outcomes: Sequence[tuple[Any, object]], events: Sequence[Any] | None) -> set[int]:
    """Which of `outcomes` (each with its `at`) are errors at a `response.failed` whose code an
    `error` event of the same response, on the same lane, gave already: the failure told again."""
    told: dict[str | None, set[str]] = {}  # the codes of the error events so far, by lane
    again: set[int] = set()
    for number, (outcome, at) in enumerate(outcomes):
        kind = outcome.get("kind") if isinstance(outcome, dict) else None
        if kind not in ("error", "lifecycle"):  # only these need their event looked up
            continue
        event = _event(events, at)
        if event is None:
            continue
        lane = event.get("stream_id") if isinstance(event.get("stream_id"), str) else None
        if event.get("type") == "response.created":
            told.pop(lane, None)
        code = outcome.get("code")
        if kind != "error" or not isinstance(code, str):
            continue
        if event.get("type") == "error":
            told.setdefault(lane, set()).add(code)
        elif event.get("type") == "response.failed" and code in told.get(lane, ()):
            again.add(number)
    return again


def first_sources(events: Sequence[Any]) -> dict[str, tuple[int, str]]:
    """Each function call's first complete source: its event and its text (the arguments `.done`'s
    `arguments`, or the done item's, CORE-ARGS-5), by item id."""
    sources: dict[str, tuple[int, str]] = {}
    for index, event in enumerate(events):
        if not isinstance(event, Mapping):
            continue
        item = event.get("item")
        if event.get("type") == "response.function_call_arguments.done":
            item_id, text = event.get("item_id"), event.get("arguments")
        elif event.get("type") == "response.output_item.done" and isinstance(item, Mapping):
            function = item.get("type") == "function_call"
            item_id, text = (item.get("id"), item.get("arguments")) if function else (None, None)
        else:
            continue
        if isinstance(item_id, str) and isinstance(text, str):
            sources.setdefault(item_id, (index, text))
    return sources


def without_completions(produced: Sequence[Produced], events: Sequence[Any]) -> list[Produced]:
    """The produced outcomes without the one `tool.arguments.delta` of each function call that,
    at its first complete source, holds exactly what the source adds to the deltas before it: a
    preview completed with the arguments the call will hold."""
    sources = first_sources(events)
    previewed: dict[str, list[str]] = {}  # each call's deltas so far, joined only at its source
    completed: set[str] = set()
    kept: list[Produced] = []
    for entry in produced:
        outcome = entry.outcome
        item_id = outcome.get("item_id") if outcome.get("kind") == "tool.arguments.delta" else None
        delta = outcome.get("delta")
        if not isinstance(item_id, str) or not isinstance(delta, str):
            kept.append(entry)
            continue
        so_far = previewed.setdefault(item_id, [])
        source = sources.get(item_id)
        if (
            delta
            and source is not None
            and source[0] == entry.at
            and item_id not in completed
            and "".join(so_far) + delta == source[1]
        ):
            completed.add(item_id)
            continue
        so_far.append(delta)
        kept.append(entry)
    return kept


def without_unseen(
    expected: Sequence[dict[str, Any]], produced: Sequence[Produced], events: Sequence[Any] | None
) -> tuple[list[dict[str, Any]], list[Produced]]:
    """Both sides without the empty deltas of shown channels, the code-less errors of failed
    responses that state no error and the errors of failed responses that tell again a code an
    error event told (`events`: None for an sse vector, which has none)."""
    wanted = [want for want in expected if not _unseen(want, want.get("at"), events)]
    wanted_again = _told_again([(want, want.get("at")) for want in wanted], events)
    kept = [entry for entry in produced if not _unseen(entry.outcome, entry.at, events)]
    kept_again = _told_again([(entry.outcome, entry.at) for entry in kept], events)
    return (
        [want for number, want in enumerate(wanted) if number not in wanted_again],
        [entry for number, entry in enumerate(kept) if number not in kept_again],
    )
