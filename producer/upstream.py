"""The fake upstream behind a producer under probe: a chat-completions and a Responses server.

`FakeUpstream` listens on a loopback port and answers every request with the
scenario it is serving (scenarios.py): `POST /v1/chat/completions` with
chat-completions chunks for a bridge, `POST /v1/responses` with Responses
events for a relaying gateway, each as SSE in chunked transfer encoding, so
that a `disconnect` step (the socket closed without the last chunk) is a
broken stream a producer can tell from an ended one. A request to the
endpoint the scenario does not script is answered 404 and recorded: the
scenario is not applicable to a producer that asks it. A request that does
not ask for a stream (`"stream": true`) gets the whole answer the stream
builds, as one JSON body (`whole_answer`), as the real APIs answer it. `GET /v1/models`
lists the one model any request named. Every request is recorded (its path
and JSON body), so the probe can say what the producer asked.

A WebSocket upgrade of `/v1/responses` is the Responses API's WebSocket mode:
each `response.create` is answered with the scenario's events, a text message
each (websocket.py). Served to a client directly, its `/v1/responses` is a
correct producer of a relaying scenario: the tests put their fault-injecting
proxy in front of it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from streamroute.conformance.event_types import lifecycle_types

from .scenarios import Scenario
from .websocket import TEXT, Closed, accept_key, frame, messages

ENDPOINTS = {"/chat/completions": "chat-completions", "/responses": "responses"}
CREATED_AT = 1_767_225_600  # 2026-01-01: a fixed time, so that captures of one scenario compare equal
_SPLIT_PAUSE = 0.05  # seconds between the two writes of a `split_utf8` step, so they arrive apart


def responses_event(event: dict[str, Any], number: int, model: str) -> dict[str, Any]:
    """A scenario's Responses event as the upstream sends it: numbered, and a lifecycle event's
    response completed with what every response object states (PROD-LIFE-6)."""
    sent = {**event, "sequence_number": event.get("sequence_number", number)}
    if sent["type"] in lifecycle_types() and isinstance(sent.get("response"), dict):
        defaults = {"id": "resp_upstream", "object": "response", "created_at": CREATED_AT, "model": model}
        sent["response"] = {**defaults, **sent["response"]}
    return sent


def chat_chunk(step: dict[str, Any], model: str) -> dict[str, Any]:
    """A scenario's chat-completions step as a whole chunk."""
    chunk: dict[str, Any] = {
        "id": "chatcmpl-upstream",
        "object": "chat.completion.chunk",
        "created": CREATED_AT,
        "model": model,
    }
    if "delta" in step or "finish_reason" in step:
        choice = {"index": 0, "delta": step.get("delta", {}), "finish_reason": step.get("finish_reason")}
        chunk["choices"] = [choice]
    else:
        chunk["choices"] = []
    if "usage" in step:
        chunk["usage"] = step["usage"]
    return chunk


@dataclass(frozen=True)
class Write:
    """What the upstream does next: write bytes, pause, or close the connection."""

    data: bytes = b""
    pause: float = 0.0
    disconnect: bool = False


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"{head}data: {text}\n\n".encode()


def _split(data: bytes) -> Iterator[Write]:
    """`data` in two writes cut inside its first character of several bytes (none: one write)."""
    lead = next((at for at, byte in enumerate(data) if byte >= 0xC0), None)
    if lead is None:
        yield Write(data)
        return
    yield Write(data[: lead + 1])
    yield Write(pause=_SPLIT_PAUSE)
    yield Write(data[lead + 1 :])


def writes(scenario: Scenario, model: str, split: bool = True) -> Iterator[Write]:
    """What the upstream sends for one request of the scenario, in order; `split` false: each
    event in one write, as a WebSocket message holds it whole."""
    number = 0
    for step in scenario.upstream.get("steps", []):
        for _ in range(step.get("times", 1)):
            if "pause" in step:
                yield Write(pause=float(step["pause"]))
                continue
            if "disconnect" in step:
                yield Write(disconnect=True)
                return
            if "event" in step:
                event = responses_event(step["event"], number, model)
                number += 1
                data = _sse(event, event["type"])
            elif "data" in step:
                data = _sse(step["data"])
            elif "done" in step:
                data = _sse("[DONE]")
            else:
                data = _sse(chat_chunk(step, model))
            yield from (_split(data) if split and step.get("split_utf8") else [Write(data)])


