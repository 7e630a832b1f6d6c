"""streamroute adapter for the `openai` Python SDK's ResponseStreamState.

Run with the Python of a virtualenv that holds one pinned `openai` release
(and nothing of streamroute): `python adapters/openai-python/adapter.py`.
ResponseStreamState is what `client.responses.stream()` runs each raw event
through; `handle_event(event)` answers the list of typed events the SDK hands
to the caller. This adapter builds each raw event as the SDK's stream does
(`construct_type` against `ResponseStreamEvent`), feeds it, and translates
the typed events it gets back, one to one, into outcomes. See README.md for
the mapping and for what the SDK does not offer.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from openai._models import construct_type
from openai._types import omit
from openai.lib.streaming.responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from protocol_loop import serve

LIFECYCLE = {
    "response.created": "created",
    "response.queued": "queued",
    "response.in_progress": "in_progress",
    "response.completed": "completed",
    "response.failed": "failed",
    "response.incomplete": "incomplete",
}
TERMINAL = {"completed", "failed", "incomplete"}
# Events the SDK hands back that carry nothing the outcome vocabulary routes.
SILENT = {
    "response.output_item.added",
    "response.function_call_arguments.done",
    "response.custom_tool_call_input.done",
}


def _get(value: Any, name: str) -> Any:
    """A field of an SDK model (or of a dict, for what the SDK left unconstructed)."""
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


class Adapter:
    def __init__(self, tools: list[Any]) -> None:
        # The request's tools are not given: the SDK reads them only to parse
        # strict function arguments in the completed response (parse_response).
        self.state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
        self.status: str | None = None

    def feed(self, raw: Any) -> list[dict[str, Any]]:
        event = construct_type(type_=ResponseStreamEvent, value=raw)
        outcomes: list[dict[str, Any]] = []
        for typed in self.state.handle_event(event):
            outcomes += self._outcomes(typed)
        return outcomes

    def _outcomes(self, ev: Any) -> list[dict[str, Any]]:
        kind = _get(ev, "type")
        if kind in LIFECYCLE:
            response = _get(ev, "response")
            name = LIFECYCLE[kind]
            out = [{"kind": "lifecycle", "event": name, "response_id": _get(response, "id")}]
            if name in TERMINAL and self.status is None:
                self.status = "cancelled" if _get(response, "status") == "cancelled" else name
            error = _get(response, "error")
            if name == "failed" and error is not None:  # without one, the SDK hands over no error
                out.append({"kind": "error", "code": _get(error, "code"), "message": _get(error, "message")})
            return out
        if kind == "error":
            return [{"kind": "error", "code": _get(ev, "code"), "message": _get(ev, "message")}]
        if kind == "response.output_text.delta":
            return [
                {
                    "kind": "text.delta",
                    "item_id": ev.item_id,
                    "output_index": ev.output_index,
                    "content_index": ev.content_index,
                    "delta": ev.delta,
                }
            ]
        if kind == "response.output_text.done":
            return [
                {
                    "kind": "text.done",
                    "item_id": ev.item_id,
                    "content_index": ev.content_index,
                    "text": ev.text,
                }
            ]
        if kind == "response.refusal.delta":
            return [
                {
                    "kind": "refusal.delta",
                    "item_id": ev.item_id,
                    "content_index": ev.content_index,
                    "delta": ev.delta,
                }
            ]
        if kind in ("response.reasoning_text.delta", "response.reasoning.delta"):
            return [
                {
                    "kind": "reasoning.delta",
                    "item_id": _get(ev, "item_id"),
                    "content_index": _get(ev, "content_index"),
                    "delta": _get(ev, "delta"),
                }
            ]
        if kind == "response.reasoning_summary_text.delta":
            return [
                {
                    "kind": "reasoning.delta",
                    "item_id": ev.item_id,
                    "summary_index": ev.summary_index,
                    "delta": ev.delta,
                }
            ]
        if kind in ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta"):
            return [
                {"kind": "tool.arguments.delta", "item_id": _get(ev, "item_id"), "delta": _get(ev, "delta")}
            ]
        if kind == "response.output_item.done":
            return self._done_item(_get(ev, "item"))
        if kind in SILENT:
            return []
        return [{"kind": "ignored", "type": kind}]

    def _done_item(self, item: Any) -> list[dict[str, Any]]:
        """The complete call, as the SDK hands it over: the done item, arguments as the SDK keeps them."""
        item_type = _get(item, "type")
        if item_type not in ("function_call", "custom_tool_call"):
            return []
        call = {
            "kind": "tool.call",
            "item_id": _get(item, "id"),
            "call_id": _get(item, "call_id"),
            "name": _get(item, "name"),
        }
        if _get(item, "namespace") is not None:
            call["namespace"] = _get(item, "namespace")
        if item_type == "function_call":
            # A string: the SDK never parses arguments while streaming.
            call.update(tool_type="function", arguments=_get(item, "arguments"))
        else:
            call.update(tool_type="custom", input=_get(item, "input"))
        return [call]

    def close(self) -> list[dict[str, Any]]:
        # The SDK has no close; the end status is the first terminal event it handed over.
        return [{"kind": "end", "status": self.status or "truncated"}]


def main() -> None:
    serve(
        {
            "name": "openai-python ResponseStreamState",
            "version": version("openai"),
            "language": "python",
            "homepage": "https://github.com/openai/openai-python",
            "profiles": ["core"],
            "options": {},
        },
        Adapter,
    )


if __name__ == "__main__":
    main()
