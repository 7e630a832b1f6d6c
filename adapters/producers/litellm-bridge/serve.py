"""litellm's library bridge as a server the probe can reach: each POST /v1/responses is one call of
`litellm.responses(stream=True)`, the entry point litellm documents for the Responses API, and
each event it yields is written as an SSE event (`event: TYPE`, `data: JSON`) of the object as the
library gives it to an application (`model_dump(mode="json")`), nothing added or left out.

The request's `model` names the provider route (`groq/NAME` takes the chat-completions bridge,
`openai/NAME` relays the native Responses API); `api_base` is the fake upstream, from
STREAMROUTE_UPSTREAM. When litellm raises before the first event the answer is HTTP 502 with the
exception's text; when it raises mid-stream the body is cut (no last chunk), since a library
signals that by raising, which no event of its own may stand for. Usage: serve.py PORT.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import litellm

UPSTREAM = os.environ["STREAMROUTE_UPSTREAM"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def do_POST(self) -> None:
        request: dict[str, Any] = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        request.pop("stream", None)
        try:
            events = iter(litellm.responses(**request, api_base=UPSTREAM, api_key="fake", stream=True))
            first = next(events, None)
        except Exception as exc:  # what an application calling the library gets
            body = json.dumps({"error": {"message": f"{type(exc).__name__}: {exc}"}}).encode()
            self.send_response(502)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while first is not None:
                data = first.model_dump(mode="json")
                self._chunk(f"event: {data.get('type')}\ndata: {json.dumps(data)}\n\n".encode())
                first = next(events, None)
        except Exception:
            traceback.print_exc()
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
