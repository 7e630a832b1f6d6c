"""A second router of the `core` profile, written from spec/core.md and spec/README.md alone, with faults.

It shares no code with streamroute.reference, so the core mutants are not the
suite checked against itself. Its shape differs on purpose: every event is
first read whole against a table of the fields its type has (`_FIELDS`),
then routed on plain per-item state; function arguments go through a JSON
parser of its own, a tokenizer and an explicit stack. It takes bytes too
(`feed_bytes`, the `sse` profile), because the only way a lone surrogate
reaches a router is JSON text on the wire. With no fault it passes every
core and sse vector at both tool-call points. Each `Fault` makes it break one
requirement the way a real router plausibly would (tests/mutants/core.py).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

Outcome = dict[str, Any]


class Fault(Enum):
    """One mistake a real router makes; the value is the mutant's name after `core.`."""

    # intake
    GUESS_TEXT_FROM_DELTA = "text-from-any-delta"
    RAISE_ON_NON_OBJECT = "raise-on-non-object"
    SWALLOW_UNKNOWN = "swallow-unknown-events"
    ROUTE_VENDOR_SUFFIX = "route-vendor-suffix"
    UNROUTED_SILENT = "unrouted-events-silent"
    DROP_BY_SEQUENCE_NUMBER = "drop-replayed-sequence-numbers"
    NULL_IS_WRONG_TYPE = "null-is-wrong-type"
    ITEM_FIELDS_UNCHECKED = "item-fields-unchecked"
    ITEM_DECODED_WHOLE = "item-decoded-whole"
    RESOLVE_ITEM_BEFORE_FIELDS = "resolve-item-before-fields"
    ERROR_FROM_ERROR_MEMBER = "error-from-error-member"
    ITEM_MEMBER_ROUTED = "item-member-routed"
    TYPE_LOOKED_UP_UNCHECKED = "type-looked-up-unchecked"
    NESTED_MEMBER_READ_WITH_GET = "nested-member-read-with-get"
    MALFORMED_AS_IGNORED = "malformed-as-ignored"
    MISSING_FIELD_CODE = "missing-field-code"
    MALFORMED_ADDED_REGISTERS = "malformed-added-registers"
    MALFORMED_TERMINAL_ENDS = "malformed-terminal-ends"
    UNKNOWN_TYPE_REFUSED = "unknown-type-refused"
    UNKNOWN_TYPE_UNNAMED = "unknown-type-unnamed"
    VENDOR_TYPE_MALFORMED = "vendor-type-malformed"
    VENDOR_PREFIX_DROPPED = "vendor-prefix-dropped"
    CONTENT_PARTS_UNREPORTED = "content-parts-unreported"
    HOSTED_DELTAS_PREVIEWED = "hosted-deltas-previewed"
    SEQUENCE_NUMBER_REQUIRED = "sequence-number-required"
    SEQUENCE_GAPS_REPORTED = "sequence-gaps-reported"
    NULL_ITEM_ID_LOOKED_UP = "null-item-id-looked-up"
    NULL_CALL_ID_STATED = "null-call-id-stated"
    LATE_BEFORE_FIELDS = "late-before-fields"
    DUPLICATE_BEFORE_FIELDS = "duplicate-before-fields"
    AGENT_CHECKED = "agent-member-checked"
    WHOLE_NUMBER_INDEX_MALFORMED = "whole-number-index-malformed"
    AGENT_CHECKED_ON_ITEM_EVENTS = "agent-member-checked-on-item-events"
    AGENT_CHECKED_ON_TEXT_EVENTS = "agent-member-checked-on-text-events"
    INDEX_TRUNCATED = "index-truncated"
    ITEM_EVENT_INDEX_WHOLE_NUMBER_MALFORMED = "item-event-index-whole-number-malformed"
    # items
    OUTPUT_INDEX_FROM_COUNT = "output-index-from-count"
    OUTPUT_INDEX_DECIDES = "output-index-decides"
    ROUTE_UNKNOWN_ITEM = "route-unknown-item"
    NO_ITEM_TYPE_CHECK = "no-item-type-check"
    SECOND_ADDED_REPLACES = "second-added-replaces"
    DONE_NEEDS_ADDED = "done-needs-added"
    INDEXES_FROM_EVENT_ONLY = "indexes-from-event-only"
    TEXT_OUTPUT_INDEX_FROM_EVENT = "text-output-index-from-event"
    OUTPUT_INDEX_MOVED_BY_EVENTS = "output-index-moved-by-events"
    TEXT_OUTPUT_INDEX_FROM_FIRST_DELTA = "text-output-index-from-first-delta"
    DONE_ITEM_CALL_ID_UNKNOWN = "done-item-call-id-unknown"
    CUSTOM_INPUT_IGNORES_CALL_ID = "custom-input-ignores-call-id"
    CUSTOM_INPUT_TO_OPEN_CALL = "custom-input-to-open-call"
    ITEMS_KEYED_BY_OUTPUT_INDEX = "items-keyed-by-output-index"
    MISSING_OUTPUT_INDEX_IS_ZERO = "missing-output-index-is-zero"
    OUTPUT_INDEX_FIRST_ANNOUNCED = "output-index-first-announced"
    ITEM_ID_REQUIRED = "item-id-required"
    UNKNOWN_ITEM_ROUTED_ANYWAY = "unknown-item-routed-anyway"
    UNKNOWN_ITEM_SILENT = "unknown-item-silent"
    DONE_TYPE_NOT_COMPARED = "done-type-not-compared"
    TYPE_MISMATCH_SILENT = "type-mismatch-silent"
    SECOND_ADDED_SILENT = "second-added-silent"
    SECOND_ADDED_RESETS = "second-added-resets"
    SECOND_DONE_LATE = "second-done-late"
    REPEATED_DONE_COMPARED = "repeated-done-compared"
    DONE_WITHOUT_ADDED_CALLS_ONLY = "done-without-added-calls-only"
    DONE_WITHOUT_ADDED_LEFT_OPEN = "done-without-added-left-open"
    CONTENT_INDEX_REQUIRED = "content-index-required"
    OMITTED_OUTPUT_INDEX_FROM_COUNT = "omitted-output-index-from-count"
    OUTPUT_INDEX_REQUIRED = "output-index-required"
    OUTPUT_INDEX_OVER_CALL_ID = "output-index-over-call-id"
    CALL_ID_FIRST_ANNOUNCED = "call-id-first-announced"
    NO_ID_CUSTOM_INPUT_UNKNOWN = "no-id-custom-input-unknown"
    NO_ID_CUSTOM_INPUT_IGNORED = "no-id-custom-input-ignored"
    EVENT_CALL_ID_ADOPTED = "event-call-id-adopted"
    CONFLICTING_IDS_REFUSED = "conflicting-ids-refused"
    CALL_ID_CHECKED_ONLY_FOR_LOOKUP = "call-id-checked-only-for-lookup"
    CALL_ID_STRINGIFIED = "call-id-stringified"
    ITEM_CONTENT_CHECKED = "item-content-checked"
    # text channels
    EMPTY_TEXT_DELTA_ENDS_PART = "empty-text-delta-ends-part"
    PHASE_DROPPED = "phase-dropped"
    AGENT_DROPPED = "agent-dropped"
    NO_TEXT_MISMATCH = "no-text-done-mismatch"
    MENDS_SPLIT_SURROGATES = "mends-split-surrogates"
    REFUSAL_AS_TEXT = "refusal-as-text"
    REFUSAL_UNROUTED = "refusal-unrouted"
    OPEN_RESPONSES_REASONING_UNKNOWN = "open-responses-reasoning-unknown"
    SUMMARY_INDEX_REQUIRED = "summary-index-required"
    LATE_TEXT_DELTA_ROUTED = "late-text-delta-routed"
    LATE_CHECK_PER_CHANNEL = "late-check-per-channel"
    SECOND_TEXT_DONE_ROUTED = "second-text-done-routed"
    TEXT_DELTA_STRIPPED = "text-delta-stripped"
    TEXT_ONLY_AT_DONE = "text-only-at-done"
    TEXT_DONE_DROPPED = "text-done-dropped"
    TEXT_DONE_STRIPPED = "text-done-stripped"
    TEXT_MISMATCH_AFTER_DONE = "text-mismatch-after-done"
    TEXT_MISMATCH_WITHOUT_DELTAS = "text-mismatch-without-deltas"
    REASONING_ALSO_TEXT = "reasoning-also-text"
    ARGUMENTS_ALSO_TEXT = "arguments-also-text"
    REFUSAL_AS_ERROR = "refusal-as-error"
    REFUSAL_AT_ITEM_DONE = "refusal-at-item-done"
    SUMMARY_AS_CONTENT_INDEX = "summary-as-content-index"
    REASONING_TEXT_UNROUTED = "reasoning-text-unrouted"
    LATE_TEXT_DELTA_REPORTED_AND_SHOWN = "late-text-delta-reported-and-shown"
    SECOND_TEXT_DONE_SILENT = "second-text-done-silent"
    TEXT_DONE_AFTER_ITEM_DONE_ROUTED = "text-done-after-item-done-routed"
    COMPARES_RAW_STRINGS = "compares-raw-strings"
    COMPARES_NORMALIZED = "compares-normalized"
    LOGPROBS_REQUIRED = "logprobs-required"
    LOGPROBS_TOKENS_AS_TEXT = "logprobs-tokens-as-text"
    # arguments
    NO_ARGUMENTS_PREVIEW = "no-arguments-preview"
    ONE_BUFFER_FOR_ALL_CALLS = "one-buffer-for-all-calls"
    DROP_EMPTY_ARGUMENTS_DELTA = "drop-empty-arguments-delta"
    LATE_ARGUMENTS_DELTA_APPENDED = "late-arguments-delta-appended"
    ARGUMENTS_FROM_DELTAS = "arguments-from-deltas"
    ARGUMENTS_DONE_EVENT_WINS = "arguments-done-event-wins"
    NO_ARGUMENTS_MISMATCH = "no-arguments-done-mismatch"
    SECOND_ARGUMENTS_DONE_REPLACES = "second-arguments-done-replaces"
    ARGUMENTS_DELTA_ACCUMULATED = "arguments-delta-accumulated"
    CUSTOM_INPUT_NOT_PREVIEWED = "custom-input-not-previewed"
    BUFFER_BY_CALL_ID = "buffer-by-call-id"
    BUFFER_OF_CURRENT_CALL = "buffer-of-current-call"
    EMPTY_DELTA_MALFORMED = "empty-delta-malformed"
    EMPTY_DELTA_ENDS_ARGUMENTS = "empty-delta-ends-arguments"
    LATE_ARGUMENTS_DELTA_SILENT = "late-arguments-delta-silent"
    EMPTY_DONE_ITEM_TEXT_ABSENT = "empty-done-item-text-absent"
    MISMATCH_COMPARED_AS_JSON = "mismatch-compared-as-json"
    MISMATCH_FOR_EACH_SOURCE = "mismatch-for-each-source"
    CUSTOM_DONE_ITEM_NOT_COMPARED = "custom-done-item-not-compared"
    DONE_ITEM_COMPARED_AS_JSON = "done-item-compared-as-json"
    ARGUMENTS_DONE_AFTER_ITEM_DONE_ACCEPTED = "arguments-done-after-item-done-accepted"
    SECOND_ARGUMENTS_DONE_SILENT = "second-arguments-done-silent"
    # calls
    CALL_AGAIN_ON_DUPLICATE_DONE = "call-again-on-duplicate-done"
    FIRE_AT_ADDED = "fire-at-added"
    ACCEPT_NAN = "accept-nan"
    ACCEPT_TRAILING_GARBAGE = "accept-trailing-garbage"
    DUPLICATE_NAMES_LAST_WINS = "duplicate-names-last-wins"
    DUPLICATE_NAMES_COMPARED_ESCAPED = "duplicate-names-compared-escaped"
    OVERFLOW_TO_INFINITY = "overflow-to-infinity"
    LONG_INTEGERS_EXACT = "long-integers-exact"
    ACCEPT_NON_OBJECT_ARGUMENTS = "accept-non-object-arguments"
    PARSE_CUSTOM_INPUT = "parse-custom-input"
    NAME_FROM_ARGUMENTS_DONE = "name-from-arguments-done"
    FIRST_IDENTITY_STANDS = "first-stated-identity-stands"
    SILENT_NAME_CHANGE = "silent-name-change"
    RESTATED_CALL_ID_REPORTED = "restated-call-id-reported"
    RESTATED_CALL_ID_RETRACTED = "restated-call-id-retracted"
    NAME_CHANGE_OWN_CODE = "name-change-own-code"
    NAME_CHANGE_RETRACTED_SILENTLY = "name-change-retracted-silently"
    RESTATED_CALL_ID_REPORTED_AT_ARGUMENTS_DONE = "restated-call-id-reported-at-arguments-done"
    CUSTOM_RESTATED_CALL_ID_REPORTED = "custom-restated-call-id-reported"
    RESTATED_CALL_MADE_AGAIN = "restated-call-made-again"
    RESTATED_IDS_SWAPPED = "restated-ids-swapped"
    IGNORE_ITEM_STATUS = "ignore-item-status"
    FORGET_OPEN_CALLS = "forget-open-calls"
    NO_DUPLICATE_CALL_ID_CHECK = "no-duplicate-call-id-check"
    FIRE_WITHOUT_IDENTITY = "fire-without-identity"
    NO_RETRACT_ON_INCOMPLETE = "no-retract-on-incomplete"
    NO_RETRACT_ON_MISMATCH = "no-retract-on-mismatch"
    NO_RETRACT_AT_END = "no-retract-at-end"
    RETRACTION_FREES_CALL_ID = "retraction-frees-call-id"
    IN_PROGRESS_DONE_ITEM_INCOMPLETE = "in-progress-done-item-incomplete"
    INPUT_FAULT_BEFORE_DUPLICATE = "input-fault-before-duplicate"
    STATUS_NOT_COMPLETED_REFUSED = "status-not-completed-refused"
    IN_PROGRESS_DONE_ITEM_AWAITED = "in-progress-done-item-awaited"
    JSON_PARSED_BEFORE_DUPLICATE = "json-parsed-before-duplicate"
    DEPTH_BEFORE_DUPLICATE = "depth-before-duplicate"
    HOSTED_CALLS_EXECUTED = "hosted-calls-executed"
    CALL_AT_BOTH_POINTS = "call-at-both-points"
    VALIDATED_AT_ARGUMENTS_DONE = "validated-at-arguments-done"
    FIRE_AT_ARGUMENTS_DONE = "fire-at-arguments-done"
    CALL_BEFORE_MISMATCH = "call-before-mismatch"
    REPAIR_TRUNCATED_JSON = "repair-truncated-json"
    NON_OBJECT_IS_INVALID_JSON = "non-object-is-invalid-json"
    DOUBLE_ENCODED_UNWRAPPED = "double-encoded-unwrapped"
    CUSTOM_INPUT_PARSED_WHEN_JSON = "custom-input-parsed-when-json"
    CUSTOM_INPUT_UNQUOTED = "custom-input-unquoted"
    DONE_ITEM_FILLS_NOTHING = "done-item-fills-nothing"
    NAMESPACE_DROPPED = "namespace-dropped"
    IDENTITY_CHANGE_SILENT = "identity-change-silent"
    IDENTITY_CHANGE_REFUSES_CALL = "identity-change-refuses-call"
    MISSING_ARGUMENTS_EMPTY_OBJECT = "missing-arguments-empty-object"
    INCOMPLETE_PARSED_FIRST = "incomplete-parsed-first"
    OPEN_CALLS_BEFORE_LIFECYCLE = "open-calls-before-lifecycle"
    OPEN_CALLS_ONLY_AT_CLOSE = "open-calls-only-at-close"
    CALL_IDS_PER_TOOL_TYPE = "call-ids-per-tool-type"
    ANNOUNCED_CALL_IDS_TAKEN = "announced-call-ids-taken"
    CALL_SUFFIX_EXECUTED = "call-suffix-executed"
    CODE_INTERPRETER_RUN_LOCALLY = "code-interpreter-run-locally"
    DUPLICATE_NAMES_TOP_LEVEL_ONLY = "duplicate-names-top-level-only"
    UNDERFLOW_REFUSED = "underflow-refused"
    INCOMPLETE_RETRACTED_ONLY_WHEN_CHANGED = "incomplete-retracted-only-when-changed"
    RETRACT_BEFORE_MISMATCH = "retract-before-mismatch"
    RETRACT_IGNORES_NEW_NAMESPACE = "retract-ignores-new-namespace"
    RETRACT_IGNORES_TEXT = "retract-ignores-text"
    RETRACT_ONLY_AT_CLOSE = "retract-only-at-close"
    RETRACT_ONLY_ON_FAILURE = "retract-only-on-failure"
    MULTI_AGENT_CALL_EXECUTED = "multi-agent-call-executed"
    # the call catalogue
    CATALOGUE_UNROUTED = "catalogue-unrouted"
    PATCH_FROM_DIFF_DONE = "patch-from-diff-done"
    CATALOGUE_STATUS_IGNORED = "catalogue-status-ignored"
    EVERY_SHELL_LOCAL = "every-shell-local"
    APPROVAL_WITHOUT_REQUEST_ID = "approval-without-request-id"
    SHELL_ADDED_TEXT_DROPPED = "shell-added-text-dropped"
    CATALOGUE_INPUT_UNCHECKED = "catalogue-input-unchecked"
    MISSING_SERVER_LABEL_INVALID = "missing-server-label-invalid"
    UNREADABLE_SAFETY_CHECKS_DROPPED = "unreadable-safety-checks-dropped"
    LATE_PREVIEW_SHOWN = "late-preview-shown"
    CATALOGUE_NAME_IS_ITEM_TYPE = "catalogue-name-is-item-type"
    CATALOGUE_CALL_IDS_UNCHECKED = "catalogue-call-ids-unchecked"
    PATCH_DIFF_FROM_DELTAS = "patch-diff-from-deltas"
    SHELL_COMMANDS_FROM_PREVIEW = "shell-commands-from-preview"
    CATALOGUE_FAILED_STATUS_RUNS = "catalogue-failed-status-runs"
    CATALOGUE_OPEN_AT_END_SILENT = "catalogue-open-at-end-silent"
    MISSING_INPUT_INVALID = "missing-input-invalid"
    APPROVAL_NAMED_BY_SERVER = "approval-named-by-server"
    HOSTED_OPEN_AT_END_INCOMPLETE = "hosted-open-at-end-incomplete"
    PROGRAM_EXECUTED = "program-executed"
    APPROVAL_NAME_PREFIXED = "approval-name-prefixed"
    APPROVAL_ARGUMENTS_NOT_REFUSED = "approval-arguments-not-refused"
    DIFF_DELTA_ACCUMULATED = "diff-delta-accumulated"
    DIFF_DELTA_BY_LINE = "diff-delta-by-line"
    PREVIEW_DONE_AS_DELTA = "preview-done-as-delta"
    PREVIEW_DONE_COMPARED = "preview-done-compared"
    COMMAND_INDEX_DROPPED = "command-index-dropped"
    SHELL_EVENTS_NEED_ITEM_ID = "shell-events-need-item-id"
    WRONG_SHAPE_INCOMPLETE = "wrong-shape-incomplete"
    DELETE_NEEDS_DIFF = "delete-needs-diff"
    LATE_PREVIEW_SILENT = "late-preview-silent"
    LATE_PREVIEW_REPORTED_AND_SHOWN = "late-preview-reported-and-shown"
    PREVIEW_DONE_AFTER_ITEM_DONE_ACCEPTED = "preview-done-after-item-done-accepted"
    SECOND_PREVIEW_DONE_LATE = "second-preview-done-late"
    # lifecycle and errors
    RESPONSE_REQUIRED = "response-required"
    CANCELLED_IGNORED = "cancelled-status-ignored"
    FAILED_ERROR_SWALLOWED = "failed-error-swallowed"
    ROUTE_AFTER_TERMINAL = "route-after-terminal"
    FORGET_END = "forget-end"
    END_IGNORES_ERROR_EVENT = "end-ignores-error-event"
    STATUS_CHECKED_ON_TERMINAL_ONLY = "status-checked-on-terminal-only"
    FLAT_ERROR_ONLY = "flat-error-only"
    ERROR_EVENT_TERMINAL = "error-event-terminal"
    ERROR_STRING_FALLS_BACK_TO_FLAT = "error-string-falls-back-to-flat"
    OUTPUT_NULL_REFUSED = "output-null-refused"
    QUEUED_UNKNOWN = "queued-unknown"
    LAST_TERMINAL_STATUS_WINS = "last-terminal-status-wins"
    INCOMPLETE_ENDS_COMPLETED = "incomplete-ends-completed"
    FAILED_ERROR_BEFORE_LIFECYCLE = "failed-error-before-lifecycle"
    ERROR_READ_ON_EVERY_EVENT = "error-read-on-every-event"
    AFTER_TERMINAL_SILENT = "after-terminal-silent"
    AFTER_TERMINAL_UNKNOWN_IGNORED = "after-terminal-unknown-ignored"
    END_BEFORE_OPEN_CALLS = "end-before-open-calls"
    END_AT_TERMINAL = "end-at-terminal"
    NO_TERMINAL_ENDS_COMPLETED = "no-terminal-ends-completed"
    MALFORMED_ERROR_COUNTS = "malformed-error-counts"
    STATUS_UNCHECKED = "status-unchecked"
    RESPONSE_ID_STRINGIFIED = "response-id-stringified"
    NESTED_ERROR_ONLY = "nested-error-only"
    CODE_DEFAULTS_TO_TYPE = "code-defaults-to-type"
    ERROR_EVENT_SETTLES_CALLS = "error-event-settles-calls"
    ERROR_EVENT_COUNTS_AS_TERMINAL = "error-event-counts-as-terminal"
    ERROR_STRING_AS_MESSAGE = "error-string-as-message"
    ERROR_STRING_AS_CODE = "error-string-as-code"
    # outcomes and limits
    ARGUMENTS_AS_TEXT = "arguments-as-text"
    COUNT_CHARACTERS = "count-characters"
    SURROGATE_AS_ONE_BYTE = "surrogate-as-one-byte"
    TOO_LARGE_AFTER_COMPLETE = "too-large-after-complete"
    TOO_LARGE_SOURCES_UNCOMPARED = "too-large-sources-uncompared"
    NO_DEPTH_LIMIT = "no-depth-limit"
    BRACKETS_IN_STRINGS_COUNTED = "brackets-in-strings-counted"
    TEXT_BUFFER_UNBOUNDED = "text-buffer-unbounded"
    TEXT_LIMIT_STOPS_ROUTING = "text-limit-stops-routing"
    TOOL_ERROR_CALL_ID_NULL = "tool-error-call-id-null"
    FAILED_ERROR_MESSAGE_NULL = "failed-error-message-null"
    CALL_DEFERRED_TO_NEXT_EVENT = "call-deferred-to-next-event"
    ERRORS_DEFERRED_TO_CLOSE = "errors-deferred-to-close"
    LIMIT_INCLUSIVE = "limit-inclusive"
    LIMIT_SHARED_BY_CALLS = "limit-shared-by-calls"
    LATER_OVERSIZED_DELTAS_LATE = "later-oversized-deltas-late"
    TOO_LARGE_DONE_REFUSED = "too-large-done-refused"
    TOO_LARGE_DONE_DUPLICATE = "too-large-done-duplicate"
    DEPTH_LIMIT_INCLUSIVE = "depth-limit-inclusive"
    TEXT_LIMIT_ERROR_EVERY_DELTA = "text-limit-error-every-delta"
    TEXT_PAST_LIMIT_DONE_DROPPED = "text-past-limit-done-dropped"
    TEXT_PAST_LIMIT_RESTARTS_BUFFER = "text-past-limit-restarts-buffer"
    SURROGATE_PAIR_SIX_BYTES = "surrogate-pair-six-bytes"
    SURROGATE_ZERO_BYTES = "surrogate-zero-bytes"


