"""Speaks a protocol version from the future."""

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, answer, serve


def reply_to(message: Message) -> Message | None:
    reply = answer(router, message)
    if message["cmd"] == "start" and reply is not None:
        reply["version"] = 2
    return reply


serve(reply_to)
