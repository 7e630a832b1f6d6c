"""The WebSocket of the Responses API's WebSocket mode (RFC 6455), as far as the probe needs it.

The client: `websocket_exchange` opens `ws(s)://…/responses`, sends one `response.create` (the
request's body as the event, without `stream`) and records every text message until the
response's terminal event, the server's close, or a silence of `timeout` seconds; the messages
are the capture, one JSON event a line (spec/producer.md: sections 2 to 7 apply). The server
side (`serve_websocket`) is the fake upstream's, for a gateway that relays the WebSocket mode
upstream. Frames are text, close, ping and pong; a message may come in fragments.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import ssl
import struct
import time
from collections.abc import Iterator
from io import BufferedIOBase
from typing import Any

from streamroute.conformance.event_types import terminal_types

from .exchange import LONGEST, Exchange, ProbeFailure, ServerDown, endpoint

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x8, 0x9, 0xA, 0x0
MAX_MESSAGE = 64 << 20  # bytes of one message at most, as an SSE event's data (SSE-LIMIT-1)
ERROR_GRACE = 2.0  # seconds the probe waits after an `error` event for the turn's terminal event


def accept_key(key: str) -> str:
    """The Sec-WebSocket-Accept a server answers Sec-WebSocket-Key with."""
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


def frame(opcode: int, payload: bytes, masked: bool) -> bytes:
    """One final frame; a client's frames are masked, a server's are not."""
    size = len(payload)
    head = bytes([0x80 | opcode])
    mask_bit = 0x80 if masked else 0
    if size < 126:
        head += bytes([mask_bit | size])
    elif size < 1 << 16:
        head += bytes([mask_bit | 126]) + struct.pack("!H", size)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", size)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


class Closed(Exception):
    """The connection ended without a close frame."""


def _exactly(stream: BufferedIOBase, size: int) -> bytes:
    data = stream.read(size)
    if data is None or len(data) < size:
        raise Closed
    return data


def read_frame(stream: BufferedIOBase) -> tuple[int, bool, bytes]:
    """The next frame's opcode, whether it is final, and its payload (unmasked)."""
    first, second = _exactly(stream, 2)
    size = second & 0x7F
    if size == 126:
        (size,) = struct.unpack("!H", _exactly(stream, 2))
    elif size == 127:
        (size,) = struct.unpack("!Q", _exactly(stream, 8))
    if size > MAX_MESSAGE:
        raise Closed
    key = _exactly(stream, 4) if second & 0x80 else None
    payload = _exactly(stream, size)
    if key is not None:
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    return first & 0x0F, bool(first & 0x80), payload


def messages(stream: BufferedIOBase, reply: socket.socket, masked: bool) -> Iterator[bytes]:
    """Each text message, fragments joined; pings answered; ends at a close frame (answered)."""
    parts: list[bytes] = []
    while True:
        opcode, final, payload = read_frame(stream)
        if opcode == CLOSE:
            reply.sendall(frame(CLOSE, payload[:2], masked))
            return
        if opcode == PING:
            reply.sendall(frame(PONG, payload, masked))
            continue
        if opcode in (TEXT, CONTINUATION):
            parts.append(payload)
            if final:
                yield b"".join(parts)
                parts = []


def _connect(base_url: str, timeout: float) -> socket.socket:
    scheme, host, port, _ = endpoint(base_url)
    where = f"{scheme}://{host}:{port}"
    try:
        raw = socket.create_connection((host, port), timeout=timeout)
    except ConnectionRefusedError:
        raise ServerDown(f"cannot connect to {where}: connection refused; is the producer running?") from None
    except socket.gaierror as exc:
        raise ServerDown(f"cannot connect to {where}: {exc.strerror}") from None
    except TimeoutError:
        raise ProbeFailure(f"{where} did not accept a connection within {timeout:g} s") from None
    if scheme == "https":
        return ssl.create_default_context().wrap_socket(raw, server_hostname=host)
    return raw


def websocket_exchange(
    base_url: str, body: dict[str, Any], headers: dict[str, str], timeout: float
) -> Exchange:
    """Open the WebSocket mode at `base_url`/responses, send `body` as one `response.create`, and
    read the response's events; the exchange's chunks are its messages, a line each."""
    _, host, port, path = endpoint(base_url)
    key = base64.b64encode(os.urandom(16)).decode()
    connection = _connect(base_url, timeout)
    stream = connection.makefile("rb")
    try:
        upgrade = {"Host": f"{host}:{port}", "Upgrade": "websocket", "Connection": "Upgrade",
                   "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": "13", **headers}  # fmt: skip
        lines = [f"GET {path} HTTP/1.1", *(f"{name}: {value}" for name, value in upgrade.items())]
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        try:
            status_line = stream.readline(65536).decode("latin-1").strip()
            answer = [status_line]
            while answer[-1]:
                answer.append(stream.readline(65536).decode("latin-1").strip())
        except TimeoutError:
            raise ProbeFailure(
                f"{base_url} did not answer the WebSocket upgrade within {timeout:g} s"
            ) from None
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in answer[1:-1])}
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise ProbeFailure(f"{base_url} answered the WebSocket upgrade with something that is not HTTP")
        if parts[1] != "101" or fields.get("sec-websocket-accept") != accept_key(key):
            return Exchange(int(parts[1]), "websocket", [status_line.encode()], format="jsonl")
        event = {"type": "response.create", **{k: v for k, v in body.items() if k != "stream"}}
        connection.sendall(frame(TEXT, json.dumps(event).encode(), masked=True))
        return _read_turn(connection, stream, timeout)
    finally:
        stream.close()
        connection.close()


def _read_turn(connection: socket.socket, stream: BufferedIOBase, timeout: float) -> Exchange:
    exchange = Exchange(101, "websocket", format="jsonl")
    deadline = time.monotonic() + LONGEST * timeout
    errored = False  # an `error` event came: the turn may be over (spec/session.md), or a terminal follows
    try:
        for message in messages(stream, connection, masked=True):
            exchange.chunks.append(message + b"\n")
            kind = _type(message)
            if kind in terminal_types():  # the response is over: close, as a client ends the session
                connection.sendall(frame(CLOSE, struct.pack("!H", 1000), masked=True))
                return exchange
            if kind == "error" and not errored:
                errored = True
                connection.settimeout(min(timeout, ERROR_GRACE))
            if time.monotonic() > deadline:
                exchange.ended = "too long"
                return exchange
    except TimeoutError:
        exchange.ended = "end" if errored else "silent"
    except (Closed, OSError):
        exchange.ended = "cut"
    return exchange


def _type(message: bytes) -> object:
    try:
        event = json.loads(message)
    except ValueError:
        return None
    return event.get("type") if isinstance(event, dict) else None
