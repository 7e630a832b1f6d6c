"""Never answers the second vector each process runs; right otherwise."""

import itertools
import sys
import time

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, reference_replies, serve

answer = reference_replies(router)

runs = itertools.count(1)


def reply_to(message: Message) -> Message | None:
    if message["cmd"] == "run" and next(runs) == 2:
        print("hang: second vector, sleeping on purpose", file=sys.stderr, flush=True)
        time.sleep(3600)
    return answer(message)


serve(reply_to)
