"""streamroute adapter for the OpenAI Agents SDK (`openai-agents`): `Runner.run_streamed()`.

Run with the Python of a virtualenv that holds one pinned `openai-agents`
release (and nothing of streamroute): `python adapters/openai-agents/adapter.py`.
Each vector is one agent run. The agent's model is the SDK's
`OpenAIResponsesModel` over an `AsyncOpenAI` client whose HTTP client has a
mock transport: it answers the POST with the vector's stream as
`text/event-stream` bytes. The adapter consumes `result.stream_events()` as an
application does; each function and custom tool of the vector is an agent
tool, and a call is what the stream hands over as a `tool_called` item, the
call the SDK runs. See README.md for what it drives and how each behaviour
maps.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import AsyncIterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import openai
from agents import (
    Agent,
    AgentsException,
    CustomTool,
    FunctionTool,
    MaxTurnsExceeded,
    OpenAIResponsesModel,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    Runner,
    set_tracing_disabled,
    tool_namespace,
)
from agents.tool_context import ToolContext

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from protocol_loop import Tally, body, serve_streams
from responses_events import Translation, call_of, field

# openai 3 moved to httpx2, older releases use httpx: the mock transport is of the client's kind.
http: Any = importlib.import_module("httpx2" if int(openai.__version__.split(".")[0]) >= 3 else "httpx")


async def _run_tool(context: ToolContext[Any], text: str) -> str:
    return "done"


def agent_tools(declared: list[dict[str, Any]]) -> list[FunctionTool | CustomTool]:
    """The vector's tools as the agent's: a function tool with its JSON schema, a custom tool."""
    tools: list[FunctionTool | CustomTool] = []
    for tool in declared:
        if tool["type"] == "custom":
            tools.append(CustomTool(tool["name"], tool.get("description", ""), _run_tool))
            continue
        function = FunctionTool(
            tool["name"],
            tool.get("description", ""),
            tool.get("parameters") or {"type": "object", "properties": {}},
            _run_tool,
        )
        namespace = tool.get("namespace")
        tools += (
            tool_namespace(name=namespace, description=namespace, tools=[function])
            if namespace
            else [function]
        )
    return tools


# What an application decides of a raw done call item; the SDK decides its calls itself.
DECIDED = {"tool.call", "tool.error"}


def called(item: Any) -> list[dict[str, Any]]:
    """A `tool_called` item: the call the SDK runs, as the application is handed it."""
    return call_of(field(item, "raw_item"))


# The SDK reads the model's stream in a task of its own and queues what it hands over; the body
# yields the next event only once the SDK and the application have had every chance to handle
# the last one, so each outcome is credited to the event that produced it, not to close.
SETTLE_ROUNDS = 64


async def settled() -> None:
    for _ in range(SETTLE_ROUNDS):
        await asyncio.sleep(0)


async def _run(vector: dict[str, Any], tally: Tally) -> None:
    async def stream() -> AsyncIterator[bytes]:
        for chunk in body(vector, tally):
            yield chunk
            await settled()

    def answer(request: Any) -> Any:
        return http.Response(200, headers={"content-type": "text/event-stream"}, content=stream())

    client = openai.AsyncOpenAI(
        api_key="sk-streamroute",
        base_url="http://streamroute.invalid/v1",
        max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(transport=http.MockTransport(answer)),
    )
    agent: Agent[None] = Agent(
        name="streamroute",
        model=OpenAIResponsesModel(model="gpt-5.1", openai_client=client),
        tools=agent_tools(vector["tools"]),
    )
    translation = Translation()
    result = Runner.run_streamed(agent, "streamroute", max_turns=1)
    told = False  # whether a handed-over event already told the application of an error
    try:
        async for event in result.stream_events():
            if isinstance(event, RawResponsesStreamEvent):
                # A call is the one the SDK runs (its `tool_called` item), never its raw done item.
                seen = [o for o in translation.outcomes(event.data) if o["kind"] not in DECIDED]
                told = told or any(outcome["kind"] == "error" for outcome in seen)
                tally.add(seen)
            elif isinstance(event, RunItemStreamEvent) and event.name == "tool_called":
                tally.add(called(event.item))
    except MaxTurnsExceeded:
        pass  # the turn ran and its calls were invoked; the SDK would now ask the model again
    except (AgentsException, openai.APIError) as exc:  # the SDK's documented errors end the run
        raised = translation.error(getattr(exc, "code", None), str(exc))
        # Raised for the error event or failed response just handed over: one failure, told once.
        tally.add([] if told else raised)
    tally.closing()
    tally.close += translation.end()


def run(vector: dict[str, Any], tally: Tally) -> None:
    asyncio.run(_run(vector, tally))


def main() -> None:
    set_tracing_disabled(True)  # traces are exported over the network otherwise
    serve_streams(
        {
            "name": "openai-agents Runner.run_streamed()",
            "version": version("openai-agents"),
            "language": "python",
            "homepage": "https://github.com/openai/openai-agents-python",
            "profiles": ["core"],
            # The runner runs a turn's calls once its response has completed (README.md, "Where the
            # calls are handed over"): spec/core.md section 12.7.
            "options": {
                "call_arguments": "json_text",
                "error_event": "ends_stream",
                "tool_call_point": "response_done",
            },
        },
        run,
    )


if __name__ == "__main__":
    main()
