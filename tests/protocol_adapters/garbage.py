"""Writes a debugging line on stdout before each reply to `run`: not the protocol. (What it
prints goes to stderr: the loop keeps stdout for replies; so the line goes around it.)"""

import sys

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, reference_replies, serve

answer = reference_replies(router)


def reply_to(message: Message) -> Message | None:
    if message["cmd"] == "run":
        print(f"routing {message['vector']['id']}...", file=sys.__stdout__, flush=True)
    return answer(message)


serve(reply_to)
