"""Hypothesis strategies for generated streams, each drawn with its ground truth.

Hand-written vectors are finite; stream bugs live in the cuts and
interleavings nobody wrote down. These strategies draw well-formed streams of
the `core` profile whose meaning is decided *before* they are cut into
events, so every stream comes with what a conforming router must make of it:

* `stream_plans()` draws a `StreamPlan`: the items of one response (messages
  of one or more text parts, function calls with JSON arguments, custom calls
  with free-text input, reasoning summaries), how many deltas each part is
  cut into, how the items' events interleave (parallel calls included), the
  unknown, vendor-prefixed and unrouted events mixed in, which `.done` events
  arrive twice, and how the stream ends: completed, failed or incomplete
  (a terminal event after a cut), or truncated (no terminal event at all).
* `streams_from(plan)` cuts the plan's texts at drawn positions into deltas
  (anywhere: inside a JSON string, an escape, between the halves of a
  surrogate pair's `\\u` escape) and renders the events: a `GeneratedStream`.
* `streams()` is both in one. Draw the plan once and `streams_from` it twice
  and you have the same stream cut two ways. With `consumer=True` every
  custom tool has the catalogue's `echo` diff consumer (`custom-tools`).

A stream's `truth` (`GroundTruth`) is what was decided: the intended text of
each part and whether its `.done` was sent, each call with its parsed
arguments or input and whether it completed, the end status.
`expected_outcomes(stream)` derives the exact outcome list the spec requires
(each with `at`, the index of the producing event, or `close`) from the plan
alone, never by running a router, and `check_properties(truth, outcomes)`
states the properties any router's outcomes must have in words: the text
outcomes concatenate to the ground truth text, each completed call appears
exactly once with equal arguments, no call appears for a cut item, the end
status is right, every outcome is valid against the outcome schema.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from hypothesis import strategies as st

from .compare import json_equal
from .schemas import OUTCOME, first_error

EndStatus = Literal["completed", "failed", "incomplete", "truncated"]
ItemKind = Literal["message", "function", "custom", "reasoning"]
ToolCallPoint = Literal["output_item_done", "arguments_done"]

FUNCTION_TOOLS = ("get_weather", "search_docs")
CUSTOM_TOOLS = ("run_sql",)
# The tool registry every generated stream is routed with.
TOOLS: tuple[dict[str, Any], ...] = (
    *({"name": name, "type": "function", "parameters": {"type": "object"}} for name in FUNCTION_TOOLS),
    *({"name": name, "type": "custom"} for name in CUSTOM_TOOLS),
)
# Events a router must answer with `ignored`: unknown, vendor-prefixed (even a routed
# name behind the prefix), and unrouted types of the routing table.
EXTRA_TYPES = (
    "response.future_feature.delta",
    "acme:trace_event",
    "acme:response.output_text.delta",
    "response.output_text.annotation.added",
    "response.web_search_call.searching",
    "response.audio.transcript.delta",
)
FAILURE_CODE = "server_error"


@dataclass(frozen=True)
class TextTruth:
    """One text part of a message: its intended text, and whether its `.done` is in the stream."""

    item_id: str
    output_index: int
    content_index: int
    text: str
    done: bool  # False: the stream was cut before it; its deltas are a prefix of `text`


@dataclass(frozen=True)
class CallTruth:
    """One call: what must execute, and whether it can."""

    item_id: str
    output_index: int
    call_id: str
    name: str
    tool_type: Literal["function", "custom"]
    text: str  # the complete arguments (JSON text) or input, as the producer states it
    arguments: dict[str, Any] | None  # function: the parsed arguments
    input: str | None  # custom: the input
    done: bool  # its output_item.done is in the stream: exactly one tool.call
    arguments_done: bool  # its arguments `.done` is in the stream

    def called(self, tool_call_point: ToolCallPoint = "output_item_done") -> bool:
        """Whether the call must produce its tool.call (else tool.error `incomplete`, CORE-CALL-6)."""
        return self.done or (tool_call_point == "arguments_done" and self.arguments_done)


@dataclass(frozen=True)
class GroundTruth:
    response_id: str
    texts: tuple[TextTruth, ...]
    calls: tuple[CallTruth, ...]
    status: EndStatus


@dataclass(frozen=True)
class ItemPlan:
    """One output item, decided before it is cut into events."""

    kind: ItemKind
    output_index: int
    texts: tuple[str, ...]  # message: one per part; reasoning: its summary; calls: the complete text
    deltas: tuple[int, ...]  # how many deltas each text is cut into
    arguments: dict[str, Any] | None = None  # function: the arguments `texts[0]` encodes
    name: str = ""
    arguments_done: bool = False  # calls: the arguments `.done` event is sent
    part_events: bool = False  # message: content_part.added/.done; reasoning: summary text .done
    duplicates: frozenset[str] = frozenset()  # which done events arrive twice: "part", "arguments", "item"

    @property
    def item_id(self) -> str:
        prefix = {"message": "msg", "function": "fc", "custom": "ctc", "reasoning": "rs"}[self.kind]
        return f"{prefix}_{self.output_index}"

    @property
    def call_id(self) -> str:
        return f"call_{self.output_index}"

    def steps(self) -> list[tuple[str, int, int]]:
        """The item's events in order, as (kind, part, delta number)."""
        steps = [("added", 0, 0)]
        if self.kind == "message":
            for part, count in enumerate(self.deltas):
                steps += [("part_added", part, 0)] if self.part_events else []
                steps += [("text_delta", part, j) for j in range(count)]
                steps.append(("text_done", part, 0))
                steps += [("text_done_again", part, 0)] if "part" in self.duplicates else []
                steps += [("part_done", part, 0)] if self.part_events else []
        elif self.kind == "reasoning":
            steps += [("reasoning_delta", 0, j) for j in range(self.deltas[0])]
            steps += [("summary_done", 0, 0)] if self.part_events else []
        else:
            steps += [("arguments_delta", 0, j) for j in range(self.deltas[0])]
            if self.arguments_done:
                steps.append(("arguments_done", 0, 0))
                steps += [("arguments_done_again", 0, 0)] if "arguments" in self.duplicates else []
        steps.append(("item_done", 0, 0))
        steps += [("item_done_again", 0, 0)] if "item" in self.duplicates else []
        return steps


