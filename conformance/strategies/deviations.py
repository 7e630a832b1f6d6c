"""The producer's mistakes the spec gives an outcome for, each a registered function.

`DEVIATIONS` maps each deviation's name to what it is: the requirement ids it
exercises, how often each profile's streams draw it (`weights`, out of the
menu `menu(profile)` lists), and `place`, which reads the items and the body
of a stream (its steps between `response.created` and the terminal event) and
returns where to put the step it adds, or None when the stream has no place for
it (a late delta needs a completed part). A plan records the deviations placed
in it (`StreamPlan.deviations`), so a test can count how often each is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from .choices import Choices
from .items import address
from .plans import ItemPlan, channel_type
from .steps import (
    Added,
    CallIdField,
    Corruption,
    Delta,
    Done,
    ErrorEvent,
    ErrorShape,
    Extra,
    Foreign,
    Lifecycle,
    Malformed,
    Mismatch,
    NotAnEvent,
    PartDone,
    ResponseForm,
    Stated,
    Step,
    Terminal,
)
from .texts import small_text, text
from .vocabulary import EVENTS, EXTRA_TYPES, ITEM_TYPE_OF, PROFILES, Profile


@dataclass(frozen=True)
class Placed:
    """A step a deviation adds, and where: before the body's step `at` (at its end when `at` is
    the body's length)."""

    at: int
    step: Step


Place = Callable[[Choices, Sequence[ItemPlan], Sequence[Step]], "Placed | None"]


@dataclass(frozen=True)
class Deviation:
    name: str
    requirements: tuple[str, ...]
    weights: Mapping[Profile, int]  # how many times it stands in each profile's menu
    place: Place


DEVIATIONS: dict[str, Deviation] = {}


def deviation(name: str, *requirements: str, weight: int = 1, **by_profile: int) -> Callable[[Place], Place]:
    """Register `place` as deviation `name`, `weight` times in every profile's menu; `by_profile`
    (`custom_tools=3`) sets another weight for a profile."""
    weights = {profile: by_profile.get(profile.replace("-", "_"), weight) for profile in PROFILES}

    def register(place: Place) -> Place:
        assert name not in DEVIATIONS, name
        DEVIATIONS[name] = Deviation(name, requirements, weights, place)
        return place

    return register


def menu(profile: Profile) -> tuple[Deviation, ...]:
    """The deviations a stream of the profile draws from, each as often as its weight."""
    return tuple(d for d in DEVIATIONS.values() for _ in range(d.weights[profile]))


def _anywhere(c: Choices, body: Sequence[Step], step: Step, after: int = 0) -> Placed:
    return Placed(c.integer(after, len(body)), step)


def routed_done(step: Step, items: Sequence[ItemPlan]) -> bool:
    """A `.done` the routing table routes: a text's or a call's, not a refusal's or reasoning's."""
    if not isinstance(step, PartDone):
        return False
    item = items[step.item]
    return EVENTS[channel_type(item, item.parts[step.part], True)].routed


def _announcements(items: Sequence[ItemPlan], body: Sequence[Step], kind: str) -> list[int]:
    return [k for k, s in enumerate(body) if isinstance(s, Added) and items[s.item].kind == kind]


def _while_open(c: Choices, body: Sequence[Step], step: Step, announced: int) -> Placed:
    """`step` placed after the announcement at `announced` and before its item's done item, while
    its call is open (a consumer bound to it)."""
    opened = body[announced]
    assert isinstance(opened, Added)
    later = range(announced + 1, len(body))
    done = next((k for k in later if _done_of(body[k], opened.item)), len(body))
    return Placed(c.integer(announced + 1, done), step)


def _done_of(step: Step, item: int) -> bool:
    return isinstance(step, Done) and step.item == item


