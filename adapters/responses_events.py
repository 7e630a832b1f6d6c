"""Outcomes of the Responses stream events a Python library hands to its application.

Standard library only, shared by the Python library adapters whose libraries
hand over events of the API's own shape (typed models with the API's field
names, or plain dicts). `Translation` reads each event the application is
handed and answers the outcomes it means, one to one, adding nothing: no
parsing, no checking, no state but the end status. What a library does not
hand over produces nothing. The one decision it makes is the application's
own: whether to run a done call item, by the fields the item states
(`decided_call`), since a raw SDK hands every done item over and leaves that
to its application. Fields are copied as handed over, one the event lacks as
None: an outcome the format cannot take is what the application was handed,
and the harness says so. `OBSERVES` is what such a library shows
(spec/observation.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# The tables this module shares with node-common/responses_events.js, in one file both read.
_TABLES = json.loads((Path(__file__).parent / "responses_events.json").read_text(encoding="utf-8"))
LIFECYCLE: dict[str, str] = _TABLES["lifecycle"]
TERMINAL = frozenset(_TABLES["terminal"])
FAILED_WITHOUT_ERROR = "the response failed and states no error"
# What an application handed the API's own events is shown (spec/observation.md): every outcome
# `Translation` reads off them, with each field it copies, and no `tool.error`. A library that hands
# the events over has no notice of its own for a call it does not hand over to run: a done item the
# producer marked incomplete (the application decides that, `decided_call`), a call still open when
# the response ends (the terminal event tells the application the response is over). An agent SDK
# that runs the calls itself has none either, for a call it does not run.
OBSERVES: dict[str, list[str]] = _TABLES["observes"]
# Handed over, and nothing for the outcome vocabulary to route: the call comes from its done item.
SILENT = frozenset(_TABLES["silent"])
# The channel deltas: outcome kind, and the fields the outcome copies from the event.
CHANNELS: dict[str, tuple[str, list[str]]] = {
    kind: (outcome, names) for kind, (outcome, names) in _TABLES["channels"].items()
}


def field(value: Any, name: str) -> Any:
    """A field of a library's model, or of a dict it left unconstructed; None when it has none."""
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


def labels(message: Any) -> dict[str, str]:
    """A message item's labels its text carries: its `phase`, and `agent`, the name of the agent
    the item states (`agent: {agent_name}`), each when it is a string."""
    found = {"phase": field(message, "phase"), "agent": field(field(message, "agent"), "agent_name")}
    return {name: value for name, value in found.items() if isinstance(value, str)}


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
    incomplete` is run; any other is not (CORE-CALL-5), and produces nothing the library shows."""
    calls = call_of(item)
    if not calls:
        return []
    call = calls[0]
    source = call.get("arguments", call.get("input"))
    whole = None not in (call["call_id"], call["name"], source)
    return calls if whole and field(item, "status") != "incomplete" else []


class Translation:
    """One stream's events, as the application is handed them, into outcomes."""

    def __init__(self) -> None:
        self.status: str | None = None  # of the first terminal event handed over
        self.error_told = False  # an error event was handed over, or an error raised: the end is failed
        # Each message's labels, as its output_item.added handed them over: its `phase`, and the name
        # of the `agent` that produced it (a server-hosted multi-agent run), carried on its text.
        self.labels: dict[Any, dict[str, str]] = {}

    def outcomes(self, event: Any) -> list[dict[str, Any]]:
        kind = field(event, "type")
        if not isinstance(kind, str):  # no type the tables name: handed over, and shown, as it came
            return [{"kind": "ignored", "type": kind}]
        if kind in LIFECYCLE:
            return self._lifecycle(LIFECYCLE[kind], field(event, "response"))
        if kind == "error":
            self.error_told = True
            return [{"kind": "error", "code": field(event, "code"), "message": field(event, "message")}]
        if kind in CHANNELS:
            outcome, names = CHANNELS[kind]
            out = {"kind": outcome, **{name: field(event, name) for name in names}}
            if outcome.startswith("text."):
                out.update(self.labels.get(field(event, "item_id"), {}))  # the item's labels, on its text
            return [out]
        if kind == "response.output_item.added":
            item = field(event, "item")
            if field(item, "type") == "message":
                self.labels[field(item, "id")] = labels(item)
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
