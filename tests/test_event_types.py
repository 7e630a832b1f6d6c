"""The event schema's `x-routing` annotations: well-formed, consistent with the schema they annotate,
and equal to the reference router's own tables, which it keeps in the standard library by design."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, get_args

import pytest
from streamroute.conformance.event_types import EventType, event_types, lifecycle_types, terminal_types
from streamroute.conformance.schemas import EVENT, OPTIONS, pointer_tokens, schema
from streamroute.conformance.strategies import POINTS
from streamroute.reference import connection, router
from streamroute.reference.handover import ToolCallPoint
from streamroute.reference.router import Router

EVENTS = event_types()
# The facts of a family, the same on each of its events; `text` and `routed` are the event's own.
FAMILY_FACTS = (
    "item_types",
    "index",
    "part",
    "part_required",
    "part_type",
    "tool_type",
    "preview",
    "item_field",
)


def _properties(name: str) -> set[str]:
    """The fields the event schema defines for an event type, through its references."""
    found: set[str] = set()
    pending = [schema(f"{EVENT}#/$defs/{name}")]
    while pending:
        node = pending.pop()
        found |= set(node.get("properties", {})) | set(node.get("required", []))
        pending += node.get("anyOf", []) + ([schema(EVENT + node["$ref"])] if "$ref" in node else [])
    return found


def test_every_event_type_the_schema_dispatches_on_is_annotated() -> None:
    dispatched = [entry["if"]["properties"]["type"]["const"] for entry in schema(EVENT)["allOf"]]
    assert list(EVENTS) == dispatched
    assert all(event.name == name for name, event in EVENTS.items())


def test_a_family_is_its_types_prefix_and_its_facts_are_the_same_on_each_event() -> None:
    families: dict[str, list[EventType]] = defaultdict(list)
    for event in EVENTS.values():
        families[event.family].append(event)
        assert event.name == event.family or event.name.startswith(event.family + "."), event.name
    for family, events in families.items():
        for fact in FAMILY_FACTS:
            assert len({getattr(event, fact) for event in events}) == 1, f"{family}: {fact}"


def test_the_annotations_name_fields_and_families_the_schema_has() -> None:
    families = {event.family for event in EVENTS.values()}
    part_text: dict[str, str] = {}  # a part's type -> the field holding its text
    for branch in schema(f"{EVENT}#/$defs/part")["allOf"]:
        stated = branch["if"]["properties"]["type"]
        part_text |= dict.fromkeys(stated.get("enum", [stated.get("const")]), branch["then"]["required"][0])
    for name, event in EVENTS.items():
        fields = _properties(name)
        assert event.text is None or event.text in fields, name
        assert event.index is None or event.index in fields, name
        assert event.part is None or event.part in families, name
        assert event.part_required <= (event.part is not None), name
        if event.part_type is not None and event.step == "done":  # the part states what `.done` does
            assert part_text[event.part_type] == event.text, name
        assert bool(event.item_field) <= (event.text is not None and bool(event.item_types)), name
        assert not event.item_field or pointer_tokens(event.item_field), name
        assert event.terminal <= event.lifecycle, name


def test_an_annotation_out_of_its_schema_stops_the_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamroute.conformance import event_types as module

    broken: dict[str, Any] = {**schema(EVENT), "$defs": {**schema(EVENT)["$defs"]}}
    entry = broken["$defs"]["response.refusal.delta"]
    broken["$defs"]["response.refusal.delta"] = {
        **entry,
        "x-routing": {**entry["x-routing"], "routed": "yes"},
    }
    monkeypatch.setattr(module, "schema", lambda ref: broken)
    module.event_types.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"\$defs/response.refusal.delta: x-routing: .*'yes'"):
            module.event_types()
    finally:
        module.event_types.cache_clear()


# -- the reference router's own tables -------------------------------------------------------


def test_the_reference_knows_the_schemas_event_types_and_leaves_the_unrouted_ones_unrouted() -> None:
    assert set(EVENTS) == router.EVENT_TYPES
    assert {name for name, event in EVENTS.items() if not event.routed} == router.UNROUTED
    assert terminal_types() == router.TERMINAL_EVENTS
    assert {name.removeprefix("response.") for name in terminal_types()} == connection.TERMINAL
    assert terminal_types() < lifecycle_types()


def test_the_references_previews_and_calls_are_the_schemas() -> None:
    previews = {name: event for name, event in EVENTS.items() if event.preview}
    assert {
        name: (event.item_types[0], event.text, event.index) for name, event in previews.items()
    } == router.PREVIEW_EVENTS
    calls = [event for event in EVENTS.values() if event.tool_type and not event.preview]
    assert {event.item_types[0]: event.tool_type for event in calls} == router.CALL_TYPES
    assert {event.item_types[0]: event.item_path[0] for event in calls} == router.COMPLETE_FIELD
    catalogue = {event.item_types[0]: event.tool_type for event in previews.values()}
    assert catalogue.items() <= router.CATALOGUE_CALL_TYPES.items()


# Items of each type as announced, and one no routed event applies to.
ANNOUNCED: dict[str, dict[str, Any]] = {
    "message": {"role": "assistant", "content": []},
    "reasoning": {"summary": []},
    "function_call": {"call_id": "call_1", "name": "f", "arguments": ""},
    "custom_tool_call": {"call_id": "call_1", "name": "f", "input": ""},
    "apply_patch_call": {"call_id": "call_1", "operation": {"type": "create_file", "path": "a", "diff": ""}},
    "shell_call": {"call_id": "call_1", "action": {"commands": []}},
    "web_search_call": {"status": "in_progress"},
}
ITEM_EVENTS = [name for name, event in EVENTS.items() if event.routed and event.item_types]


def _routed(event: EventType, item_type: str) -> list[dict[str, Any]]:
    """What the reference answers `event` naming an item of `item_type`, announced first."""
    item = {"id": "it_1", "type": item_type, **ANNOUNCED[item_type]}
    fields: dict[str, Any] = {"item_id": "it_1", "output_index": 0, event.text or "delta": "x"}
    if event.index is not None:
        fields[event.index] = 0
    routed = Router(tool_call_point="arguments_done")
    routed.feed({"type": "response.output_item.added", "output_index": 0, "item": item})
    return routed.feed({"type": event.name, **fields})


@pytest.mark.parametrize("name", ITEM_EVENTS)
def test_the_reference_routes_an_item_event_for_the_item_types_the_schema_names_only(name: str) -> None:
    event = EVENTS[name]
    mismatch = [{"kind": "error", "code": "item_type_mismatch"}]
    for item_type in ANNOUNCED:
        codes = [{"kind": o["kind"], "code": o.get("code")} for o in _routed(event, item_type)]
        assert (codes == mismatch) == (item_type not in event.item_types), (item_type, codes)


@pytest.mark.parametrize("name", sorted(router.UNROUTED))
def test_the_reference_ignores_an_unrouted_event(name: str) -> None:
    outcomes = Router().feed({"type": name, "item_id": "nowhere", "output_index": 0})
    assert [outcome["kind"] for outcome in outcomes] == ["ignored"]


def test_the_references_tool_call_points_are_the_options_schemas() -> None:
    """The reference types the option's values itself (it imports no harness); the schema defines them."""
    values = schema(OPTIONS)["properties"]["tool_call_point"]["enum"]
    assert set(get_args(ToolCallPoint)) == set(values) == set(POINTS)
