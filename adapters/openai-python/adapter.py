"""streamroute adapter for the `openai` Python SDK's `client.responses.stream()`.

Run with the Python of a virtualenv that holds one pinned `openai` release
(and nothing of streamroute): `python adapters/openai-python/adapter.py`.
Each vector is one request: a client whose HTTP client has a mock transport
answers the POST with the vector's stream as `text/event-stream` bytes, and
the adapter iterates `client.responses.stream(...)` as an application does,
so the bytes go through the SDK's SSE decoder, its `Stream` and its
accumulator. See README.md for what it drives and how each behaviour maps.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx2
import openai
from openai._streaming import ServerSentEvent, SSEBytesDecoder, SSEDecoder

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from protocol_loop import Tally, body, serve_streams
from responses_events import Translation


class Dispatches:
    """The SDK's own SSE decoder, each event it dispatches numbered in the tally and passed on unchanged."""

    def __init__(self, decoder: SSEDecoder | SSEBytesDecoder, tally: Tally) -> None:
        self.decoder = decoder
        self.tally = tally

    def iter_bytes(self, iterator: Iterator[bytes]) -> Iterator[ServerSentEvent]:
        for sse in self.decoder.iter_bytes(iterator):
            self.tally.next_event()
            yield sse


class Client(openai.OpenAI):
    """The SDK's client; for an sse vector its decoder is tapped to number the dispatched events."""

    tally: Tally | None = None

    def _make_sse_decoder(self) -> SSEDecoder | SSEBytesDecoder:
        decoder = super()._make_sse_decoder()
        return decoder if self.tally is None else Dispatches(decoder, self.tally)  # type: ignore[return-value]


# The module whose checks raise RuntimeError at an inconsistent stream, on purpose (README.md).
HELPER = Path(openai.__file__).parent / "lib" / "streaming" / "responses" / "_responses.py"


def refused(exc: RuntimeError) -> bool:
    """Whether the stream helper raised it itself, refusing the stream (any other is a crash)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and Path(frames[-1].filename) == HELPER


def run(vector: dict[str, Any], tally: Tally) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, content=body(vector, tally))

    client = Client(
        api_key="sk-streamroute",
        base_url="http://streamroute.invalid/v1",
        max_retries=0,
        http_client=openai.DefaultHttpx2Client(transport=httpx2.MockTransport(answer)),
    )
    if "chunks" in vector:
        client.tally = tally
    translation = Translation()
    # The request's tools are not given: the SDK reads them only to parse strict function
    # arguments into the completed response, after the stream (see README.md).
    with client.responses.stream(model="gpt-5.1", input="streamroute") as stream:
        try:
            for event in stream:
                tally.add(translation.outcomes(event))
        except openai.APIError as exc:  # the SDK's documented error: what the application is told
            tally.add(translation.error(exc.code, exc.message))
        except RuntimeError as exc:
            if not refused(exc):
                raise
            tally.add(translation.error(None, str(exc)))
    tally.closing()
    tally.close += translation.end()


def main() -> None:
    serve_streams(
        {
            "name": "openai-python client.responses.stream()",
            "version": version("openai"),
            "language": "python",
            "homepage": "https://github.com/openai/openai-python",
            "profiles": ["core", "sse"],
            # The SDK hands over the arguments' text, and takes only whole streams (README.md).
            # The accumulator raises at the first inconsistency of the stream (README.md): spec/core.md 12.8.
            "options": {
                "call_arguments": "json_text",
                "stream_start": "response_created",
                "producer_fault": "ends_stream",
            },
        },
        run,
    )


if __name__ == "__main__":
    main()