@dataclass(frozen=True)
class Step:
    """One event of the plan: an item's step (`item` is its output index), an extra, or lifecycle."""

    kind: str
    item: int = -1
    part: int = 0
    delta: int = 0
    extra: str = ""


@dataclass(frozen=True)
class StreamPlan:
    response_id: str
    in_progress: bool
    items: tuple[ItemPlan, ...]
    steps: tuple[Step, ...]  # every event after response.created and before the terminal one
    status: EndStatus
    consumer: bool = False  # custom-tools: every custom tool has the catalogue's `echo` consumer

    def truth(self) -> GroundTruth:
        sent = {(s.kind, s.item, s.part) for s in self.steps}
        texts = []
        calls = []
        for item in self.items:
            i = item.output_index
            if item.kind == "message":
                texts += [
                    TextTruth(item.item_id, i, part, text, ("text_done", i, part) in sent)
                    for part, text in enumerate(item.texts)
                ]
            elif item.kind in ("function", "custom") and ("added", i, 0) in sent:
                calls.append(
                    CallTruth(
                        item.item_id,
                        i,
                        item.call_id,
                        item.name,
                        "function" if item.kind == "function" else "custom",
                        item.texts[0],
                        item.arguments if item.kind == "function" else None,
                        item.texts[0] if item.kind == "custom" else None,
                        ("item_done", i, 0) in sent,
                        ("arguments_done", i, 0) in sent,
                    )
                )
        return GroundTruth(self.response_id, tuple(texts), tuple(calls), self.status)


