"""The steps of a generated stream: one class per kind of entry, each field with one meaning.

A step is one entry of the stream, named by what it means (the third delta of
part 1 of item 2, addressed by `output_index` only; the done item of item 0; a
malformed copy of an event), never by its JSON: rendering.py writes the event,
outcomes.py says what a conforming router makes of it. How an event states a
field is an enum member (`Stated.NULL`), never a string, so a misspelt form is
an error where it is written, not another stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from .vocabulary import TerminalStatus

if TYPE_CHECKING:
    from .plans import ExecutionTool


class Stated(Enum):
    """How an event states a field: as it is, left out, or as null, which is absent (CORE-EVT-7)."""

    STATED = "stated"
    ABSENT = "absent"
    NULL = "null"


class CallIdField(Enum):
    """The `call_id` of a custom input event (CORE-ITEM-8, CORE-ITEM-12, CUSTOM-DELTA-2)."""

    ABSENT = "absent"
    SAME = "same"  # the call id its item was announced with
    OTHER = "other"  # a call id no item has


@dataclass(frozen=True)
class Address:
    """How an item event names its item (CORE-ITEM-2, CORE-ITEM-8, CORE-ITEM-15)."""

    item_id: Stated = Stated.STATED
    output_index: Stated = Stated.STATED
    call_id: CallIdField = CallIdField.ABSENT

    @property
    def by_call_id(self) -> bool:
        """Named by its call id alone: a custom input event without item_id and output_index."""
        return self.item_id is Stated.ABSENT and self.output_index is Stated.ABSENT

    def restated(self) -> Address:
        """Stating item_id and output_index, as a malformed copy does (its fields are what it breaks);
        a call id stated beside them stays."""
        return Address(call_id=CallIdField.ABSENT if self.by_call_id else self.call_id)


BY_CALL_ID = Address(Stated.ABSENT, Stated.ABSENT, CallIdField.SAME)


class ResponseForm(Enum):
    """How a lifecycle event states its response (CORE-LIFE-1, CORE-EVT-7)."""

    STATED = "stated"
    NO_RESPONSE = "no_response"
    NULL_RESPONSE = "null_response"
    NULL_ID = "null_id"
    NO_ID = "no_id"
    OUTPUT_NULL = "output_null"  # `response.output` null: absent (CORE-EVT-7), never malformed
    ERROR_STATED = (
        "error_stated"  # a `response.error` before the end, a string: read on `response.failed` only
    )


class ErrorForm(Enum):
    """How `response.failed` states `response.error` (CORE-LIFE-3, CORE-EVT-7)."""

    STATED = "stated"
    NULL = "null"
    ABSENT = "absent"
    CODE_NULL = "code_null"


class ErrorShape(Enum):
    """The shape of an `error` event (CORE-ERR-1, CORE-ERR-2)."""

    FLAT = "flat"
    NESTED = "nested"
    NESTED_NULL_CODE = "nested_null_code"
    FLAT_NO_CODE = "flat_no_code"
    NOT_AN_OBJECT = "not_an_object"  # `error` is a string beside the flat fields: malformed


class Corruption(Enum):
    """What a malformed copy of an event breaks: one field missing or of the wrong type
    (CORE-EVT-9, CORE-ITEM-9, CORE-LIFE-6, CORE-ERR-2)."""

    DELTA_NUMBER = "delta_number"
    DELTA_MISSING = "delta_missing"
    DELTA_NULL = "delta_null"
    OUTPUT_INDEX_STRING = "output_index_string"
    ITEM_ID_NUMBER = "item_id_number"
    NO_IDS = "no_ids"  # neither item_id nor output_index, nor a custom input's call_id
    INDEX_STRING = "index_string"
    INDEX_NEGATIVE = "index_negative"
    INDEX_FRACTION = "index_fraction"  # 0.5: a number, but no whole one (CORE-EVT-12)
    CALL_ID_NUMBER = "call_id_number"
    TEXT_NUMBER = "text_number"
    TEXT_MISSING = "text_missing"
    ITEM_MISSING = "item_missing"
    ITEM_STRING = "item_string"
    ID_MISSING = "id_missing"
    ID_NUMBER = "id_number"
    TYPE_NUMBER = "type_number"
    STATUS_NUMBER = "status_number"
    NAME_NUMBER = "name_number"
    NAMESPACE_NUMBER = "namespace_number"
    OUTPUT_INDEX_NEGATIVE = "output_index_negative"
    OUTPUT_INDEX_FRACTION = "output_index_fraction"  # the item's index plus 0.5 (CORE-EVT-12)
    ARGUMENTS_NUMBER = "arguments_number"
    RESPONSE_STRING = "response_string"
    RESPONSE_ID_NUMBER = "response_id_number"
    RESPONSE_STATUS_NUMBER = "response_status_number"
    RESPONSE_ERROR_STRING = "response_error_string"
    ERROR_STRING = "error_string"
    MESSAGE_MISSING = "message_missing"
    CODE_NUMBER = "code_number"


class Logprobs(Enum):
    """A text delta's or `.done`'s `logprobs`, which routing never reads (CORE-TEXT-10)."""

    ABSENT = "absent"
    LIST = "list"
    EMPTY = "empty"
    NULL = "null"
    OTHER = "other"  # of another shape: a string


class ControlAction(Enum):
    """A control step of an execution vector (spec/execution.md section 11)."""

    APPROVE = "approve"
    DENY = "deny"
    CANCEL = "cancel"
    AUDIT = "audit"
    RESTART = "restart"
    TOOL_ENDS = "tool_ends"  # a tool that went on running reports its end (EXEC-RUN-4)


@dataclass(frozen=True, kw_only=True)
class Step:
    """One entry of the stream. `at_ms`: the stream time its event carries (CUSTOM-TIME-1)."""

    at_ms: int | None = None


@dataclass(frozen=True, kw_only=True)
class Lifecycle(Step):
    """`response.created`, `.in_progress` or `.queued`."""

    event: Literal["created", "in_progress", "queued"]
    response: ResponseForm = ResponseForm.STATED


@dataclass(frozen=True, kw_only=True)
class Terminal(Step):
    """The terminal event of the response's status (`response.completed`, ...)."""

    status: TerminalStatus
    error: ErrorForm = ErrorForm.STATED