@deviation("duplicate", "CORE-ITEM-5", "CORE-ITEM-14", "CORE-TEXT-7", "CORE-ARGS-7", "CORE-EVT-8", weight=3)
def _duplicate(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed | None:
    """A second announcement, done item or `.done` (the first stands); an announcement of a call
    may state other ids, a `.done` another text."""
    found = [k for k, s in enumerate(body) if isinstance(s, (Added, Done)) or routed_done(s, items)]
    if not found:
        return None
    k = c.pick(found)
    again = body[k]
    if isinstance(again, Added) and items[again.item].is_call and c.coin():
        again = replace(again, other_identity=True)
    if isinstance(again, PartDone) and c.coin():
        again = replace(again, text=_other_text(c, items[again.item]) or None)
    return _malformed_now_and_then(c, items, _anywhere(c, body, again, k + 1))


def _malformed_now_and_then(c: Choices, items: Sequence[ItemPlan], placed: Placed | None) -> Placed | None:
    """The step placed, or one time in five its malformed copy: an event for a finished item is
    checked before it is found late or repeated (CORE-EVT-8)."""
    if placed is None or not c.chance(5):
        return placed
    step = placed.step
    item = items[step.item] if isinstance(step, (Added, Done, Delta, PartDone)) else None
    return Placed(placed.at, malformed(c, step, item))


def _other_text(c: Choices, item: ItemPlan) -> str:
    """Another text for a second `.done`: one of the item's complete texts, or any text."""
    if item.kind == "function":
        return c.pick([said for said, _ in item.verdicts])
    return text(c)


@deviation("late", "CORE-TEXT-6", "CORE-ARGS-4", "CORE-EVT-8", weight=3)
def _late(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed | None:
    """A delta after its part's `.done` or its item's done item; at a text's `.done`, perhaps as a
    refusal delta, another channel of the same content part."""
    found = [k for k, s in enumerate(body) if _completes(s, items) or routed_done(s, items)]
    return _malformed_now_and_then(c, items, _extra_delta(c, items, body, found, CallIdField.ABSENT))


@deviation("done_after_item", "CORE-TEXT-7", "CORE-ARGS-7")
def _done_after_item(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed | None:
    """A part's `.done` after its item's done item, whether or not the part had one: the item is
    done, so it is a duplicate either way."""
    found = [k for k, s in enumerate(body) if _completes(s, items)]
    if not found:
        return None
    k = c.pick(found)
    done = body[k]
    assert isinstance(done, Done)
    item = items[done.item]
    late = PartDone(item=done.item, part=c.below(len(item.parts)), address=address(c, item, routed=True))
    return _anywhere(c, body, late, k + 1)


def _completes(step: Step, items: Sequence[ItemPlan]) -> bool:
    """A done item that completes its item's parts: not one of another type, which is refused and
    leaves the item open (a delta after it is routed as any other)."""
    return isinstance(step, Done) and bool(items[step.item].parts) and items[step.item].done_type is None


@deviation("other_call_id", "CUSTOM-DELTA-2", weight=0, custom_tools=3)
def _other_call_id(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed | None:
    """An input delta of a custom call stating another call's id: routed, never to the consumer."""
    return _extra_delta(c, items, body, _announcements(items, body, "custom"), CallIdField.OTHER)


def _extra_delta(
    c: Choices, items: Sequence[ItemPlan], body: Sequence[Step], found: list[int], call_id: CallIdField
) -> Placed | None:
    if not found:
        return None
    k = c.pick(found)
    anchor = body[k]
    assert isinstance(anchor, (Added, Done, PartDone))
    item = items[anchor.item]
    part = anchor.part if isinstance(anchor, PartDone) else c.below(len(item.parts))
    named = replace(address(c, item, routed=True), call_id=call_id)
    refusal = (
        call_id is CallIdField.ABSENT
        and item.parts[part].channel == "text"
        and isinstance(anchor, PartDone)
        and c.coin()
    )
    delta = Delta(item=anchor.item, part=part, text=small_text(c), address=named, as_refusal=refusal)
    return _anywhere(c, body, delta, k + 1)


@deviation("early", "CORE-ITEM-3")
def _early(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed | None:
    """A delta before its item is announced: unknown_item."""
    first = {
        s.item: k for k, s in reversed(list(enumerate(body))) if isinstance(s, Added) and items[s.item].parts
    }
    if not first:
        return None
    k = c.pick(sorted(first.values()))  # its first announcement, not a second one
    announced = body[k]
    assert isinstance(announced, Added)
    return Placed(c.integer(0, k), Delta(item=announced.item, text=small_text(c)))


@deviation("foreign", "CORE-ITEM-3", "CORE-EVT-8")
def _foreign(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed:
    """An item event naming an item never announced; malformed too, one time in three: fields are
    checked first."""
    step: Step = Foreign(event_type=c.pick(sorted(ITEM_TYPE_OF)), by_id=c.coin())
    if c.chance(3):
        step = Malformed(of=step, corruption=c.pick((Corruption.DELTA_NUMBER, Corruption.DELTA_MISSING)))
    return _anywhere(c, body, step)


@deviation("mismatch", "CORE-ITEM-4")
def _mismatch(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed | None:
    """An event of another item type's channel."""
    found = [k for k, s in enumerate(body) if isinstance(s, Added) and items[s.item].kind != "hosted"]
    if not found:
        return None
    k = c.pick(found)
    announced = body[k]
    assert isinstance(announced, Added)
    wrong = {
        "message": "response.function_call_arguments.delta",
        "function": "response.custom_tool_call_input.delta",
    }
    event_type = wrong.get(items[announced.item].kind, "response.output_text.delta")
    return _anywhere(c, body, Mismatch(item=announced.item, event_type=event_type), k + 1)


def corruptions(step: Step, item: ItemPlan | None) -> tuple[Corruption, ...]:
    """Ways to make a copy of `step` malformed (CORE-EVT-9, CORE-ITEM-9, CORE-LIFE-6, CORE-ERR-2)
    without touching its ids."""
    if isinstance(step, (Delta, Mismatch, Foreign)):
        found = [
            Corruption.DELTA_NUMBER,
            Corruption.DELTA_MISSING,
            Corruption.DELTA_NULL,
            Corruption.OUTPUT_INDEX_STRING,
            Corruption.ITEM_ID_NUMBER,
            Corruption.NO_IDS,
        ]
        if isinstance(step, Delta) and item is not None:
            if item.parts[step.part].channel != "arguments":
                found += [Corruption.INDEX_STRING, Corruption.INDEX_NEGATIVE, Corruption.INDEX_FRACTION]
            if item.kind == "custom":
                found.append(Corruption.CALL_ID_NUMBER)  # read by custom input events only (CORE-ITEM-8)
        return tuple(found)
    if isinstance(step, PartDone):
        return (Corruption.TEXT_NUMBER, Corruption.TEXT_MISSING, Corruption.NO_IDS)
    if isinstance(step, (Added, Done)):
        found = [Corruption.ITEM_MISSING, Corruption.ITEM_STRING, Corruption.ID_MISSING, Corruption.ID_NUMBER]
        found += [Corruption.TYPE_NUMBER, Corruption.STATUS_NUMBER, Corruption.CALL_ID_NUMBER]
        found += [Corruption.NAME_NUMBER, Corruption.NAMESPACE_NUMBER, Corruption.OUTPUT_INDEX_NEGATIVE]
        found.append(Corruption.OUTPUT_INDEX_FRACTION)
        if isinstance(step, Done) and item is not None and item.is_call:
            found.append(Corruption.ARGUMENTS_NUMBER)
        return tuple(found)
    if isinstance(step, (Lifecycle, Terminal)):
        found = [Corruption.RESPONSE_STRING, Corruption.RESPONSE_ID_NUMBER, Corruption.RESPONSE_STATUS_NUMBER]
        failed = isinstance(step, Terminal) and step.status == "failed"
        return (*found, Corruption.RESPONSE_ERROR_STRING) if failed else tuple(found)
    if isinstance(step, ErrorEvent):
        return (Corruption.ERROR_STRING, Corruption.MESSAGE_MISSING, Corruption.CODE_NUMBER)
    return ()


def restated(step: Step) -> Step:
    """The step stating its ids in full, as its malformed copy does: what the copy breaks is the
    field it corrupts, never how the event names its item or its response."""
    if isinstance(step, (Delta, PartDone)):
        return replace(step, address=step.address.restated())
    if isinstance(step, (Added, Done)):
        return replace(step, output_index=Stated.STATED)
    if isinstance(step, Lifecycle):
        return replace(step, response=ResponseForm.STATED)
    return step


def malformed(c: Choices, step: Step, item: ItemPlan | None) -> Malformed:
    return Malformed(of=restated(step), corruption=c.pick(corruptions(step, item)))


@deviation("malformed", "CORE-EVT-9", "CORE-EVT-10", "CORE-EVT-8", "CORE-ITEM-9", weight=4)
def _malformed(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed | None:
    """A malformed copy of an event, just before the event it copies: it changes nothing."""
    found = [k for k, s in enumerate(body) if _copied(s, items)]
    if not found:
        return None
    k = c.pick(found)
    original = body[k]
    item = items[original.item] if isinstance(original, (Added, Done, Delta, PartDone, Mismatch)) else None
    return Placed(k, malformed(c, original, item))


def _copied(step: Step, items: Sequence[ItemPlan]) -> bool:
    """Whether a malformed copy of the step is drawn: not of a done item stating another type,
    which has not the fields a corruption breaks (a call's `arguments` in a message is not read)."""
    if isinstance(step, Done):
        return items[step.item].done_type is None
    if isinstance(step, Lifecycle):
        return step.event != "created"
    return (
        (isinstance(step, Delta) and step.piece is not None)
        or routed_done(step, items)
        or isinstance(step, (Added, ErrorEvent, Mismatch))
    )


# Entries that are not JSON objects with a string type (CORE-EVT-9).
NOT_EVENTS: tuple[Any, ...] = (
    5,
    "response.output_text.delta",
    [1, 2],
    None,
    True,
    {},
    {"type": 5},
    {"type": None},
    {"type": ["response.created"]},  # no string, and no key of a table either
    {"type": {"name": "response.created"}},
)


@deviation("not_an_event", "CORE-EVT-9", "CORE-EVT-2")
def _not_an_event(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed:
    return _anywhere(c, body, NotAnEvent(value=c.pick(NOT_EVENTS)))


@deviation("extra", "CORE-EVT-3", "CORE-EVT-4", "CORE-EVT-5", weight=3)
def _extra(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed:
    """An unknown, vendor or unrouted event, perhaps carrying a message's ids and a delta."""
    carries = c.pick(_CARRIES)
    return _anywhere(c, body, Extra(event_type=c.pick(EXTRA_TYPES), with_item=c.chance(3), carries=carries))


_CARRIES: tuple[Literal["error", "item"] | None, ...] = (None, None, None, None, "error", "item")


_SHAPES = tuple(ErrorShape)


@deviation("error", "CORE-ERR-1", "CORE-ERR-2", "CORE-ERR-4", weight=2)
def _error(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed:
    """An `error` event, flat or nested, with or without a code, or whose `error` is no object."""
    step = ErrorEvent(code=c.pick(["rate_limit_exceeded", None]), shape=c.pick(_SHAPES))
    return _anywhere(c, body, step)


RESPONSE_FORMS = (ResponseForm.STATED,) * 8 + tuple(ResponseForm)[1:]


@deviation("lifecycle", "CORE-LIFE-1", "CORE-EVT-7")
def _lifecycle(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed:
    """Another `response.in_progress`, `.queued` or `.created`, perhaps with its response absent or
    null."""
    events: tuple[Literal["in_progress", "queued", "created"], ...] = ("in_progress", "queued", "created")
    return _anywhere(c, body, Lifecycle(event=c.pick(events), response=c.pick(RESPONSE_FORMS)))


@deviation("anonymous", "CORE-ITEM-11", "CUSTOM-DELTA-3", weight=1, custom_tools=3)
def _anonymous(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed | None:
    """A custom input delta with no id at all: malformed, even while a call is open."""
    found = _announcements(items, body, "custom")
    if not found:
        return None
    k = c.pick(found)
    announced = body[k]
    assert isinstance(announced, Added)
    delta = Delta(item=announced.item, text=small_text(c))
    return _while_open(c, body, Malformed(of=delta, corruption=Corruption.NO_IDS), k)


@deviation("rebind", "CUSTOM-SLOT-4", weight=0, custom_tools=2)
def _rebind(c: Choices, items: Sequence[ItemPlan], body: Sequence[Step]) -> Placed | None:
    """A second announcement of a custom call, which core refuses: its consumer stays bound, with
    what it took."""
    found = _announcements(items, body, "custom")
    if not found:
        return None
    k = c.pick(found)
    return _while_open(c, body, body[k], k)
