"""The adapter-protocol loop (spec/protocol.md) shared by the Python library adapters.

Standard library only, so that an adapter's virtualenv holds the library under
test and nothing of streamroute. An adapter gives `serve` its `start` reply and
a factory: `factory(tools)` returns an object with `feed(event) -> list` and
`close() -> list` that translates what the library exposes into outcomes. An
exception raised by the library while a vector runs becomes an `errored`
reply naming the event; the adapter itself stays up for the next vector.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Any, Protocol

PROTOCOL_VERSION = 1


class Router(Protocol):
    def feed(self, event: Any) -> list[dict[str, Any]]: ...

    def close(self) -> list[dict[str, Any]]: ...


def _run(factory: Callable[[list[Any]], Router], seq: Any, vector: dict[str, Any]) -> dict[str, Any]:
    where = "building the router"
    try:
        router = factory(vector["tools"])
        events = []
        for index, event in enumerate(vector["events"]):
            where = f"event {index}"
            events.append(router.feed(event))
        where = "close"
        return {"seq": seq, "events": events, "close": router.close()}
    except Exception as exc:  # the library raised: that is the finding
        message = f"{where}: {type(exc).__name__}: {exc}".replace("\n", " ")
        return {"seq": seq, "errored": True, "message": message[:300], "details": traceback.format_exc()}


def serve(implementation: dict[str, Any], factory: Callable[[list[Any]], Router]) -> None:
    """Answer each command on stdin with one line on stdout, until `stop` or the end of stdin."""
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("cmd") == "stop":
            return
        if command.get("cmd") == "start":
            reply: dict[str, Any] = {"version": PROTOCOL_VERSION, "implementation": implementation}
        elif "chunks" in command["vector"]:  # sse vectors: these adapters claim core only
            reply = {"seq": command["seq"], "skipped": True, "reason": "the adapter claims core only"}
        else:
            reply = _run(factory, command["seq"], command["vector"])
        try:
            text = json.dumps(reply)  # ASCII: lone surrogates stay escaped
        except (TypeError, ValueError) as exc:
            text = json.dumps(
                {"seq": reply.get("seq"), "errored": True, "message": f"unencodable outcome: {exc}"}
            )
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
