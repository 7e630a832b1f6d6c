"""One output item as its producer decides it, and its events in the order the producer sends them.

A call's texts each come with their meaning (`Verdict`); its deltas may disagree
with its `.done`, its `.done` with its done item (CORE-ARGS-6, CORE-ARGS-8), the
done item may leave its text out or state it as null; its identity may come late,
never, or be contradicted (CORE-CALL-4, CORE-CALL-17). A text part's deltas may
disagree with its `.done` (CORE-TEXT-11) or split a surrogate pair (CORE-TEXT-8).
Its events may name it in any way the spec allows (CORE-ITEM-2, -7, -8, -15), and
leave out its announcement, its `.done` or its done item, as producers do.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from .choices import Choices
from .patches import patch
from .plans import Identity, ItemPlan, PartPlan, PatchText, Verdict
from .steps import (
    BY_CALL_ID,
    Added,
    Address,
    CallIdField,
    Delta,
    Done,
    Hosted,
    Logprobs,
    PartAdded,
    PartClosed,
    PartDone,
    Stated,
    Step,
)
from .texts import argument_text, big, dumps, split_surrogates, text
from .tools import Catalogue
from .vocabulary import CALL_ITEM_TYPES, HOSTED, SCHEMAS, CallKind, Channel, ItemKind

# How many deltas a text is cut into: none (a producer may send only the complete text, which a
# consumer then sees only at its finish), to several.
PIECES = (0, 0, 1, 2, 2, 3, 3, 4, 5)


class _Gap(Enum):
    """What a call's announcement leaves for its done item to state, or never states."""

    FULL = "full"
    LATE_CALL_ID = "late_call_id"
    LATE_NAME = "late_name"
    LATE_NAMESPACE = "late_namespace"
    NO_CALL_ID = "no_call_id"
    NO_NAME = "no_name"
    NONE = "none"  # the done item states no identity at all


_GAPS: tuple[_Gap, ...] = (_Gap.FULL,) * 14 + (_Gap.LATE_CALL_ID, _Gap.LATE_NAME) * 2
_GAPS += (_Gap.LATE_NAMESPACE, _Gap.NO_CALL_ID, _Gap.NO_NAME, _Gap.NONE)


class _Source(Enum):
    """Where a call's complete text is stated: in its done item, or only in its `.done`."""

    ITEM = "item"
    ABSENT = "absent"  # the done item leaves it out
    NULL = "null"  # ... states it as null


def _texts_for(
    c: Choices, kind: CallKind, name: str, names: Catalogue, patches: list[PatchText]
) -> tuple[str, Verdict]:
    if kind == "function":
        return argument_text(c, names.objects(name), name in SCHEMAS)
    if name in names.patches or c.chance(10):
        drawn = patch(c)
        patches.append(drawn)
        return drawn.text, Verdict(None, drawn.text)
    said = c.pick(JSON_INPUTS) if c.chance(5) else text(c, 24)
    return said, Verdict(None, said)


# Custom inputs that are JSON text, handed over as the text they are (CORE-CALL-16): spaced as no
# encoder writes it, a quoted string, an array.
JSON_INPUTS = ('{"a": 1,  "b":[1,2]}', '"quoted input"', "[1, 2]  ")


def call(
    c: Choices,
    position: int,
    output_index: int,
    kind: CallKind,
    names: Catalogue,
    patches: list[PatchText],
    oversized: bool,
) -> ItemPlan:
    namespace, name = c.pick(names.functions if kind == "function" else names.customs)
    call_id = f"call_{position}"
    said, verdict = _texts_for(c, kind, name, names, patches)
    verdicts = [(said, verdict)]

    def other() -> str:  # another complete text, with its own meaning
        if kind == "function" and verdict.code is None and c.coin():
            again = dumps(c, verdict.value)  # the same object, written otherwise: still another text
            verdicts.append((again, verdict))
            return again
        again, meaning = _texts_for(c, kind, name, names, patches)
        verdicts.append((again, meaning))
        return again

    if oversized:
        streamed = big(c)
        pieces = c.integer(2, 5)
    else:
        streamed = other() if c.chance(6) else said  # deltas that disagree with it
        # A patch streams in many deltas, so its consumer's throttle has moments to decide.
        patched = patches and streamed == patches[-1].text
        pieces = c.pick((2, 3, 4, 5, 6, 8) if patched else PIECES)
    stated = other() if c.chance(6) else said  # a `.done` the done item contradicts (CORE-ARGS-8)
    done_text: str | None = said
    source = c.pick((_Source.ITEM,) * 5 + (_Source.ABSENT, _Source.NULL))
    if source is not _Source.ITEM:
        done_text, said = None, stated  # the `.done` alone states it
    added = Identity(call_id, name, namespace)
    gap = c.pick(_GAPS)
    if gap is _Gap.NO_CALL_ID:
        added = replace(added, call_id=None)
    elif gap is _Gap.NO_NAME:
        added = replace(added, name=None)
    done = Identity(added.call_id, added.name, namespace)
    if gap is _Gap.LATE_CALL_ID:
        added = replace(added, call_id=None)
    elif gap is _Gap.LATE_NAME:
        added = replace(added, name=None)
    elif gap is _Gap.LATE_NAMESPACE:
        added = replace(added, namespace=None)
    elif gap is _Gap.NONE:
        done = Identity()
    contradicted = c.pick((None,) * 12 + ("call_id", "name"))  # CORE-CALL-17: the first stands
    if contradicted == "call_id" and added.call_id is not None:
        done = replace(done, call_id=added.call_id + "_other")
    elif contradicted == "name" and added.name is not None:
        done = replace(done, name=added.name + "_other")
    # What the done item alone states, the announcement may state as null: absent (CORE-EVT-7).
    unstated = [n for n in ("call_id", "name") if getattr(added, n) is None and getattr(done, n) is not None]
    nulls = tuple(unstated) if unstated and c.coin() else ()
    status = c.pick(_STATUSES)
    done_type = "message" if c.chance(41) else None
    return ItemPlan(
        kind,
        position,
        output_index,
        CALL_ITEM_TYPES[kind],
        (PartPlan("arguments", 0, streamed, pieces, stated),),
        added,
        done,
        done_text,
        source is _Source.NULL,
        status,
        done_type,
        tuple(verdicts),
        added_nulls=nulls,
    )


