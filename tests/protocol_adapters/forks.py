"""Starts a process that holds its pipes and sleeps, and writes its pid to PIDFILE: a child in
the adapter's process group (`child`), or one that leaves it with setsid (`session`). With
`crash`, it exits with status 3 on each vector; right otherwise."""

import os
import sys
import time

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, reference_replies, serve

answer = reference_replies(router)

mode, pidfile, *crash = sys.argv[1:]
child = os.fork()
if child == 0:
    if mode == "session":
        os.setsid()
    time.sleep(60)
    os._exit(0)
with open(pidfile, "a", encoding="ascii") as pids:
    pids.write(f"{child}\n")


def reply_to(message: Message) -> Message | None:
    if message["cmd"] == "run" and crash:
        sys.exit(3)
    return answer(message)


serve(reply_to)
