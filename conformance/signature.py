"""How a vector fails, in one short line that an expected-failures file pins (docs/ci.md).

A signature is the failure's status, the requirements it charges (spec/vectors.md section 5) and
its first difference: `failed CORE-ARGS-4: missing tool.call`, `failed CORE-CALL-1: tool.error
(invalid_json) became tool.call`, `failed CORE-TEXT-2: text.done text differs`, `errored
CORE-EVT-1: no answer at event 3`. It names kinds, codes and field names, never values, so the
same implementation failing the same vector the same way gives the same signature on every run,
and a change in what it does wrong (another kind, another code, another field, another
requirement charged) gives another. It holds no `#` and no run of spaces, so a file can state it
between a vector id and a comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .differences import Difference

_PLAIN = re.compile(r"[A-Za-z0-9_.:/-]+")


def _token(value: Any) -> str:
    """A kind, a code or a field name as one word: as it is when it is plain, else as JSON."""
    if isinstance(value, str) and _PLAIN.fullmatch(value):
        return value
    text = json.dumps(value, ensure_ascii=True, default=repr)
    return text.replace(" ", "\\u0020").replace("#", "\\u0023")


def _outcome(outcome: Mapping[str, Any]) -> str:
    """An outcome's kind, with its code when it has one: `tool.error(invalid_json)`."""
    kind = _token(outcome.get("kind"))
    return f"{kind}({_token(outcome['code'])})" if "code" in outcome else kind


def difference_words(difference: Difference | None, at_event: int | None = None) -> str:
    """The first difference of a failure, in a few words."""
    if difference is None:
        return "differs"
    want, got = difference.expected, difference.produced
    if difference.failure == "raised":
        return "no answer" + (f" at event {at_event}" if at_event is not None else "")
    if difference.failure == "invalid":
        return f"invalid {_outcome(got or {})} at {_token(difference.field or '/')}"
    if difference.failure == "dispatched":
        return "dispatched another number of SSE events"
    if got is None:
        return f"missing {_outcome(want or {})}"
    if want is None:
        return f"unexpected {_outcome(got)}"
    if want.get("kind") != got.get("kind") or want.get("code") != got.get("code"):
        return f"{_outcome(want)} became {_outcome(got)}"
    if difference.field == "at":
        return f"{_outcome(want)} from another event"
    return f"{_outcome(want)} {_token(difference.field)} differs"


def signature(status: str, charged: Sequence[str], words: str) -> str:
    """The whole signature: `failed CORE-ARGS-4,CORE-CALL-1: missing tool.call`."""
    return f"{status} {','.join(charged) or 'nothing'}: {words}"


def normalized(text: str) -> str:
    """A signature as read from a file: its runs of white space as one space."""
    return " ".join(text.split())
