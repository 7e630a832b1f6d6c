"""What the producer decided: a response's items, what each states where, and its steps in order.

A `StreamPlan` is decided before it is cut into events: the items of one
response (messages of text and refusal parts, reasoning, function and custom
calls, hosted tool items), what each call states where (its deltas, its
arguments `.done`, its done item: the same text or not, JSON or not, too deep or
too large), which identity each item states at `added` and at done, and the
steps of the stream (steps.py). A complete text's meaning is decided when it is
drawn (`Verdict`: the parsed object, or the `tool.error` code), as is a patch's
preview at each line.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from .steps import Step
from .vocabulary import DELTA_TYPES, DONE_TYPES, Channel, ConsumerKind, EndStatus, ItemKind, Profile

if TYPE_CHECKING:
    from .deviations import Deviation


@dataclass(frozen=True)
class Verdict:
    """What a call's complete text means, decided when it was drawn (CORE-CALL-3, CORE-LIMIT-2)."""

    code: str | None  # None: the call goes out with `value`; else its tool.error code
    value: Any = None  # the parsed arguments (function) or the input (custom)
    pointer: str | None = None  # execution: where the arguments fail the tool's schema (EXEC-CHECK-2)
    parser_decides: bool = False  # a platform's JSON parser reads the text otherwise (core.md 12.9)


@dataclass(frozen=True)
class Identity:
    """What an item states at `added` or at done: its call id, name and namespace (CORE-CALL-4)."""

    call_id: str | None = None
    name: str | None = None
    namespace: str | None = None


@dataclass(frozen=True)
class PartPlan:
    """A content part, a reasoning part, or a call's arguments (`channel` "arguments")."""

    channel: Channel
    index: int  # content_index or summary_index
    streamed: str  # what its deltas concatenate to
    pieces: int  # into how many deltas it is cut
    stated: str  # what its `.done` states, when the stream has it


@dataclass(frozen=True)
class PatchText:
    """A generated apply_patch text and its preview after each line (spec/custom-tools.md 9)."""

    text: str
    previews: tuple[Any, ...]  # previews[k]: the `files` after k lines
    changes: tuple[bool, ...]  # changes[k - 1]: line k changes the preview
    error_line: int | None  # the line a streaming parser stops at
    valid: bool  # finish accepts the complete text


_ID_PREFIX = {"message": "msg", "reasoning": "rs", "function": "fc", "custom": "ctc", "hosted": "ht"}


@dataclass(frozen=True)
class ItemPlan:
    """One output item, decided before it is cut into events."""

    kind: ItemKind
    position: int  # its place among the plan's items: its id says it
    output_index: int
    item_type: str
    parts: tuple[PartPlan, ...] = ()
    added: Identity = Identity()
    done: Identity = Identity()
    done_text: str | None = None  # calls: the done item's arguments or input; None: not stated
    done_text_null: bool = False  # ... stated as null, which is absent (CORE-EVT-7)
    status: str | None = "completed"  # the done item's status; None: absent
    done_type: str | None = None  # the done item's type when it is not the announced one (CORE-ITEM-4)
    verdicts: tuple[tuple[str, Verdict], ...] = ()  # calls: the meaning of each complete text
    added_nulls: tuple[str, ...] = ()  # calls: the identity fields its announcement states as null
    # A message's `phase` and `agent` members, as its announcements state them (CORE-TEXT-9, -12).
    labels: tuple[tuple[str, Any], ...] = ()

    @property
    def label_fields(self) -> dict[str, str]:
        """What its text outcomes carry of its labels: a string `phase`, and the string
        `agent_name` of an `agent` object; a label of any other shape carries nothing."""
        fields: dict[str, str] = {}
        for name, value in self.labels:
            if name == "agent":
                value = value.get("agent_name") if isinstance(value, dict) else None
            if isinstance(value, str):
                fields[name] = value
        return fields

    @property
    def item_id(self) -> str:
        return f"{_ID_PREFIX[self.kind]}_{self.position}"

    @property
    def is_call(self) -> bool:
        return self.kind in ("function", "custom")


