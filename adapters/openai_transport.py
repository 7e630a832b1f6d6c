"""openai-python HTTP clients whose transport answers every request with a vector's stream.

For the Python adapters of libraries built on openai-python: the library is
given one of these (or an `AsyncOpenAI` over one) as documented, and every
byte of the vector reaches it through openai-python's SSE decoder. The
response is status 200, `content-type: text/event-stream`, its body
`protocol_loop.body`: one event a read. openai 3 moved to httpx2, older
releases use httpx; the mock transport is of the installed client's kind.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator
from typing import Any

import openai
from protocol_loop import Tally, body

http: Any = importlib.import_module("httpx2" if int(openai.__version__.split(".")[0]) >= 3 else "httpx")

# A library that reads the stream in a task of its own hands over what it read through a queue; the
# async body yields the next event only once the library and the application have had every chance
# to handle the last one, so each outcome is credited to the event that produced it, not to close.
SETTLE_ROUNDS = 64


async def settled() -> None:
    for _ in range(SETTLE_ROUNDS):
        await asyncio.sleep(0)


def _answer(content: Any) -> Any:
    return http.Response(200, headers={"content-type": "text/event-stream"}, content=content)


def sync_http_client(vector: dict[str, Any], tally: Tally) -> Any:
    """An `openai.DefaultHttpxClient` answering with the vector's stream, read as the library reads."""
    return openai.DefaultHttpxClient(
        transport=http.MockTransport(lambda request: _answer(body(vector, tally)))
    )


def async_client(vector: dict[str, Any], tally: Tally) -> openai.AsyncOpenAI:
    """An `AsyncOpenAI` (no retries) answering with the vector's stream, settling after each event."""

    async def stream() -> AsyncIterator[bytes]:
        for chunk in body(vector, tally):
            yield chunk
            await settled()

    return openai.AsyncOpenAI(
        api_key="sk-streamroute",
        base_url="http://streamroute.invalid/v1",
        max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(
            transport=http.MockTransport(lambda request: _answer(stream()))
        ),
    )
