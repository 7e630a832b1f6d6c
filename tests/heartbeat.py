"""The project's own tests, talking while they run: what the README's test command prints.

`tox run-parallel -m check --parallel-live` runs tox environments side by side, their output mixed
as it comes. pytest's own progress (a letter a test, a percentage a line) says nothing while one
slow test runs for minutes, and two environments' letters interleave into lines no one can read.
So, off a terminal, a line comes every PERIOD seconds (conformance/progress.py) naming how far the
tests are and which one runs, for how long; and under tox (`STREAMROUTE_TEST_PROGRESS`, set by
tox.ini to the environment's name, which starts each line) every line is whole: each failure is a
line of its own as it happens, and pytest's letters are left out (its report at the end is kept).
On a terminal, outside tox, pytest shows its progress as always.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Generator
from typing import Any, TextIO

import pytest
from streamroute.conformance.progress import Progress

VARIABLE = "STREAMROUTE_TEST_PROGRESS"


class Heartbeat:
    def __init__(
        self, stream: TextIO, prefix: str, whole_lines: bool, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream = stream
        self.whole_lines = whole_lines
        # pytest's letters leave a line open: off tox, a line of progress starts a line of its own.
        opening = "" if whole_lines else "\n"
        self.progress = Progress(
            "tests", prefix=prefix, stream=stream, live=False, clock=clock, opening=opening
        )
        self._ticking = contextlib.ExitStack()

    def pytest_sessionstart(self) -> None:
        self._ticking.enter_context(self.progress.ticking())

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.progress.total = len(session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, ids: list[str]) -> None:
        """Under xdist the workers collect, each all the tests: the controller collects none."""
        self.progress.total = len(ids)

    def pytest_sessionfinish(self) -> None:
        self._ticking.close()

    def pytest_unconfigure(self) -> None:
        self.stream.close()

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.progress.step(nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and self.whole_lines:
            what = "FAILED" if report.when == "call" else f"ERROR at {report.when}"
            self.progress.say(f"{self.progress.prefix}: {what} {report.nodeid}", self.stream)

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        self.progress.finished()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_report_teststatus(self) -> Generator[None, Any, None]:
        """Under tox, each test's status as pytest has it, with no letter to print of it."""
        outcome = yield
        status = outcome.get_result()
        if self.whole_lines and status:
            category, _, word = status
            outcome.force_result((category, "", word))


def heartbeat(config: pytest.Config) -> Heartbeat | None:
    """The heartbeat this session needs: none on a terminal outside tox, nor in an xdist worker,
    whose controller hears of every test."""
    prefix = os.environ.get(VARIABLE)
    if hasattr(config, "workerinput") or (prefix is None and sys.stdout.isatty()):
        return None
    # The terminal, not pytest's capture of it: capture is off while plugins are configured.
    stream = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1, encoding="utf-8", errors="replace")
    return Heartbeat(stream, prefix or "tests", prefix is not None)