MAX_BUFFER_BYTES = 1024 * 1024  # CORE-LIMIT-1, CORE-LIMIT-3
MAX_DEPTH = 128  # CORE-LIMIT-2
CALL_TOOL_TYPES = {"function_call": "function", "custom_tool_call": "custom"}
TEXT_FIELD = {"function_call": "arguments", "custom_tool_call": "input"}
# The call catalogue (spec/core.md section 5.1): item type -> the tool_type of its tool.call.
CATALOGUE = {
    "apply_patch_call": "apply_patch",
    "shell_call": "shell",
    "local_shell_call": "local_shell",
    "computer_call": "computer",
    "tool_search_call": "tool_search",
    "mcp_approval_request": "mcp_approval",
}
LIFECYCLE = ("created", "queued", "in_progress", "completed", "failed", "incomplete")
TERMINAL = ("completed", "failed", "incomplete")

# The unrouted rows of the routing table (CORE-EVT-5), by family: `response.<family>.<event>`.
_UNROUTED_FAMILIES = {
    "content_part": ("added", "done"),
    "output_text.annotation": ("added",),
    "refusal": ("done",),
    "reasoning_text": ("done",),
    "reasoning": ("done",),
    "reasoning_summary_part": ("added", "done"),
    "reasoning_summary_text": ("done",),
    "mcp_call_arguments": ("delta", "done"),
    "code_interpreter_call_code": ("delta", "done"),
    "file_search_call": ("in_progress", "searching", "completed"),
    "web_search_call": ("in_progress", "searching", "completed"),
    "code_interpreter_call": ("in_progress", "interpreting", "completed"),
    "image_generation_call": ("in_progress", "generating", "completed", "partial_image"),
    "mcp_call": ("in_progress", "completed", "failed"),
    "mcp_list_tools": ("in_progress", "completed", "failed"),
    "audio": ("delta", "done"),
    "audio.transcript": ("delta", "done"),
    "shell_call_output_content": ("delta", "done"),
    "compaction": ("compacting",),
}
UNROUTED = frozenset(
    f"response.{family}.{event}" for family, events in _UNROUTED_FAMILIES.items() for event in events
) | {"keepalive"}


class Ignored(Exception):
    """An event a fault answers with `ignored` after all."""


class Refused(Exception):
    """An event that is not routed; it becomes one `error` outcome."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# -- reading events ----------------------------------------------------------

# What a field must be when present (and not null): the name of the shape and its test.
_SHAPES: dict[str, Callable[[object], bool]] = {
    "string": lambda value: isinstance(value, str),
    "index": lambda value: (type(value) is int or _whole(value)) and value >= 0,
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
}


def _whole(value: object) -> bool:
    """A JSON number written with a fraction or an exponent whose value is whole: 1.0, 1e0."""
    return type(value) is float and value.is_integer()


_ITEM_EVENT = (("item_id", "string"), ("output_index", "index"))
_PART_EVENT = (*_ITEM_EVENT, ("content_index", "index"))
_CUSTOM_INPUT_EVENT = (*_ITEM_EVENT, ("call_id", "string"))
_DELTA = (("delta", "string"),)
_COMMAND_EVENT = (*_ITEM_EVENT, ("command_index", "index"))
_COMMAND = (*_COMMAND_EVENT, ("command", "string"))
_IDENTITY = frozenset(name for name, _ in _CUSTOM_INPUT_EVENT)  # what names an event's item
_IDENTITY_FIELDS = ("call_id", "name", "namespace")  # what names a call item's call (CORE-CALL-4)
# The fields each routed type has: (name, shape), and the ones without which it is malformed.
_FIELDS: dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = {
    "response.output_text.delta": ((*_PART_EVENT, *_DELTA), ("delta",)),
    "response.output_text.done": ((*_PART_EVENT, ("text", "string")), ("text",)),
    "response.refusal.delta": ((*_PART_EVENT, *_DELTA), ("delta",)),
    "response.reasoning_text.delta": ((*_PART_EVENT, *_DELTA), ("delta",)),
    "response.reasoning.delta": ((*_PART_EVENT, *_DELTA), ("delta",)),
    "response.reasoning_summary_text.delta": (
        (*_ITEM_EVENT, ("summary_index", "index"), *_DELTA),
        ("delta",),
    ),
    "response.function_call_arguments.delta": ((*_ITEM_EVENT, *_DELTA), ("delta",)),
    "response.function_call_arguments.done": ((*_ITEM_EVENT, ("arguments", "string")), ("arguments",)),
    "response.custom_tool_call_input.delta": ((*_CUSTOM_INPUT_EVENT, *_DELTA), ("delta",)),
    "response.custom_tool_call_input.done": ((*_CUSTOM_INPUT_EVENT, ("input", "string")), ("input",)),
    "response.apply_patch_call_operation_diff.delta": ((*_ITEM_EVENT, *_DELTA), ("delta",)),
    "response.apply_patch_call_operation_diff.done": ((*_ITEM_EVENT, ("diff", "string")), ("diff",)),
    "response.shell_call_command.added": (_COMMAND, ("command_index", "command")),
    "response.shell_call_command.delta": ((*_COMMAND_EVENT, *_DELTA), ("command_index", "delta")),
    "response.shell_call_command.done": (_COMMAND, ("command_index", "command")),
    "response.output_item.added": ((("output_index", "index"), ("item", "object")), ("item",)),
    "response.output_item.done": ((("output_index", "index"), ("item", "object")), ("item",)),
    **{f"response.{name}": ((("response", "object"),), ()) for name in LIFECYCLE},
    "error": ((), ()),  # flat or nested: read by the handler (CORE-ERR-1, CORE-ERR-2)
}
_ERROR_FIELDS = (("code", "string"), ("message", "string"))
_ITEM_FIELDS: tuple[tuple[str, str], ...] = (
    ("id", "string"),
    ("type", "string"),
    ("call_id", "string"),
    ("name", "string"),
    ("namespace", "string"),
    ("status", "string"),
)
# The item types each item event applies to (CORE-ITEM-4).
_APPLIES_TO = {
    "response.output_text.delta": "message",
    "response.output_text.done": "message",
    "response.refusal.delta": "message",
    "response.reasoning_text.delta": "reasoning",
    "response.reasoning.delta": "reasoning",
    "response.reasoning_summary_text.delta": "reasoning",
    "response.function_call_arguments.delta": "function_call",
    "response.function_call_arguments.done": "function_call",
    "response.custom_tool_call_input.delta": "custom_tool_call",
    "response.custom_tool_call_input.done": "custom_tool_call",
    "response.apply_patch_call_operation_diff.delta": "apply_patch_call",
    "response.apply_patch_call_operation_diff.done": "apply_patch_call",
    "response.shell_call_command.added": "shell_call",
    "response.shell_call_command.delta": "shell_call",
    "response.shell_call_command.done": "shell_call",
}
# Faults' views of the routing table: the events indexed by content part, those that only an
# item_id or output_index names, and the hosted calls' own argument deltas.
_INDEXED_BY_CONTENT = frozenset(
    f"response.{name}"
    for name in (
        "output_text.delta",
        "output_text.done",
        "refusal.delta",
        "reasoning_text.delta",
        "reasoning.delta",
    )
)
_ITEM_ID_FIRST = _INDEXED_BY_CONTENT | {
    "response.reasoning_summary_text.delta",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
}
_HOSTED_DELTAS = ("response.mcp_call_arguments.delta", "response.code_interpreter_call_code.delta")


_CUSTOM_INPUT = ("response.custom_tool_call_input.delta", "response.custom_tool_call_input.done")
# UNKNOWN_ITEM_ROUTED_ANYWAY: the deltas shown even when their item is unknown, and as what.
_SHOWN_ANYWAY = {
    "response.output_text.delta": "text.delta",
    "response.function_call_arguments.delta": "tool.arguments.delta",
    "response.custom_tool_call_input.delta": "tool.arguments.delta",
}


def _shown_anyway(event: Mapping[str, Any]) -> Outcome:
    """An unknown item's delta, handed over as the event states it."""
    kind = _SHOWN_ANYWAY[event["type"]]
    shown: Outcome = {"kind": kind, "item_id": str(event.get("item_id")), "delta": event["delta"]}
    if kind == "text.delta":
        shown.update(
            output_index=event.get("output_index") or 0, content_index=event.get("content_index") or 0
        )
    return shown