def channel_type(item: ItemPlan, part: PartPlan, done: bool) -> str:
    """The event type of the part's deltas, or of its `.done`."""
    channel = item.kind if part.channel == "arguments" else part.channel
    return (DONE_TYPES if done else DELTA_TYPES)[channel]


Behaviour = Literal["result", "fails", "pending", "returns_input"]


@dataclass(frozen=True)
class ExecutionTool:
    """A tool of an execution vector, with its declared behaviour (spec/execution.md section 11)."""

    name: str
    type: Literal["function", "custom"]
    namespace: str | None = None
    parameters: dict[str, Any] | None = None
    allow: bool = True
    permitted: bool = True
    requires_approval: bool = False
    behaviour: Behaviour = "result"
    result: Any = None

    def declared(self) -> dict[str, Any]:
        tool: dict[str, Any] = {"name": self.name, "type": self.type}
        if self.namespace is not None:
            tool["namespace"] = self.namespace
        if self.parameters is not None:
            tool["parameters"] = self.parameters
        if not self.allow:
            tool["allow"] = False
        if not self.permitted:
            tool["permitted"] = False
        if self.requires_approval:
            tool["requires_approval"] = True
        if self.behaviour == "fails":
            tool["fails"] = "the tool failed"
        elif self.behaviour == "pending":
            tool["pending"] = True
        elif self.behaviour == "returns_input":
            tool["returns_input"] = True
        else:
            tool["result"] = self.result
        return tool


class Numbering(Enum):
    """The events' sequence numbers, which a router never reads (CORE-EVT-6)."""

    IN_ORDER = "in_order"
    ABSENT = "absent"
    REPEATED = "repeated"
    SHUFFLED = "shuffled"

    def numbers(self, count: int) -> list[int | None]:
        if self is Numbering.ABSENT:
            return [None] * count
        if self is Numbering.REPEATED:
            return [n - (n % 3 == 2) for n in range(count)]
        if self is Numbering.SHUFFLED:
            return [count - n for n in range(count)]
        return list(range(count))


ConsumerKey = tuple[str | None, str]  # a custom tool's (namespace, name)


@dataclass(frozen=True)
class StreamPlan:
    profile: Profile
    response_id: str
    items: tuple[ItemPlan, ...]
    steps: tuple[Step, ...]  # every entry of the stream, response.created first
    status: EndStatus  # how the producer ended it: `truncated` has no terminal event
    tools: tuple[dict[str, Any], ...]  # the vector's tool list
    consumers: tuple[tuple[ConsumerKey, ConsumerKind], ...] = ()  # custom-tools: the consumer of each tool
    execution_tools: tuple[ExecutionTool, ...] = ()
    patches: tuple[PatchText, ...] = ()  # the patch texts of the plan's calls
    numbering: Numbering = Numbering.IN_ORDER
    deviations: tuple[Deviation, ...] = ()  # the producer's mistakes its steps hold (deviations.py)

    def verdict(self, item: ItemPlan, text: str) -> Verdict:
        """What a complete text means for the call it completes, wherever it was drawn."""
        if item.kind == "custom":
            return Verdict(None, text)
        for owner in (item, *self.items):
            for stated, verdict in owner.verdicts:
                if stated == text:
                    return verdict
        raise AssertionError(f"{item.item_id}: no verdict for {text[:40]!r}")

    @property
    def parser_decides(self) -> bool:
        """Whether a platform's JSON parser reads some call text of the stream otherwise than the
        canonical strict rules (option `arguments_parser`, spec/core.md section 12.9)."""
        return any(verdict.parser_decides for item in self.items for _, verdict in item.verdicts)

    def patch(self, text: str) -> PatchText | None:
        for patch in self.patches:
            if patch.text == text:
                return patch
        return None
