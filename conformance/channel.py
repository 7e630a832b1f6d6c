"""One adapter process and the newline-delimited JSON channel to it.

Threads do the blocking I/O so that every wait has a deadline: one reads
stdout lines into a queue, one drains stderr into a bounded tail (an adapter
blocked on a full stderr pipe would look hung), one writes stdin (an adapter
that stops reading must not block the harness).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
from collections import deque
from typing import IO, Any

STDERR_LINES = 20
_POSIX = os.name == "posix"


class ChannelError(Exception):
    """The adapter could not start, exited, did not answer in time, or wrote what is not JSON."""


def encode(message: Any) -> bytes:
    """One message as one line of ASCII JSON (lone surrogates stay escaped); TypeError or ValueError
    when `message` is not JSON."""
    text = json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return (text + "\n").encode("ascii")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _clip(line: bytes, width: int = 80) -> str:
    text = repr(line.rstrip(b"\r\n").decode("utf-8", "replace"))
    return text if len(text) <= width else text[: width - 1] + "…"


def _read_lines(stream: IO[bytes], into: queue.Queue[bytes | None]) -> None:
    with stream:
        for line in stream:
            into.put(line)
    into.put(None)  # end of file


def _keep_tail(stream: IO[bytes], tail: deque[str], lock: threading.Lock) -> None:
    with stream:
        for line in stream:
            with lock:
                tail.append(line.decode("utf-8", "replace").rstrip())


def _write_lines(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    with contextlib.suppress(OSError), stream:  # a broken pipe: the reader reports the exit
        for data in iter(lines.get, None):
            stream.write(data)
            stream.flush()


class AdapterProcess:
    """The adapter command, started once; `kill()` or `wait()` ends it."""

    def __init__(self, command: str) -> None:
        argv = shlex.split(command)
        if not argv:
            raise ChannelError("the adapter command is empty")
        try:
            # A session of its own, so that a kill reaches what the command itself started.
            self._process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=_POSIX,
            )
        except OSError as exc:
            raise ChannelError(f"cannot start the adapter: {exc}") from exc
        stdin, stdout, stderr = self._process.stdin, self._process.stdout, self._process.stderr
        assert stdin is not None  # all three are pipes
        assert stdout is not None
        assert stderr is not None
        self._replies: queue.Queue[bytes | None] = queue.Queue()
        self._requests: queue.Queue[bytes | None] = queue.Queue()
        self._tail: deque[str] = deque(maxlen=STDERR_LINES)
        self._tail_lock = threading.Lock()
        self._stderr = threading.Thread(target=_keep_tail, args=(stderr, self._tail, self._tail_lock))
        for thread in (
            threading.Thread(target=_read_lines, args=(stdout, self._replies)),
            threading.Thread(target=_write_lines, args=(stdin, self._requests)),
            self._stderr,
        ):
            thread.daemon = True
            thread.start()

    def send(self, data: bytes) -> None:
        self._requests.put(data)

    def close_input(self) -> None:
        self._requests.put(None)

    def receive(self, timeout: float) -> Any:
        """The next message, parsed."""
        try:
            line = self._replies.get(timeout=timeout)
        except queue.Empty:
            raise ChannelError(f"the adapter gave no answer within {timeout:g} s (timeout)") from None
        if line is None:
            code = self.wait(1.0)
            if code is None:
                raise ChannelError("the adapter closed its stdout")
            raise ChannelError(f"the adapter exited with code {code}")
        try:
            return json.loads(line.decode("utf-8"), parse_constant=_reject_constant)
        except ValueError as exc:  # UnicodeDecodeError included
            raise ChannelError(f"the adapter wrote what is not JSON ({exc}): {_clip(line)}") from None

    def wait(self, timeout: float) -> int | None:
        """Its exit status, or None if it is still running after `timeout` seconds."""
        try:
            return self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        # Only while it is unreaped is its process group surely still its own.
        if self._process.returncode is None:
            if _POSIX:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self._process.pid, signal.SIGKILL)
            else:
                self._process.kill()
        self._process.wait()
        self.close_input()

    def stderr_tail(self) -> str:
        """The last lines it wrote on stderr; all of them once it has ended."""
        if self._process.returncode is not None:
            self._stderr.join(timeout=1.0)
        with self._tail_lock:
            return "\n".join(self._tail)
