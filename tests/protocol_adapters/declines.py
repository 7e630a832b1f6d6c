"""Not broken: skips vectors whose id ends in `-skip` and reports an error on those ending in `-error`."""

from streamroute.reference.adapter import router
from streamroute.reference.serve import Message, reference_replies, serve

answer = reference_replies(router)


def reply_to(message: Message) -> Message | None:
    if message["cmd"] == "run":
        seq, vector_id = message["seq"], message["vector"]["id"]
        if vector_id.endswith("-skip"):
            return {
                "seq": seq,
                "skipped": True,
                "reason": "not supported yet",
                "issue_url": "https://example.org/1",
            }
        if vector_id.endswith("-error"):
            return {"seq": seq, "errored": True, "message": "KeyError: 'delta'", "details": "Traceback: ..."}
    return answer(message)


serve(reply_to)