@dataclass(frozen=True)
class GeneratedStream:
    """A plan cut into events: `events[i]` is the event of `steps[i]` (response.created first)."""

    plan: StreamPlan
    cuts: tuple[tuple[tuple[str, ...], ...], ...]  # per item, per text: its deltas
    events: tuple[dict[str, Any], ...]

    @property
    def truth(self) -> GroundTruth:
        return self.plan.truth()

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tool registry the stream is routed with (a vector's `tools`)."""
        with_consumer = {"consumer": "echo"} if self.plan.consumer else {}
        return [{**tool, **with_consumer} if tool["type"] == "custom" else dict(tool) for tool in TOOLS]

    @property
    def profile(self) -> str:
        return "custom-tools" if self.plan.consumer else "core"


# -- drawing -----------------------------------------------------------------------------------

_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    # Below 2**53 in magnitude: a larger double with an integer value is written by some JSON
    # encoders (JavaScript's) as an integer literal whose exact value is not the double's.
    | st.floats(min_value=-(2**53), max_value=2**53)
    | st.text(max_size=8)
)
json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
argument_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)


@st.composite
def _argument_text(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    arguments = draw(argument_objects)
    ensure_ascii = draw(st.booleans())  # True: non-ASCII as \\u escapes, astral ones as surrogate pairs
    separators = draw(st.sampled_from([(",", ":"), (", ", ": ")]))
    return arguments, json.dumps(arguments, ensure_ascii=ensure_ascii, separators=separators)


@st.composite
def _item(draw: st.DrawFn, output_index: int, consumer: bool) -> ItemPlan:
    # With a consumer, half the items are custom calls: the slot's faults need two of them.
    kinds = ["message", "function", "custom", "reasoning"]
    kind: ItemKind = draw(st.sampled_from(["custom", *kinds, "custom"] if consumer else kinds))
    deltas = st.integers(0, 4)
    duplicates = st.frozensets(st.sampled_from(["part", "arguments", "item"]), max_size=1)
    if kind == "message":
        texts = tuple(draw(st.lists(st.text(max_size=12), min_size=1, max_size=2)))
        return ItemPlan(
            kind,
            output_index,
            texts,
            tuple(draw(deltas) for _ in texts),
            part_events=draw(st.booleans()),
            duplicates=draw(duplicates) - {"arguments"},
        )
    if kind == "reasoning":
        return ItemPlan(
            kind,
            output_index,
            (draw(st.text(max_size=12)),),
            (draw(deltas),),
            part_events=draw(st.booleans()),
            duplicates=draw(duplicates) & {"item"},
        )
    if kind == "function":
        arguments, text = draw(_argument_text())
        name = draw(st.sampled_from(FUNCTION_TOOLS))
    else:
        arguments, text = None, draw(st.text(max_size=24))
        name = CUSTOM_TOOLS[0]
    arguments_done = draw(st.booleans())
    return ItemPlan(
        kind,
        output_index,
        (text,),
        (draw(deltas),),
        arguments=arguments,
        name=name,
        arguments_done=arguments_done,
        duplicates=draw(duplicates) - ({"part"} if arguments_done else {"part", "arguments"}),
    )


def _interleave(draw: st.DrawFn, items: Sequence[ItemPlan]) -> list[Step]:
    """Merge the items' steps: each item's own order kept, announcements in output order."""
    pending = [[Step(kind, item.output_index, part, j) for kind, part, j in item.steps()] for item in items]
    merged: list[Step] = []
    announced = 0
    while any(pending):
        ready = [i for i, steps in enumerate(pending) if steps and i <= announced]
        chosen = ready[draw(st.integers(0, len(ready) - 1))]  # shrinks to one item after another
        merged.append(pending[chosen].pop(0))
        announced = max(announced, chosen + 1)
    return merged


@st.composite
def stream_plans(draw: st.DrawFn, max_items: int = 4, consumer: bool = False) -> StreamPlan:
    """A well-formed response, decided but not yet cut into deltas.

    With `consumer`, every custom tool has the `echo` diff consumer (the
    `custom-tools` profile, spec/custom-tools.md), so the streams also check
    the consumer slot: `diff.update` per delta of the bound call, `diff.finish`
    just before its `tool.call`."""
    count = draw(st.integers(0, max_items))
    items = tuple(draw(_item(i, consumer)) for i in range(count))
    steps = _interleave(draw, items)
    for extra in draw(st.lists(st.sampled_from(EXTRA_TYPES), max_size=3)):
        steps.insert(draw(st.integers(0, len(steps))), Step("extra", extra=extra))
    status: EndStatus = draw(st.sampled_from(["completed", "failed", "incomplete", "truncated"]))
    if status != "completed":
        steps = steps[: draw(st.integers(0, len(steps)))]  # the stream is cut here
    return StreamPlan("resp_gen", draw(st.booleans()), items, tuple(steps), status, consumer)


def _cut(draw: st.DrawFn, text: str, count: int) -> tuple[str, ...]:
    if count == 0:
        return ()
    bounds = sorted(draw(st.lists(st.integers(0, len(text)), min_size=count - 1, max_size=count - 1)))
    edges = [0, *bounds, len(text)]
    return tuple(text[start:end] for start, end in itertools.pairwise(edges))


@st.composite
def streams_from(draw: st.DrawFn, plan: StreamPlan) -> GeneratedStream:
    """The plan cut into deltas at drawn positions, and rendered as events."""
    cuts = tuple(
        tuple(_cut(draw, text, count) for text, count in zip(item.texts, item.deltas, strict=True))
        for item in plan.items
    )
    return GeneratedStream(plan, cuts, tuple(render_events(plan, cuts)))


def streams(max_items: int = 4, consumer: bool = False) -> st.SearchStrategy[GeneratedStream]:
    """Well-formed generated streams with their ground truth (`stream.truth`); see `stream_plans`."""
    return stream_plans(max_items, consumer).flatmap(streams_from)


# -- rendering ---------------------------------------------------------------------------------


def _response(plan: StreamPlan, status: str) -> dict[str, Any]:
    response: dict[str, Any] = {"id": plan.response_id, "status": status}
    if status == "failed":
        response["error"] = {"code": FAILURE_CODE, "message": "The model failed to finish."}
    if status == "incomplete":
        response["incomplete_details"] = {"reason": "max_output_tokens"}
    return response


def _item_object(item: ItemPlan, done: bool) -> dict[str, Any]:
    status = "completed" if done else "in_progress"
    if item.kind == "message":
        content = [{"type": "output_text", "text": t, "annotations": []} for t in item.texts] if done else []
        return {
            "id": item.item_id,
            "type": "message",
            "role": "assistant",
            "status": status,
            "content": content,
        }
    if item.kind == "reasoning":
        summary = [{"type": "summary_text", "text": item.texts[0]}] if done else []
        return {"id": item.item_id, "type": "reasoning", "summary": summary}
    field = "arguments" if item.kind == "function" else "input"
    return {
        "id": item.item_id,
        "type": "function_call" if item.kind == "function" else "custom_tool_call",
        "status": status,
        field: item.texts[0] if done else "",
        "call_id": item.call_id,
        "name": item.name,
    }


def _event(plan: StreamPlan, cuts: Sequence[Sequence[Sequence[str]]], step: Step) -> dict[str, Any]:
    if step.kind in ("response.created", "response.in_progress"):
        return {"type": step.kind, "response": _response(plan, "in_progress")}
    if step.kind == "terminal":
        return {"type": "response." + plan.status, "response": _response(plan, plan.status)}
    if step.kind == "extra":
        return {"type": step.extra, "item_id": "x_1", "output_index": 0, "delta": "{"}
    item = plan.items[step.item]
    where = {"item_id": item.item_id, "output_index": item.output_index}
    text = item.texts[step.part]
    part = {"content_index": step.part}
    kind = step.kind.removesuffix("_again")
    if kind in ("added", "item_done"):
        done = kind == "item_done"
        return {
            "type": "response.output_item." + ("done" if done else "added"),
            "output_index": item.output_index,
            "item": _item_object(item, done),
        }
    if kind == "part_added":
        return {
            "type": "response.content_part.added",
            **where,
            **part,
            "part": {"type": "output_text", "text": ""},
        }
    if kind == "part_done":
        return {
            "type": "response.content_part.done",
            **where,
            **part,
            "part": {"type": "output_text", "text": text},
        }
    delta = cuts[step.item][step.part][step.delta] if kind.endswith("delta") else ""
    if kind == "text_delta":
        return {"type": "response.output_text.delta", **where, **part, "delta": delta}
    if kind == "text_done":
        return {"type": "response.output_text.done", **where, **part, "text": text}
    if kind == "reasoning_delta":
        return {"type": "response.reasoning_summary_text.delta", **where, "summary_index": 0, "delta": delta}
    if kind == "summary_done":
        return {"type": "response.reasoning_summary_text.done", **where, "summary_index": 0, "text": text}
    family = "function_call_arguments" if item.kind == "function" else "custom_tool_call_input"
    if kind == "arguments_delta":
        return {"type": f"response.{family}.delta", **where, "delta": delta}
    assert kind == "arguments_done", step
    field = "arguments" if item.kind == "function" else "input"
    return {"type": f"response.{family}.done", **where, field: text}


def all_steps(plan: StreamPlan) -> list[Step]:
    """Every event of the plan, response.created first and the terminal event (if any) last."""
    steps = [Step("response.created")]
    steps += [Step("response.in_progress")] if plan.in_progress else []
    steps += plan.steps
    steps += [Step("terminal")] if plan.status != "truncated" else []
    return steps


def render_events(plan: StreamPlan, cuts: Sequence[Sequence[Sequence[str]]]) -> list[dict[str, Any]]:
    events = [_event(plan, cuts, step) for step in all_steps(plan)]
    return [{"type": event["type"], "sequence_number": n, **event} for n, event in enumerate(events)]


# -- what a router must make of it -------------------------------------------------------------

IGNORED_STEPS = {"part_added", "part_done", "summary_done", "extra"}


def expected_outcomes(
    stream: GeneratedStream, tool_call_point: ToolCallPoint = "output_item_done"
) -> list[dict[str, Any]]:
    """The exact outcomes spec/core.md requires for the stream, each with `at`, from its plan alone.

    Under `tool_call_point: arguments_done` a call's `tool.call` is placed
    where the harness compares it (spec/README.md): at its done item when the
    stream has one, else at its arguments `.done`.
    """
    plan = stream.plan
    items = {item.output_index: item for item in plan.items}
    sent = {(s.kind, s.item) for s in plan.steps}
    truth = {call.item_id: call for call in plan.truth().calls}
    open_calls: list[str] = []  # announced, not yet resolved, in announcement order
    outcomes: list[dict[str, Any]] = []
    slot: dict[str, Any] | None = None  # custom-tools: the echo consumer's call and buffer

    moved: dict[str, list[dict[str, Any]]] = {}  # arguments_done: resolved, compared at the done item

    def resolve(item: ItemPlan, at: int) -> list[dict[str, Any]]:
        nonlocal slot
        call = truth[item.item_id]
        resolved = []
        if slot is not None and slot["item_id"] == item.item_id:  # CUSTOM-FIN-1: finish, then the call
            resolved.append({"at": at, "kind": "diff.finish", **slot})
            slot = None
        outcome = {"at": at, "kind": "tool.call", "item_id": call.item_id, "call_id": call.call_id}
        outcome.update(name=call.name, tool_type=call.tool_type)
        if call.tool_type == "function":
            outcome["arguments"] = call.arguments
        else:
            outcome["input"] = call.input
        open_calls.remove(item.item_id)
        return [*resolved, outcome]

    def fail_open(at: int | str) -> None:
        nonlocal slot
        slot = None  # CUSTOM-END-1: dropped unfinished
        for item_id in list(open_calls):  # CORE-CALL-6
            call = truth[item_id]
            outcomes.append(
                {
                    "at": at,
                    "kind": "tool.error",
                    "item_id": item_id,
                    "call_id": call.call_id,
                    "code": "incomplete",
                }
            )
            open_calls.remove(item_id)

    events = stream.events
    for at, step in enumerate(all_steps(plan)):
        event = events[at]
        kind = step.kind
        item = items.get(step.item)
        if kind in ("response.created", "response.in_progress", "terminal"):
            name = event["type"].removeprefix("response.")
            outcomes.append({"at": at, "kind": "lifecycle", "event": name, "response_id": plan.response_id})
            if name == "failed":
                outcomes.append({"at": at, "kind": "error", "code": FAILURE_CODE})
            if kind == "terminal":
                fail_open(at)
        elif kind in IGNORED_STEPS:
            outcomes.append({"at": at, "kind": "ignored", "type": event["type"]})
        elif kind.endswith("_again"):
            outcomes.append({"at": at, "kind": "error", "code": "duplicate_event"})
        elif item is None:
            raise AssertionError(step)
        elif kind == "added":
            if item.kind in ("function", "custom"):
                open_calls.append(item.item_id)
            if item.kind == "function":  # CUSTOM-SLOT-3
                slot = None
            elif item.kind == "custom" and plan.consumer:  # CUSTOM-SLOT-2, CUSTOM-SLOT-5
                slot = {"item_id": item.item_id, "call_id": item.call_id, "buffer": ""}
        elif kind == "text_delta":
            outcomes.append(
                {
                    "at": at,
                    "kind": "text.delta",
                    "item_id": item.item_id,
                    "output_index": item.output_index,
                    "content_index": step.part,
                    "delta": event["delta"],
                }
            )
        elif kind == "text_done":
            outcomes.append(
                {"at": at, "kind": "text.done", "item_id": item.item_id, "content_index": step.part}
                | {"text": event["text"]}
            )
        elif kind == "reasoning_delta":
            outcomes.append(
                {"at": at, "kind": "reasoning.delta", "item_id": item.item_id, "summary_index": 0}
                | {"delta": event["delta"]}
            )
        elif kind == "arguments_delta":
            outcomes.append(
                {"at": at, "kind": "tool.arguments.delta", "item_id": item.item_id, "delta": event["delta"]}
            )
            if slot is not None and slot["item_id"] == item.item_id:  # CUSTOM-DELTA-2, CUSTOM-DELTA-4
                slot["buffer"] += event["delta"]
                outcomes.append({"at": at, "kind": "diff.update", **slot, "delta": event["delta"]})
        elif kind == "arguments_done":
            if tool_call_point == "arguments_done":  # CORE-CALL-8: resolved here, compared at the done item
                if ("item_done", step.item) in sent:
                    moved[item.item_id] = resolve(item, at)
                else:
                    outcomes += resolve(item, at)
        elif kind == "item_done":
            if item.item_id in moved:
                outcomes += [{**outcome, "at": at} for outcome in moved.pop(item.item_id)]
            elif item.item_id in open_calls:
                outcomes += resolve(item, at)
        else:
            raise AssertionError(step)
    if plan.status == "truncated":
        fail_open("close")
    outcomes.append({"at": "close", "kind": "end", "status": plan.status})
    return outcomes


def needs_option(stream: GeneratedStream) -> bool:
    """The stream has a call whose arguments completed but whose item never did: the
    two tool call points differ there (CORE-CALL-8), so a vector of it states its option."""
    return any(call.arguments_done and not call.done for call in stream.truth.calls)


def check_properties(
    truth: GroundTruth,
    outcomes: Sequence[Any],
    tool_call_point: ToolCallPoint = "output_item_done",
) -> list[str]:
    """The properties a router's outcomes for a generated stream must have; each violation in words."""
    problems = []
    for index, outcome in enumerate(outcomes):
        problem = first_error(OUTCOME, outcome)
        if problem is not None:
            return [f"outcome {index} is not valid against the outcome schema: {problem}"]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for outcome in outcomes:
        by_kind.setdefault(outcome["kind"], []).append(outcome)
    text_parts = {(t.item_id, t.content_index): t for t in truth.texts}
    shown: dict[tuple[str, int], str] = {}
    for delta in by_kind.get("text.delta", []):
        key = (delta["item_id"], delta["content_index"])
        if key not in text_parts:
            problems.append(
                f"text.delta for {key[0]} part {key[1]}, which has no answer text: {delta['delta']!r}"
            )
        shown[key] = shown.get(key, "") + delta["delta"]
    for part in truth.texts:
        key = (part.item_id, part.content_index)
        joined = shown.get(key, "")
        dones = [d for d in by_kind.get("text.done", []) if (d["item_id"], d["content_index"]) == key]
        if part.done and joined and joined != part.text:
            problems.append(f"the text deltas of {key[0]} part {key[1]} make {joined!r}, not {part.text!r}")
        if not part.done and not part.text.startswith(joined):
            problems.append(f"the text deltas of cut part {key[0]} {key[1]} make {joined!r}, not a prefix")
        if len(dones) != int(part.done) or (dones and dones[0]["text"] != part.text):
            problems.append(f"{key[0]} part {key[1]}: expected {int(part.done)} text.done of {part.text!r}")
    calls_by_item: dict[str, list[dict[str, Any]]] = {}
    for stated_call in by_kind.get("tool.call", []):
        calls_by_item.setdefault(stated_call["item_id"], []).append(stated_call)
    expected_calls = {call.item_id: call for call in truth.calls}
    for item_id in calls_by_item.keys() - expected_calls.keys():
        problems.append(f"tool.call for {item_id}, which is not a call")
    for call in truth.calls:
        got = calls_by_item.get(call.item_id, [])
        errors = [e for e in by_kind.get("tool.error", []) if e["item_id"] == call.item_id]
        if not call.called(tool_call_point):
            if got:
                problems.append(f"tool.call for {call.item_id}, which never completed")
            if len(errors) != 1 or errors[0].get("code") != "incomplete":
                problems.append(f"{call.item_id} never completed: expected one tool.error incomplete")
            continue
        if len(got) != 1 or errors:
            problems.append(
                f"{call.item_id}: expected exactly one tool.call, got {len(got)} and {len(errors)} errors"
            )
            continue
        stated = got[0]
        value = call.arguments if call.tool_type == "function" else call.input
        field = "arguments" if call.tool_type == "function" else "input"
        for name, wanted in (("call_id", call.call_id), ("name", call.name), ("tool_type", call.tool_type)):
            if stated.get(name) != wanted:
                problems.append(f"tool.call for {call.item_id}: {name} {stated.get(name)!r}, not {wanted!r}")
        if field not in stated or not json_equal(stated[field], value):
            problems.append(f"tool.call for {call.item_id}: {field} {stated.get(field)!r}, not {value!r}")
    ends = by_kind.get("end", [])
    if len(ends) != 1 or outcomes[-1]["kind"] != "end" or ends[0]["status"] != truth.status:
        problems.append(f"expected one end {truth.status!r}, last; got {[e.get('status') for e in ends]}")
    return problems
