"""A fault-injecting proxy for the probe's tests: it relays a producer's `/v1/responses` stream and
breaks it the way gateways in the middle were seen to (issue reports named in FAULTS).

Run as a program, it is a producer of the tests' own for the producer matrix (`fault_proxy.py
PORT UPSTREAM FAULT`; fault `none` relays as it is). The proxy reads the producer's whole answer
(a test producer answers at once), splits it into SSE events, applies its fault and streams the
result on in chunked transfer encoding, so that a cut is a broken body the probe can see.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from streamroute.producer.exchange import post

Events = list[bytes]  # SSE events, each ending with its blank line


def _events(body: bytes) -> Events:
    return [part + b"\n\n" for part in body.split(b"\n\n") if part.strip()]


def _data(event: bytes) -> dict[str, Any] | None:
    for line in event.split(b"\n"):
        if line.startswith(b"data: ") and line != b"data: [DONE]":
            value = json.loads(line[len(b"data: ") :])
            return value if isinstance(value, dict) else None
    return None


def _event(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def drop_content_part_added(events: Events, _: Callable[[], Events]) -> Events:
    """A gateway that passes on only the events it knows, and not `response.content_part.added`."""
    return [e for e in events if (_data(e) or {}).get("type") != "response.content_part.added"]


def reemit_call(events: Events, _: Callable[[], Events]) -> Events:
    """new-api 6278: the call is emitted again from response.completed's output, so it runs twice."""
    out = []
    for event in events:
        data = _data(event)
        if data is not None and data["type"] == "response.completed":
            output = data["response"]["output"]
            again = [
                {**item, "id": item["id"] + "_again"} for item in output if item["type"] == "function_call"
            ]
            data["response"]["output"] = output + again
            event = _event(data)
        out.append(event)
    return out


def rotate_item_ids(events: Events, _: Callable[[], Events]) -> Events:
    """GitHub Copilot: every event names its item by a new id."""
    out = []
    for number, event in enumerate(events):
        data = _data(event)
        if data is not None and "item_id" in data:
            data["item_id"] = f"rotated_{number}"
            event = _event(data)
        elif data is not None and isinstance(data.get("item"), dict):
            data["item"]["id"] = f"rotated_{number}"
            event = _event(data)
        out.append(event)
    return out


def replay_after_reconnect(events: Events, again: Callable[[], Events]) -> Events:
    """OmniRoute PR 5832: the gateway reconnects upstream mid-stream and passes the new stream on
    from its start after what it already sent."""
    return events[: len(events) // 2] + again()


def cut_mid_event(events: Events, _: Callable[[], Events]) -> Events:
    """A proxy that loses the connection in the middle of an event: what it sent ends there."""
    half = len(events) // 2
    return [*events[:half], events[half][: len(events[half]) // 2]]


def none(events: Events, _: Callable[[], Events]) -> Events:
    """A correct relaying gateway: every event passed on as it came."""
    return events


FAULTS: dict[str, Callable[[Events, Callable[[], Events]], Events]] = {
    "none": none,
    "drop-content-part-added": drop_content_part_added,
    "reemit-call": reemit_call,
    "rotate-item-ids": rotate_item_ids,
    "replay-after-reconnect": replay_after_reconnect,
    "cut-mid-event": cut_mid_event,
}
CUTS = frozenset({"cut-mid-event"})  # faults whose body ends without its last chunk


class FaultProxy:
    """On 127.0.0.1, any free port: relays POST /v1/responses to `target` (a base URL) with `fault`."""

    def __init__(self, target: str, fault: str, port: int = 0) -> None:
        apply = FAULTS[fault]

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

                def fetch() -> Events:
                    return _events(post(target, body, {}, 10).body)

                out = b"".join(apply(fetch(), fetch))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(out), out))
                if fault not in CUTS:
                    self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serve_forever(self) -> None:
        threading.Event().wait()


if __name__ == "__main__":  # a relaying gateway of the tests' own: fault_proxy.py PORT UPSTREAM FAULT
    FaultProxy(sys.argv[2], sys.argv[3], int(sys.argv[1])).serve_forever()
