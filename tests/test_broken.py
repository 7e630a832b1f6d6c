"""Each broken router fails exactly the vectors that check its mistake.

Which vectors those are is derived independently of the harness: from the
vector's events and compared kinds, and from what the reference routes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from streamroute.conformance.event_types import terminal_types
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.render import comparison_lines
from streamroute.conformance.results import Result, Status
from streamroute.conformance.vectors import Vector
from streamroute.reference import EVENT_TYPES, Outcome, Router, consumers_for

TERMINAL_EVENTS = terminal_types()


def _results(adapter: str, vectors: list[Vector]) -> dict[str, Result]:
    implementation = PythonImplementation.load(adapter)
    return {v.id: run_vector(implementation, v) for v in vectors if not v.options}


def _failing(adapter: str, vectors: list[Vector]) -> set[str]:
    return {vector_id for vector_id, r in _results(adapter, vectors).items() if r.status.is_failure}


def _core(vector: Vector) -> bool:
    """A vector the core-only broken routers run: core profile, canonical options, function and
    custom calls only (the call types they declare)."""
    calls_declared = vector.call_types <= {"function", "custom"}
    return vector.profile == "core" and not vector.options and calls_declared


def _compares(vector: Vector, *kinds: str) -> bool:
    return vector.compare is None or bool(vector.compare & set(kinds))


def _reference_by_event(vector: Vector) -> list[list[dict[str, Any]]]:
    """The reference's outcomes of each event, then those of close()."""
    router = Router(consumers_for(vector.tools))
    return [router.feed(event) for event in vector.events] + [router.close()]


def _reference_outcomes(vector: Vector) -> list[dict[str, Any]]:
    return [o for outcomes in _reference_by_event(vector) for o in outcomes]


def _function_argument_deltas(vector: Vector) -> bool:
    """The reference routes an argument delta of a function call in this vector."""
    functions = {
        e["item"]["id"]
        for e in vector.events
        if isinstance(e, dict)
        and isinstance(e.get("item"), dict)
        and e["item"].get("type") == "function_call"
    }
    return any(
        o["kind"] == "tool.arguments.delta" and o["item_id"] in functions for o in _reference_outcomes(vector)
    )


def test_a_call_fired_from_deltas_fails_every_vector_with_streamed_arguments(
    bundled: list[Vector],
) -> None:
    should_fail = {
        v.id for v in bundled if _core(v) and _function_argument_deltas(v) and _compares(v, "tool.call")
    }
    assert len(should_fail) >= 10
    assert _failing("broken_routers:EarlyCall", bundled) == should_fail


def test_argument_deltas_shown_as_text_fail_every_vector_comparing_them(
    bundled: list[Vector],
) -> None:
    should_fail = {
        v.id
        for v in bundled
        if _core(v) and _function_argument_deltas(v) and _compares(v, "tool.arguments.delta", "text.delta")
    }
    assert len(should_fail) >= 10
    assert _failing("broken_routers:TextMix", bundled) == should_fail


def test_raising_on_unknown_events_errors_every_vector_that_has_one(bundled: list[Vector]) -> None:
    should_fail = {
        v.id
        for v in bundled
        if _core(v)
        and any(
            isinstance(e, dict) and isinstance(e.get("type"), str) and e["type"] not in EVENT_TYPES
            for e in v.events
        )
    }
    assert len(should_fail) >= 2
    implementation = PythonImplementation.load("broken_routers:RaiseOnUnknown")
    results = {v.id: run_vector(implementation, v) for v in bundled if v.id in should_fail}
    assert all(r.status is Status.ERRORED for r in results.values())
    assert all("ValueError: unknown event type" in r.message for r in results.values())
    assert _failing("broken_routers:RaiseOnUnknown", bundled) == should_fail


# -- custom-tools: the diff consumer ---------------------------------------------


