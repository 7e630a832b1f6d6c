"""The reference router served over the adapter protocol of spec/protocol.md.

Run as `python -m streamroute.reference.serve [ADAPTER]`, ADAPTER being an
adapter of streamroute.reference.adapter: `router` (the default) or
`arguments_done_router`. A thin loop over the same adapter the harness uses
in-process, so both paths run the same router and executor.
"""

from __future__ import annotations

import base64
import functools
import json
import sys
import traceback
from collections.abc import Callable, Sequence
from importlib.metadata import version
from typing import Any

from . import adapter as adapters
from .adapter import ReferenceAdapter

PROTOCOL_VERSION = 1
Message = dict[str, Any]


def start_reply(adapter: ReferenceAdapter) -> Message:
    return {
        "version": PROTOCOL_VERSION,  # whatever the harness speaks: it refuses a mismatch
        "implementation": {
            "name": "streamroute-reference",
            "version": version("streamroute"),
            "language": "python",
            "profiles": list(adapter.profiles),
            "options": adapter.options,
        },
    }


def run_reply(adapter: ReferenceAdapter, seq: Any, vector: Message) -> Message:
    try:
        router = adapter(vector["tools"])
        if "chunks" in vector:  # an sse vector: one entry per dispatched SSE event
            chunks = (base64.b64decode(chunk) for chunk in vector["chunks"])
            events = [outcomes for chunk in chunks for outcomes in router.feed_bytes(chunk)]
        else:
            events = [router.feed(event) for event in vector["events"]]
        return {"seq": seq, "events": events, "close": router.close()}
    except Exception as exc:  # the reference never raises; if it did, the vector is errored
        message = f"{type(exc).__name__}: {exc}"
        return {"seq": seq, "errored": True, "message": message, "details": traceback.format_exc()}


def answer(adapter: ReferenceAdapter, message: Message) -> Message | None:
    """The reply to one command; None for `stop`."""
    command = message.get("cmd")
    if command == "start":
        return start_reply(adapter)
    if command == "run":
        return run_reply(adapter, message["seq"], message["vector"])
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
    for line in sys.stdin:
        reply = reply_to(json.loads(line))
        if reply is None:
            return
        sys.stdout.write(reply_line(reply) + "\n")
        sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    name = args[0] if args else "router"
    adapter = getattr(adapters, name, None)
    if not isinstance(adapter, ReferenceAdapter):
        print(f"serve: {name!r} is not an adapter of streamroute.reference.adapter", file=sys.stderr)
        return 2
    serve(functools.partial(answer, adapter))
    return 0


if __name__ == "__main__":
    sys.exit(main())
