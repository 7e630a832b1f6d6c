"""The words generated streams are made of: profiles, option values, limits, event types, tools.

The event types' facts (terminal, routed, item type, text field) come from the event schema
(`event_types()`), the option values from the vector schema; nothing here restates them.
"""

from __future__ import annotations

from typing import Any, Literal

from ..event_types import event_types
from ..schemas import OPTIONS, option_defaults, schema

Profile = Literal["core", "custom-tools", "execution", "sse"]
ToolCallPoint = Literal[
    "output_item_done", "arguments_done", "response_done"
]  # the option's values, as typed
EndStatus = Literal["completed", "failed", "incomplete", "cancelled", "truncated"]
TerminalStatus = Literal["completed", "failed", "incomplete"]
ItemKind = Literal["message", "reasoning", "function", "custom", "hosted"]
CallKind = Literal["function", "custom"]
ConsumerKind = Literal["echo", "silent", "reject", "raise", "patch"]  # the catalogue's consumers
Channel = Literal["text", "refusal", "summary", "reasoning_text", "reasoning", "arguments"]
Outcome = dict[str, Any]

PROFILES: tuple[Profile, ...] = ("core", "custom-tools", "execution", "sse")
# Option `tool_call_point` as the vector schema defines it; `ToolCallPoint` types the same values.
POINTS: tuple[ToolCallPoint, ...] = tuple(schema(OPTIONS)["properties"]["tool_call_point"]["enum"])
CANONICAL_POINT: ToolCallPoint = option_defaults()["tool_call_point"]

MAX_BUFFERED_BYTES = 1 << 20  # CORE-LIMIT-1, CORE-LIMIT-3
MAX_DEPTH = 128  # CORE-LIMIT-2
PREVIEW_INTERVAL_MS = 500  # CUSTOM-PATCH-4
FAILURE_CODE = "server_error"
# What every producer's response object states besides its id, status and output (PROD-LIFE-6).
RESPONSE_STATED = {"object": "response", "created_at": 1764505140, "model": "gpt-5.1"}

EVENTS = event_types()
TERMINAL_TYPES = {event.step: name for name, event in EVENTS.items() if event.terminal}  # by status
# The event family each channel streams in: the channel's `.delta` and `.done` types.
_FAMILIES = {
    "text": "response.output_text",
    "refusal": "response.refusal",
    "summary": "response.reasoning_summary_text",
    "reasoning_text": "response.reasoning_text",
    "reasoning": "response.reasoning",
    "function": "response.function_call_arguments",
    "custom": "response.custom_tool_call_input",
}
DELTA_TYPES = {channel: EVENTS[family + ".delta"].name for channel, family in _FAMILIES.items()}
DONE_TYPES = {channel: EVENTS[family + ".done"].name for channel, family in _FAMILIES.items()}
# The item type each routed item event applies to (CORE-ITEM-4).
ITEM_TYPE_OF = {
    name: EVENTS[name].item_types[0]
    for name in (*DELTA_TYPES.values(), *DONE_TYPES.values())
    if EVENTS[name].routed
}
_CALL_DONE = (EVENTS[DONE_TYPES["function"]], EVENTS[DONE_TYPES["custom"]])
CALL_TYPES = {event.item_types[0]: event.tool_type for event in _CALL_DONE if event.tool_type}
CALL_ITEM_TYPES = {tool_type: item_type for item_type, tool_type in CALL_TYPES.items()}
COMPLETE_FIELD = {event.tool_type: event.item_path[0] for event in _CALL_DONE}  # tool_type -> field
# Hosted tool items: the server runs them (CORE-CALL-9); their events are unrouted.
HOSTED = {
    "web_search_call": ("response.web_search_call.in_progress", "response.web_search_call.searching"),
    "mcp_call": ("response.mcp_call_arguments.delta", "response.mcp_call_arguments.done"),
    "code_interpreter_call": (
        "response.code_interpreter_call_code.delta",
        "response.code_interpreter_call.interpreting",
    ),
    "image_generation_call": (
        "response.image_generation_call.generating",
        "response.image_generation_call.partial_image",
    ),
    "file_search_call": ("response.file_search_call.searching", "response.file_search_call.completed"),
    # The server's agent call: a call id and JSON arguments, and still no client's call (CORE-CALL-9).
    "multi_agent_call": (),
    # Programmatic tool calling's program: code the server runs, sent to a request that declares it.
    "program": (),
}
PROGRAMMATIC_TOOL = {"type": "programmatic_tool_calling"}
# Events a router must answer with `ignored`: unknown, vendor-prefixed (even a routed name
# behind the prefix), and unrouted types of the routing table.
UNKNOWN_TYPES = ("response.future_feature.delta", "response.output_text.delta.v2", "ping")
VENDOR_TYPES = ("acme:trace_event", "acme:response.output_text.delta", "x:response.completed")
UNROUTED_TYPES = (
    "response.output_text.annotation.added",
    "response.reasoning_summary_part.added",
    "response.audio.delta",
    "response.audio.transcript.delta",
    "response.mcp_list_tools.in_progress",
    "response.code_interpreter_call_code.done",
)
EXTRA_TYPES = (*UNKNOWN_TYPES, *VENDOR_TYPES, *UNROUTED_TYPES)

FUNCTION_TOOLS = ("get_weather", "search_docs")
CUSTOM_TOOLS = ("run_sql",)
# The tool registry of core and sse streams (core reads no tool list).
TOOLS: tuple[dict[str, Any], ...] = (
    *({"name": name, "type": "function", "parameters": {"type": "object"}} for name in FUNCTION_TOOLS),
    *({"name": name, "type": "custom"} for name in CUSTOM_TOOLS),
)
WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city"],
    "additionalProperties": False,
}
FILES = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "items": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        }
    },
    "required": ["files"],
}
# The execution tools with an argument schema (EXEC-CHECK-2).
SCHEMAS: dict[str, dict[str, Any]] = {"get_weather": WEATHER, "edit_files": FILES}
