"""On each `run`, writes one line of SIZE MiB: on stdout before its reply (`stdout`: out of
protocol), or on stderr before it exits with status 1 (`stderr`). Right otherwise."""

import sys

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, reference_replies, serve

answer = reference_replies(router)

stream = {"stdout": sys.stdout, "stderr": sys.stderr}[sys.argv[1]]
LINE = "x" * (int(sys.argv[2]) << 20) + "\n"


def reply_to(message: Message) -> Message | None:
    if message["cmd"] == "run":
        stream.write(LINE)
        stream.flush()
        if stream is sys.stderr:
            sys.exit(1)
    return answer(message)


serve(reply_to)
