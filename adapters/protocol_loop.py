"""The adapter-protocol loop (spec/protocol.md) shared by the Python library adapters.

Standard library only, so that an adapter's virtualenv holds the library under
test and nothing of streamroute. Two kinds of adapter use it.

- `serve(implementation, factory)`: `factory(tools)` returns an object with
  `feed(event) -> list` and `close() -> list` that translates what a router
  exposes into outcomes, one event at a time.
- `serve_streams(implementation, run)`: `run(vector, tally)` hands a library
  the vector's whole stream as the body of an HTTP response (`body`), reads
  it as an application would, and adds each outcome to `tally`, which puts
  it under the event the library was handling then.

An exception raised by the library while a vector runs becomes an `errored`
reply naming the event; the adapter itself stays up for the next vector.
"""

from __future__ import annotations

import base64
import json
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import Any, Protocol

PROTOCOL_VERSION = 1


class Router(Protocol):
    def feed(self, event: Any) -> list[dict[str, Any]]: ...

    def close(self) -> list[dict[str, Any]]: ...


class Tally:
    """The outcomes of one run, each under the event the library was handling when it produced it.

    `next_event()` starts the next event's list: for a core vector when the
    library reads that event's bytes (`body` calls it), for an sse vector when
    the library's SSE decoder dispatches an event (the adapter's tap calls
    it). `closing()` is called once the body has ended: what comes after
    belongs to close. Events the library never read get empty lists.
    """

    def __init__(self, events: int = 0) -> None:
        self.events: list[list[dict[str, Any]]] = []
        self.close: list[dict[str, Any]] = []
        self._current: list[dict[str, Any]] | None = None
        self._padding = events

    def next_event(self) -> None:
        self._current = []
        self.events.append(self._current)

    def closing(self) -> None:
        self._current = self.close

    def add(self, outcomes: list[dict[str, Any]]) -> None:
        if self._current is None:
            raise RuntimeError("outcomes before the library read any event")
        self._current += outcomes

    def where(self) -> str:
        if self._current is None:
            return "the request"
        return "close" if self._current is self.close else f"event {len(self.events) - 1}"

    def reply(self) -> dict[str, Any]:
        unread: list[list[dict[str, Any]]] = [[] for _ in range(self._padding - len(self.events))]
        return {"events": self.events + unread, "close": self.close}


def sse_event(event: Any) -> bytes:
    """One event as the API sends it: an `event:` line naming its type, its JSON on a `data:` line."""
    kind = event.get("type") if isinstance(event, dict) else None
    named = isinstance(kind, str) and "\n" not in kind and "\r" not in kind
    return ((f"event: {kind}\n" if named else "") + f"data: {json.dumps(event)}\n\n").encode()


def body(vector: dict[str, Any], tally: Tally) -> Iterator[bytes]:
    """The HTTP response body for a vector: each core event as one read, or the sse vector's chunks as cut."""
    if "chunks" in vector:
        yield from (base64.b64decode(chunk) for chunk in vector["chunks"])
    else:
        for event in vector["events"]:
            tally.next_event()
            yield sse_event(event)
    tally.closing()


def _errored(where: str, exc: Exception) -> dict[str, Any]:
    message = f"{where}: {type(exc).__name__}: {exc}".replace("\n", " ")
    return {"errored": True, "message": message[:300], "details": traceback.format_exc()}


def _route(factory: Callable[[list[Any]], Router], vector: dict[str, Any]) -> dict[str, Any]:
    if "chunks" in vector:  # a router fed events has no SSE decoder to give bytes to
        return {"skipped": True, "reason": "the adapter claims core only"}
    where = "building the router"
    try:
        router = factory(vector["tools"])
        events = []
        for index, event in enumerate(vector["events"]):
            where = f"event {index}"
            events.append(router.feed(event))
        where = "close"
        return {"events": events, "close": router.close()}
    except Exception as exc:  # the library raised: that is the finding
        return _errored(where, exc)


def _stream(run: Callable[[dict[str, Any], Tally], None], vector: dict[str, Any]) -> dict[str, Any]:
    tally = Tally(len(vector.get("events", ())))
    try:
        run(vector, tally)
    except Exception as exc:  # the library raised something it does not document: that is the finding
        return _errored(tally.where(), exc)
    return tally.reply()


def _loop(implementation: dict[str, Any], answer: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Answer each command on stdin with one line on stdout, until `stop` or the end of stdin."""
    replies, sys.stdout = sys.stdout, sys.stderr  # what a library prints must not reach the protocol
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("cmd") == "stop":
            return
        if command.get("cmd") == "start":
            reply: dict[str, Any] = {"version": PROTOCOL_VERSION, "implementation": implementation}
        else:
            reply = {"seq": command["seq"], **answer(command["vector"])}
        try:
            text = json.dumps(reply)  # ASCII: lone surrogates stay escaped
        except (TypeError, ValueError) as exc:
            text = json.dumps(
                {"seq": reply.get("seq"), "errored": True, "message": f"unencodable outcome: {exc}"}
            )
        replies.write(text + "\n")
        replies.flush()


def serve(implementation: dict[str, Any], factory: Callable[[list[Any]], Router]) -> None:
    """Serve a router fed one event at a time."""
    _loop(implementation, lambda vector: _route(factory, vector))


def serve_streams(implementation: dict[str, Any], run: Callable[[dict[str, Any], Tally], None]) -> None:
    """Serve a library that reads each vector's stream from an HTTP response body."""
    _loop(implementation, lambda vector: _stream(run, vector))
