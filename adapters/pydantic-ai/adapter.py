"""streamroute adapter for pydantic-ai: `agent.run_stream_events()` over `OpenAIResponsesModel`.

Run with the Python of a virtualenv that holds one pinned `pydantic-ai-slim[openai]` release (and
nothing of streamroute): `python adapters/pydantic-ai/adapter.py`. Each vector is one agent run.
The agent's model is `OpenAIResponsesModel` with an `OpenAIProvider` over an `AsyncOpenAI` client
whose HTTP client has a mock transport: it answers the POST with the vector's stream as
`text/event-stream` bytes. The vector's function tools are tools whose function defers the call
(`raise CallDeferred`), so the agent hands the calls back as deferred requests instead of running
them; the adapter reads the run's events as an application does. See README.md for what each
event maps to.
"""

from __future__ import annotations

import asyncio
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import openai
from pydantic_ai import Agent, CallDeferred, DeferredToolRequests, Tool, UsageLimits
from pydantic_ai.exceptions import AgentRunError, ContentFilterError, ModelAPIError, UsageLimitExceeded
from pydantic_ai.messages import (
    DeferredToolRequestsEvent,
    FunctionToolCallEvent,
    ModelResponse,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
)
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from openai_transport import async_client
from protocol_loop import Declined, Tally, client_tools, serve_streams

# What the application is shown, per outcome kind (spec/observation.md): the run's events have no
# lifecycle, no final text of a part, no refusal channel (the refusal is a detail of the finished
# response) and nothing for an event the model does not route. A refused call is a
# `FunctionToolCallEvent` with `args_valid=False` (`_tool_execution.py` line 706), which says that
# its arguments did not validate, not why: arguments that do not parse or nest too deep, the
# refusals of a tool made with `Tool.from_schema`, whose schema is not validated (`tools.py` line
# 522), and a call cut off, whose arguments do not parse either. A call still open when the model's
# error ends the run is told by the error: the run never validates it (`cut_off`).
OBSERVES = {
    "text.delta": ["item_id", "delta", "phase"],
    "reasoning.delta": ["item_id", "delta"],
    "tool.arguments.delta": ["item_id", "delta"],
    "tool.call": ["item_id", "call_id", "name", "namespace", "tool_type", "arguments"],
    "tool.error": {"fields": ["item_id", "call_id"], "codes": ["incomplete", "invalid_json", "too_deep"]},
    "error": ["code", "message"],
    "end": ["status"],
}


def deferred(**arguments: Any) -> None:
    """A tool's function: the call is the application's to run, outside the agent run."""
    raise CallDeferred


def deferred_tools(declared: list[dict[str, Any]]) -> list[Tool[None]]:
    """The vector's function tools, with their JSON schemas, as tools whose calls the agent hands
    back, never runs; they take the agent's default retries, as every function tool does. A server
    tool of the vector (programmatic tool calling) has no pydantic-ai tool: it makes no call."""
    return [
        Tool.from_schema(
            deferred,
            tool["name"],
            tool.get("description"),
            tool.get("parameters") or {"type": "object", "properties": {}},
        )
        for tool in client_tools(declared)
    ]


def end_status(messages: list[Any]) -> str:
    """How the response ended, as the run's model response states it: the raw finish reason (the
    terminal response's status, or its incomplete reason), else the finish reason alone (a refusal
    withholds the raw one); a response that states neither never ended."""
    responses = [message for message in messages if isinstance(message, ModelResponse)]
    if not responses:
        return "truncated"
    response = responses[-1]
    reason = (response.provider_details or {}).get("finish_reason")
    if reason is None:
        return "truncated" if response.finish_reason is None else "completed"
    return reason if reason in ("completed", "failed", "cancelled") else "incomplete"


