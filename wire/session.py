"""What a session's entries are (spec/session.md): the client's steps, and the events of the
connection rather than of one response."""

from __future__ import annotations

from typing import Literal

# The client's steps of a session, which a session vector starts with (section 8).
SESSION_STEPS = frozenset({"send", "disconnect", "connect"})

Acknowledgement = Literal["accept", "hold", "fail"]
# The server's acknowledgements of a steer, and what each says of it (section 6).
ACKNOWLEDGEMENTS: dict[str, Acknowledgement] = {
    "response.steer.accepted": "accept",
    "response.steer.pending": "hold",
    "response.steer.failed": "fail",
}
# The server's answers to a `response.inject`: no turn's events (SESSION-INJECT-2).
INJECTIONS = frozenset({"response.inject.created", "response.inject.failed"})
# The `error` code with which the server ends a connection at its limit (SESSION-LIMIT-1).
LIMIT_REACHED = "websocket_connection_limit_reached"


def is_step(entry: object) -> bool:
    """A client step is an object with a string `control` and no `type`, as execution's control
    steps are (spec/execution.md section 11)."""
    return isinstance(entry, dict) and isinstance(entry.get("control"), str) and "type" not in entry
