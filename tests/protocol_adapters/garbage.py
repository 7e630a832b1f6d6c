"""Prints a debugging line on stdout before each reply to `run`: not the protocol."""

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, answer, serve


def reply_to(message: Message) -> Message | None:
    if message["cmd"] == "run":
        print(f"routing {message['vector']['id']}...", flush=True)
    return answer(router, message)


serve(reply_to)