def _text_of_tokens(event: Mapping[str, Any], kind: str) -> dict[str, str]:
    """LOGPROBS_TOKENS_AS_TEXT: a delta's text rebuilt from the tokens of its logprobs, when it has them."""
    logprobs = event.get("logprobs")
    if kind != "response.output_text.delta" or not isinstance(logprobs, list) or not logprobs:
        return {}
    tokens = [entry.get("token") if isinstance(entry, dict) else None for entry in logprobs]
    return {"delta": "".join(tokens)} if all(isinstance(token, str) for token in tokens) else {}


# The preview events of catalogue calls (CORE-CALLTYPE-6): the field each one shows, or None.
_PREVIEW_TEXT = {
    "response.apply_patch_call_operation_diff.delta": "delta",
    "response.apply_patch_call_operation_diff.done": None,
    "response.shell_call_command.added": "command",
    "response.shell_call_command.delta": "delta",
    "response.shell_call_command.done": None,
}


def _read(
    source: Mapping[str, Any],
    fields: Iterable[tuple[str, str]],
    required: Iterable[str],
    where: str,
    null_is_absent: bool = True,
) -> dict[str, Any]:
    """The named fields of `source`, each of its shape or None; Refused when one is wrong or missing."""
    values: dict[str, Any] = {}
    for name, shape in fields:
        value = source.get(name)
        if value is None and name in source and not null_is_absent:
            raise Refused("malformed_event", f"field {where + name!r} is null")
        if value is not None and not _SHAPES[shape](value):
            raise Refused("malformed_event", f"field {where + name!r} must be a {shape}, got {value!r:.40}")
        values[name] = int(value) if shape == "index" and value is not None else value
    for name in required:
        if values[name] is None:
            raise Refused("malformed_event", f"field {where + name!r} is missing")
    return values


# -- the input of catalogue calls (CORE-CALLTYPE-2, -7) ----------------------


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(entry, str) for entry in value)


def _operation(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("path"), str):
        return False
    kind = value.get("type")
    writes = kind in ("create_file", "update_file") and isinstance(value.get("diff"), str)
    return kind == "delete_file" or writes


# The done item's field that holds each catalogue call's input (computer: `actions` or `action`).
_INPUT_OF = {
    "apply_patch": "operation",
    "shell": "action",
    "local_shell": "action",
    "tool_search": "arguments",
    "mcp_approval": "arguments",
}
_INPUT_SHAPE: dict[str, Callable[[Any], bool]] = {
    "apply_patch": _operation,
    "shell": lambda value: isinstance(value, dict) and _strings(value.get("commands")),
    "local_shell": lambda value: (
        isinstance(value, dict) and value.get("type") == "exec" and _strings(value.get("command"))
    ),
    "computer": lambda value: (
        isinstance(value, list)
        and all(isinstance(action, dict) and isinstance(action.get("type"), str) for action in value)
    ),
    "tool_search": lambda value: isinstance(value, dict),
    "mcp_approval": lambda value: isinstance(value, str),
}


# -- text: sizes and comparison (CORE-TEXT-8, CORE-LIMIT-4) ------------------


def well_formed(text: str) -> str:
    """The text with each unpaired surrogate replaced by U+FFFD, as a UTF-8 or WHATWG decoder sees it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def utf8_size(text: str, faults: frozenset[Fault]) -> int:
    if text.isascii() or Fault.COUNT_CHARACTERS in faults:
        return len(text)
    if Fault.SURROGATE_AS_ONE_BYTE in faults:
        return len(text.encode("utf-8", "replace"))  # a lone surrogate becomes "?"
    if Fault.SURROGATE_ZERO_BYTES in faults:
        return len(text.encode("utf-8", "ignore"))  # a lone surrogate is left out
    if Fault.SURROGATE_PAIR_SIX_BYTES in faults:  # CESU-8: each UTF-16 code unit on its own
        return sum(6 if ord(c) > 0xFFFF else len(well_formed(c).encode("utf-8")) for c in text)
    return len(well_formed(text).encode("utf-8"))  # CORE-LIMIT-4


def same_text(one: str, other: str, faults: frozenset[Fault]) -> bool:
    """Whether two texts are the same sequence of scalar values (CORE-TEXT-8)."""
    if Fault.COMPARES_RAW_STRINGS in faults:
        return one == other  # code units as they came: a lone surrogate is not its U+FFFD
    if Fault.COMPARES_NORMALIZED in faults:
        return unicodedata.normalize("NFC", well_formed(one)) == unicodedata.normalize(
            "NFC", well_formed(other)
        )
    return well_formed(one) == well_formed(other)


@dataclass
class Buffer:
    """The deltas of one part or call, kept to compare with its complete text, up to the limit."""

    faults: frozenset[Fault] = frozenset()
    limit: float = MAX_BUFFER_BYTES
    pieces: list[str] = field(default_factory=list)  # each delta made well-formed on its own
    received: bool = False
    size: int = 0
    overflowed: bool = False

    def add(self, delta: str) -> bool:
        """Take a delta; False when it takes the buffer past the limit (the buffer is then dropped)."""
        self.size += utf8_size(delta, self.faults)
        if self.size > self.limit:
            self.drop()
            return False
        raw = Fault.MENDS_SPLIT_SURROGATES in self.faults or Fault.COMPARES_RAW_STRINGS in self.faults
        self.pieces.append(delta if raw else well_formed(delta))
        self.received = True
        return True

    def drop(self) -> None:
        """Past the limit: the deltas are gone, and no complete text is compared with them (CORE-LIMIT-6)."""
        self.pieces, self.received, self.overflowed = [], False, True

    def release(self) -> None:
        """Drop the deltas once compared: what a complete source fixed, no delta changes."""
        self.pieces, self.received = [], False

    def agrees(self, text: str) -> bool:
        """Whether the deltas say what the complete text says (CORE-TEXT-8)."""
        return not self.received or same_text(self.joined(), text, self.faults)

    def joined(self) -> str:
        return "".join(self.pieces)


# -- JSON (RFC 8259, with the I-JSON restrictions of CORE-CALL-3) ------------


class NotJSON(ValueError):
    pass


_TOKEN = re.compile(
    r"""[ \t\n\r]*(?:
      (?P<punct>[\[\]{},:])
    | "(?P<string>(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)"
    | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?![0-9.eE+-])
    | (?P<word>true|false|null|NaN|-?Infinity)\b
    )""",
    re.VERBOSE,
)
_ESCAPE = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|\\u([0-9a-f]{4})|\\(.)", re.IGNORECASE)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_WORDS = {"true": True, "false": False, "null": None}
_BRACKETS_OUTSIDE_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def _unescape(match: re.Match[str]) -> str:
    high, low, single, simple = match.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00)
    if single is not None:
        return chr(int(single, 16))
    return _SIMPLE_ESCAPES[simple]


def nesting_depth(text: str, faults: frozenset[Fault]) -> int:
    """The most arrays and objects open at once outside strings: one pass, constant memory (CORE-LIMIT-2)."""
    depth = deepest = 0
    if Fault.BRACKETS_IN_STRINGS_COUNTED in faults:
        tokens: Iterable[str] = (c for c in text if c in "[]{}")
    else:
        tokens = (match.group() for match in _BRACKETS_OUTSIDE_STRINGS.finditer(text))
    for token in tokens:
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth = max(depth - 1, 0)
    return deepest


def parse_json(text: str, faults: frozenset[Fault]) -> Any:
    """One JSON value and nothing else; NotJSON says why not. Containers are built on an explicit stack."""
    # Each open container, with its pending member name, as unescaped and as written.
    stack: list[tuple[list[Any] | dict[str, Any], list[tuple[str, str]], set[str]]] = []
    if Fault.REPAIR_TRUNCATED_JSON in faults:
        text = _repaired(text)
    expect = "value"  # value | first (value or close) | key | first-key | colon | next (comma or close)
    position = 0
    value: Any = None
    while True:
        if expect == "end":
            rest = text[position:]
            if rest.strip(" \t\n\r") == "" or Fault.ACCEPT_TRAILING_GARBAGE in faults:
                return value
            raise NotJSON(f"trailing text at {position}")
        match = _TOKEN.match(text, position)
        if match is None:
            raise NotJSON(f"unexpected text at {position}")
        position = match.end()
        punct, string, number, word = match.group("punct", "string", "number", "word")
        if punct in ("]", "}") and expect in ("first", "first-key", "next"):
            container, _, _ = stack.pop()
            if (punct == "]") != isinstance(container, list):
                raise NotJSON(f"mismatched {punct!r} at {position - 1}")
            value = container
        elif expect == "colon":
            if punct != ":":
                raise NotJSON(f"expected ':' at {position - 1}")
            expect = "value"
            continue
        elif expect == "next":
            if punct != ",":
                raise NotJSON(f"expected ',' at {position - 1}")
            expect = "key" if isinstance(stack[-1][0], dict) else "value"
            continue
        elif expect in ("key", "first-key"):
            if string is None:
                raise NotJSON(f"expected a member name at {position - 1}")
            stack[-1][1].append((_ESCAPE.sub(_unescape, string), string))
            expect = "colon"
            continue
        elif punct in ("[", "{"):
            stack.append(([] if punct == "[" else {}, [], set()))
            expect = "first" if punct == "[" else "first-key"
            continue
        elif string is not None:
            value = _ESCAPE.sub(_unescape, string)
        elif number is not None:
            value = _number(number, faults)
        elif word in _WORDS:
            value = _WORDS[word]
        elif word is not None and Fault.ACCEPT_NAN in faults:
            value = float(word)
        else:
            raise NotJSON(f"unexpected {match.group().strip()!r} at {position - len(match.group())}")
        if not stack:
            expect = "end"
            continue
        container, pending, written = stack[-1]
        if isinstance(container, list):
            container.append(value)
        else:
            name, as_written = pending.pop()
            if Fault.DUPLICATE_NAMES_COMPARED_ESCAPED in faults:
                repeated = as_written in written  # a scan of the text, before unescaping
                written.add(as_written)
            else:
                repeated = name in container and Fault.DUPLICATE_NAMES_LAST_WINS not in faults
                repeated &= len(stack) == 1 or Fault.DUPLICATE_NAMES_TOP_LEVEL_ONLY not in faults
            if repeated:
                raise NotJSON(f"duplicate member name {name!r}")  # CORE-CALL-10
            container[name] = value
        expect = "next"


def _repaired(text: str) -> str:
    """The text with what a cut left open closed: a string, then each bracket (REPAIR_TRUNCATED_JSON)."""
    closers: list[str] = []
    in_string = escaped = False
    for c in text:
        if in_string:
            in_string = escaped or c != '"'
            escaped = not escaped and c == "\\"
        elif c == '"':
            in_string = True
        elif c in "[{":
            closers.append("]" if c == "[" else "}")
        elif c in "]}" and closers:
            closers.pop()
    body = text + '"' if in_string else text.rstrip(" ,:")
    return body + "".join(reversed(closers))


def _number(token: str, faults: frozenset[Fault]) -> int | float:
    integer = not any(mark in token for mark in ".eE")
    exact = integer and Fault.LONG_INTEGERS_EXACT in faults
    if math.isinf(float(token)) and not exact and Fault.OVERFLOW_TO_INFINITY not in faults:
        raise NotJSON(f"number {token[:20]} overflows a binary64")  # CORE-CALL-11
    mantissa = re.split("[eE]", token)[0]
    if Fault.UNDERFLOW_REFUSED in faults and float(token) == 0 and mantissa.strip("-0.") != "":
        raise NotJSON(f"number {token[:20]} underflows a binary64")
    return int(token) if integer else float(token)


# -- per-item state ----------------------------------------------------------


@dataclass
class Call:
    """What a call item has received, and the one outcome it has produced."""

    deltas: Buffer
    done_text: str | None = None  # from the arguments/input .done event
    complete: bool = False  # its .done or its done item was routed: later deltas are late
    outcome: str | None = None  # "tool.call" or "tool.error", once
    fired: bool = False  # its tool.call went out at its .done, before its done item (arguments_done)
    made_with: str | None = None  # the call id its tool.call went out with
    settled: bool = False  # its done item was routed, or the response ended
    streamed: str = ""  # every delta routed, as it came (for the faults that read them again)


@dataclass
class ItemState:
    id: str
    type: str
    output_index: int
    call_id: str | None
    name: str | None
    namespace: str | None
    done: bool = False
    parts: dict[int, Buffer] = field(default_factory=dict)  # message text parts by content_index
    parts_done: set[int] = field(default_factory=set)  # and a catalogue call's previews done
    call: Call | None = None
    hosted: bool = False  # a catalogue item the server runs (CORE-CALLTYPE-4)
    phase: str | None = None  # a message's, as announced (CORE-TEXT-9)
    null_stated: set[str] = field(default_factory=set)  # NULL_CALL_ID_STATED: identity stated as null
    refusals: list[str] = field(default_factory=list)  # REFUSAL_AT_ITEM_DONE
    previews: dict[int, list[str]] = field(default_factory=dict)  # what its previews showed, by index
    agent: str | None = None  # the agent_name of a message's `agent`, as announced (CORE-TEXT-12)


# -- bytes to events (spec/sse.md) --------------------------------------------

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = "\ufeff"
MAX_EVENT_BYTES = 64 * 1024 * 1024  # SSE-LIMIT-1


class TooLarge:
    """An event dropped at the byte that took it past MAX_EVENT_BYTES (SSE-LIMIT-1)."""


TOO_LARGE = TooLarge()


class EventStreamDecoder:
    """The data of each event a text/event-stream dispatches, however its bytes are cut.

    Lines are split as bytes and each decoded whole (a line end is ASCII, so no character spans
    one): an event's size is then the bytes of its lines as received (SSE-LIMIT-1)."""

    def __init__(self) -> None:
        self.started = False  # the byte order mark is looked for once (SSE-LINE-2)
        self.after_cr = False  # the last chunk ended in CR: an LF that follows it is that break's
        self.line = bytearray()
        self.data: list[str] | None = None  # the data lines of the event being read
        self.size = 0  # the bytes of the event's lines so far, line ends not counted
        self.skipping = False  # the event passed the limit: skipped up to the empty line ending it
        self.line_begun = False  # while skipping, whether the line read has a byte yet

    def feed(self, chunk: bytes) -> list[str | TooLarge]:
        at = 1 if self.after_cr and chunk[:1] == b"\n" else 0  # SSE-LINE-3: CR LF cut between chunks
        if chunk:
            self.after_cr = False
        dispatched: list[str | TooLarge] = []
        while at < len(chunk):
            end = _LINE_END.search(chunk, at)
            stop = len(chunk) if end is None else end.start()
            if self.skipping:
                self._skip(stop > at, end is not None)
            else:
                self._take(chunk[at:stop], end is not None, dispatched)
            if end is None:
                break
            at = end.end()
            self.after_cr = end.group() == b"\r" and at == len(chunk)
        return dispatched

    def _skip(self, bytes_read: bool, line_ended: bool) -> None:
        self.line_begun = self.line_begun or bytes_read
        if line_ended:
            self.skipping = self.line_begun  # an empty line ends the dropped event
            self.line_begun = False

    def _take(self, piece: bytes, line_ended: bool, dispatched: list[str | TooLarge]) -> None:
        self.size += len(piece)
        if self.size > MAX_EVENT_BYTES:
            dispatched.append(TOO_LARGE)
            self.line, self.data, self.size = bytearray(), None, 0
            self.started = self.skipping = self.line_begun = True
            if line_ended:
                self._skip(False, True)
            return
        self.line += piece
        if not line_ended:
            return
        line = self.line.decode("utf-8", "replace")  # SSE-LINE-1
        self.line = bytearray()
        if not self.started:
            self.started = True
            line = line.removeprefix(_BOM)
        data = self._line(line)
        if data is not None:
            dispatched.append(data)

    def _line(self, line: str) -> str | None:
        """Take one line; the event's data when the line dispatches it (SSE-FIELD-*, SSE-EVENT-1)."""
        if line == "":
            data, self.data, self.size = self.data, None, 0
            return None if data is None else "\n".join(data)
        if line.startswith(":"):
            return None  # a comment
        name, _, value = line.partition(":")
        if name == "data":
            if self.data is None:
                self.data = []
            self.data.append(value.removeprefix(" "))
        return None  # event, id, retry and unknown fields change nothing (SSE-FIELD-4)


