"""One HTTP exchange of the probe with a producer: POST a request, record the streamed bytes as they came.

The bytes are kept as received, chunk by chunk, whatever they are; how the exchange ended is
stated, never raised: the body ended, the connection was cut inside it, or the producer fell
silent for longer than the timeout. What stops the exchange before a body is a `ProbeFailure`
with one line to show: the server is down, does not answer in time, or is no HTTP server; an
answer that is HTTP but no SSE stream is an `Exchange` with its status and content type, for
the probe to judge.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .checker import Format

MAX_BODY = 256 << 20  # bytes read of one stream at most: a producer that never stops is cut here
LONGEST = 20  # timeouts one stream may last in all: a producer that trickles for ever is cut then


class ProbeFailure(Exception):
    """The producer cannot be probed: one line saying why."""


class ServerDown(ProbeFailure):
    """Nothing listens at the base URL: no scenario can run."""


@dataclass
class Exchange:
    status: int
    content_type: str
    chunks: list[bytes] = field(default_factory=list)
    ended: str = "end"  # end, cut (the connection broke inside the body), silent, too large, too long
    format: Format = "sse"  # how the chunks hold the events: SSE bytes, or (a WebSocket's) JSON Lines

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)

    @property
    def is_stream(self) -> bool:
        """An SSE stream, or a WebSocket opened."""
        if self.format == "jsonl":
            return self.status == 101
        return self.status == 200 and self.content_type.split(";")[0].strip().lower() == "text/event-stream"

    def described(self) -> str:
        """The answer in one line, when it is no stream."""
        text = self.body[:200].decode("utf-8", "replace")
        shown = " ".join(text.split()) or "an empty body"
        if self.content_type == "websocket":
            return f"HTTP {self.status} to the WebSocket upgrade, not 101: {shown}"
        return f"HTTP {self.status} ({self.content_type or 'no content type'}), not an SSE stream: {shown}"


def endpoint(base_url: str) -> tuple[str, str, int, str]:
    """The scheme, host, port and path of `base_url`/responses; ProbeFailure for a URL that is none."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProbeFailure(f"--base-url {base_url!r} is not an http:// or https:// URL")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise ProbeFailure(f"--base-url {base_url!r}: {exc}") from None
    return parts.scheme, parts.hostname, port, parts.path.rstrip("/") + "/responses"


def post(base_url: str, body: dict[str, Any], headers: dict[str, str], timeout: float) -> Exchange:
    """POST `body` to `base_url`/responses and read the whole answer; `timeout`: the longest
    silence, in seconds, before the answer starts and between two reads of it."""
    scheme, host, port, path = endpoint(base_url)
    kind = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    connection = kind(host, port, timeout=timeout)
    where = f"{scheme}://{host}:{port}"
    data = json.dumps(body).encode()
    try:
        try:
            connection.request(
                "POST",
                path,
                data,
                {"Content-Type": "application/json", "Accept": "text/event-stream", **headers},
            )
            response = connection.getresponse()
        except ConnectionRefusedError:
            raise ServerDown(
                f"cannot connect to {where}: connection refused; is the producer running?"
            ) from None
        except socket.gaierror as exc:
            raise ServerDown(f"cannot connect to {where}: {exc.strerror}") from None
        except TimeoutError:
            raise ProbeFailure(f"{where} did not answer POST {path} within {timeout:g} s") from None
        except (http.client.HTTPException, ConnectionError, OSError) as exc:
            why = str(exc) or type(exc).__name__
            raise ProbeFailure(
                f"{where} answered POST {path} with something that is not HTTP ({why})"
            ) from None
        exchange = Exchange(response.status, response.getheader("Content-Type") or "")
        _read(response, exchange, time.monotonic() + LONGEST * timeout)
        return exchange
    finally:
        connection.close()


def _read(response: http.client.HTTPResponse, exchange: Exchange, deadline: float) -> None:
    size = 0
    while True:
        if time.monotonic() > deadline:
            exchange.ended = "too long"
            return
        try:
            chunk = response.read1(65536)
        except TimeoutError:
            exchange.ended = "silent"
            return
        except http.client.IncompleteRead as exc:  # the chunked body broke off
            if exc.partial:
                exchange.chunks.append(bytes(exc.partial))
            exchange.ended = "cut"
            return
        except (http.client.HTTPException, ConnectionError, OSError):
            exchange.ended = "cut"
            return
        if not chunk:
            return
        exchange.chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY:
            exchange.ended = "too large"
            return


def wait_until_up(base_url: str, seconds: float) -> bool:
    """Whether something accepts connections at the base URL within `seconds` (a producer starting)."""
    _, host, port, _ = endpoint(base_url)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                return True
        except OSError:
            time.sleep(0.2)
    return False
