"""Outcomes of the Responses stream events a Python library hands to its application.

Standard library only, shared by the Python library adapters whose libraries
hand over events of the API's own shape (typed models with the API's field
names, or plain dicts). `Translation` reads each event the application is
handed and answers the outcomes it means, one to one, adding nothing: no
parsing, no checking, no state but the end status. What a library does not
hand over produces nothing. The one decision it makes is the application's
own: whether to run a done call item, by the fields the item states
(`decided_call`), since a raw SDK hands every done item over and leaves that
to its application.
"""

from __future__ import annotations

from typing import Any

LIFECYCLE = {
    "response.created": "created",
    "response.queued": "queued",
    "response.in_progress": "in_progress",
    "response.completed": "completed",
    "response.failed": "failed",
    "response.incomplete": "incomplete",
}
TERMINAL = {"completed", "failed", "incomplete"}
FAILED_WITHOUT_ERROR = "the response failed and states no error"
# Handed over, and nothing for the outcome vocabulary to route: the call comes from its done item.
SILENT = {
    "response.function_call_arguments.done",
    "response.custom_tool_call_input.done",
}
# The channel deltas: outcome kind, and the fields the outcome copies from the event.
CHANNELS = {
    "response.output_text.delta": ("text.delta", ("item_id", "output_index", "content_index", "delta")),
    "response.output_text.done": ("text.done", ("item_id", "content_index", "text")),
    "response.refusal.delta": ("refusal.delta", ("item_id", "content_index", "delta")),
    "response.reasoning_text.delta": ("reasoning.delta", ("item_id", "content_index", "delta")),
    "response.reasoning.delta": ("reasoning.delta", ("item_id", "content_index", "delta")),
    "response.reasoning_summary_text.delta": ("reasoning.delta", ("item_id", "summary_index", "delta")),
    "response.function_call_arguments.delta": ("tool.arguments.delta", ("item_id", "delta")),
    "response.custom_tool_call_input.delta": ("tool.arguments.delta", ("item_id", "delta")),
}


def field(value: Any, name: str) -> Any:
    """A field of a library's model, or of a dict it left unconstructed; None when it has none."""
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


def call_of(item: Any) -> list[dict[str, Any]]:
    """A function or custom call item as the library hands it over, complete: its arguments are
    the text it keeps; any other item is no call."""
    item_type = field(item, "type")
    if item_type not in ("function_call", "custom_tool_call"):
        return []
    call = {
        "kind": "tool.call",
        "item_id": field(item, "id"),
        "call_id": field(item, "call_id"),
        "name": field(item, "name"),
    }
    if field(item, "namespace") is not None:
        call["namespace"] = field(item, "namespace")
    if item_type == "function_call":
        call.update(tool_type="function", arguments=field(item, "arguments"))
    else:
        call.update(tool_type="custom", input=field(item, "input"))
    return [call]


def decided_call(item: Any) -> list[dict[str, Any]]:
    """A done call item decided as an application reading its documented fields decides it: a call
    the item states whole (call id, name, arguments or input) and does not mark `status:
    incomplete` is run; any other is refused as incomplete, never run (CORE-CALL-5)."""
    calls = call_of(item)
    if not calls:
        return []
    call = calls[0]
    source = call.get("arguments", call.get("input"))
    if field(item, "status") != "incomplete" and None not in (call["call_id"], call["name"], source):
        return calls
    return [
        {
            "kind": "tool.error",
            "item_id": call["item_id"],
            "call_id": call["call_id"],
            "code": "incomplete",
            "message": "the call item is incomplete: the application does not run it",
        }
    ]


class Translation:
    """One stream's events, as the application is handed them, into outcomes."""

    def __init__(self) -> None:
        self.status: str | None = None  # of the first terminal event handed over
        self.error_told = False  # an error event was handed over, or an error raised: the end is failed
        self.phases: dict[Any, str] = {}  # each message's `phase`, as its output_item.added handed it over

    def outcomes(self, event: Any) -> list[dict[str, Any]]:
        kind = field(event, "type")
        if kind in LIFECYCLE:
            return self._lifecycle(LIFECYCLE[kind], field(event, "response"))
        if kind == "error":
            self.error_told = True
            return [{"kind": "error", "code": field(event, "code"), "message": field(event, "message")}]
        if kind in CHANNELS:
            outcome, names = CHANNELS[kind]
            out = {"kind": outcome, **{name: field(event, name) for name in names}}
            if outcome.startswith("text.") and field(event, "item_id") in self.phases:
                out["phase"] = self.phases[field(event, "item_id")]  # the item's label, on its text
            return [out]
        if kind == "response.output_item.added":
            item = field(event, "item")
            if field(item, "type") == "message" and isinstance(field(item, "phase"), str):
                self.phases[field(item, "id")] = field(item, "phase")
            return []
        if kind == "response.output_item.done":
            return decided_call(field(event, "item"))
        if kind in SILENT:
            return []
        return [{"kind": "ignored", "type": kind}]

    def error(self, code: Any, message: Any) -> list[dict[str, Any]]:
        """The error a library raised through its documented API: the stream is over for the application."""
        self.error_told = True
        return [{"kind": "error", "code": code if isinstance(code, str) else None, "message": message}]

    def end(self) -> list[dict[str, Any]]:
        return [{"kind": "end", "status": self.status or ("failed" if self.error_told else "truncated")}]

    def _lifecycle(self, name: str, response: Any) -> list[dict[str, Any]]:
        out = [{"kind": "lifecycle", "event": name, "response_id": field(response, "id")}]
        if name in TERMINAL and self.status is None:
            self.status = "cancelled" if field(response, "status") == "cancelled" else name
        if name == "failed":  # the failure the library hands over, with its error object or without
            error = field(response, "error")
            message = FAILED_WITHOUT_ERROR if error is None else field(error, "message")
            out.append({"kind": "error", "code": field(error, "code"), "message": message})
        return out
