"""The adapter side of the adapter protocol (spec/protocol.md): the one loop of every Python adapter.

Run as `python -m streamroute.reference.serve [ADAPTER]`, it serves the
reference router, ADAPTER being an adapter of streamroute.reference.adapter:
`router` (the default) or `arguments_done_router`. A thin loop over the same
adapter the harness uses in-process, so both paths run the same router and
executor.

The loop (`serve`, `answer`, `run_router`, `errored`, `reply_line`) needs the
standard library only and imports nothing of streamroute until `main` runs:
the Python library adapters (adapters/protocol_loop.py), whose virtualenvs
hold the library under test and nothing of streamroute, run this file by its
path and speak the protocol through the same code. The protocol version is read from
spec/protocol-start.schema.json, its one source, which sits beside this
package's folder in the repository and in an installed wheel alike.
"""

from __future__ import annotations

import base64
import functools
import json
import sys
import traceback
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .adapter import ReferenceAdapter

Message = dict[str, Any]
Outcomes = list[dict[str, Any]]
_START_SCHEMA = Path(__file__).resolve().parent.parent / "spec" / "protocol-start.schema.json"


def _protocol_version() -> int:
    number: int = json.loads(_START_SCHEMA.read_text(encoding="utf-8"))["$defs"]["version"]["const"]
    return number


PROTOCOL_VERSION = _protocol_version()


class Router(Protocol):
    """What `run_router` drives: events one at a time, or an sse vector's bytes."""

    def feed(self, event: Any) -> Outcomes: ...

    def feed_bytes(self, chunk: bytes) -> list[Outcomes]: ...

    def close(self) -> Outcomes: ...


def errored(where: str, exc: Exception) -> Message:
    """The reply fields for a vector during which the implementation raised: that is the finding."""
    message = f"{where}: {type(exc).__name__}: {exc}".replace("\n", " ")
    return {"errored": True, "message": message[:300], "details": traceback.format_exc()}


def run_router(factory: Callable[[Any], Router], vector: Message) -> Message:
    """The reply fields for one vector run through a new router: `factory(tools)`, fed each
    event, or for an sse vector each chunk's bytes (one entry per dispatched SSE event), then
    closed."""
    where = "building the router"
    try:
        router = factory(vector["tools"])
        events: list[Outcomes] = []
        if "chunks" in vector:
            for index, chunk in enumerate(vector["chunks"]):
                where = f"chunk {index}"
                events += router.feed_bytes(base64.b64decode(chunk))
        else:
            for index, event in enumerate(vector["events"]):
                where = f"event {index}"
                events.append(router.feed(event))
        where = "close"
        return {"events": events, "close": router.close()}
    except Exception as exc:  # the reference never raises; if it did, the vector is errored
        return errored(where, exc)


def answer(implementation: Message, run: Callable[[Message], Message], message: Message) -> Message | None:
    """The reply to one command, `run` answering a vector; None for `stop`."""
    command = message.get("cmd")
    if command == "start":  # whatever the harness speaks: it refuses a mismatch
        return {"version": PROTOCOL_VERSION, "implementation": implementation}
    if command == "run":
        return {"seq": message["seq"], **run(message["vector"])}
    if command == "stop":
        return None
    raise ValueError(f"unknown command {command!r}")


def reply_line(reply: Message) -> str:
    """One reply as one line of strict JSON (RFC 8259). A reply that has no such form (a
    number that is not finite, a value JSON has no type for) becomes an errored reply."""
    try:
        # ASCII JSON: lone surrogates of cut text stay escaped, whatever stdout's encoding.
        return json.dumps(reply, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as exc:
        message = f"the reply cannot be written as JSON: {type(exc).__name__}: {exc}"
        return json.dumps({"seq": reply.get("seq"), "errored": True, "message": message})


def serve(reply_to: Callable[[Message], Message | None]) -> None:
    """Answer each command on stdin with one line on stdout, until `stop` or the end of stdin."""
    replies, sys.stdout = sys.stdout, sys.stderr  # what an implementation prints must not reach the protocol
    try:
        for line in sys.stdin:
            reply = reply_to(json.loads(line))
            if reply is None:
                return
            replies.write(reply_line(reply) + "\n")
            replies.flush()
    finally:
        sys.stdout = replies


def reference_replies(adapter: ReferenceAdapter) -> Callable[[Message], Message | None]:
    """The reply to each command, for the reference router served through `adapter`."""
    implementation = {
        "name": "streamroute-reference",
        "version": version("streamroute"),
        "language": "python",
        "profiles": list(adapter.profiles),
        "options": adapter.options,
    }
    return functools.partial(answer, implementation, functools.partial(run_router, adapter))


def main(argv: Sequence[str] | None = None) -> int:
    from . import adapter as adapters  # here, not above: the loop is loaded by path without the package

    args = sys.argv[1:] if argv is None else argv
    name = args[0] if args else "router"
    adapter = getattr(adapters, name, None)
    if not isinstance(adapter, adapters.ReferenceAdapter):
        print(f"serve: {name!r} is not an adapter of streamroute.reference.adapter", file=sys.stderr)
        return 2
    serve(reference_replies(adapter))
    return 0


if __name__ == "__main__":
    sys.exit(main())
