"""Claims the profiles named on its command line, and never produces `end` at close."""

import sys

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, reference_replies, serve

answer = reference_replies(router)


def reply_to(message: Message) -> Message | None:
    reply = answer(message)
    if message["cmd"] == "start" and reply is not None:
        reply["implementation"]["profiles"] = sys.argv[1:]
    if message["cmd"] == "run" and reply is not None:
        reply["close"] = [outcome for outcome in reply["close"] if outcome["kind"] != "end"]
    return reply


serve(reply_to)