class Events:
    """One run's events into outcomes, each as the application is handed it."""

    def __init__(self) -> None:
        self.parts: dict[int, Any] = {}  # each part index -> the part its PartStartEvent started
        self.open: dict[str, ToolCallPart] = {}  # the calls started, neither handed back nor refused

    def outcomes(self, event: Any) -> list[dict[str, Any]]:
        if isinstance(event, PartStartEvent):
            self.parts[event.index] = event.part
            if isinstance(event.part, ToolCallPart):
                self.open[event.part.tool_call_id] = event.part
            return self._started(event.part)
        if isinstance(event, PartDeltaEvent):
            part = self.parts.get(event.index)
            outcomes = self._delta(part, event.delta)
            if isinstance(part, ThinkingPart) and isinstance(event.delta, ThinkingPartDelta):
                # The documented way to read a delta's provider_details: apply it to the part, which
                # resolves its update callback (`ThinkingPartDelta.provider_details`, messages.py line 6616).
                applied = event.delta.apply(part)
                self.parts[event.index] = applied
                outcomes += raw_reasoning(part.id, raw_content(part), raw_content(applied))
            return outcomes
        if isinstance(event, FunctionToolCallEvent) and event.args_valid is False:
            self.open.pop(event.part.tool_call_id, None)
            return [refused(event.part)]
        if isinstance(event, DeferredToolRequestsEvent):  # the calls handed back to the application
            for call in event.requests.calls:
                self.open.pop(call.tool_call_id, None)
            return [handed_back(call) for call in event.requests.calls]
        return []

    def cut_off(self) -> list[dict[str, Any]]:
        """The calls the run started and will never hand back, once it raised the model's error: the
        exception ends the run before its calls are validated (`CallToolsNode` never comes), so an
        application that showed a call's start learns from it that the call will never come."""
        outcomes = [
            refused(part, "the run ended before the call was complete") for part in self.open.values()
        ]
        self.open.clear()
        return outcomes

    def _started(self, part: Any) -> list[dict[str, Any]]:
        """A part starts with the content of its first delta, when it has one."""
        if isinstance(part, TextPart) and is_text(part.content, part.provider_details, part.citations):
            return [text_delta(part, part.content)]
        if isinstance(part, ThinkingPart):
            summary = (
                [{"kind": "reasoning.delta", "item_id": part.id, "delta": part.content}]
                if part.content
                else []
            )
            return summary + raw_reasoning(part.id, [], raw_content(part))
        if isinstance(part, ToolCallPart) and isinstance(part.args, str) and part.args:
            return [{"kind": "tool.arguments.delta", "item_id": part.id, "delta": part.args}]
        return []

    @staticmethod
    def _delta(part: Any, delta: Any) -> list[dict[str, Any]]:
        """A delta of the part at its index (a built-in tool's part, run by the provider, is not
        the application's call)."""
        if (
            isinstance(part, TextPart)
            and isinstance(delta, TextPartDelta)
            and is_text(delta.content_delta, delta.provider_details, delta.citations_delta)
        ):
            return [text_delta(part, delta.content_delta)]
        if isinstance(part, ThinkingPart) and isinstance(delta, ThinkingPartDelta) and delta.content_delta:
            return [{"kind": "reasoning.delta", "item_id": part.id, "delta": delta.content_delta}]
        if (
            isinstance(part, ToolCallPart)
            and isinstance(delta, ToolCallPartDelta)
            and isinstance(delta.args_delta, str)
        ):
            return [{"kind": "tool.arguments.delta", "item_id": part.id, "delta": delta.args_delta}]
        return []


def raw_content(part: ThinkingPart) -> list[str]:
    """The raw reasoning text of a thinking part, by content index: pydantic-ai keeps the
    `response.reasoning_text.delta` text of gpt-oss in `provider_details['raw_content']`
    (`models/openai.py` lines 6937 to 6945, `_make_raw_content_updater` line 7399), not as content."""
    texts = (part.provider_details or {}).get("raw_content")
    return [text for text in texts if isinstance(text, str)] if isinstance(texts, list) else []


def raw_reasoning(item_id: str | None, before: list[str], after: list[str]) -> list[dict[str, Any]]:
    """The raw reasoning a part's update added: what each content index's text grew by."""
    outcomes = []
    for index, text in enumerate(after):
        known = before[index] if index < len(before) else ""
        if text.startswith(known) and len(text) > len(known):
            outcomes.append({"kind": "reasoning.delta", "item_id": item_id, "delta": text[len(known) :]})
    return outcomes


def text_delta(part: TextPart, text: str) -> dict[str, Any]:
    """Text of a part: the part's item id and `phase` (its `provider_details`) are each delta's."""
    out = {"kind": "text.delta", "item_id": part.id, "delta": text}
    phase = (part.provider_details or {}).get("phase")
    return {**out, "phase": phase} if isinstance(phase, str) else out


def is_text(content: str | None, details: Any, citations: Any) -> bool:
    """Whether a text part's event hands text over: pydantic-ai also adds details to a part (its
    citations and annotations at output_text.done) with an event of no content, which is no text."""
    added = {name for name in (details if isinstance(details, dict) else {}) if name != "phase"}
    return isinstance(content, str) and (content != "" or not (added or citations))