def _watch_consumers(vector: Vector) -> tuple[bool, bool]:
    """Read the vector by the slot rules of spec/custom-tools.md, independently of the router.

    Only which item core routed each delta to, and which call outcomes it
    produced, come from the reference. Answers (foreign, differs):
    `foreign`: a routed custom input delta naming another call arrives while
    an echo or raise consumer is active (consuming it shows at once);
    `differs`: a call is routed as tool.call while its consumer is still
    bound, and its input is not the text that consumer took.
    """
    registry = {
        (tool.get("namespace"), tool["name"]): tool["consumer"]
        for tool in vector.tools
        if tool["type"] == "custom" and "consumer" in tool
    }
    slot: dict[str, Any] | None = None
    foreign = differs = False
    for event, outcomes in zip(vector.events, _reference_by_event(vector), strict=False):  # close() last
        event_type = event.get("type") if isinstance(event, dict) else None
        event_type = event_type if isinstance(event_type, str) else None  # a malformed event's is any JSON
        if event_type == "response.output_item.added" and not any(o["kind"] == "error" for o in outcomes):
            item = event["item"]
            if item["type"] == "custom_tool_call":
                consumer = registry.get((item.get("namespace"), item["name"]))
                bound = consumer is not None and item.get("call_id") is not None
                slot = {"item": item["id"], "call": item.get("call_id"), "consumer": consumer, "took": ""}
                slot = slot if bound else None
            elif item["type"] == "function_call":
                slot = None
        routed = [o["item_id"] for o in outcomes if o["kind"] == "tool.arguments.delta"]
        if slot is not None and event_type == "response.custom_tool_call_input.delta" and routed:
            if routed[0] == slot["item"] and event.get("call_id") in (None, slot["call"]):
                slot["took"] += event["delta"]
            elif slot["consumer"] in ("echo", "raise"):
                foreign = True
        if slot is not None:
            mine = [o for o in outcomes if o.get("item_id") == slot["item"]]
            differs |= any(o["kind"] == "tool.call" and o["input"] != slot["took"] for o in mine)
            if any(
                o["kind"] in ("tool.call", "tool.error") or o.get("code") == "consumer_failed" for o in mine
            ):
                slot = None
        if event_type in TERMINAL_EVENTS:
            slot = None
    return foreign, differs


def _finish_before_call(vector: Vector) -> bool:
    """The reference answers some event with a consumer outcome before that call's tool.call."""
    for outcomes in _reference_by_event(vector):
        calls = {o["item_id"] for o in outcomes if o["kind"] == "tool.call"}
        for index, outcome in enumerate(outcomes):
            finishing = outcome["kind"].startswith("diff.") or outcome.get("code") == "consumer_failed"
            later_call = any(
                o["kind"] == "tool.call" and o["item_id"] == outcome.get("item_id") for o in outcomes[index:]
            )
            if finishing and outcome.get("item_id") in calls and later_call:
                return True
    return False


def _custom(vector: Vector) -> bool:
    return vector.profile in ("core", "custom-tools") and not vector.options


def _assert_readable(results: dict[str, Result], failing: set[str], pattern: str) -> None:
    for vector_id in failing:
        result = results[vector_id]
        assert result.status is Status.FAILED, (vector_id, result.message)
        assert re.fullmatch(pattern, result.message), (vector_id, result.message)
        lines = comparison_lines(result.comparisons)
        assert "expected" in lines[1]
        assert any(line.startswith(("!=", "+", "-")) for line in lines[2:]), lines


def test_ignoring_the_call_id_filter_fails_every_vector_with_a_foreign_delta(bundled: list[Vector]) -> None:
    should_fail = {v.id for v in bundled if _custom(v) and _watch_consumers(v)[0]}
    assert len(should_fail) >= 4
    results = _results("broken_routers:IgnoresCallIdFilter", bundled)
    failing = {vector_id for vector_id, r in results.items() if r.status.is_failure}
    assert failing == should_fail
    _assert_readable(results, failing, r"outcome \d+: expected kind \S+, got (diff\.update|error)")


def test_a_call_built_from_the_consumer_buffer_fails_every_vector_where_they_differ(
    bundled: list[Vector],
) -> None:
    should_fail = {v.id for v in bundled if _custom(v) and _watch_consumers(v)[1]}
    assert len(should_fail) >= 4
    results = _results("broken_routers:BuildsCallFromBuffer", bundled)
    failing = {vector_id for vector_id, r in results.items() if r.status.is_failure}
    assert failing == should_fail
    _assert_readable(results, failing, r"outcome \d+: field 'input': expected .*, got .*")


