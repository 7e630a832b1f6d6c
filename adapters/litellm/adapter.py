"""streamroute adapter for litellm's Responses-to-Chat-Completions stream bridge.

Run with the Python of a virtualenv that holds one pinned `litellm` release
(and nothing of streamroute): `python adapters/litellm/adapter.py`.
`OpenAiResponsesToChatCompletionStreamIterator.chunk_parser(event)` is how
litellm turns each Responses stream event into a Chat Completions chunk for
its callers; `litellm.stream_chunk_builder(chunks)` is how it assembles the
complete message (and its tool calls) from those chunks after the stream.
This adapter feeds each event to `chunk_parser`, translates the chunk it
returns, and at close asks `stream_chunk_builder` for the complete calls.
See README.md for the mapping and for what the library does not offer.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import litellm
from litellm.completion_extras.litellm_responses_transformation.transformation import (
    OpenAiResponsesToChatCompletionStreamIterator,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from protocol_loop import serve

# Chat Completions finish reasons, as litellm maps the Responses terminal events.
END_STATUS = {
    "stop": "completed",
    "tool_calls": "completed",
    "length": "incomplete",
    "content_filter": "incomplete",
}


class Adapter:
    def __init__(self, tools: list[Any]) -> None:
        self.bridge = OpenAiResponsesToChatCompletionStreamIterator(iter(()), sync_stream=True)
        self.chunks: list[Any] = []
        self.finish: str | None = None

    def feed(self, event: Any) -> list[dict[str, Any]]:
        chunk = self.bridge.chunk_parser(event)
        self.chunks.append(chunk)
        outcomes: list[dict[str, Any]] = []
        for choice in chunk.choices:
            delta = choice.delta
            # A Chat Completions chunk carries no item id, output index or content index.
            if delta.content:
                outcomes.append({"kind": "text.delta", "delta": delta.content})
            if getattr(delta, "reasoning_content", None):
                outcomes.append({"kind": "reasoning.delta", "delta": delta.reasoning_content})
            for call in delta.tool_calls or []:
                if call.function is not None and call.function.arguments and call.id is None:
                    # A call is identified by its chat `index`, not by the item id.
                    outcomes.append({"kind": "tool.arguments.delta", "delta": call.function.arguments})
            if choice.finish_reason and self.finish is None:
                self.finish = choice.finish_reason
        return outcomes

    def close(self) -> list[dict[str, Any]]:
        """The complete calls, as litellm assembles them from the chunks once the stream is over."""
        outcomes: list[dict[str, Any]] = []
        built = litellm.stream_chunk_builder(self.chunks) if self.chunks else None
        message = built.choices[0].message if built is not None and built.choices else None
        for call in (message.tool_calls if message is not None else None) or []:
            outcomes.append(
                {
                    "kind": "tool.call",
                    "call_id": call.id,
                    "name": call.function.name,
                    "tool_type": "function",
                    "arguments": call.function.arguments,  # a string: litellm keeps Chat Completions' text
                }
            )
        outcomes.append({"kind": "end", "status": END_STATUS.get(self.finish or "", "truncated")})
        return outcomes


def main() -> None:
    serve(
        {
            "name": "litellm Responses-to-Chat stream bridge",
            "version": version("litellm"),
            "language": "python",
            "homepage": "https://github.com/BerriAI/litellm",
            "profiles": ["core"],
            "options": {},
        },
        Adapter,
    )


if __name__ == "__main__":
    main()