_STATUSES = ("completed",) * 10 + (
    "incomplete",
    None,
    "in_progress",
)  # only incomplete refuses (CORE-CALL-21)


def _text_part(c: Choices, channel: Channel, index: int, oversized: bool, wire: bool) -> PartPlan:
    """`wire`: the stream goes out as SSE bytes, which carry U+FFFD as bytes that are not UTF-8
    (SSE-LINE-1), and events longer than a reader's buffer."""
    said = text(c)
    if oversized:  # CORE-LIMIT-3: routed on, no longer compared
        return PartPlan(channel, index, big(c), c.integer(2, 5), text(c))
    if wire and c.chance(3):
        said += "\ufffd"
    if wire and c.chance(30):
        said = "a" * c.integer(65_000, 70_000) + said  # past 64 KiB, a common line buffer
    streamed = said
    variant = c.pick(("same",) * 8 + ("other", "split", "decomposed"))
    if variant == "other":
        streamed = said + c.pick(["x", " ", "é"])  # the deltas disagree (CORE-TEXT-11)
    elif variant == "decomposed":  # the same letter, composed in the deltas: still another text
        streamed, said = said + "\u00e9", said + "e\u0301"
    elif variant == "split":
        said += "😀"
        streamed = split_surrogates(said)  # halves of a pair in two deltas: another text (CORE-TEXT-8)
    return PartPlan(channel, index, streamed, c.pick(PIECES), said)


_MESSAGE_PARTS: tuple[tuple[Channel, ...], ...] = (
    ("text",),
    ("text",),
    ("text", "text"),
    ("refusal",),
    ("text", "refusal"),
)
_REASONING: tuple[Channel, ...] = ("summary", "summary", "reasoning_text", "reasoning")


def item(
    c: Choices,
    kind: ItemKind,
    position: int,
    output_index: int,
    names: Catalogue,
    patches: list[PatchText],
    oversized: bool,
    wire: bool,
) -> ItemPlan:
    """One item of `kind`; `oversized`: past the 1 MiB limit (a message's first text, or a call)."""
    if kind == "function" or kind == "custom":
        return call(c, position, output_index, kind, names, patches, oversized)
    if kind == "message":
        channels = ("text",) if oversized else c.pick(_MESSAGE_PARTS)
        parts = tuple(
            _text_part(c, channel, index, oversized and index == 0 and channel == "text", wire)
            for index, channel in enumerate(channels)
        )
        return ItemPlan("message", position, output_index, "message", parts, labels=_labels(c))
    if kind == "reasoning":
        part = _text_part(c, c.pick(_REASONING), 0, False, wire)
        return ItemPlan("reasoning", position, output_index, "reasoning", (part,))
    hosted = c.pick(sorted(HOSTED))
    return ItemPlan("hosted", position, output_index, hosted, (), Identity(None, "lookup", None))


_PHASES = ("commentary", "final_answer", "commentary", None, 7)  # a null or a number labels nothing
_AGENTS = ({"agent_name": "researcher"}, {"agent_name": "writer"}, "researcher", {"name": "writer"}, None)


def _labels(c: Choices) -> tuple[tuple[str, object], ...]:
    """A message's labels: a `phase` (CORE-TEXT-9) one time in three, an `agent` (CORE-TEXT-12) one
    time in four, now and then of a shape that labels nothing."""
    labels: list[tuple[str, object]] = []
    if c.chance(3):
        labels.append(("phase", c.pick(_PHASES)))
    if c.chance(4):
        labels.append(("agent", c.pick(_AGENTS)))
    return tuple(labels)