def test_a_finish_after_the_call_fails_every_vector_that_finishes_a_consumer(bundled: list[Vector]) -> None:
    should_fail = {v.id for v in bundled if _custom(v) and _finish_before_call(v)}
    assert len(should_fail) >= 10
    results = _results("broken_routers:FinishAfterCall", bundled)
    failing = {vector_id for vector_id, r in results.items() if r.status.is_failure}
    assert failing == should_fail
    _assert_readable(
        results, failing, r"outcome \d+: expected kind (diff\.update|diff\.finish|error), got tool\.call"
    )


class WithoutEmptyDeltas:
    """The reference router handing over no empty text, refusal or reasoning delta, which shows
    nothing (spec/vectors.md section 3.3)."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router(consumers_for(tools))

    @staticmethod
    def _shown(outcomes: list[Outcome]) -> list[Outcome]:
        shown = ("text.delta", "refusal.delta", "reasoning.delta")
        return [o for o in outcomes if not (o["kind"] in shown and o["delta"] == "")]

    def feed(self, event: Any) -> list[Outcome]:
        return self._shown(self.router.feed(event))

    def close(self) -> list[Outcome]:
        return self._shown(self.router.close())


def test_a_router_that_hands_over_no_empty_delta_of_a_shown_channel_fails_no_vector(
    bundled: list[Vector],
) -> None:
    core = [v for v in bundled if _core(v)]
    empty = [v.id for v in core if any(o["kind"] == "text.delta" and o["delta"] == "" for o in v.expected)]
    assert "core/text/empty-delta" in empty
    assert _failing("test_broken:WithoutEmptyDeltas", core) == set()


class CompletesPreview:
    """The reference router, completing each function call's preview at its first complete source
    with what that source adds to the deltas (pydantic-ai, when arguments come only in the done
    events); `whole` repeats the source's whole text instead, deltas and all."""

    whole = False

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router(consumers_for(tools))
        self.previewed: dict[str, str] = {}
        self.completed: set[str] = set()

    def _source(self, event: Any) -> tuple[Any, Any]:
        if not isinstance(event, dict):
            return None, None
        item = event.get("item")
        if event.get("type") == "response.function_call_arguments.done":
            return event.get("item_id"), event.get("arguments")
        if event.get("type") == "response.output_item.done" and isinstance(item, dict):
            return (
                (item.get("id"), item.get("arguments"))
                if item.get("type") == "function_call"
                else (None, None)
            )
        return None, None

    def feed(self, event: Any) -> list[Outcome]:
        outcomes = self.router.feed(event)
        for o in outcomes:
            if o["kind"] == "tool.arguments.delta":
                self.previewed[o["item_id"]] = self.previewed.get(o["item_id"], "") + o["delta"]
        item_id, text = self._source(event)
        if not isinstance(item_id, str) or not isinstance(text, str) or item_id in self.completed:
            return outcomes
        self.completed.add(item_id)
        so_far = "" if self.whole else self.previewed.get(item_id, "")
        if len(text) <= len(so_far) or not text.startswith(so_far):
            return outcomes
        return [{"kind": "tool.arguments.delta", "item_id": item_id, "delta": text[len(so_far) :]}, *outcomes]

    def close(self) -> list[Outcome]:
        return self.router.close()


class CompletesPreviewWithTheWholeText(CompletesPreview):
    whole = True


class SilentWhenFailedWithoutError:
    """The reference router, producing no `error` for a `response.failed` that states no error
    object (its lifecycle and the end tell the failure), as the AI SDK and pydantic-ai."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router(consumers_for(tools))

    def feed(self, event: Any) -> list[Outcome]:
        outcomes = self.router.feed(event)
        if event_type_of(event) == "response.failed":
            return [o for o in outcomes if not (o["kind"] == "error" and self.silent(event))]
        return outcomes

    @staticmethod
    def silent(failed: dict[str, Any]) -> bool:
        response = failed.get("response")
        return not (isinstance(response, dict) and isinstance(response.get("error"), dict))

    def close(self) -> list[Outcome]:
        return self.router.close()


class SilentWhenFailed(SilentWhenFailedWithoutError):
    """Produces no `error` for any `response.failed`: a failure's code and message are lost."""

    @staticmethod
    def silent(failed: dict[str, Any]) -> bool:
        return True


