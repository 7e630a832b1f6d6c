"""What each event type is to a router, as spec/event.schema.json states it.

Every `$defs/<event type>` of the event schema carries an `x-routing` annotation
(its members are described in the schema's own description). This module is the
one reader of it: the producer checker, the generated streams and the vector
strategies take their event tables from `event_types()`, never restate them.
The reference router keeps its own standard-library copy, which a test holds
equal to this one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from .schemas import EVENT, first_error, pointer_tokens, schema

ROUTING = EVENT + "#/$defs/routing"  # the annotation's own schema


@dataclass(frozen=True)
class EventType:
    """One event type's `x-routing` annotation."""

    name: str  # the event's `type`
    family: str  # the events streaming one thing: the type less its last part (`error`: itself)
    terminal: bool  # ends the response (CORE-LIFE-*, PROD-LIFE-2)
    routed: bool  # the routing table gives it a route; False: a router answers it with `ignored`
    item_types: tuple[str, ...]  # the item types it may name (PROD-ITEM-5); () when it names no item
    text: str | None = None  # the field holding its text: a `.delta`'s piece, a `.done`'s whole
    index: str | None = None  # the field telling one item's texts or parts of its family apart
    part: str | None = None  # the part family its text belongs to
    part_required: bool = False  # that part must be open while the text streams (PROD-PART-2)
    part_type: str | None = None  # the type of the part of a done item stating its text
    tool_type: str | None = None  # the `tool_type` of the call whose input the family streams
    preview: bool = False  # a catalogue call's streamed preview (CORE-CALLTYPE-6, -11)
    item_field: str | None = None  # a JSON pointer into the done item to the text it states

    @property
    def step(self) -> str:
        """What the event does in its family: `delta`, `done`, `added`, `completed`, ..."""
        return self.name.removeprefix(self.family).lstrip(".") or self.name

    @property
    def item_path(self) -> tuple[str, ...]:
        """`item_field` as the keys leading to the text in the done item; () without one."""
        return pointer_tokens(self.item_field) if self.item_field else ()

    @property
    def lifecycle(self) -> bool:
        """A lifecycle event, carrying the response (`response.created`, ... `response.incomplete`)."""
        return self.family == "response"


@cache
def event_types() -> dict[str, EventType]:
    """Every event type the event schema defines, by name, in the schema's order."""
    whole = schema(EVENT)
    names = [entry["if"]["properties"]["type"]["const"] for entry in whole["allOf"]]
    return {name: _read(name, whole["$defs"][name]) for name in names}


def _read(name: str, definition: dict[str, Any]) -> EventType:
    # The one schema every event table comes from: a fault in it stops everything.
    where = f"spec/event.schema.json $defs/{name}: x-routing"
    facts = definition.get("x-routing")
    if not isinstance(facts, dict):
        raise ValueError(f"{where}: missing")
    problem = first_error(ROUTING, facts)
    if problem is not None:
        raise ValueError(f"{where}: {problem}")
    return EventType(name=name, **{**facts, "item_types": tuple(facts["item_types"])})


@cache
def terminal_types() -> frozenset[str]:
    """The event types that end a response."""
    return frozenset(name for name, event in event_types().items() if event.terminal)


@cache
def lifecycle_types() -> frozenset[str]:
    """The lifecycle event types: `response.created` to the terminal ones."""
    return frozenset(name for name, event in event_types().items() if event.lifecycle)