def handed_back(part: ToolCallPart) -> dict[str, Any]:
    """A deferred call, as the agent hands it back to run: its arguments are the call's JSON text."""
    call = {"kind": "tool.call", "item_id": part.id, "call_id": part.tool_call_id, "name": part.tool_name}
    namespace = (part.provider_details or {}).get("namespace")
    if namespace is not None:
        call["namespace"] = namespace
    return {**call, "tool_type": "function", "arguments": part.args}


def refused(part: ToolCallPart, message: str = "invalid arguments") -> dict[str, Any]:
    """A call never handed back: its arguments did not validate against its tool's schema, or the
    run ended before they could (the refusal's code is not shown)."""
    return {
        "kind": "tool.error",
        "item_id": part.id,
        "call_id": part.tool_call_id,
        "message": message,
    }


def error_outcome(exc: Exception) -> dict[str, Any]:
    """The error the run raised: the producer's code, as the model error keeps it."""
    code = getattr(exc, "provider_error_code", None)
    if code is None and isinstance(getattr(exc, "body", None), dict):
        code = exc.body.get("code")  # type: ignore[attr-defined]
    return {"kind": "error", "code": code if isinstance(code, str) else None, "message": str(exc)}


async def _run(vector: dict[str, Any], tally: Tally) -> None:
    client = async_client(vector, tally)
    # Any answer ends the run: text, calls handed back, or none.
    agent: Agent[None, str | DeferredToolRequests | None] = Agent(
        OpenAIResponsesModel("gpt-5.1", provider=OpenAIProvider(openai_client=client)),
        output_type=[str, DeferredToolRequests, None],
        tools=deferred_tools(vector["tools"]),
    )
    events = Events()
    failed = False  # whether the model raised: the response failed
    # One model request, the vector's: where the agent would ask the model again (a retry of a
    # refused call, or of a response holding no output it accepts), the limit ends the run.
    one_request = UsageLimits(request_limit=1)
    async with agent.run_stream_events("streamroute", usage_limits=one_request) as run_events:
        try:
            async for event in run_events:
                if outcomes := events.outcomes(event):
                    tally.add(outcomes)
        except (ModelAPIError, openai.APIError) as exc:  # the model's documented errors end the run
            tally.add([error_outcome(exc), *events.cut_off()])
            failed = True
        except UsageLimitExceeded:
            pass  # the response was handled; the agent would now ask the model again
        except ContentFilterError:
            pass  # the model refused (the error's type says so): a refusal, not a failure of the stream
        except AgentRunError as exc:
            tally.add([error_outcome(exc)])
        messages = run_events.new_messages()
    tally.closing()
    tally.close.append({"kind": "end", "status": "failed" if failed else end_status(messages)})


# The arguments pydantic-ai's own client tool search is declared with (`search_tools`,
# models/openai.py lines 5104 to 5122 of 2.66.0), the only ones its requests ask a model for.
SEARCH_ARGUMENTS = frozenset({"queries"})


def foreign_tool_search(events: list[Any]) -> bool:
    """Whether a client tool search of the stream has arguments of another client's schema: a
    request of pydantic-ai's declares `{queries}`, and a model answers the schema it was given."""
    for event in events:
        item = event.get("item") if isinstance(event, dict) else None
        client_search = isinstance(item, dict) and item.get("type") == "tool_search_call"
        if not client_search or item.get("execution") != "client":
            continue
        arguments = item.get("arguments")
        if isinstance(arguments, dict) and arguments and not set(arguments) <= SEARCH_ARGUMENTS:
            return True
    return False


def run(vector: dict[str, Any], tally: Tally) -> None:
    if foreign_tool_search(vector.get("events", [])):
        raise Declined(
            "a client tool search with arguments of another client's schema: pydantic-ai's requests "
            "declare their own, {queries}, and no pydantic-ai request is answered with this stream"
        )
    asyncio.run(_run(vector, tally))


NO_CUSTOM_TOOLS = "pydantic-ai has no custom tools: a custom tool cannot be given to the agent"


def main() -> None:
    implementation = {
        "name": "pydantic-ai Agent.run_stream_events() (OpenAIResponsesModel)",
        "version": version("pydantic-ai-slim"),
        "language": "python",
        "homepage": "https://github.com/pydantic/pydantic-ai",
        "profiles": ["core"],
        # The agent graph hands the calls over once the model's response has ended (README.md).
        "options": {
            "call_arguments": "json_text",
            "error_event": "ends_stream",
            "tool_call_point": "response_done",
        },
        "observes": OBSERVES,
    }
    serve_streams(implementation, run, NO_CUSTOM_TOOLS)


if __name__ == "__main__":
    main()