class TellsAFailureOnce:
    """The reference router, producing no `error` at a `response.failed` whose code an `error`
    event of the response gave already, as the AI SDK hands a failure over once; `late` drops the
    error event's instead, telling the failure only at its end."""

    late = False

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router(consumers_for(tools))
        self.told: list[Outcome] = []  # the error events' errors of the response so far

    def feed(self, event: Any) -> list[Outcome]:
        outcomes = self.router.feed(event)
        kind = event_type_of(event)
        if kind == "response.created":
            self.told = []
        errors = [o for o in outcomes if o["kind"] == "error" and isinstance(o.get("code"), str)]
        if kind == "error" and errors:
            self.told += errors
            return [o for o in outcomes if o not in errors] if self.late else outcomes
        if kind == "response.failed" and not self.late:
            codes = {o["code"] for o in self.told}
            return [o for o in outcomes if o not in errors or o["code"] not in codes]
        return outcomes

    def close(self) -> list[Outcome]:
        return self.router.close()


class TellsAFailureOnlyAtItsEnd(TellsAFailureOnce):
    late = True


def event_type_of(event: Any) -> Any:
    return event.get("type") if isinstance(event, dict) else None


def test_a_preview_completed_at_the_first_complete_source_fails_no_vector(bundled: list[Vector]) -> None:
    """spec/vectors.md section 3.3: the completion previews what the call will hold."""
    core = [v for v in bundled if _core(v)]
    assert _failing("test_broken:CompletesPreview", core) == set()


def test_a_preview_completed_with_anything_else_fails_where_deltas_came_before(bundled: list[Vector]) -> None:
    core = [v for v in bundled if _core(v)]
    failing = _failing("test_broken:CompletesPreviewWithTheWholeText", core)
    assert {"core/args/parallel-interleaved", "core/args/cut-inside-string-value"} <= failing
    assert "core/args/only-in-arguments-done" not in failing  # no delta came: the whole text is what it adds


def test_no_error_for_a_failed_response_stating_none_fails_no_vector(bundled: list[Vector]) -> None:
    """spec/vectors.md section 3.3: such an error has no code and no message; the end tells it."""
    core = [v for v in bundled if _core(v)]
    failed_without = [
        v.id
        for v in core
        if any(w["kind"] == "error" and w.get("code") is None for w in v.expected)
        and any(
            event_type_of(e) == "response.failed"
            and not isinstance((e.get("response") or {}).get("error"), dict)
            for e in v.events
        )
    ]
    assert "core/lifecycle/failed-without-error-object" in failed_without
    assert _failing("test_broken:SilentWhenFailedWithoutError", core) == set()
    assert "core/lifecycle/failed-during-function-call" in _failing("test_broken:SilentWhenFailed", core)


def test_a_failure_told_once_fails_no_vector(bundled: list[Vector]) -> None:
    """spec/vectors.md section 3.3: the error at response.failed tells again what the error event
    told, and the lifecycle and the end tell the failure."""
    core = [v for v in bundled if v.profile == "core" and v.call_types <= {"function", "custom"}]

    def failing(adapter: str) -> set[str]:  # vectors of options too: those the defaults meet run
        implementation = PythonImplementation.load(adapter)
        return {v.id for v in core if run_vector(implementation, v).status.is_failure}

    assert failing("test_broken:TellsAFailureOnce") == set()
    late = failing("test_broken:TellsAFailureOnlyAtItsEnd")
    twins = {"core/events/error-then-response-failed-flat", "core/events/error-then-response-failed-nested"}
    assert twins <= late


def test_parsed_arguments_under_json_text_fail_every_vector_handing_a_function_call_over(
    bundled: list[Vector],
) -> None:
    """The judge parses a json_text router's text as a conforming router would, so an object handed
    over would compare equal to it: it is an invalid outcome instead (CORE-JSON-1)."""
    core = [v for v in bundled if _core(v) and v.stream is None]
    should_fail = {
        v.id
        for v in core
        if any(o["kind"] == "tool.call" and o.get("tool_type") == "function" for o in _reference_outcomes(v))
    }
    assert len(should_fail) >= 20
    results = _results("broken_routers:ParsesUnderJsonText", core)
    failing = {vector_id for vector_id, r in results.items() if r.status.is_failure}
    assert failing == should_fail
    assert {results[v].charged for v in failing} == {("CORE-JSON-1",)}