def _merged_calls(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool calls chat-completions deltas spell, merged by index as a client of that API does."""
    calls: dict[int, dict[str, Any]] = {}
    for step in steps:
        for piece in step.get("delta", {}).get("tool_calls") or []:
            call = calls.setdefault(
                piece["index"], {"type": "function", "function": {"name": "", "arguments": ""}}
            )
            call["id"] = piece.get("id", call.get("id"))
            function = piece.get("function") or {}
            call["function"]["name"] += function.get("name") or ""
            call["function"]["arguments"] += function.get("arguments") or ""
    return [calls[index] for index in sorted(calls)]


def whole_answer(scenario: Scenario, model: str) -> tuple[int, Any] | None:
    """What the upstream answers a request that does not ask for a stream: the response the
    scenario's stream builds, as one JSON body, or its error; None: the connection breaks first."""
    steps = [step for step in scenario.upstream.get("steps", []) for _ in range(step.get("times", 1))]
    if any("disconnect" in step for step in steps):
        return None
    error = next(
        (step["data"] for step in steps if isinstance(step.get("data"), dict) and "error" in step["data"]),
        None,
    )
    if error is not None:
        return 500, error
    if scenario.api == "responses":
        events = [
            responses_event(step["event"], n, model)
            for n, step in enumerate(s for s in steps if "event" in s)
        ]
        final = next(e["response"] for e in reversed(events) if e["type"] in lifecycle_types())
        return 200, final
    deltas = [step.get("delta", {}) for step in steps]
    message: dict[str, Any] = {"role": "assistant"}
    for field_name in ("content", "refusal", "reasoning_content"):
        pieces = [d[field_name] for d in deltas if isinstance(d.get(field_name), str)]
        message[field_name] = "".join(pieces) if pieces else None
    calls = _merged_calls(steps)
    if calls:
        message["tool_calls"] = calls
    finish = next((step["finish_reason"] for step in reversed(steps) if "finish_reason" in step), "stop")
    usage = next((step["usage"] for step in steps if "usage" in step), None)
    return 200, {
        "id": "chatcmpl-upstream",
        "object": "chat.completion",
        "created": CREATED_AT,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        **({"usage": usage} if usage else {}),
    }


@dataclass(frozen=True)
class Request:
    """One request the upstream received."""

    method: str
    path: str
    api: str | None  # the endpoint it named, if one the upstream serves
    body: Any


@dataclass
class _State:
    scenario: Scenario | None = None
    requests: list[Request] = field(default_factory=list)
    models: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the probe reports what the upstream was asked; nothing on stderr

    def _endpoint(self) -> str:
        path = self.path.split("?", 1)[0]
        return path[len("/v1") :] if path.startswith("/v1/") else path

    def _json(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.headers.get("Upgrade", "").lower() == "websocket":
            self._websocket()
        elif self._endpoint() == "/models":
            with self.server.state.lock:
                models = sorted(self.server.state.models) or ["streamroute-probe"]
            listed = [{"id": name, "object": "model", "created": CREATED_AT, "owned_by": "streamroute"}
                      for name in models]  # fmt: skip
            self._json(200, {"object": "list", "data": listed})
        else:
            self._json(404, {"error": {"message": f"no {self.path} here", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = raw.decode("utf-8", "replace")
        api = ENDPOINTS.get(self._endpoint())
        state = self.server.state
        with state.lock:
            state.requests.append(Request("POST", self.path, api, body))
            scenario = state.scenario
            model = body.get("model") if isinstance(body, dict) else None
            if isinstance(model, str):
                state.models.add(model)
        if scenario is None or api != scenario.api:
            scripted = "nothing" if scenario is None else f"/v1/{scenario.api.replace('-', '/')}"
            message = f"the fake upstream serves {scripted} for this scenario, not {self.path}"
            self._json(404, {"error": {"message": message, "type": "not_found"}})
            return
        upstream = scenario.upstream
        if "status" in upstream:
            self._json(int(upstream["status"]), upstream["body"])
            return
        named = model if isinstance(model, str) else "streamroute-probe"
        if isinstance(body, dict) and body.get("stream") is True:
            self._stream(scenario, named)
            return
        answer = whole_answer(scenario, named)
        if answer is None:  # the connection breaks before the body is whole
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.close_connection = True
            return
        self._json(*answer)

    def _websocket(self) -> None:
        """The WebSocket mode of a Responses upstream: each `response.create` is answered with the
        scenario's events, one a text message, up to an `error`, which ends the turn there
        (spec/session.md); a `disconnect` step drops the connection."""
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept_key(self.headers.get("Sec-WebSocket-Key", "")))
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        state = self.server.state
        try:
            for message in messages(self.rfile, self.connection, masked=False):
                try:
                    body = json.loads(message)
                except ValueError:
                    body = message.decode("utf-8", "replace")
                api = ENDPOINTS.get(self._endpoint())
                with state.lock:
                    state.requests.append(Request("WEBSOCKET", self.path, api, body))
                    scenario = state.scenario
                if scenario is None or api != scenario.api or "steps" not in scenario.upstream:
                    error = {
                        "type": "error",
                        "error": {"type": "invalid_request_error", "message": "not scripted"},
                    }
                    self.connection.sendall(frame(TEXT, json.dumps(error).encode(), masked=False))
                    continue
                model = body.get("model") if isinstance(body, dict) else None
                named = model if isinstance(model, str) else "streamroute-probe"
                for write in writes(scenario, named, split=False):
                    if write.disconnect:
                        return
                    if write.pause:
                        time.sleep(write.pause)
                    data = next(
                        (line for line in write.data.split(b"\n") if line.startswith(b"data: ")), None
                    )
                    if data is None:
                        continue
                    self.connection.sendall(frame(TEXT, data[len(b"data: ") :], masked=False))
                    if json.loads(data[len(b"data: ") :]).get("type") == "error":
                        break  # an error ends the turn on a WebSocket: no terminal event follows it
        except (Closed, OSError):
            return

    def _stream(self, scenario: Scenario, model: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for write in writes(scenario, model):
                if write.disconnect:  # no last chunk: the body is cut
                    self.close_connection = True
                    self.wfile.flush()
                    return
                if write.pause:
                    time.sleep(write.pause)
                if write.data:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(write.data), write.data))
                    self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the producer stopped reading: nothing more to send


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State


class FakeUpstream:
    """The fake upstream on 127.0.0.1:`port` (0: any free port), serving one scenario at a time."""

    def __init__(self, port: int = 0, host: str = "127.0.0.1") -> None:
        self._server = _Server((host, port), _Handler)
        self._server.state = _State()
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-upstream", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def serve(self, scenario: Scenario | None) -> None:
        """Answer every request from now on with `scenario`, and forget the requests so far."""
        with self._server.state.lock:
            self._server.state.scenario = scenario
            self._server.state.requests = []

    @property
    def requests(self) -> list[Request]:
        with self._server.state.lock:
            return list(self._server.state.requests)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeUpstream:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
