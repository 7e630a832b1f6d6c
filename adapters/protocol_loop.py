"""The Python library adapters' side of the adapter protocol: its loop, and each vector as an HTTP response.

Standard library only, so that an adapter's virtualenv holds the library under
test and nothing of streamroute. The loop is the reference's own,
reference/serve.py, run from its file (it needs the standard library only),
so every Python adapter speaks the protocol through one piece of code.

`serve_streams(implementation, run)` serves a library: `run(vector, tally)`
hands it the vector's whole stream as the body of an HTTP response (`body`),
reads it as an application would, and adds each outcome to `tally`, which
puts it under the event the library was handling then. An exception raised
by the library while a vector runs becomes an `errored` reply naming the
event; the adapter itself stays up for the next vector.
"""

from __future__ import annotations

import base64
import functools
import json
import runpy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# The protocol loop, run from its file: the module namespace of reference/serve.py.
_loop = runpy.run_path(str(Path(__file__).resolve().parent.parent / "reference" / "serve.py"))
errored, answer, serve = _loop["errored"], _loop["answer"], _loop["serve"]


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


# The tool types of a vector's registry whose calls the client runs; any other is a server tool
# (vector.schema.json `$defs/server_tool`), which the request declares and the server runs.
CLIENT_TOOL_TYPES = ("function", "custom")


def client_tools(declared: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The vector's tools whose calls the client runs: its function and custom tools."""
    return [tool for tool in declared if tool["type"] in CLIENT_TOOL_TYPES]


def server_tools(declared: list[dict[str, Any]]) -> set[str]:
    """The types of the vector's server tools (`programmatic_tool_calling`), which make no call."""
    return {tool["type"] for tool in declared if tool["type"] not in CLIENT_TOOL_TYPES}


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


class Declined(Exception):
    """A vector the library cannot be given as a real application would meet it (the reason says
    why): `run` raises it before the library reads anything, and the vector is skipped."""


def _stream(
    run: Callable[[dict[str, Any], Tally], None], no_custom_tools: str | None, vector: dict[str, Any]
) -> dict[str, Any]:
    if no_custom_tools is not None and any(tool["type"] == "custom" for tool in vector["tools"]):
        return {"skipped": True, "reason": no_custom_tools}
    tally = Tally(len(vector.get("events", ())))
    try:
        run(vector, tally)
    except Declined as declined:
        return {"skipped": True, "reason": str(declined)}
    except Exception as exc:  # the library raised something it does not document: that is the finding
        return errored(tally.where(), exc)
    return tally.reply()


def serve_streams(
    implementation: dict[str, Any],
    run: Callable[[dict[str, Any], Tally], None],
    no_custom_tools: str | None = None,
) -> None:
    """Serve a library that reads each vector's stream from an HTTP response body; a library that
    cannot be given a custom tool says why in `no_custom_tools`, and such vectors are skipped."""
    serve(functools.partial(answer, implementation, functools.partial(_stream, run, no_custom_tools)))
