"""In-process adapters that attack the harness: each does one thing no router should do in `feed`.

None of them may pass a vector, end the run early or crash the harness
(tests/test_hostile_adapters.py); the user's own Ctrl-C still stops the run.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any


def _pytest() -> Any:
    import pytest  # here: importing this module stays quick, for the tests that start a process

    return pytest


class Hostile:
    """Routes nothing: `feed` attacks, `close` answers no outcome."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        pass

    def feed(self, event: Any) -> Any:
        return self.attack()

    def attack(self) -> Any:
        raise NotImplementedError

    def close(self) -> list[Any]:
        return []


class ExitsZero(Hostile):
    def attack(self) -> Any:
        sys.exit(0)


class RaisesGeneratorExit(Hostile):
    def attack(self) -> Any:
        raise GeneratorExit


class RaisesKeyboardInterrupt(Hostile):
    """Raises KeyboardInterrupt itself; nobody pressed Ctrl-C."""

    def attack(self) -> Any:
        raise KeyboardInterrupt


class Skips(Hostile):
    def attack(self) -> Any:
        _pytest().skip("not today")


class XFails(Hostile):
    def attack(self) -> Any:
        _pytest().xfail("known to fail")


class ExitsPytest(Hostile):
    def attack(self) -> Any:
        _pytest().exit("enough", returncode=0)


class Hangs(Hostile):
    def attack(self) -> Any:
        while True:
            time.sleep(60)


class CatchesTheDeadline(Hostile):
    """Catches whatever interrupts its first wait, then answers as if on time."""

    waited = False

    def attack(self) -> Any:
        if not self.waited:
            self.waited = True
            with contextlib.suppress(BaseException):
                time.sleep(60)
        return []


class IgnoresTheDeadline(Hostile):
    """Catches everything, for ever: only the watchdog ends it, and the process with it (run it in a
    process of its own)."""

    def attack(self) -> Any:
        while True:
            with contextlib.suppress(BaseException):
                time.sleep(60)


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise SystemExit(0)


class RaisesTheUnprintable(Hostile):
    def attack(self) -> Any:
        raise _Unprintable


class AnswersBytes(Hostile):
    def attack(self) -> Any:
        return [{"kind": "ignored", "event_type": b"response.created"}]


class AnswersTooDeep(Hostile):
    """An outcome nested deeper than the harness parses from an adapter command."""

    def attack(self) -> Any:
        deep: Any = "bottom"
        for _ in range(900):
            deep = [deep]
        return [{"kind": "ignored", "event_type": "response.created", "deep": deep}]


class AnswersForEver(Hostile):
    def attack(self) -> Any:
        return itertools.repeat({"kind": "ignored", "event_type": "response.created"})


class _Booby(dict[str, Any]):
    def items(self) -> Any:
        raise SystemExit(0)


class AnswersABoobyTrap(Hostile):
    """A dict whose `items` exits: the harness must not call it outside the deadline's rules."""

    def attack(self) -> Any:
        return [_Booby(kind="ignored", event_type="response.created")]


class ClaimsAnUnknownProfile(Hostile):
    profiles = ("core", "ssee")


class PressesCtrlC(Hostile):
    """The user's Ctrl-C, as the process receives it."""

    def attack(self) -> Any:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(60)


class SwallowsCtrlC(Hostile):
    """Receives the user's Ctrl-C and carries on."""

    pressed = False

    def attack(self) -> Any:
        if not self.pressed:
            self.pressed = True
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(60)
            except BaseException:
                pass
        return []


class EndsTheProcess(Hostile):
    """Ends the process it runs in, at once, with exit status 0: no exception, no cleanup."""

    def attack(self) -> Any:
        os._exit(0)


class KillsItself(Hostile):
    def attack(self) -> Any:
        os.kill(os.getpid(), signal.SIGKILL)


class EndsTheProcessOnce(Hostile):
    """Ends its process on the first vector whose first event is `response.created`; then routes
    nothing, so that every later vector runs (in a new worker) and fails."""

    def feed(self, event: Any) -> Any:
        if isinstance(event, Mapping) and event.get("type") == "response.created":
            marker = os.environ.get("STREAMROUTE_TEST_MARKER", "")
            if marker and not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(0)
        return []


class ClosesItsPipes(Hostile):
    """Closes every file descriptor past stderr, the harness's pipes among them."""

    def attack(self) -> Any:
        os.closerange(3, 1024)
        return []


class ForksAndRoutes:
    """The reference router, forking at every event: parent and child both go on from `feed`."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        from streamroute.reference import Router

        self.router = Router()

    def feed(self, event: Any) -> Any:
        os.fork()
        return self.router.feed(event)

    def close(self) -> Any:
        return self.router.close()
