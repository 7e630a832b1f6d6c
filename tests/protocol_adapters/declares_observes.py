"""The reference, declaring the `observes` given as JSON on its command line (spec/observation.md)."""

import json
import sys

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, reference_replies, serve

answer = reference_replies(router)


def reply_to(message: Message) -> Message | None:
    reply = answer(message)
    if message["cmd"] == "start" and reply is not None:
        reply["implementation"]["observes"] = json.loads(sys.argv[1])
    return reply


serve(reply_to)
