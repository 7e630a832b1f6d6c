"""Answers `run` with JSON nested too deep: the whole reply 100,000 levels deep (`reply`), or a
field of its `end` outcome 990 levels deep (`outcome`). Right otherwise."""

import json
import sys

from streamroute.reference.adapter import router
from streamroute.reference.serve import reference_replies, reply_line

answer = reference_replies(router)

where = sys.argv[1]
for line in sys.stdin:
    message = json.loads(line)
    reply = answer(message)
    if reply is None:
        break
    text = reply_line(reply)
    if message["cmd"] == "run" and where == "reply":
        text = "[" * 100_000 + "]" * 100_000
    elif message["cmd"] == "run":
        end = '{"kind": "end", "status": "completed", "trace": %s}' % ("[" * 990 + "]" * 990)
        text = text[: text.rindex('"close"')] + f'"close": [{end}]}}'
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