def _lines_completed(before: str, delta: str) -> str:
    """DIFF_DELTA_BY_LINE: the text of the lines that `delta`, after `before`, completes."""
    whole = before + delta
    return whole[: whole.rfind("\n") + 1][len(before[: before.rfind("\n") + 1]) :]


_AGENT_TYPED_EVENTS = {  # AGENT_CHECKED_ON_ITEM_EVENTS, AGENT_CHECKED_ON_TEXT_EVENTS
    Fault.AGENT_CHECKED_ON_ITEM_EVENTS: "response.output_item.",
    Fault.AGENT_CHECKED_ON_TEXT_EVENTS: "response.output_text.",
}


def _parses(text: str, faults: frozenset[Fault]) -> bool:
    """Whether the text is JSON (JSON_PARSED_BEFORE_DUPLICATE)."""
    try:
        parse_json(text, faults)
    except NotJSON:
        return False
    return True


def _named_agent(agent: object) -> bool:
    """An `agent` member that names its agent: an object with a string agent_name."""
    return isinstance(agent, dict) and isinstance(agent.get("agent_name"), str)


def _labelled(outcome: Outcome, item: ItemState) -> Outcome:
    """A text outcome with its message's labels, phase and agent (CORE-TEXT-9, CORE-TEXT-12)."""
    labels = {"phase": item.phase, "agent": item.agent}
    return {**outcome, **{name: value for name, value in labels.items() if value is not None}}


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _error(code: str | None, message: str, **extra: Any) -> Outcome:
    return {"kind": "error", "code": code, "message": message, **extra}


