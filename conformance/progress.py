"""What a long command is doing, shown while it does it: `run`, `fuzz`, `matrix`, `probe`, and the
project's own tests (tests/conftest.py).

On a terminal, one status line, rewritten in place (`[12/391] 1 failed · core/args/cut-inside-number`)
and cleared before anything else is printed, so that it never mixes with the output. Elsewhere (a
CI log, a pipe) a line whenever PERIOD seconds have passed since the last one, naming how far the
command is and what is running, for how long: a job is never silent for 30 seconds, and a fast
one prints no such line at all. While `ticking`, a thread looks at the clock every TICK seconds,
so that one step that runs long (a hung adapter, a pip install) is reported as it runs.

The clock, the stream and whether it is a terminal are given, so that tests count the lines a
fake clock makes, never a measured time. Every write holds one lock, which a fork waits for, so
that a worker forked from the harness never inherits a stream locked mid-write.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

PERIOD = 20.0  # seconds between lines off a terminal: with a tick's delay, well within 30
TICK = 1.0  # how often the thread looks

_WRITING = threading.Lock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_WRITING.acquire, after_in_parent=_WRITING.release, after_in_child=_WRITING.release
    )


class Progress:
    """How far a command is: `done` of `total` steps of `what` (`vectors`), `failed` of them, and
    the one `running` since `since`."""

    def __init__(
        self,
        what: str = "",
        total: int | None = None,
        *,
        prefix: str = "streamroute",
        stream: TextIO | None = None,
        live: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        opening: str = "",
    ) -> None:
        self.what, self.total, self.prefix = what, total, prefix
        self.opening = opening  # written before each line: "\n" when others leave a line open
        self.stream = sys.stderr if stream is None else stream
        self.live = _is_terminal(self.stream) if live is None else live
        self.clock = clock
        self.done = self.failed = 0
        self.running: str | None = None
        self.since = self.last_line = clock()
        self._shown = False  # a status line is on the terminal

    def step(self, running: str) -> None:
        """`running` starts."""
        with _WRITING:
            self.running, self.since = running, self.clock()
            self._draw()

    def finished(self, failed: bool = False) -> None:
        """The running step ended, failed or not."""
        with _WRITING:
            self.done += 1
            self.failed += failed
            self.running = None
            self._draw()

    def say(self, text: str, file: TextIO | None = None) -> None:
        """Print `text` (a line, or lines) to `file` (stdout), the status line out of its way."""
        out = sys.stdout if file is None else file
        with _WRITING:
            self._clear()
            print(text, file=out, flush=True)
            self._draw()

    def tick(self) -> None:
        """What the thread does every TICK: redraw the status line, or write a line when one is due."""
        with _WRITING:
            if self.live:
                self._draw()
            elif self.clock() - self.last_line >= PERIOD:
                self.stream.write(f"{self.opening}{self.prefix}: {self.status()}\n")
                self.stream.flush()
                self.last_line = self.clock()

    def status(self) -> str:
        """How far the command is, in words: `120 of 391 vectors, 3 failed; running core/x for 31 s`
        (without a `what`, only what is running)."""
        parts = []
        if self.what:
            of = f" of {self.total}" if self.total is not None else ""
            parts.append(f"{self.done}{of} {self.what}" + (f", {self.failed} failed" if self.failed else ""))
        if self.running is not None:
            parts.append(f"running {self.running} for {self.clock() - self.since:.0f} s")
        return "; ".join(parts) or "waiting"

    def _draw(self) -> None:
        if not self.live:
            return
        of = f"/{self.total}" if self.total is not None else ""
        failed = f" {self.failed} failed" if self.failed else ""
        running = "" if self.running is None else f" · {self.running} ({self.clock() - self.since:.0f} s)"
        line = (f"[{self.done}{of}]{failed}" if self.what else self.prefix) + running
        width = shutil.get_terminal_size().columns - 1
        self.stream.write("\r\x1b[K" + (line if len(line) <= width else line[: width - 1] + "…"))
        self.stream.flush()
        self._shown = True

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False

    def close(self) -> None:
        with _WRITING:
            self._clear()

    @contextlib.contextmanager
    def ticking(self) -> Iterator[Progress]:
        """The progress, ticked by a thread until the block ends; its status line cleared then."""
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(TICK):
                self.tick()

        thread = threading.Thread(target=tick, name=f"{self.prefix} progress", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join()
            self.close()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a stream without a file, or closed
        return False