@dataclass(frozen=True, kw_only=True)
class ErrorEvent(Step):
    code: str | None
    shape: ErrorShape = ErrorShape.FLAT


@dataclass(frozen=True, kw_only=True)
class ItemStep(Step):
    """A step about one item of the plan, by its position."""

    item: int


@dataclass(frozen=True, kw_only=True)
class Added(ItemStep):
    """`response.output_item.added`. `other_identity`: a second announcement stating another call
    id and name (the first stands)."""

    output_index: Stated = Stated.STATED  # CORE-ITEM-1: absent, it is the count of items before
    odd_fields: bool = False  # fields no router reads, of any type (CORE-ITEM-9)
    other_identity: bool = False


@dataclass(frozen=True, kw_only=True)
class Done(ItemStep):
    """`response.output_item.done`."""

    output_index: Stated = Stated.STATED
    odd_fields: bool = False


@dataclass(frozen=True, kw_only=True)
class PartStep(ItemStep):
    """A step about one part of an item: a content or reasoning part, or a call's arguments."""

    part: int = 0


@dataclass(frozen=True, kw_only=True)
class Delta(PartStep):
    """A delta of the part: piece `piece` of its cut, or, `piece` None, a delta the producer
    added, whose text is `text`."""

    piece: int | None = None
    text: str = ""
    address: Address = field(default_factory=Address)
    index: Stated = Stated.STATED  # its content_index or summary_index, when that is 0 (CORE-ITEM-7)
    as_refusal: bool = False  # sent as a refusal delta, at the same content part (CORE-TEXT-6)
    logprobs: Logprobs = Logprobs.ABSENT


@dataclass(frozen=True, kw_only=True)
class PartDone(PartStep):
    """The part's `.done`. `text`: another text than the part states, for a second `.done`."""

    text: str | None = None
    address: Address = field(default_factory=Address)
    index: Stated = Stated.STATED
    states_name: bool = False  # an arguments `.done` carrying a name of its own (CORE-CALL-4)
    logprobs: Logprobs = Logprobs.ABSENT


@dataclass(frozen=True, kw_only=True)
class PartAdded(PartStep):
    """`response.content_part.added` or `response.reasoning_summary_part.added`: unrouted."""


@dataclass(frozen=True, kw_only=True)
class PartClosed(PartStep):
    """`response.content_part.done` or `response.reasoning_summary_part.done`: unrouted."""


@dataclass(frozen=True, kw_only=True)
class Hosted(ItemStep):
    """An event of a hosted tool item (CORE-CALL-9): unrouted."""

    event_type: str


@dataclass(frozen=True, kw_only=True)
class Mismatch(ItemStep):
    """A delta of another item type's channel for the item (CORE-ITEM-4)."""

    event_type: str


@dataclass(frozen=True, kw_only=True)
class Extra(Step):
    """An unknown, vendor or unrouted event (CORE-EVT-3, -4, -5); `with_item`: carrying the ids
    and delta of a message's text; `carries`: an `error` or an `item` member, which only the
    events of those names mean (PROD-EVT-2)."""

    event_type: str
    with_item: bool = False
    carries: Literal["error", "item"] | None = None


@dataclass(frozen=True, kw_only=True)
class Foreign(Step):
    """An item event for an item never announced (CORE-ITEM-3), by item id or by output index."""

    event_type: str
    by_id: bool = False


@dataclass(frozen=True, kw_only=True)
class Malformed(Step):
    """A copy of `of`'s event with one field missing or of the wrong type (CORE-EVT-9)."""

    of: Step
    corruption: Corruption


@dataclass(frozen=True, kw_only=True)
class NotAnEvent(Step):
    """An entry that is not a JSON object with a string `type` (CORE-EVT-9)."""

    value: Any


@dataclass(frozen=True, kw_only=True)
class Control(Step):
    """A control step of an execution vector, for the executor, never an event."""

    action: ControlAction
    call_id: str | None = None  # approve, deny and tool_ends: the call they answer
    result: Any = None  # tool_ends: what the tool returned, unless it `fails`
    fails: str | None = None  # tool_ends: the message the tool failed with
    tools: tuple[ExecutionTool, ...] | None = None  # restart: the tools of the new release

    def entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"control": self.action.value}
        if self.call_id is not None:
            entry["call_id"] = self.call_id
        if self.action is ControlAction.TOOL_ENDS:
            entry.update({"fails": self.fails} if self.fails is not None else {"result": self.result})
        if self.tools is not None:
            entry["tools"] = [tool.declared() for tool in self.tools]
        return entry
