"""streamroute adapter for langchain-openai: `ChatOpenAI(use_responses_api=True).stream()`.

Run with the Python of a virtualenv that holds one pinned `langchain-openai` release (and nothing
of streamroute): `python adapters/langchain-openai/adapter.py`. Each vector is one `.stream()` call
of a `ChatOpenAI` whose `http_client` has a mock transport: it answers the POST with the vector's
stream as `text/event-stream` bytes. The vector's tools are bound with `bind_tools`; the adapter
reads each `AIMessageChunk` as an application does, adds the chunks up (`full = full + chunk`, the
documented way to get the calls) and reads the calls of the sum once the stream has ended. See
README.md for what each chunk maps to.
"""

from __future__ import annotations

import re
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import openai
from langchain_core.messages import AIMessageChunk
from langchain_openai import ChatOpenAI

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from openai_transport import sync_http_client
from protocol_loop import Tally, client_tools, serve_streams

# What the application is shown, per outcome kind (spec/observation.md). A chunk's content blocks
# carry the delta and an index of langchain's own, not the item; calls are those of the summed
# message, with their call id and no item; an error is a ValueError whose text states the error
# event's code, or openai-python's APIError with its code.
OBSERVES = {
    "text.delta": ["delta"],
    "reasoning.delta": ["delta"],
    "tool.arguments.delta": ["delta"],
    "tool.call": ["call_id", "name", "tool_type", "arguments", "input"],
    "tool.error": ["call_id"],
    "error": ["code"],
    "end": ["status"],
}
# The statuses of a terminal response that did not complete, as its chunk's response_metadata states.
UNFINISHED = ("incomplete", "cancelled")
# langchain-openai hands a custom tool's free-text input over as this one argument.
CUSTOM_INPUT = "__arg1"
# The text of the ValueError langchain-openai raises at an error event that states a code:
# f"{chunk.code}: {chunk.message}" (langchain_openai/chat_models/base.py line 5529). A code is one
# word; a failed response's text (the error object's repr, or "Response <id> failed.") has none.
CODED_ERROR = re.compile(r"([A-Za-z0-9_.-]+): ")