class IndependentRouter:
    """Routes one response stream: `feed` each event, then `close` (spec/README.md, The router)."""

    def __init__(self, faults: frozenset[Fault] = frozenset(), *, at_arguments_done: bool = False) -> None:
        self.faults = faults
        self.at_arguments_done = at_arguments_done
        self.items: dict[str, ItemState] = {}  # in announcement order
        self.by_output_index: dict[int, ItemState] = {}
        self.by_call_id: dict[str, ItemState] = {}
        self.called: set[str] = set()
        self.index = -1
        self.end_status: str | None = None
        self.error_event_seen = False
        self.closed = False
        self.last_sequence_number = -1
        self.shared_buffer = Buffer(faults)  # ONE_BUFFER_FOR_ALL_CALLS
        self.current_call: ItemState | None = None  # BUFFER_OF_CURRENT_CALL
        self.buffered = 0  # LIMIT_SHARED_BY_CALLS: the bytes of every call's deltas
        self.held: list[Outcome] = []  # CALL_DEFERRED_TO_NEXT_EVENT, ERRORS_DEFERRED_TO_CLOSE
        self.text_output_index: dict[str, int] = {}  # TEXT_OUTPUT_INDEX_FROM_FIRST_DELTA, by item id
        self.ended_at_terminal = False  # END_AT_TERMINAL
        self.error_was_terminal = False  # ERROR_EVENT_COUNTS_AS_TERMINAL
        self.stream = EventStreamDecoder()
        self.dispatched = -1
        self.stream_done = False  # [DONE] was dispatched

    def has(self, fault: Fault) -> bool:
        return fault in self.faults

    # -- entry points --

    def feed(self, event: Any) -> list[Outcome]:
        if self.closed:  # `end` is the last outcome ever (CORE-LIFE-5)
            return []
        self.index += 1
        held: list[Outcome] = []
        if self.has(Fault.CALL_DEFERRED_TO_NEXT_EVENT):
            held, self.held = self.held, []
        gap = self._sequence_gap(event)
        try:
            outcomes = self._route(event)
        except Refused as refused:
            outcomes = self._refused(event, refused)
        except Ignored as ignored:
            outcomes = [{"kind": "ignored", "type": str(ignored)}]
        if self.has(Fault.CALL_DEFERRED_TO_NEXT_EVENT):
            self.held = [o for o in outcomes if o["kind"] == "tool.call"]
            outcomes = [o for o in outcomes if o["kind"] != "tool.call"]
        return held + outcomes + gap

    def _refused(self, event: Any, refused: Refused) -> list[Outcome]:
        code = refused.code
        kind = event.get("type") if isinstance(event, dict) else None
        if code == "unknown_item" and self.has(Fault.UNKNOWN_ITEM_SILENT):
            return []
        if code == "item_type_mismatch" and self.has(Fault.TYPE_MISMATCH_SILENT):
            return []
        if code == "unknown_item" and kind in _SHOWN_ANYWAY and self.has(Fault.UNKNOWN_ITEM_ROUTED_ANYWAY):
            return [_error(code, f"event {self.index}: {refused}"), _shown_anyway(event)]
        if code == "malformed_event" and isinstance(kind, str) and self.has(Fault.MALFORMED_AS_IGNORED):
            return [{"kind": "ignored", "type": kind}]  # what it could not decode, taken for unknown
        if (
            code == "malformed_event"
            and str(refused).endswith("is missing")
            and self.has(Fault.MISSING_FIELD_CODE)
        ):
            code = "missing_field"
        outcome = _error(code, f"event {self.index}: {refused}")
        if self.has(Fault.ERRORS_DEFERRED_TO_CLOSE):
            self.held.append(outcome)  # a list of diagnostics, reported at the end
            return []
        return [outcome]

    def _sequence_gap(self, event: Any) -> list[Outcome]:
        """SEQUENCE_GAPS_REPORTED: a sequence number that does not follow the last one is reported."""
        number = event.get("sequence_number") if isinstance(event, dict) else None
        if not self.has(Fault.SEQUENCE_GAPS_REPORTED) or type(number) is not int:
            return []
        last, self.last_sequence_number = self.last_sequence_number, number
        if last < 0 or number == last + 1:
            return []
        return [_error("sequence_gap", f"sequence number {number} after {last}")]

    def feed_bytes(self, chunk: bytes) -> list[list[Outcome]]:
        """The outcomes of each SSE event this chunk dispatches (spec/sse.md section 6)."""
        if self.closed:
            return []
        return [self._dispatch(data) for data in self.stream.feed(chunk)]

    def _dispatch(self, data: str | TooLarge) -> list[Outcome]:
        """One dispatched event's data: `[DONE]`, JSON for the router, or neither (SSE-DATA-*); or
        an event dropped past the limit (SSE-LIMIT-1)."""
        self.dispatched += 1
        if self.stream_done:
            return [_error("event_after_done", f"SSE event {self.dispatched} comes after [DONE]")]
        if isinstance(data, TooLarge):
            return [_error("event_too_large", f"SSE event {self.dispatched} passes {MAX_EVENT_BYTES} bytes")]
        if data == "[DONE]":
            self.stream_done = True
            return []
        try:
            event = json.loads(data, parse_constant=_not_json)
        except (ValueError, RecursionError):
            return [_error("invalid_data", f"SSE event {self.dispatched}: its data is not JSON")]
        return self.feed(event)

    def close(self) -> list[Outcome]:
        if self.closed:
            return []
        self.closed = True
        outcomes = self.held + self._settle_open_calls(at_close=True)
        if self.has(Fault.FORGET_END) or self.ended_at_terminal:
            return outcomes
        status = self.end_status
        if status is None:
            failed = self.error_event_seen and not self.has(Fault.END_IGNORES_ERROR_EVENT)
            truncated = "completed" if self.has(Fault.NO_TERMINAL_ENDS_COMPLETED) else "truncated"
            status = "failed" if failed else truncated
        end = {"kind": "end", "status": status}
        return [end, *outcomes] if self.has(Fault.END_BEFORE_OPEN_CALLS) else [*outcomes, end]

    # -- dispatch --

    def _route(self, event: Any) -> list[Outcome]:
        if not isinstance(event, dict) and not self.has(Fault.RAISE_ON_NON_OBJECT):
            raise Refused("malformed_event", f"an event must be a JSON object, not {type(event).__name__}")
        kind = event.get("type")
        if self.has(Fault.TYPE_LOOKED_UP_UNCHECKED):
            kind in _FIELDS  # noqa: B015 -- the table is looked up first: a list or an object raises
        if not isinstance(kind, str):
            raise Refused("malformed_event", "field 'type' must be a string")
        if self.has(Fault.NESTED_MEMBER_READ_WITH_GET):
            for member in ("response", "item"):
                if event.get(member) is not None:
                    event[member].get("id")  # raises for anything but an object
        if self.has(Fault.SEQUENCE_NUMBER_REQUIRED) and type(event.get("sequence_number")) is not int:
            raise Refused("malformed_event", "field 'sequence_number' must be an integer")
        if self.has(Fault.DROP_BY_SEQUENCE_NUMBER):
            number = event.get("sequence_number")
            if type(number) is int:
                if number <= self.last_sequence_number:
                    return []  # taken for a replay
                self.last_sequence_number = number
        agent = event.get("agent")
        typed = self.has(Fault.AGENT_CHECKED) or any(  # decoded into the beta SDK's type: agent is an object
            self.has(fault) and kind.startswith(prefix) for fault, prefix in _AGENT_TYPED_EVENTS.items()
        )
        if typed and agent is not None and not _named_agent(agent):
            raise Refused("malformed_event", "field 'agent' must be an object with a string agent_name")
        unknown = kind not in _FIELDS
        if self.end_status is not None and not (unknown and self.has(Fault.AFTER_TERMINAL_UNKNOWN_IGNORED)):
            if self.has(Fault.AFTER_TERMINAL_SILENT):
                return []
            if self.has(Fault.LAST_TERMINAL_STATUS_WINS) and kind.removeprefix("response.") in TERMINAL:
                self.end_status = kind.removeprefix("response.")
            if not self.has(Fault.ROUTE_AFTER_TERMINAL):
                raise Refused("event_after_terminal", f"{kind} after the terminal event")
        if kind.removeprefix("response.") in TERMINAL and self.error_was_terminal:
            raise Refused("event_after_terminal", f"{kind} after the error event")
        if ":" in kind and self.has(Fault.VENDOR_TYPE_MALFORMED):
            raise Refused("malformed_event", f"field 'type' {kind!r} is not an event type")
        if self.has(Fault.ROUTE_VENDOR_SUFFIX) and ":" in kind:
            kind = kind.rsplit(":", 1)[1]
        if (
            kind not in _FIELDS
            or (kind == "response.reasoning.delta" and self.has(Fault.OPEN_RESPONSES_REASONING_UNKNOWN))
            or (kind == "response.reasoning_text.delta" and self.has(Fault.REASONING_TEXT_UNROUTED))
            or (kind == "response.queued" and self.has(Fault.QUEUED_UNKNOWN))
            or (kind in _PREVIEW_TEXT and self.has(Fault.CATALOGUE_UNROUTED))
        ):
            return self._ignored(event, kind)
        fields, required = _FIELDS[kind]
        extra = self._also_required(kind)
        if "logprobs" in extra:  # LOGPROBS_REQUIRED reads it, as the list the SDK types say it is
            fields = (*fields, ("logprobs", "array"))
        required = (*required, *extra)
        if kind in _APPLIES_TO and self.has(Fault.RESOLVE_ITEM_BEFORE_FIELDS):
            identity = [(name, shape) for name, shape in fields if name in _IDENTITY]
            self._resolve_item(kind, self._read(event, identity, (), ""))  # looked up, then read
        if kind in _APPLIES_TO and self.has(Fault.LATE_BEFORE_FIELDS):
            self._refuse_if_done(kind, event, fields)
        if kind.startswith("response.output_item.") and self.has(Fault.DUPLICATE_BEFORE_FIELDS):
            self._refuse_if_repeated(kind, event)
        if (
            kind in _CUSTOM_INPUT
            and event.get("call_id") is not None
            and not isinstance(event["call_id"], str)
        ):
            if self.has(Fault.CALL_ID_STRINGIFIED):
                event = {**event, "call_id": str(event["call_id"])}
            elif event.get("item_id") is not None and self.has(Fault.CALL_ID_CHECKED_ONLY_FOR_LOOKUP):
                event = {name: value for name, value in event.items() if name != "call_id"}
        null_item_id = kind in _APPLIES_TO and "item_id" in event and event["item_id"] is None
        if null_item_id and self.has(Fault.NULL_ITEM_ID_LOOKED_UP):
            raise Refused("unknown_item", "item None was never announced")
        values = self._read(event, fields, required, "")  # CORE-EVT-8: every field, then the item
        lifecycle = kind.removeprefix("response.")
        if lifecycle in LIFECYCLE:
            return self._lifecycle(lifecycle, values["response"])
        if kind == "error":
            return self._error_event(event)
        if kind == "response.output_item.added":
            return self._added(values)
        if kind == "response.output_item.done":
            return self._item_done(values)
        item = self._resolve_item(kind, values)
        if kind in _PREVIEW_TEXT:
            return self._preview(kind, item, values)
        if kind in ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta"):
            return self._arguments_delta(item, values["delta"])
        if kind in ("response.function_call_arguments.done", "response.custom_tool_call_input.done"):
            return self._arguments_done(item, values[TEXT_FIELD[item.type]], event)
        if kind.startswith("response.output_text") and self.has(Fault.LOGPROBS_TOKENS_AS_TEXT):
            values = {**values, **_text_of_tokens(event, kind)}
        return self._channel(kind, item, values)

    def _also_required(self, kind: str) -> tuple[str, ...]:
        """Fields a fault takes for required, which the routing table does not require."""
        required: list[str] = []
        if kind == "response.reasoning_summary_text.delta" and self.has(Fault.SUMMARY_INDEX_REQUIRED):
            required.append("summary_index")
        if kind in _INDEXED_BY_CONTENT and self.has(Fault.CONTENT_INDEX_REQUIRED):
            required.append("content_index")
        if kind in _ITEM_ID_FIRST and self.has(Fault.ITEM_ID_REQUIRED):
            required.append("item_id")
        if kind in _ITEM_ID_FIRST and self.has(Fault.OUTPUT_INDEX_REQUIRED):
            required.append("output_index")
        if kind in _PREVIEW_TEXT and self.has(Fault.SHELL_EVENTS_NEED_ITEM_ID):
            required.append("item_id")
        if kind.startswith("response.output_text") and self.has(Fault.LOGPROBS_REQUIRED):
            required.append("logprobs")
        return tuple(required)

    def _refuse_if_done(self, kind: str, event: dict[str, Any], fields: Iterable[tuple[str, str]]) -> None:
        """LATE_BEFORE_FIELDS: an event for a finished item is refused before its fields are read."""
        identity = [(name, shape) for name, shape in fields if name in _IDENTITY]
        try:
            item = self._resolve_item(kind, self._read(event, identity, (), ""))
        except Refused:
            return  # the usual order decides what is wrong with it
        if item.done or (item.call is not None and item.call.complete and kind.endswith(".delta")):
            if kind.endswith(".done"):
                raise Refused("duplicate_event", f"{kind} for {item.id!r}, which is done")
            raise Refused("late_delta", f"{kind} for {item.id!r}, which is done")

    def _refuse_if_repeated(self, kind: str, event: dict[str, Any]) -> None:
        """DUPLICATE_BEFORE_FIELDS: a repeated announcement or completion, refused before its item is read."""
        item_id = event["item"].get("id") if isinstance(event.get("item"), dict) else None
        known = self.items.get(item_id) if isinstance(item_id, str) else None
        if known is not None and (kind.endswith(".added") or known.done):
            raise Refused("duplicate_event", f"item {known.id!r} was {kind.rsplit('.', 1)[1]} before")

    def _read(
        self,
        source: Mapping[str, Any],
        fields: Iterable[tuple[str, str]],
        required: Iterable[str],
        where: str,
    ) -> dict[str, Any]:
        if self.has(Fault.WHOLE_NUMBER_INDEX_MALFORMED):  # as a Go int or a Rust u64 decodes it
            for name, shape in fields:
                if shape == "index" and _whole(source.get(name)):
                    raise Refused("malformed_event", f"field {where + name!r} must be written as an integer")
        indexes = [name for name, shape in fields if shape == "index" and type(source.get(name)) is float]
        if self.has(Fault.INDEX_TRUNCATED):  # decoded as a float and converted, as Go's int(f) does
            source = {**source, **{name: int(source[name]) for name in indexes if source[name] >= 0}}
        item_event = any(name == "item" for name, _ in fields)  # decoded into the SDK's typed event
        if indexes and item_event and self.has(Fault.ITEM_EVENT_INDEX_WHOLE_NUMBER_MALFORMED):
            raise Refused("malformed_event", f"field {where + indexes[0]!r} must be written as an integer")
        return _read(source, fields, required, where, not self.has(Fault.NULL_IS_WRONG_TYPE))

    def _ignored(self, event: dict[str, Any], kind: str) -> list[Outcome]:
        unknown = kind not in UNROUTED and ":" not in kind
        if self.has(Fault.GUESS_TEXT_FROM_DELTA) and isinstance(event.get("delta"), str):
            item = self.items.get(str(event.get("item_id")))
            if item is not None and item.type == "message":
                index = event.get("content_index") or 0
                return [self._text_delta_outcome(item, event.get("output_index"), index, event["delta"])]
        if unknown and isinstance(event.get("error"), dict) and self.has(Fault.ERROR_FROM_ERROR_MEMBER):
            return self._error_event({"type": "error", "error": event["error"]})
        if unknown and isinstance(event.get("item"), dict) and self.has(Fault.ITEM_MEMBER_ROUTED):
            return self._route({**event, "type": "response.output_item.done"})
        if unknown and self.has(Fault.UNKNOWN_TYPE_REFUSED):
            raise Refused("unknown_event", f"no route for {kind!r}")
        if kind.startswith("response.content_part.") and self.has(Fault.CONTENT_PARTS_UNREPORTED):
            return []  # taken in to track the part, and never reported
        if (
            kind in _HOSTED_DELTAS
            and isinstance(event.get("delta"), str)
            and self.has(Fault.HOSTED_DELTAS_PREVIEWED)
        ):
            return [
                {
                    "kind": "tool.arguments.delta",
                    "item_id": str(event.get("item_id")),
                    "delta": event["delta"],
                }
            ]
        if self.has(Fault.SWALLOW_UNKNOWN) and kind not in UNROUTED:
            return []
        if self.has(Fault.UNROUTED_SILENT) and kind in UNROUTED:
            return []
        shown = event["type"]
        if unknown and self.has(Fault.UNKNOWN_TYPE_UNNAMED):
            shown = "unknown"  # a catch-all variant that keeps no type
        if ":" in shown and self.has(Fault.VENDOR_PREFIX_DROPPED):
            shown = shown.split(":", 1)[1]
        return [{"kind": "ignored", "type": shown}]

    # -- lifecycle and errors --

    def _lifecycle(self, name: str, response: dict[str, Any] | None) -> list[Outcome]:
        if response is None and self.has(Fault.RESPONSE_REQUIRED):
            raise Refused("malformed_event", "field 'response' is missing")
        terminal = name in TERMINAL
        if terminal and self.has(Fault.MALFORMED_TERMINAL_ENDS):
            self.end_status = name  # the end is taken before the response is read
        output_null = response is not None and "output" in response and response["output"] is None
        if output_null and self.has(Fault.OUTPUT_NULL_REFUSED):
            raise Refused("malformed_event", "field 'response.output' must be a list")
        read = [("id", "string")]
        if (terminal or not self.has(Fault.STATUS_CHECKED_ON_TERMINAL_ONLY)) and not self.has(
            Fault.STATUS_UNCHECKED
        ):
            read.append(("status", "string"))  # CORE-LIFE-6: on every lifecycle event
        if name == "failed" or self.has(Fault.ERROR_READ_ON_EVERY_EVENT):
            read.append(("error", "object"))
        source = response or {}
        if self.has(Fault.RESPONSE_ID_STRINGIFIED) and source.get("id") is not None:
            source = {**source, "id": str(source["id"])}
        stated = self._read(source, read, (), "response.")
        status = stated.get("status", source.get("status"))
        outcomes: list[Outcome] = [{"kind": "lifecycle", "event": name, "response_id": stated["id"]}]
        if not terminal:
            return outcomes
        error_outcome: list[Outcome] = []
        if name == "failed" or (
            stated.get("error") is not None and self.has(Fault.ERROR_READ_ON_EVERY_EVENT)
        ):
            error = self._read(stated["error"] or {}, _ERROR_FIELDS, (), "response.error.")
            message = error["message"]
            if message is None and not self.has(Fault.FAILED_ERROR_MESSAGE_NULL):
                message = "the response failed"
            if not self.has(Fault.FAILED_ERROR_SWALLOWED):
                error_outcome.append(_error(error["code"], message))  # CORE-LIFE-3
        if self.has(Fault.FAILED_ERROR_BEFORE_LIFECYCLE):
            outcomes = error_outcome + outcomes
        else:
            outcomes += error_outcome
        cancelled = status == "cancelled" and not self.has(Fault.CANCELLED_IGNORED)
        ended = "completed" if name == "incomplete" and self.has(Fault.INCOMPLETE_ENDS_COMPLETED) else name
        self.end_status = "cancelled" if cancelled else ended
        if self.has(Fault.END_AT_TERMINAL):
            self.ended_at_terminal = True
            return outcomes + self._settle_open_calls() + [{"kind": "end", "status": self.end_status}]
        if self.has(Fault.OPEN_CALLS_BEFORE_LIFECYCLE):
            return self._settle_open_calls() + outcomes
        return outcomes + self._settle_open_calls()

    def _error_event(self, event: dict[str, Any]) -> list[Outcome]:
        if self.has(Fault.MALFORMED_ERROR_COUNTS):
            self.error_event_seen = True  # before the event is read
        nested = event.get("error")
        if isinstance(nested, str) and self.has(Fault.ERROR_STRING_AS_MESSAGE):
            self.error_event_seen = True
            return [_error(None, nested)]
        if isinstance(nested, str) and self.has(Fault.ERROR_STRING_AS_CODE):
            nested = {"code": nested, "message": event.get("message")}
        if nested is not None and not isinstance(nested, dict):  # CORE-ERR-2
            if not self.has(Fault.ERROR_STRING_FALLS_BACK_TO_FLAT):
                raise Refused("malformed_event", "field 'error' must be an object")
            nested = None
        if self.has(Fault.NESTED_ERROR_ONLY):
            stated = self._read(nested or {}, _ERROR_FIELDS, ("message",), "error.")
        elif nested is None or self.has(Fault.FLAT_ERROR_ONLY):
            stated = self._read(event, _ERROR_FIELDS, ("message",), "")
        else:
            stated = self._read(nested, _ERROR_FIELDS, ("message",), "error.")
        self.error_event_seen = True
        if self.has(Fault.ERROR_EVENT_TERMINAL):
            self.end_status = "failed"
        if self.has(Fault.ERROR_EVENT_COUNTS_AS_TERMINAL):
            self.error_was_terminal = True  # a terminal event after it is one too many
        code = stated["code"]
        if code is None and self.has(Fault.CODE_DEFAULTS_TO_TYPE):
            code = (nested or {}).get("type") or "error"
        outcomes = [_error(code, stated["message"])]
        if self.has(Fault.ERROR_EVENT_SETTLES_CALLS):
            outcomes += self._settle_open_calls()  # the response is taken for over, and goes on
        return outcomes

    # -- items --

    def _item_of(self, values: dict[str, Any], done: bool) -> dict[str, Any]:
        """The fields of the event's item that the router reads (CORE-ITEM-9)."""
        item = values["item"]
        if item.get("type") == "multi_agent_call" and self.has(Fault.MULTI_AGENT_CALL_EXECUTED):
            item = {**item, "type": "function_call", "name": item.get("action")}  # a call named by its action
        identity = self._read(item, _ITEM_FIELDS[:2], ("id", "type"), "item.")
        fields = _ITEM_FIELDS[2:]
        if self.has(Fault.ITEM_DECODED_WHOLE):
            fields = (*fields, ("arguments", "string"), ("input", "string"))
        elif done and (identity["type"] in TEXT_FIELD or self.has(Fault.HOSTED_CALLS_EXECUTED)):
            fields = (*fields, (TEXT_FIELD.get(identity["type"], "arguments"), "string"))
        if identity["type"] == "message" and self.has(Fault.ITEM_CONTENT_CHECKED):
            fields = (*fields, ("role", "string"), ("content", "array"))
        if identity["type"] in CATALOGUE:
            identity["hosted"] = self._hosted(identity["type"], item)
            if self.has(Fault.CATALOGUE_UNROUTED):  # taken for a hosted tool's item (CORE-CALL-9)
                identity["type"] = "unrouted_" + identity["type"]
        if self.has(Fault.ITEM_FIELDS_UNCHECKED):
            stated = {**identity, **{name: item.get(name) for name, _ in fields}}
        else:
            stated = {**identity, **self._read(item, fields, (), "item.")}
        if stated["type"] == "mcp_approval_request" and not self.has(Fault.APPROVAL_WITHOUT_REQUEST_ID):
            stated["call_id"] = stated["id"]  # CORE-CALLTYPE-5: the answer names the request's id
        return stated

    def _hosted(self, item_type: str, item: Mapping[str, Any]) -> bool:
        """CORE-CALLTYPE-4: who runs a catalogue item, as this form of it says."""
        if item_type == "tool_search_call":
            return item.get("execution") != "client"
        environment = item.get("environment")
        if item_type != "shell_call" or environment is None or self.has(Fault.EVERY_SHELL_LOCAL):
            return False
        return not isinstance(environment, dict) or environment.get("type") != "local"

    def _announce(self, stated: dict[str, Any], output_index: int | None) -> ItemState:
        """Register an item (CORE-ITEM-1): by id, at its output index, by its call id."""
        if output_index is None and self.has(Fault.MISSING_OUTPUT_INDEX_IS_ZERO):
            output_index = 0
        if output_index is None or self.has(Fault.OUTPUT_INDEX_FROM_COUNT):
            output_index = len(self.items)
        item = ItemState(
            stated["id"], stated["type"], output_index, stated["call_id"], stated["name"], stated["namespace"]
        )
        if item.type in CALL_TOOL_TYPES or (self.has(Fault.HOSTED_CALLS_EXECUTED) and item.name is not None):
            item.call = Call(self._buffer_for(item))
        elif item.type in CATALOGUE or self._run_locally(item.type):  # its input is its done item's
            item.hosted = stated.get("hosted", False)
            settled = item.hosted and not self.has(Fault.HOSTED_OPEN_AT_END_INCOMPLETE)
            item.call = Call(Buffer(self.faults), settled=settled)
        self.items.pop(item.id, None)  # SECOND_ADDED_REPLACES: the new one goes last
        self.items[item.id] = item
        if self.has(Fault.OUTPUT_INDEX_FIRST_ANNOUNCED):
            self.by_output_index.setdefault(output_index, item)
        else:
            self.by_output_index[output_index] = item
        if item.call_id is not None and self.has(Fault.CALL_ID_FIRST_ANNOUNCED):
            self.by_call_id.setdefault(item.call_id, item)
        elif item.call_id is not None:
            self.by_call_id[item.call_id] = item
        if item.type in CALL_TOOL_TYPES:
            self.current_call = item
        return item

    def _buffer_for(self, item: ItemState) -> Buffer:
        """A call's buffer: its own (CORE-ARGS-2), or one a fault shares with other calls."""
        if self.has(Fault.ONE_BUFFER_FOR_ALL_CALLS):
            return self.shared_buffer
        if self.has(Fault.BUFFER_BY_CALL_ID):
            key = str(item.call_id)  # every call announced without one shares the "None" buffer
            same = next(
                (i for i in self.items.values() if i.call is not None and str(i.call_id) == key), None
            )
            if same is not None and same.call is not None:
                return same.call.deltas
        return Buffer(self.faults)

    def _run_locally(self, item_type: str) -> bool:
        """Hosted items a fault takes for the client's."""
        if item_type == "program":
            return self.has(Fault.PROGRAM_EXECUTED)
        if item_type == "code_interpreter_call":
            return self.has(Fault.CODE_INTERPRETER_RUN_LOCALLY)
        known = item_type in CALL_TOOL_TYPES or item_type in CATALOGUE
        return not known and item_type.endswith("_call") and self.has(Fault.CALL_SUFFIX_EXECUTED)

    def _added(self, values: dict[str, Any]) -> list[Outcome]:
        try:
            stated = self._item_of(values, done=False)
        except Refused:
            if self.has(Fault.MALFORMED_ADDED_REGISTERS):
                self._register_raw(values)
            raise
        if stated["id"] in self.items and self.has(Fault.SECOND_ADDED_SILENT):
            return []
        if stated["id"] in self.items and self.has(Fault.SECOND_ADDED_RESETS):
            known = self.items[stated["id"]]
            known.parts.clear()  # the item starts over, and the announcement is reported
            if known.call is not None:
                known.call.deltas = Buffer(self.faults)
        if stated["id"] in self.items and not self.has(Fault.SECOND_ADDED_REPLACES):
            raise Refused("duplicate_event", f"item {stated['id']!r} was announced before")
        holder = (
            self.by_output_index.get(values["output_index"]) if values["output_index"] is not None else None
        )
        if holder is not None and self.has(Fault.ITEMS_KEYED_BY_OUTPUT_INDEX):
            raise Refused("duplicate_event", f"output index {values['output_index']} is {holder.id!r}'s")
        item = self._announce(stated, values["output_index"])
        item.null_stated = {
            name for name in _IDENTITY_FIELDS if name in values["item"] and values["item"][name] is None
        }
        phase, agent = values["item"].get("phase"), values["item"].get("agent")
        if isinstance(phase, str) and not self.has(Fault.PHASE_DROPPED):  # CORE-TEXT-9: a label only
            item.phase = phase
        if _named_agent(agent) and not self.has(Fault.AGENT_DROPPED):  # CORE-TEXT-12: a label too
            item.agent = agent["agent_name"]
        if self.has(Fault.FIRE_AT_ADDED) and item.call is not None:
            announced = values["item"].get(TEXT_FIELD.get(item.type, "arguments"))
            return self._produce(item, announced if isinstance(announced, str) and announced else "{}")
        return []

    def _register_raw(self, values: dict[str, Any]) -> None:
        """MALFORMED_ADDED_REGISTERS: the item is kept before the announcement is found malformed."""
        raw = values["item"]
        item_id, item_type = raw.get("id"), raw.get("type")
        if isinstance(item_id, str) and isinstance(item_type, str) and item_id not in self.items:
            strings = {
                name: raw.get(name) if isinstance(raw.get(name), str) else None for name in _IDENTITY_FIELDS
            }
            self._announce(
                {"id": item_id, "type": item_type, **strings, "hosted": False}, values["output_index"]
            )

    def _item_done(self, values: dict[str, Any]) -> list[Outcome]:
        stated = self._item_of(values, done=True)
        item = self.items.get(stated["id"])
        if item is None:
            if self.has(Fault.DONE_NEEDS_ADDED):
                raise Refused("unknown_item", f"item {stated['id']!r} was never announced")
            call_types = (*CALL_TOOL_TYPES, *CATALOGUE)
            if stated["type"] not in call_types and self.has(Fault.DONE_WITHOUT_ADDED_CALLS_ONLY):
                raise Refused("unknown_item", f"item {stated['id']!r} was never announced")
            item = self._announce(stated, values["output_index"])  # CORE-ITEM-6
            if self.has(Fault.DONE_WITHOUT_ADDED_LEFT_OPEN):
                return []  # taken for its announcement only
        elif item.type != stated["type"] and not self.has(Fault.DONE_TYPE_NOT_COMPARED):
            raise Refused(
                "item_type_mismatch", f"item {item.id!r} is a {item.type}, done as {stated['type']}"
            )
        elif item.done and self.has(Fault.REPEATED_DONE_COMPARED):
            changed = [
                name
                for name in _IDENTITY_FIELDS
                if stated[name] is not None and stated[name] != getattr(item, name)
            ]
            return [
                _error("done_mismatch", f"the repeated done item states another {name}") for name in changed
            ]
        elif item.done and not (self.has(Fault.CALL_AGAIN_ON_DUPLICATE_DONE) and item.call is not None):
            code = "late_delta" if self.has(Fault.SECOND_DONE_LATE) else "duplicate_event"
            raise Refused(code, f"item {item.id!r} is already done")
        awaited = stated["status"] == "in_progress" and self.has(Fault.IN_PROGRESS_DONE_ITEM_AWAITED)
        if awaited and item.call is not None:
            return []  # taken for an update of the item: its done item is still to come
        item.done = True
        outcomes: list[Outcome] = []
        if item.refusals:  # REFUSAL_AT_ITEM_DONE: the refusal, shown whole at the end
            outcomes.append(
                {
                    "kind": "refusal.delta",
                    "item_id": item.id,
                    "content_index": 0,
                    "delta": "".join(item.refusals),
                }
            )
        if item.call is None:
            return outcomes
        if item.type in CATALOGUE or self._run_locally(item.type):
            return self._catalogue_done(item, item.call, stated, values["item"])
        return self._call_done(item, item.call, stated)

    def _identity(self, item: ItemState, call: Call, stated: dict[str, Any]) -> tuple[list[Outcome], bool]:
        """CORE-CALL-4, -17: what the done item states is the call's, what it leaves out the
        announcement's; another name or namespace is a done_mismatch (CORE-CALL-18), another call
        id is not (CORE-CALL-19). Also whether the done item states another tool than the call
        made at the .done was made for (CORE-CALL-13)."""
        outcomes: list[Outcome] = []
        contradicted = False  # the done item states another call than the one made at the .done
        for name in _IDENTITY_FIELDS:
            first, again = getattr(item, name), stated[name]
            if again is None or again == first:
                continue
            if first is not None and self.has(Fault.FIRST_IDENTITY_STANDS):  # spec 1.3's rule
                outcomes.append(_error("done_mismatch", f"the done item states {name} {again!r}"))
                contradicted |= call.fired
                continue
            if first is None and self.has(Fault.DONE_ITEM_FILLS_NOTHING):
                continue  # what the announcement lacked stays lacking
            if name == "call_id" and first is not None and self.has(Fault.IDENTITY_CHANGE_SILENT):
                continue  # the announced call id stays, without a word
            if name == "call_id":
                reported = (
                    self.has(Fault.RESTATED_CALL_ID_REPORTED)
                    or (call.fired and self.has(Fault.RESTATED_CALL_ID_REPORTED_AT_ARGUMENTS_DONE))
                    or (item.type == "custom_tool_call" and self.has(Fault.CUSTOM_RESTATED_CALL_ID_REPORTED))
                )
            else:
                reported = not self.has(Fault.SILENT_NAME_CHANGE) and not (
                    call.fired and self.has(Fault.NAME_CHANGE_RETRACTED_SILENTLY)  # the retraction says it
                )
            stated_null = name in item.null_stated and self.has(Fault.NULL_CALL_ID_STATED)
            if (first is not None and reported) or stated_null:
                message = f"the done item states {name} {again!r}, not {first!r}"
                own = name != "call_id" and self.has(Fault.NAME_CHANGE_OWN_CODE)  # not the text's code
                outcomes.append(_error(f"{name}_mismatch" if own else "done_mismatch", message))
            gained = name == "namespace" and first is None  # a namespace the call lacked included
            if name != "call_id" and not (gained and self.has(Fault.RETRACT_IGNORES_NEW_NAMESPACE)):
                contradicted |= call.fired
            setattr(item, name, again)
            if name == "call_id" and not self.has(Fault.DONE_ITEM_CALL_ID_UNKNOWN):
                self.by_call_id[again] = item  # CORE-ITEM-8: the done item states it most recently
        return outcomes, contradicted

    def _call_done(self, item: ItemState, call: Call, stated: dict[str, Any]) -> list[Outcome]:
        refusing = (
            ("incomplete", "in_progress")
            if self.has(Fault.IN_PROGRESS_DONE_ITEM_INCOMPLETE)
            else ("incomplete",)
        )
        incomplete = stated["status"] in refusing and not self.has(Fault.IGNORE_ITEM_STATUS)
        if stated["status"] != "completed" and self.has(Fault.STATUS_NOT_COMPLETED_REFUSED):
            incomplete = True  # `if item.status != "completed"`
        restated = stated["call_id"] is not None and item.call_id not in (None, stated["call_id"])
        outcomes, contradicted = self._identity(item, call, stated)
        text, stated_text = call.done_text, stated.get(TEXT_FIELD.get(item.type, "arguments"))
        if stated_text == "" and self.has(Fault.EMPTY_DONE_ITEM_TEXT_ABSENT):
            stated_text = None  # `item.get("arguments") or ...`
        if text is None and call.deltas.received and self.has(Fault.ARGUMENTS_FROM_DELTAS):
            stated_text = None  # the deltas are taken for the arguments
            text = call.deltas.joined()
        if call.deltas.overflowed and self.has(Fault.TOO_LARGE_DONE_DUPLICATE):
            raise Refused("duplicate_event", f"the call {item.id!r} was already refused")
        if stated_text is not None:  # CORE-ARGS-5: the done item's text is the call's
            if text is None:
                agree = self._deltas_agree(call, stated_text) or self.has(Fault.NO_ARGUMENTS_MISMATCH)
            else:
                agree = self._sources_agree(item, text, stated_text) or (
                    call.deltas.overflowed and self.has(Fault.TOO_LARGE_SOURCES_UNCOMPARED)
                )
                # the deltas of a call past the limit are dropped: nothing to compare (CORE-LIMIT-6)
                again = (
                    call.streamed and not call.deltas.overflowed and self.has(Fault.MISMATCH_FOR_EACH_SOURCE)
                )
                if again and not same_text(call.streamed, stated_text, self.faults):
                    outcomes.append(_error("done_mismatch", "the done item's text disagrees with the deltas"))
            if not agree:
                outcomes.append(
                    _error("done_mismatch", f"the done item's text {stated_text!r:.60} disagrees")
                )
                contradicted |= not self.has(Fault.RETRACT_IGNORES_TEXT)
            if text is None or not self.has(Fault.ARGUMENTS_DONE_EVENT_WINS):
                text = stated_text
        call.complete = call.settled = True
        call.deltas.release()
        again = restated and not (incomplete or contradicted) and self.has(Fault.RESTATED_CALL_MADE_AGAIN)
        if call.fired and again:  # the call made at its .done is made once more, at the new id
            return outcomes + self._produce(item, text)
        if call.fired:  # arguments_done: the call went out at its .done (CORE-CALL-8)
            return self._confirmed(item, outcomes, incomplete, contradicted)
        if call.outcome is not None and not self.has(Fault.CALL_AGAIN_ON_DUPLICATE_DONE):
            return outcomes
        parsed_first = incomplete and self.has(Fault.INCOMPLETE_PARSED_FIRST) and item.type == "function_call"
        if (
            parsed_first
            and text is not None
            and self._produce(item, text, dry_run=True)[0]["kind"] == "tool.error"
        ):
            return outcomes + self._produce(item, text)  # refused for its text, not its status
        if incomplete:  # CORE-CALL-5
            return outcomes + self._tool_error(item, "incomplete", "the done item's status is incomplete")
        if restated and self.has(Fault.IDENTITY_CHANGE_REFUSES_CALL):
            return outcomes + self._tool_error(item, "incomplete", "the done item states another call")
        if self.has(Fault.CALL_BEFORE_MISMATCH):
            return self._produce(item, text) + outcomes
        return outcomes + self._produce(item, text)

    def _sources_agree(self, item: ItemState, text: str, stated_text: str) -> bool:
        """CORE-ARGS-8: the done item's text against the .done's."""
        if item.type == "custom_tool_call" and self.has(Fault.CUSTOM_DONE_ITEM_NOT_COMPARED):
            return True
        if self.has(Fault.DONE_ITEM_COMPARED_AS_JSON):
            try:
                return json.loads(text) == json.loads(stated_text)
            except ValueError:
                return True  # what does not parse is not compared
        return same_text(text, stated_text, self.faults)

    def _deltas_agree(self, call: Call, text: str) -> bool:
        """CORE-ARGS-6: the first complete source against the deltas routed."""
        if call.deltas.received and self.has(Fault.MISMATCH_COMPARED_AS_JSON):
            try:
                return json.loads(call.deltas.joined()) == json.loads(text)
            except ValueError:
                pass
        return call.deltas.agrees(text)

    def _confirmed(
        self, item: ItemState, outcomes: list[Outcome], incomplete: bool, contradicted: bool
    ) -> list[Outcome]:
        """The done item of a call made at its .done: it confirms the call, at the call id it
        states (CORE-CALL-20), or it is retracted (CORE-CALL-12, -13)."""
        assert item.call is not None
        readdressed = item.call_id != item.call.made_with
        retracted: Outcome | None = None
        if incomplete and not self.has(Fault.NO_RETRACT_ON_INCOMPLETE):  # CORE-CALL-12
            if contradicted or not self.has(Fault.INCOMPLETE_RETRACTED_ONLY_WHEN_CHANGED):
                retracted = self._retracted(item, "its done item is incomplete")
        elif contradicted and not self.has(Fault.NO_RETRACT_ON_MISMATCH):  # CORE-CALL-13
            retracted = self._retracted(item, "its done item states another call")
        elif readdressed and self.has(Fault.RESTATED_CALL_ID_RETRACTED):
            retracted = self._retracted(item, "its done item states another call id")
        elif readdressed and not self.has(Fault.FIRST_IDENTITY_STANDS):  # CORE-CALL-20
            return [*outcomes, self._restated(item, item.call.made_with)]
        if retracted is None:
            return outcomes
        if incomplete and self.has(Fault.RETRACT_BEFORE_MISMATCH):
            return [retracted, *outcomes]
        return [*outcomes, retracted]

    def _restated(self, item: ItemState, made_with: str | None) -> Outcome:
        """The call made at `made_with` stands at the call id its done item states (CORE-CALL-20)."""
        assert item.call_id is not None
        assert made_with is not None
        self._take_call_id(item)  # both ids are the call's (CORE-CALL-7)
        message = f"the call made as {made_with!r} is {item.call_id!r}"
        ids = {"call_id": item.call_id, "previous_call_id": made_with}
        if self.has(Fault.RESTATED_IDS_SWAPPED):
            ids = {"call_id": made_with, "previous_call_id": item.call_id}
        return _error("call_id_restated", message, item_id=item.id, **ids)

    def _retracted(self, item: ItemState, why: str) -> Outcome:
        """Names the call as it was made, whatever id its done item states (CORE-CALL-12 .. -14)."""
        assert item.call is not None
        if self.has(Fault.RETRACTION_FREES_CALL_ID):  # as if it had never been made (CORE-CALL-7)
            self.called.discard(str(item.call.made_with))
        message = f"the call produced at its .done is withdrawn: {why}"
        return _error("call_retracted", message, item_id=item.id, call_id=item.call.made_with)

    def _resolve_item(self, kind: str, values: dict[str, Any]) -> ItemState:
        """The item an item event belongs to (CORE-ITEM-2, -3, -4, -8)."""
        item_id, output_index, call_id = values["item_id"], values["output_index"], values.get("call_id")
        if self.has(Fault.CUSTOM_INPUT_IGNORES_CALL_ID):
            call_id = None
        if output_index is not None and self.has(Fault.OUTPUT_INDEX_DECIDES):
            item_id = None
        both = item_id is not None and call_id is not None and self.has(Fault.CONFLICTING_IDS_REFUSED)
        if both and self.by_call_id.get(call_id) is not self.items.get(item_id):
            raise Refused("malformed_event", f"item_id {item_id!r} and call_id {call_id!r} name two calls")
        if item_id is None and output_index is not None and self.has(Fault.OUTPUT_INDEX_OVER_CALL_ID):
            call_id = None
        item: ItemState | None
        if item_id is not None:
            item = self.items.get(item_id)
            missing = f"item {item_id!r} was never announced"
        elif call_id is not None:
            item = self.by_call_id.get(call_id)
            missing = f"no item was announced with call_id {call_id!r}"
        elif output_index is not None:
            item = self.by_output_index.get(output_index)
            missing = f"no item was announced at output_index {output_index}"
        elif kind.startswith("response.custom_tool_call_input") and self.has(Fault.CUSTOM_INPUT_TO_OPEN_CALL):
            open_calls = [i for i in self.items.values() if i.type == "custom_tool_call" and not i.done]
            if not open_calls:
                raise Refused("malformed_event", "no id, and no custom call is open")
            item = open_calls[-1]
        elif kind.startswith("response.custom_tool_call_input") and self.has(
            Fault.NO_ID_CUSTOM_INPUT_UNKNOWN
        ):
            raise Refused("unknown_item", "item None was never announced")  # looked up by a missing id
        elif kind.startswith("response.custom_tool_call_input") and self.has(
            Fault.NO_ID_CUSTOM_INPUT_IGNORED
        ):
            raise Ignored(kind)  # dropped, as a wire mapper drops it, but said
        else:  # CORE-ITEM-8: not even a custom input goes to a guessed call
            raise Refused("malformed_event", "the event names no item (item_id, call_id or output_index)")
        if item is None:
            if not self.has(Fault.ROUTE_UNKNOWN_ITEM):
                raise Refused("unknown_item", missing)
            stated = {"id": item_id or "", "type": _APPLIES_TO[kind], "call_id": call_id, "name": None}
            item = self._announce({**stated, "namespace": None}, output_index)  # created on first sight
        if item.type != _APPLIES_TO[kind] and not self.has(Fault.NO_ITEM_TYPE_CHECK):
            raise Refused("item_type_mismatch", f"{kind} does not apply to the {item.type} {item.id!r}")
        if item_id is not None and call_id is not None and self.has(Fault.EVENT_CALL_ID_ADOPTED):
            item.call_id = call_id  # the latest event's word on the call
        if output_index is not None and self.has(Fault.OUTPUT_INDEX_MOVED_BY_EVENTS):
            item.output_index = output_index  # the latest event's word on where the item is
        return item

    # -- text, refusal and reasoning --

    def _text_delta_outcome(
        self, item: ItemState, output_index: int | None, index: int, delta: str
    ) -> Outcome:
        from_count = output_index is None and self.has(Fault.OMITTED_OUTPUT_INDEX_FROM_COUNT)
        event_index = self.has(Fault.INDEXES_FROM_EVENT_ONLY) or (
            output_index is not None and self.has(Fault.TEXT_OUTPUT_INDEX_FROM_EVENT)
        )
        if from_count:
            output_index = len(self.items) - 1  # the rule of an announcement, for its events
        elif output_index is not None and self.has(Fault.TEXT_OUTPUT_INDEX_FROM_FIRST_DELTA):
            output_index = self.text_output_index.setdefault(item.id, output_index)  # its text stream's
        elif not event_index:
            output_index = item.output_index  # the item's, whatever the event states (CORE-ITEM-15, -16)
        if self.has(Fault.TEXT_DELTA_STRIPPED):
            delta = delta.strip()
        outcome = {
            "kind": "text.delta",
            "item_id": item.id,
            "output_index": output_index,
            "content_index": index,
            "delta": delta,
        }
        return _labelled(outcome, item)

    def _channel(self, kind: str, item: ItemState, values: dict[str, Any]) -> list[Outcome]:
        index_field = "summary_index" if "summary_index" in values else "content_index"
        index = values[index_field]
        if index is None and not self.has(Fault.INDEXES_FROM_EVENT_ONLY):
            index = 0  # CORE-ITEM-7
        if kind == "response.output_text.done":
            return self._text_done(item, index, values["text"])
        refusal = kind == "response.refusal.delta"
        text = kind == "response.output_text.delta"
        part_done = index in item.parts_done and not (refusal and self.has(Fault.LATE_CHECK_PER_CHANNEL))
        late: list[Outcome] = []
        if (part_done or item.done) and not (text and self.has(Fault.LATE_TEXT_DELTA_ROUTED)):
            error = Refused("late_delta", f"delta after part {index} of {item.id!r} was done")  # CORE-TEXT-6
            if not (text and self.has(Fault.LATE_TEXT_DELTA_REPORTED_AND_SHOWN)):
                raise error
            late = [_error(error.code, f"event {self.index}: {error}")]
        delta = values["delta"]
        if refusal and not self.has(Fault.REFUSAL_AS_TEXT):
            return self._refusal(kind, item, index, delta)
        if kind.startswith("response.reasoning"):
            if index_field == "summary_index" and self.has(Fault.SUMMARY_AS_CONTENT_INDEX):
                index_field = "content_index"
            outcomes = [{"kind": "reasoning.delta", "item_id": item.id, index_field: index, "delta": delta}]
            if self.has(Fault.REASONING_ALSO_TEXT):  # thinking shown inline with the answer
                outcomes.append(self._text_delta_outcome(item, values["output_index"], index, delta))
            return outcomes
        outcome = self._text_delta_outcome(item, values["output_index"], index, delta)
        limit = math.inf if self.has(Fault.TEXT_BUFFER_UNBOUNDED) else MAX_BUFFER_BYTES
        part = item.parts.setdefault(index, Buffer(self.faults, limit))
        # `if not delta: part.shown = False`: the deltas after an empty one are kept, never shown
        hidden = self.has(Fault.EMPTY_TEXT_DELTA_ENDS_PART) and "" in part.pieces
        shown = [] if self.has(Fault.TEXT_ONLY_AT_DONE) or hidden else [*late, outcome]
        stops = self.has(Fault.TEXT_LIMIT_STOPS_ROUTING)
        message = f"part {index} of {item.id!r} passes {MAX_BUFFER_BYTES} bytes: it is no longer compared"
        if part.overflowed and self.has(Fault.TEXT_PAST_LIMIT_RESTARTS_BUFFER):
            part = item.parts[index] = Buffer(self.faults, limit)  # a new buffer, kept and compared
        elif part.overflowed:
            again = [_error("too_large", message)] if self.has(Fault.TEXT_LIMIT_ERROR_EVERY_DELTA) else []
            return [] if stops else [*shown, *again]
        if part.add(delta):
            return shown
        return (
            [_error("too_large", message)] if stops else [*shown, _error("too_large", message)]
        )  # CORE-LIMIT-3

    def _refusal(self, kind: str, item: ItemState, index: int, delta: str) -> list[Outcome]:
        if self.has(Fault.REFUSAL_UNROUTED):
            return [{"kind": "ignored", "type": kind}]
        if self.has(Fault.REFUSAL_AS_ERROR):  # a refusal raised to the application as a failure
            return [_error("refusal", delta)]
        if self.has(Fault.REFUSAL_AT_ITEM_DONE):
            item.refusals.append(delta)
            return []
        return [{"kind": "refusal.delta", "item_id": item.id, "content_index": index, "delta": delta}]

    def _text_done(self, item: ItemState, index: int, text: str) -> list[Outcome]:
        repeated = index in item.parts_done or (
            item.done and not self.has(Fault.TEXT_DONE_AFTER_ITEM_DONE_ROUTED)
        )
        if repeated and not self.has(Fault.SECOND_TEXT_DONE_ROUTED):
            if self.has(Fault.SECOND_TEXT_DONE_SILENT):
                return []
            raise Refused("duplicate_event", f"part {index} of {item.id!r} is already done")  # CORE-TEXT-7
        item.parts_done.add(index)
        part = item.parts.pop(index, Buffer())
        outcomes: list[Outcome] = []
        compared = part.received or self.has(Fault.TEXT_MISMATCH_WITHOUT_DELTAS)
        if (
            compared
            and not same_text(part.joined(), text, self.faults)
            and not self.has(Fault.NO_TEXT_MISMATCH)
        ):
            outcomes.append(
                _error("done_mismatch", f"text {text!r:.60} disagrees with its deltas")
            )  # CORE-TEXT-11
        if self.has(Fault.TEXT_DONE_STRIPPED):
            text = text.strip()
        done = {"kind": "text.done", "item_id": item.id, "content_index": index, "text": text}
        if self.has(Fault.TEXT_DONE_DROPPED) or (
            part.overflowed and self.has(Fault.TEXT_PAST_LIMIT_DONE_DROPPED)
        ):
            return outcomes
        done = _labelled(done, item)
        if self.has(Fault.TEXT_MISMATCH_AFTER_DONE):
            return [done, *outcomes]
        return [*outcomes, done]

    # -- arguments and calls --

    def _arguments_delta(self, item: ItemState, delta: str) -> list[Outcome]:
        call = item.call
        assert call is not None  # every function or custom call item has one
        late = call.complete and not self.has(Fault.LATE_ARGUMENTS_DELTA_APPENDED)
        if late and not (
            call.deltas.overflowed and self.has(Fault.TOO_LARGE_AFTER_COMPLETE)
        ):  # CORE-ARGS-4, even past CORE-LIMIT-1
            if self.has(Fault.LATE_ARGUMENTS_DELTA_SILENT):
                return []
            raise Refused("late_delta", f"delta after the arguments of {item.id!r} were complete")
        if call.deltas.overflowed:
            if self.has(Fault.LATER_OVERSIZED_DELTAS_LATE):
                raise Refused("late_delta", f"delta after the arguments of {item.id!r} were refused")
            raise Refused("too_large", f"delta of {item.id!r} dropped: its arguments passed the limit")
        if delta == "" and self.has(Fault.EMPTY_DELTA_MALFORMED):
            raise Refused("malformed_event", "field 'delta' is missing")  # `if not delta`
        if delta == "" and self.has(Fault.DROP_EMPTY_ARGUMENTS_DELTA):
            return []
        if self.has(Fault.BUFFER_OF_CURRENT_CALL) and self.current_call is not None:
            call = self.current_call.call or call  # the call announced last takes every delta
        size = utf8_size(delta, self.faults)
        self.buffered += size
        inclusive = call.deltas.size + size >= MAX_BUFFER_BYTES and self.has(Fault.LIMIT_INCLUSIVE)
        shared = self.buffered > MAX_BUFFER_BYTES and self.has(Fault.LIMIT_SHARED_BY_CALLS)
        if inclusive or shared or not call.deltas.add(delta):  # CORE-LIMIT-1
            call.deltas.drop()
            return self._tool_error(
                item, "too_large", f"the arguments of {item.id!r} pass {MAX_BUFFER_BYTES} bytes"
            )
        call.streamed += delta
        if delta == "" and self.has(Fault.EMPTY_DELTA_ENDS_ARGUMENTS):
            call.complete = True  # an empty read taken for the end of the stream
        if self.has(Fault.NO_ARGUMENTS_PREVIEW):
            return []
        if item.type == "custom_tool_call" and self.has(Fault.CUSTOM_INPUT_NOT_PREVIEWED):
            return []
        shown = call.streamed if self.has(Fault.ARGUMENTS_DELTA_ACCUMULATED) else delta  # a snapshot so far
        outcomes: list[Outcome] = [{"kind": "tool.arguments.delta", "item_id": item.id, "delta": shown}]
        if item.type == "function_call" and self.has(Fault.ARGUMENTS_ALSO_TEXT):
            outcomes.append(self._text_delta_outcome(item, None, 0, delta))
        return outcomes

    def _arguments_done(self, item: ItemState, text: str, event: dict[str, Any]) -> list[Outcome]:
        call = item.call
        assert call is not None
        if call.deltas.overflowed and not call.complete:
            if self.has(Fault.TOO_LARGE_DONE_REFUSED):
                raise Refused(
                    "too_large", f"the .done of {item.id!r} dropped: its arguments passed the limit"
                )
            if self.has(Fault.TOO_LARGE_DONE_DUPLICATE):
                raise Refused("duplicate_event", f"the call {item.id!r} was already refused")
        repeated = (
            call.done_text is not None
            if self.has(Fault.ARGUMENTS_DONE_AFTER_ITEM_DONE_ACCEPTED)
            else call.complete
        )
        if repeated and not (self.has(Fault.SECOND_ARGUMENTS_DONE_REPLACES) and not item.done):
            if self.has(Fault.SECOND_ARGUMENTS_DONE_SILENT):
                return []
            raise Refused(
                "duplicate_event", f"the arguments of {item.id!r} are already complete"
            )  # CORE-ARGS-7
        outcomes: list[Outcome] = []
        agree = self._deltas_agree(call, text)
        if not call.complete and not agree and not self.has(Fault.NO_ARGUMENTS_MISMATCH):
            outcomes.append(_error("done_mismatch", f"the .done text {text!r:.60} disagrees with its deltas"))
        call.complete = True
        call.done_text = text
        call.deltas.release()
        if isinstance(event.get("name"), str) and self.has(Fault.NAME_FROM_ARGUMENTS_DONE):
            item.name = event["name"]
        identified = (item.call_id is not None and item.name is not None) or self.has(
            Fault.FIRE_WITHOUT_IDENTITY
        )
        if call.outcome is not None or not identified:
            return outcomes
        if self.at_arguments_done or self.has(Fault.FIRE_AT_ARGUMENTS_DONE):  # CORE-CALL-8
            return outcomes + self._produce(item, text)
        if self.has(Fault.CALL_AT_BOTH_POINTS):
            return outcomes + self._produce(item, text, dry_run=True)
        if self.has(Fault.VALIDATED_AT_ARGUMENTS_DONE):
            refused = self._produce(item, text, dry_run=True)
            return outcomes + [o for o in refused if o["kind"] == "tool.error"]
        return outcomes

    def _produce(self, item: ItemState, text: str | None, dry_run: bool = False) -> list[Outcome]:
        """The call's one tool.call or tool.error (CORE-CALL-1, -3, -5, -7, CORE-LIMIT-2); with
        `dry_run`, what it would be, with no state changed."""
        call = item.call
        assert call is not None
        if text is None and item.type == "function_call" and self.has(Fault.MISSING_ARGUMENTS_EMPTY_OBJECT):
            text = "{}"  # `arguments or "{}"`
        refused = self._tool_error_of if dry_run else self._tool_error
        if item.call_id is None or item.name is None or text is None:
            return refused(item, "incomplete", "the call has no call id, name or complete text")
        parsed_first = self.has(Fault.JSON_PARSED_BEFORE_DUPLICATE) and item.type == "function_call"
        if parsed_first and self._called_before(item) and not _parses(text, self.faults):
            return refused(item, "invalid_json", "the arguments are not JSON")
        guarded = self.has(Fault.DEPTH_BEFORE_DUPLICATE) and item.type == "function_call"
        if guarded and nesting_depth(text, self.faults) > MAX_DEPTH:  # a guard before anything is read
            return refused(item, "too_deep", f"the arguments nest deeper than {MAX_DEPTH} levels")
        if self._called_before(item) and not self.has(Fault.NO_DUPLICATE_CALL_ID_CHECK):
            return refused(item, "duplicate_call_id", f"call id {item.call_id!r} was already called")
        outcome: Outcome = {
            "kind": "tool.call",
            "item_id": item.id,
            "call_id": item.call_id,
            "name": item.name,
        }
        if item.type == "custom_tool_call" and not self.has(Fault.PARSE_CUSTOM_INPUT):
            outcome.update(tool_type="custom", input=self._custom_input(text))
        else:
            limit = MAX_DEPTH - 1 if self.has(Fault.DEPTH_LIMIT_INCLUSIVE) else MAX_DEPTH
            if nesting_depth(text, self.faults) > limit and not self.has(Fault.NO_DEPTH_LIMIT):
                return refused(item, "too_deep", f"the arguments nest deeper than {MAX_DEPTH} levels")
            try:
                arguments = parse_json(text, self.faults)
            except NotJSON as problem:
                return refused(item, "invalid_json", f"the arguments are not JSON: {problem}")
            if isinstance(arguments, str) and self.has(Fault.DOUBLE_ENCODED_UNWRAPPED):
                with contextlib.suppress(NotJSON):  # a string of JSON, decoded once more
                    arguments = parse_json(arguments, self.faults)
            if not isinstance(arguments, dict) and not self.has(Fault.ACCEPT_NON_OBJECT_ARGUMENTS):
                code = "invalid_json" if self.has(Fault.NON_OBJECT_IS_INVALID_JSON) else "invalid_arguments"
                return refused(item, code, "the arguments are not a JSON object")
            outcome.update(tool_type=CALL_TOOL_TYPES.get(item.type, "function"), arguments=arguments)
            if self.has(Fault.ARGUMENTS_AS_TEXT):
                outcome["arguments"] = text
        if item.namespace is not None and not self.has(Fault.NAMESPACE_DROPPED):
            outcome["namespace"] = item.namespace
        if dry_run:
            return [outcome]
        call.outcome = "tool.call"
        call.fired = not item.done
        call.made_with = item.call_id
        self._take_call_id(item)
        return [outcome]

    def _custom_input(self, text: str) -> str:
        """A custom call's input as handed over: its text (CORE-CALL-16), or what a fault makes of it."""
        if self.has(Fault.CUSTOM_INPUT_PARSED_WHEN_JSON):
            try:  # `try: json.loads(text) except: text`, then written out again
                return json.dumps(json.loads(text))
            except ValueError:
                return text
        if self.has(Fault.CUSTOM_INPUT_UNQUOTED) and len(text) > 1 and text[0] == text[-1] == '"':
            try:
                unquoted = json.loads(text)
            except ValueError:
                return text
            return unquoted if isinstance(unquoted, str) else text
        return text

    def _called_before(self, item: ItemState) -> bool:
        """CORE-CALL-7: whether the call id already belongs to a routed tool.call."""
        if self.has(Fault.ANNOUNCED_CALL_IDS_TAKEN):  # checked against the announcements instead
            return any(other is not item and other.call_id == item.call_id for other in self.items.values())
        return self._call_key(item) in self.called

    def _take_call_id(self, item: ItemState) -> None:
        self.called.add(self._call_key(item))

    def _call_key(self, item: ItemState) -> str:
        assert item.call_id is not None
        return f"{item.type}:{item.call_id}" if self.has(Fault.CALL_IDS_PER_TOOL_TYPE) else item.call_id

    # -- the call catalogue (spec/core.md section 5.1) --

    def _preview(self, kind: str, item: ItemState, values: dict[str, Any]) -> list[Outcome]:
        """CORE-CALLTYPE-6, -8: shown, never kept; one preview per command (the diff is one)."""
        index = values.get("command_index") or 0
        finished = index in item.parts_done or item.done
        shown = _PREVIEW_TEXT[kind]
        previewed = item.previews.setdefault(index, [])  # what the faults that read them again keep
        if shown is None:
            after_item = item.done and index not in item.parts_done
            if finished and not (after_item and self.has(Fault.PREVIEW_DONE_AFTER_ITEM_DONE_ACCEPTED)):
                code = "late_delta" if self.has(Fault.SECOND_PREVIEW_DONE_LATE) else "duplicate_event"
                raise Refused(code, f"preview {index} of {item.id!r} was done before")
            item.parts_done.add(index)
            if item.call is not None and "diff" in values:
                item.call.done_text = values["diff"]  # kept only for PATCH_FROM_DIFF_DONE
            stated = values.get("diff", values.get("command"))
            if self.has(Fault.PREVIEW_DONE_AS_DELTA) and isinstance(stated, str):
                return [self._preview_delta(item, values, index, stated)]  # the final snapshot
            if self.has(Fault.PREVIEW_DONE_COMPARED) and previewed and stated != "".join(previewed):
                return [_error("done_mismatch", f"preview {index} of {item.id!r} disagrees with its deltas")]
            return []
        if kind == "response.shell_call_command.added" and self.has(Fault.SHELL_ADDED_TEXT_DROPPED):
            return []
        if finished and not self.has(Fault.LATE_PREVIEW_SHOWN):
            if self.has(Fault.LATE_PREVIEW_SILENT):
                return []
            error = Refused("late_delta", f"preview delta after preview {index} of {item.id!r} was done")
            if not self.has(Fault.LATE_PREVIEW_REPORTED_AND_SHOWN):
                raise error
            late = _error(error.code, f"event {self.index}: {error}")
            return [late, self._preview_delta(item, values, index, values[shown])]
        previewed.append(values[shown])
        text = values[shown]
        if kind.endswith("operation_diff.delta") and self.has(Fault.DIFF_DELTA_ACCUMULATED):
            text = "".join(previewed)
        if kind.endswith("operation_diff.delta") and self.has(Fault.DIFF_DELTA_BY_LINE):
            text = _lines_completed("".join(previewed[:-1]), text)
            if not text:
                return []
        return [self._preview_delta(item, values, index, text)]

    def _preview_delta(self, item: ItemState, values: dict[str, Any], index: int, text: str) -> Outcome:
        outcome: Outcome = {"kind": "tool.arguments.delta", "item_id": item.id, "delta": text}
        if "command_index" in values and not self.has(Fault.COMMAND_INDEX_DROPPED):
            outcome["command_index"] = index
        return outcome

    def _catalogue_done(
        self, item: ItemState, call: Call, stated: dict[str, Any], done: Mapping[str, Any]
    ) -> list[Outcome]:
        """A catalogue call's one outcome, from the done item alone (CORE-CALLTYPE-1 .. -5, -7)."""
        item.hosted = stated.get("hosted", False)
        if item.hosted:  # CORE-CALLTYPE-4
            call.settled = True
            return []
        outcomes, _ = self._identity(item, call, stated)
        call.complete = call.settled = True
        if call.outcome is not None:
            return outcomes
        if self._run_locally(item.type):
            return outcomes + self._local_call(item, call, done)
        tool_type = CATALOGUE[item.type]
        refused = (
            ("incomplete",) if self.has(Fault.CATALOGUE_FAILED_STATUS_RUNS) else ("incomplete", "failed")
        )
        if stated["status"] in refused and not self.has(Fault.CATALOGUE_STATUS_IGNORED):  # CORE-CALLTYPE-3
            return outcomes + self._tool_error(item, "incomplete", f"the done item is {stated['status']}")
        if item.name is None and tool_type == "mcp_approval" and self.has(Fault.APPROVAL_NAMED_BY_SERVER):
            label = done.get("server_label")
            item.name = label if isinstance(label, str) else None
        if item.call_id is None or (item.name is None and tool_type == "mcp_approval"):
            return outcomes + self._tool_error(item, "incomplete", "the call has no call id or name")
        try:
            fields, refused = self._catalogue_fields(tool_type, done), None
        except Refused as problem:
            fields, refused = {}, problem
        first_input = self.has(Fault.INPUT_FAULT_BEFORE_DUPLICATE)
        if refused is not None and (refused.code == "incomplete" or first_input):  # CORE-CALL-22
            return outcomes + self._tool_error(item, refused.code, str(refused))
        checked = not self.has(Fault.CATALOGUE_CALL_IDS_UNCHECKED)
        if checked and self._called_before(item):  # CORE-CALL-7, before the input's own faults
            return outcomes + self._tool_error(item, "duplicate_call_id", f"{item.call_id!r} was called")
        if refused is not None:
            return outcomes + self._tool_error(item, refused.code, str(refused))
        name = item.name if tool_type == "mcp_approval" else tool_type
        if self.has(Fault.CATALOGUE_NAME_IS_ITEM_TYPE) and tool_type != "mcp_approval":
            name = item.type
        if self.has(Fault.APPROVAL_NAME_PREFIXED) and tool_type == "mcp_approval":
            name = f"{fields['server_label']}__{name}"  # as MCP clients namespace a server's tools
        fields = self._from_previews(item, call, fields)
        call.outcome = "tool.call"
        self._take_call_id(item)
        return [
            *outcomes,
            {
                "kind": "tool.call",
                "item_id": item.id,
                "call_id": item.call_id,
                "name": name,
                "tool_type": tool_type,
                **fields,
            },
        ]

    def _from_previews(self, item: ItemState, call: Call, fields: dict[str, Any]) -> dict[str, Any]:
        """The faults that take a catalogue call's input from its previews (CORE-CALLTYPE-2)."""
        if "operation" in fields and call.done_text is not None and self.has(Fault.PATCH_FROM_DIFF_DONE):
            return {**fields, "operation": {**fields["operation"], "diff": call.done_text}}
        diff = "".join(item.previews.get(0, []))
        if "operation" in fields and diff and self.has(Fault.PATCH_DIFF_FROM_DELTAS):
            return {**fields, "operation": {**fields["operation"], "diff": diff}}
        commands = ["".join(item.previews[index]) for index in sorted(item.previews)]
        if item.type == "shell_call" and any(commands) and self.has(Fault.SHELL_COMMANDS_FROM_PREVIEW):
            return {**fields, "action": {**fields["action"], "commands": commands}}
        return fields

    def _local_call(self, item: ItemState, call: Call, done: Mapping[str, Any]) -> list[Outcome]:
        """A hosted item a fault runs on the client: code as a custom call's input, else as arguments."""
        call.outcome = "tool.call"
        named = {"kind": "tool.call", "item_id": item.id, "call_id": item.call_id or item.id}
        code = done.get("code")
        if isinstance(code, str):
            return [{**named, "name": item.type.removesuffix("_call"), "tool_type": "custom", "input": code}]
        action = done.get("action")
        arguments = action if isinstance(action, dict) else {}
        return [{**named, "name": item.type, "tool_type": "function", "arguments": arguments}]

    def _catalogue_fields(self, tool_type: str, done: Mapping[str, Any]) -> dict[str, Any]:
        """The tool.call fields of a catalogue call (CORE-CALLTYPE-2, -7); Refused when it has none."""
        if tool_type == "computer":  # the preview tool's one action is a list of one
            name = "actions" if done.get("actions") is not None else "action"
        else:
            name = _INPUT_OF[tool_type]
        value: Any = done.get(name)
        if value is None:
            code = "invalid_arguments" if self.has(Fault.MISSING_INPUT_INVALID) else "incomplete"
            raise Refused(code, f"the done item has no {name}")
        if tool_type == "computer" and name == "action":
            value = [value]
        if not self._input_shape(tool_type, value) and not self.has(Fault.CATALOGUE_INPUT_UNCHECKED):
            code = "incomplete" if self.has(Fault.WRONG_SHAPE_INCOMPLETE) else "invalid_arguments"
            raise Refused(code, f"the done item's {name} is not of its shape")
        if tool_type == "computer":
            checks = done.get("pending_safety_checks")
            fields = {"actions": value}
            if isinstance(checks, list):
                return {**fields, "pending_safety_checks": checks}
            if checks is not None and not self.has(Fault.UNREADABLE_SAFETY_CHECKS_DROPPED):
                raise Refused(
                    "invalid_arguments", "pending_safety_checks must be an array"
                )  # CORE-CALLTYPE-7
            return fields
        if tool_type != "mcp_approval":
            return {name: value}
        label = done.get("server_label")
        if label is None and not self.has(Fault.MISSING_SERVER_LABEL_INVALID):
            raise Refused("incomplete", "an approval request names no server_label")  # CORE-CALLTYPE-10
        if not isinstance(label, str):
            raise Refused("invalid_arguments", "an approval request names its server_label")
        if not isinstance(value, str):  # CATALOGUE_INPUT_UNCHECKED: handed over as it came
            return {"arguments": value, "server_label": label}
        try:
            arguments = self._approval_arguments(value)
        except Refused:
            if not self.has(Fault.APPROVAL_ARGUMENTS_NOT_REFUSED):
                raise
            arguments = {}  # what could not be read is asked about as nothing
        return {"arguments": arguments, "server_label": label}

    def _input_shape(self, tool_type: str, value: Any) -> bool:
        if tool_type == "apply_patch" and self.has(Fault.DELETE_NEEDS_DIFF) and isinstance(value, dict):
            return _operation(value) and isinstance(value.get("diff"), str)
        return _INPUT_SHAPE[tool_type](value)

    def _approval_arguments(self, text: str) -> dict[str, Any]:
        if nesting_depth(text, self.faults) > MAX_DEPTH:
            raise Refused("too_deep", f"the arguments nest deeper than {MAX_DEPTH} levels")
        try:
            arguments = parse_json(text, self.faults)
        except NotJSON as problem:
            raise Refused("invalid_json", f"the arguments are not JSON: {problem}") from None
        if not isinstance(arguments, dict):
            raise Refused("invalid_arguments", "the arguments are not a JSON object")
        return arguments

    def _tool_error_of(self, item: ItemState, code: str, message: str) -> list[Outcome]:
        """The call's tool.error, with no state changed."""
        outcome: Outcome = {"kind": "tool.error", "item_id": item.id, "code": code, "message": message}
        if item.call_id is not None or self.has(Fault.TOOL_ERROR_CALL_ID_NULL):
            outcome["call_id"] = item.call_id
        return [outcome]

    def _tool_error(self, item: ItemState, code: str, message: str) -> list[Outcome]:
        assert item.call is not None
        item.call.outcome = "tool.error"
        return self._tool_error_of(item, code, message)

    def _settle_open_calls(self, at_close: bool = False) -> list[Outcome]:
        """The response ended: each call without its done item is told so (CORE-CALL-6, CORE-CALL-8)."""
        if self.has(Fault.FORGET_OPEN_CALLS):
            return []
        if not at_close and self.has(Fault.OPEN_CALLS_ONLY_AT_CLOSE):
            return []
        outcomes: list[Outcome] = []
        for item in self.items.values():
            call = item.call
            if call is None or call.settled:
                continue
            if item.type in CATALOGUE and self.has(Fault.CATALOGUE_OPEN_AT_END_SILENT):
                continue
            if call.fired and not at_close and self.has(Fault.RETRACT_ONLY_AT_CLOSE):
                continue
            call.settled = True
            if call.outcome is None:
                outcomes += self._tool_error(
                    item, "incomplete", "the response ended before the call completed"
                )
            elif call.fired and not self.has(Fault.NO_RETRACT_AT_END):  # CORE-CALL-14
                if self.end_status == "completed" and self.has(Fault.RETRACT_ONLY_ON_FAILURE):
                    continue  # a completed response taken for the call's confirmation
                outcomes.append(self._retracted(item, "the response ended before its done item"))
        return outcomes


@dataclass(frozen=True)
class IndependentAdapter:
    """An adapter (README.md): called with the vector's tool list, it returns a fresh router."""

    faults: frozenset[Fault] = frozenset()
    tool_call_point: str = "output_item_done"
    profiles: tuple[str, ...] = ("core", "sse")

    @property
    def options(self) -> dict[str, Any]:
        call_types = [*CALL_TOOL_TYPES.values(), *CATALOGUE.values()]
        return {"tool_call_point": self.tool_call_point, "call_types": call_types}

    def __call__(self, tools: Sequence[Mapping[str, Any]]) -> IndependentRouter:
        return IndependentRouter(self.faults, at_arguments_done=self.tool_call_point == "arguments_done")


router = IndependentAdapter()
arguments_done_router = IndependentAdapter(tool_call_point="arguments_done")
