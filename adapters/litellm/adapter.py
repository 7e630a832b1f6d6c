"""streamroute adapter for `litellm.responses(stream=True)`, the OpenAI Responses provider.

Run with the Python of a virtualenv that holds one pinned `litellm` release
(and nothing of streamroute): `python adapters/litellm/adapter.py`. Each
vector is one call to `litellm.responses(model="openai/...", stream=True)`
whose `client` is litellm's `HTTPHandler` around an `httpx.Client` with a
mock transport: it answers the POST with the vector's stream as
`text/event-stream` bytes, and the adapter iterates what litellm returns as
an application does. See README.md for what it drives and how each
behaviour maps.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

# litellm fetches its model price list from the network at import unless told to use its own copy.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
import litellm
import openai
from litellm.exceptions import MidStreamFallbackError
from litellm.llms.custom_httpx.http_handler import HTTPHandler

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from protocol_loop import Tally, body, serve_streams
from responses_events import Translation


def cause(exc: openai.APIError) -> openai.APIError:
    """The exception litellm mapped the failure to: `MidStreamFallbackError` wraps it as its
    `original_exception` (litellm/exceptions.py line 1287), which carries the producer's code."""
    original = exc.original_exception if isinstance(exc, MidStreamFallbackError) else None
    return original if isinstance(original, openai.APIError) else exc


def run(vector: dict[str, Any], tally: Tally) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, content=body(vector, tally))

    # `litellm.responses` takes the `client` keyword only as litellm's own HTTPHandler (see README.md).
    client = HTTPHandler(client=httpx.Client(transport=httpx.MockTransport(answer)))
    translation = Translation()
    stream = litellm.responses(
        model="openai/gpt-5.1",
        input="streamroute",
        stream=True,
        client=client,
        api_key="sk-streamroute",
        api_base="http://streamroute.invalid/v1",
    )
    try:
        for event in stream:
            tally.add(translation.outcomes(event))
    except openai.APIError as exc:  # litellm's documented errors are OpenAI's exception types
        # A connection error is a stream cut short: what `end` `truncated` says (README.md).
        if not isinstance(cause(exc), openai.APIConnectionError):
            tally.add(translation.error(cause(exc).code, exc.message))
    finally:
        stream.close()
    tally.closing()
    tally.close += translation.end()


def main() -> None:
    serve_streams(
        {
            "name": "litellm.responses(stream=True)",
            "version": version("litellm"),
            "language": "python",
            "homepage": "https://github.com/BerriAI/litellm",
            "profiles": ["core"],
            # litellm hands over the arguments' text and response ids of its own, and raises at an
            # error event (README.md).
            "options": {
                "call_arguments": "json_text",
                "error_event": "ends_stream",
                "response_id": "rewritten",
            },
        },
        run,
    )


if __name__ == "__main__":
    main()
