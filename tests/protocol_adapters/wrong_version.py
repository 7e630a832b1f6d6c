"""Speaks a protocol version from the future."""

from streamroute.reference.adapter import router
from streamroute.reference.serve import PROTOCOL_VERSION, Message, reference_replies, serve

answer = reference_replies(router)


def reply_to(message: Message) -> Message | None:
    reply = answer(message)
    if message["cmd"] == "start" and reply is not None:
        reply["version"] = PROTOCOL_VERSION + 1
    return reply


serve(reply_to)
