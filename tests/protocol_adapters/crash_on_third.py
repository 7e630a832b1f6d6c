"""Exits with status 3 on the third vector each process runs; right otherwise."""

import itertools
import sys

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, reference_replies, serve

answer = reference_replies(router)

runs = itertools.count(1)


def reply_to(message: Message) -> Message | None:
    if message["cmd"] == "run" and next(runs) == 3:
        print("crash_on_third: third vector, exiting on purpose", file=sys.stderr)
        sys.exit(3)
    return answer(message)


serve(reply_to)
