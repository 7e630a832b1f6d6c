"""Diff consumers: the interface, and the catalogue vectors use (spec/custom-tools.md).

A consumer watches one custom call's input while it streams (section 1 of the
spec). `consume(delta, at_ms)` answers None or one payload (a dict of fields,
which the router turns into a `diff.update`); `finish(input_text, at_ms)`
answers `Finished` (payloads for `diff.update`s, then at most one for the
`diff.finish`) or `Rejected` (a message for the model). Raising from either
is a consumer failure, which the router contains (CUSTOM-FAIL-1).

The catalogue (section 8) is `echo`, `silent`, `reject`, `raise` and `patch`.
An adapter author installs it for a vector's tool list in one line:

    registry = consumers_for(tools)  # {(namespace, name): factory}

and calls `registry[(namespace, name)]()` for a fresh consumer per call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .patch import PatchError, PatchParser
from .types import Payload

ToolName = tuple[str | None, str]  # (namespace, name): how a custom call names its tool

# CUSTOM-PATCH-4: at most one diff.update per this much stream time.
PREVIEW_INTERVAL_MS = 500


@dataclass(frozen=True)
class Finished:
    """`finish` accepted the call: `diff.update` per update, then `diff.finish` if `result`."""

    updates: tuple[Payload, ...] = ()
    result: Payload | None = None


@dataclass(frozen=True)
class Rejected:
    """`finish` refused the call: `tool.error` `consumer_rejected` with `message` (CUSTOM-FIN-3)."""

    message: str


class DiffConsumer(Protocol):
    def consume(self, delta: str, at_ms: int) -> Payload | None: ...

    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected: ...


ConsumerFactory = Callable[[], DiffConsumer]
ConsumerRegistry = Mapping[ToolName, ConsumerFactory]


class Echo:
    """CUSTOM-CAT-2: every delta answers itself and the buffer so far. For tests: O(n) per delta."""

    def __init__(self) -> None:
        self.buffer = ""

    def consume(self, delta: str, at_ms: int) -> Payload | None:
        self.buffer += delta
        return {"delta": delta, "buffer": self.buffer}

    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return Finished(result={"buffer": self.buffer})


class Silent:
    """CUSTOM-CAT-3: nothing per delta; the buffer at finish."""

    def __init__(self) -> None:
        self._deltas: list[str] = []

    def consume(self, delta: str, at_ms: int) -> Payload | None:
        self._deltas.append(delta)
        return None

    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return Finished(result={"buffer": "".join(self._deltas)})


class Reject:
    """CUSTOM-CAT-4: nothing per delta; finish rejects."""

    def consume(self, delta: str, at_ms: int) -> Payload | None:
        return None

    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        return Rejected("the reject consumer refuses every call")


class ConsumerError(Exception):
    """What the `raise` consumer raises."""


class Raise:
    """CUSTOM-CAT-5, CUSTOM-CAT-7: consume and finish both fail."""

    def consume(self, delta: str, at_ms: int) -> Payload | None:
        raise ConsumerError("the raise consumer fails on every delta")

    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        raise ConsumerError("the raise consumer fails at finish")


class Patch:
    """CUSTOM-CAT-6: the streaming apply_patch preview, throttled by stream time.

    Inside the throttle's interval no update can be emitted, so a delta is only
    kept; the text received since the last parse is parsed when an update may
    be due, and at finish. What is parsed depends only on the concatenated
    text (CUSTOM-PATCH-1), so the previews are the same as parsing every delta
    at once, and each piece of text is still parsed once (patch.py). A
    snapshot is built only when an update is emitted, so the cost of a stream
    is linear in its length plus the size of the updates emitted, at most one
    per PREVIEW_INTERVAL_MS of stream time.
    """

    def __init__(self) -> None:
        self._parser = PatchParser()
        self._deltas: list[str] = []  # the streamed text, joined once at finish
        self._parsed = 0  # how many of the deltas the parser has been given
        self._pending = False  # the preview changed since the last update emitted
        self._last_emitted_ms: int | None = None

    def consume(self, delta: str, at_ms: int) -> Payload | None:
        self._deltas.append(delta)
        last = self._last_emitted_ms
        if last is not None and at_ms - last < PREVIEW_INTERVAL_MS:
            return None  # CUSTOM-PATCH-4: inside the interval
        if not self._catch_up():
            return None  # nothing new, or a parse error stopped the previews (CUSTOM-PATCH-6)
        self._pending = False
        self._last_emitted_ms = at_ms
        return {"files": self._parser.files()}

    def _catch_up(self) -> bool:
        """Parse the deltas not parsed yet; True when a preview is pending and may be shown."""
        deltas = self._deltas
        if self._parser.feed("".join(deltas[self._parsed :])):
            self._pending = True
        self._parsed = len(deltas)
        return self._pending and self._parser.error is None

    def finish(self, input_text: str, at_ms: int) -> Finished | Rejected:
        self._catch_up()
        parser = self._parser
        if "".join(self._deltas) != input_text:  # CUSTOM-PATCH-5: judge the complete input
            parser = PatchParser()
            parser.feed(input_text)
        try:
            parser.finish()
        except PatchError as error:
            return Rejected(str(error))
        stream_ok = self._parser.error is None
        updates = ({"files": self._parser.files()},) if self._pending and stream_ok else ()
        return Finished(updates=updates, result={"files": parser.files()})


CATALOGUE: dict[str, ConsumerFactory] = {
    "echo": Echo,
    "silent": Silent,
    "reject": Reject,
    "raise": Raise,
    "patch": Patch,
}


def consumers_for(tools: Iterable[Mapping[str, Any]]) -> dict[ToolName, ConsumerFactory]:
    """The consumer registry of a vector's tool list (CUSTOM-CAT-1): one line for an adapter."""
    return {
        (tool.get("namespace"), tool["name"]): CATALOGUE[tool["consumer"]]
        for tool in tools
        if tool.get("type") == "custom" and tool.get("consumer") is not None
    }
