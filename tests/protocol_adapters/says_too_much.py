"""Says megabytes where a line is due: an `errored` message and details of several MiB on vectors
whose id ends in `-error`, a `skipped` reason of 1 MiB on those ending in `-skip`, and an `end`
whose status is a 4 MiB string on the others."""

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, reference_replies, serve

answer = reference_replies(router)

MIB = 1 << 20


def reply_to(message: Message) -> Message | None:
    reply = answer(message)
    if message["cmd"] != "run" or reply is None:
        return reply
    seq, vector_id = message["seq"], message["vector"]["id"]
    if vector_id.endswith("-error"):
        return {"seq": seq, "errored": True, "message": "m" * MIB, "details": "d" * 8 * MIB}
    if vector_id.endswith("-skip"):
        return {"seq": seq, "skipped": True, "reason": "r" * MIB}
    reply["close"] = [{"kind": "end", "status": "x" * 4 * MIB}]
    return reply


serve(reply_to)