def bound_tools(declared: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The vector's tools in the Responses API's own form, which `bind_tools` passes on; a server
    tool (programmatic tool calling) has no langchain tool, and makes no call."""
    tools: list[dict[str, Any]] = []
    for tool in client_tools(declared):
        if tool["type"] == "custom":
            tools.append({"type": "custom", "name": tool["name"], "description": tool.get("description", "")})
            continue
        tools.append(
            {
                "type": "function",
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
            }
        )
    return tools


def deltas(chunk: AIMessageChunk) -> list[dict[str, Any]]:
    """The deltas one chunk hands over: its text blocks' text (a block with the item's `id` or `phase`
    marks the part's end or its label, not text), its reasoning summaries' text, and its tool call
    chunks' args (a chunk with the call's `name` is the call's start, and hands over what it has)."""
    out: list[dict[str, Any]] = []
    for block in chunk.content if isinstance(chunk.content, list) else []:
        if not isinstance(block, dict):
            continue
        if (
            block.get("type") == "text"
            and isinstance(block.get("text"), str)
            and not {"id", "phase"} & set(block)
        ):
            out.append({"kind": "text.delta", "delta": block["text"]})
        elif block.get("type") == "reasoning":
            out += [
                {"kind": "reasoning.delta", "delta": part["text"]}
                for part in block.get("summary", [])
                if isinstance(part, dict) and part.get("text")
            ]
    out += [
        {"kind": "tool.arguments.delta", "delta": piece["args"]}
        for piece in chunk.tool_call_chunks
        if isinstance(piece.get("args"), str) and (piece["args"] or piece.get("name") is None)
    ]
    return out


def calls(full: AIMessageChunk | None, declared: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls of the summed message: those whose arguments parsed, then those that did not."""
    if full is None:
        return []
    custom = {tool["name"] for tool in declared if tool["type"] == "custom"}
    out: list[dict[str, Any]] = []
    for call in full.tool_calls:
        named = {"kind": "tool.call", "call_id": call["id"], "name": call["name"]}
        if call["name"] in custom:
            out.append({**named, "tool_type": "custom", "input": call["args"].get(CUSTOM_INPUT)})
        else:
            out.append({**named, "tool_type": "function", "arguments": call["args"]})
    out += [
        {"kind": "tool.error", "call_id": call.get("id"), "message": call.get("error") or "invalid tool call"}
        for call in full.invalid_tool_calls
    ]
    return out


def not_run(full: AIMessageChunk | None) -> list[dict[str, Any]]:
    """The calls of a response that did not complete, which the application runs none of: each is a
    call not run, `tool.error`."""
    if full is None:
        return []
    unrun = [*full.tool_calls, *full.invalid_tool_calls]
    return [
        {"kind": "tool.error", "call_id": call.get("id"), "message": "the response did not complete"}
        for call in unrun
    ]


def error_code(exc: ValueError | openai.APIError) -> str | None:
    """The code an error states: the APIError's own, or the one the ValueError's text begins with."""
    if isinstance(exc, openai.APIError):
        return exc.code
    coded = CODED_ERROR.match(str(exc))
    return coded.group(1) if coded else None


def end_status(last: AIMessageChunk | None) -> str:
    """How the response ended: the chunk made of the terminal response states its status; without
    one, the stream ended before the response did."""
    status = last.response_metadata.get("status") if last is not None else None
    return status if status in ("completed", "incomplete", "cancelled") else "truncated"


def run(vector: dict[str, Any], tally: Tally) -> None:
    model = ChatOpenAI(
        model="gpt-5.1",
        api_key="sk-streamroute",
        base_url="http://streamroute.invalid/v1",
        max_retries=0,
        use_responses_api=True,
        http_client=sync_http_client(vector, tally),
    )
    tools = bound_tools(vector["tools"])
    runnable = model.bind_tools(tools) if tools else model
    full: AIMessageChunk | None = None
    last: AIMessageChunk | None = None
    failed = False
    try:
        for chunk in runnable.stream("streamroute"):
            if outcomes := deltas(chunk):
                tally.add(outcomes)
            full = chunk if full is None else full + chunk
            last = chunk
            if chunk.response_metadata.get("status") in UNFINISHED:  # the terminal chunk says so
                tally.add(not_run(full))
    # How langchain-openai ends the stream at an error event or failed response (a ValueError of its
    # own: a subclass, such as pydantic's ValidationError, is a crash), and openai-python's Stream
    # at an event with an `error` member (APIError).
    except (ValueError, openai.APIError) as exc:
        if isinstance(exc, ValueError) and type(exc) is not ValueError:
            raise
        tally.add([{"kind": "error", "code": error_code(exc), "message": str(exc)}])
        failed = True
    tally.closing()
    status = "failed" if failed else end_status(last)
    # A stream that raised made no message: its chunks so far are no response whose calls one runs.
    # The application runs the calls of a completed response only (README.md): those of one that
    # ended incomplete were refused at its terminal chunk, those of a cut one are refused now.
    if status == "completed":
        tally.add(calls(full, vector["tools"]))
    elif status == "truncated":
        tally.add(not_run(full))
    tally.add([{"kind": "end", "status": status}])


def main() -> None:
    serve_streams(
        {
            "name": "langchain-openai ChatOpenAI(use_responses_api=True).stream()",
            "version": version("langchain-openai"),
            "language": "python",
            "homepage": "https://github.com/langchain-ai/langchain",
            "profiles": ["core"],
            # The calls are those of the chunks' sum, read once the stream has ended, their arguments
            # read with json.loads (README.md).
            "options": {
                "error_event": "ends_stream",
                "tool_call_point": "response_done",
                "arguments_parser": "platform",
            },
            "observes": OBSERVES,
        },
        run,
    )


if __name__ == "__main__":
    main()