@dataclass(frozen=True)
class Shared:
    """What an item's steps depend on beyond the item: the patches drawn, the call ids shared."""

    patches: tuple[PatchText, ...]
    call_ids: frozenset[str | None]


def shared(items: tuple[ItemPlan, ...], patches: list[PatchText]) -> Shared:
    stated = [item.added.call_id for item in items if item.added.call_id is not None]
    return Shared(tuple(patches), frozenset(call_id for call_id in stated if stated.count(call_id) > 1))


_NAMED = (Address(),) * 6 + (
    Address(output_index=Stated.ABSENT),
    Address(output_index=Stated.NULL),
    Address(item_id=Stated.ABSENT),
    Address(item_id=Stated.NULL),
)
_ROUTED = (Address(), Address(), Address(output_index=Stated.ABSENT), Address(output_index=Stated.NULL))
SAME_CALL_ID = Address(call_id=CallIdField.SAME)


def address(c: Choices, item: ItemPlan, routed: bool) -> Address:
    """How an item event names its item (CORE-ITEM-2, CORE-ITEM-8). `routed`: it must reach the
    item whatever the announcements did, so it keeps its `item_id` (or, custom, its call id)."""
    named: tuple[Address, ...] = _ROUTED if routed else _NAMED
    if item.kind == "custom" and item.added.call_id is not None:
        named += (SAME_CALL_ID,) if routed else (SAME_CALL_ID, BY_CALL_ID)
    return c.pick(named)


def _index(c: Choices, part: PartPlan) -> Stated:
    """An index of 0 may be left out or null (CORE-ITEM-7, CORE-EVT-7)."""
    if part.index != 0 or part.channel == "arguments":
        return Stated.STATED
    return c.pick((Stated.STATED,) * 4 + (Stated.ABSENT, Stated.NULL))


_LOGPROBS = (Logprobs.ABSENT,) * 4 + tuple(Logprobs)[1:]


def _logprobs(c: Choices, part: PartPlan) -> Logprobs:
    """A text's `logprobs`, in any shape, which routing never reads (CORE-TEXT-10)."""
    return c.pick(_LOGPROBS) if part.channel == "text" else Logprobs.ABSENT


def _announced(c: Choices, counted: bool) -> tuple[Stated, bool]:
    """How an announcement or done item states its output index, and whether it carries fields no
    router reads, of any type (CORE-ITEM-9). `counted`: it may leave out its output index, which is
    then the count of items announced before it (CORE-ITEM-1), so another item's events by output
    index may reach it."""
    forms: tuple[tuple[Stated, bool], ...] = ((Stated.STATED, False),) * 6 + ((Stated.STATED, True),)
    if counted:
        forms += ((Stated.ABSENT, False), (Stated.NULL, False))
    return c.pick(forms)


def _added(c: Choices, position: int, counted: bool) -> Added:
    output_index, odd = _announced(c, counted)
    return Added(item=position, output_index=output_index, odd_fields=odd)


def _done(c: Choices, position: int, counted: bool) -> Done:
    output_index, odd = _announced(c, counted)
    return Done(item=position, output_index=output_index, odd_fields=odd)


def item_steps(c: Choices, item: ItemPlan, drawn: Shared, counted: bool) -> list[Step]:
    """The item's events in the order a producer sends them, some left out as producers do."""
    i = item.position
    if item.kind == "hosted":
        events: list[Step] = [Hosted(item=i, event_type=kind) for kind in HOSTED[item.item_type]]
        return [Added(item=i), *events, Done(item=i)]
    if c.chance(20):  # only the done item (CORE-ITEM-6)
        return [_done(c, i, counted)]
    steps: list[Step] = [_added(c, i, counted)]
    for p, part in enumerate(item.parts):
        # A patch's deltas reach its own call, by id: its consumer previews the patch drawn. So do
        # those of a call sharing its call id with another, which its call id alone might not.
        routed = part.channel == "arguments" and (
            any(part.streamed == drawn_patch.text for drawn_patch in drawn.patches)
            or item.added.call_id in drawn.call_ids
        )
        bracketed = part.channel in ("text", "summary") and c.coin()  # unrouted part events
        steps += [PartAdded(item=i, part=p)] if bracketed else []
        for piece in range(part.pieces):
            named, index = address(c, item, routed), _index(c, part)
            steps.append(
                Delta(item=i, part=p, piece=piece, address=named, index=index, logprobs=_logprobs(c, part))
            )
        if not c.chance(5):  # its `.done`, routed or not
            named, index = address(c, item, routed), _index(c, part)
            # A `.done` carrying a name and call id of its own (CORE-CALL-4).
            states_name = part.channel == "arguments" and c.chance(6)
            done = PartDone(item=i, part=p, address=named, index=index, states_name=states_name)
            steps.append(replace(done, logprobs=_logprobs(c, part)))
        steps += [PartClosed(item=i, part=p)] if bracketed else []
    if not c.chance(15):
        steps.append(_done(c, i, counted))
    return steps
