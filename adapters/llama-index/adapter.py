"""streamroute adapter for llama-index-llms-openai: `OpenAIResponses.stream_chat_with_tools()`.

Run with the Python of a virtualenv that holds one pinned `llama-index-llms-openai` release (and
nothing of streamroute): `python adapters/llama-index/adapter.py`. Each vector is one
`stream_chat_with_tools()` call of an `OpenAIResponses` whose `http_client` has a mock transport: it
answers the POST with the vector's stream as `text/event-stream` bytes. The adapter reads each
streamed `ChatResponse` as an application does (its `delta`) and takes the calls as llama-index's
own `FunctionAgent` does: `get_tool_calls_from_response()` of the last response, once the stream
has ended. See README.md for what each response maps to.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import openai
from llama_index.core.base.llms.types import ChatResponse
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAIResponses

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from openai_transport import sync_http_client
from protocol_loop import Tally, serve_streams

# What the application is shown, per outcome kind (spec/observation.md). Each streamed response's
# `delta` is text and nothing else; a call is a `ToolSelection` (its call id, name and parsed
# arguments), with no item; an error is openai-python's APIError. There is no lifecycle, no
# argument or reasoning delta, no final text of a part, no refusal, no refused call, and no status
# of the end: every stream that ends just stops.
OBSERVES = {
    "text.delta": ["delta"],
    "tool.call": ["call_id", "name", "tool_type", "arguments"],
    "error": ["code", "message"],
    "end": [],
}


def never_run(**kwargs: Any) -> None:
    """The tools' function: the calls are read, never run."""


def function_tools(declared: list[dict[str, Any]]) -> list[FunctionTool]:
    """The vector's function tools as llama-index tools (the mock transport never reads the request
    they shape)."""
    return [
        FunctionTool.from_defaults(
            fn=never_run, name=tool["name"], description=tool.get("description") or tool["name"]
        )
        for tool in declared
    ]


def calls(llm: OpenAIResponses, last: ChatResponse | None) -> list[dict[str, Any]]:
    """The calls of the last streamed response, as `FunctionAgent` reads them to run."""
    if last is None:
        return []
    return [
        {
            "kind": "tool.call",
            "call_id": selection.tool_id,
            "name": selection.tool_name,
            "tool_type": "function",
            "arguments": selection.tool_kwargs,
        }
        for selection in llm.get_tool_calls_from_response(last, error_on_no_tool_call=False)
    ]


def run(vector: dict[str, Any], tally: Tally) -> None:
    llm = OpenAIResponses(
        model="gpt-5.1",
        api_key="sk-streamroute",
        api_base="http://streamroute.invalid/v1",
        max_retries=0,
        http_client=sync_http_client(vector, tally),
    )
    last: ChatResponse | None = None
    try:
        for response in llm.stream_chat_with_tools(function_tools(vector["tools"]), user_msg="streamroute"):
            if response.delta:
                tally.add([{"kind": "text.delta", "delta": response.delta}])
            last = response
    except openai.APIError as exc:  # openai-python's Stream, at an event with an `error` member only
        tally.add([{"kind": "error", "code": exc.code, "message": exc.message}])
        last = None  # the agent's step raises with the stream: no response, so no calls to run
    tally.closing()
    tally.add(calls(llm, last))
    tally.add([{"kind": "end"}])


NO_CUSTOM_TOOLS = "llama-index has no custom tools: OpenAIResponses sends every tool as a function"


def main() -> None:
    implementation = {
        "name": "llama-index-llms-openai OpenAIResponses.stream_chat_with_tools()",
        "version": version("llama-index-llms-openai"),
        "language": "python",
        "homepage": "https://github.com/run-llama/llama_index",
        "profiles": ["core"],
        # The flat `error` event is read on past, not ending the stream, so error_event is canonical;
        # FunctionAgent takes the calls of the last response once the stream has ended (README.md).
        "options": {"tool_call_point": "response_done"},
        "observes": OBSERVES,
    }
    serve_streams(implementation, run, NO_CUSTOM_TOOLS)


if __name__ == "__main__":
    main()
