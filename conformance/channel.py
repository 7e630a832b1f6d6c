"""One adapter process and the newline-delimited JSON channel to it.

Threads do the blocking I/O so that every wait has a deadline: one reads stdout
a line at a time (at most MAX_REPLY_LINE_BYTES of it) and hands each line over
when the harness takes it, one keeps the last STDERR_TAIL_BYTES of stderr (an
adapter blocked on a full stderr pipe would look hung), one writes stdin (an
adapter that stops reading must not block the harness). So the harness holds
at most two reply lines and the stderr tail, whatever the adapter writes.

On POSIX the adapter runs in a session and process group of its own, and
ending it, after a `stop` as after a failure, kills the whole group, so that
nothing the adapter started outlives it. A process that leaves the group
(`setsid`) is out of reach of the group kill; on Linux, every process still
holding the adapter's stdout or stderr is then found and killed as well. A
process that leaves the group and closes both is beyond what the harness can
find.
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
import time
from pathlib import Path
from typing import IO, Any

from .limits import MAX_REPLY_LINE_BYTES, STDERR_TAIL_BYTES, TooDeep, loads

STDERR_LINES = 20
_POSIX = os.name == "posix"
_PROC = Path("/proc")
# How long the pipes may stay open once the adapter's process group is killed, before the
# harness looks for the processes that hold them, and how many times it looks.
_GRACE = 0.2
_SWEEPS = 3
# How often a wait for a reply looks whether the adapter has exited.
_POLL = 0.05


class ChannelError(Exception):
    """The adapter could not start, exited, did not answer in time, or wrote what is not JSON."""


def encode(message: Any) -> bytes:
    """One message as one line of ASCII JSON (lone surrogates stay escaped); TypeError or ValueError
    when `message` is not JSON."""
    text = json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return (text + "\n").encode("ascii")


def _clip(line: bytes, width: int = 80) -> str:
    text = repr(line[: 4 * width].rstrip(b"\r\n").decode("utf-8", "replace"))
    return text if len(text) <= width else text[: width - 1] + "…"


class _TooLong:
    """Stands for a line longer than the reply line limit, which is never held."""


_Line = bytes | _TooLong | None  # None: the end of stdout


def _hand_over(line: _Line, into: queue.Queue[_Line], closed: threading.Event) -> bool:
    """Wait until the harness takes the last line, then queue this one; False once it is closed."""
    while not closed.is_set():
        try:
            into.put(line, timeout=0.1)
        except queue.Full:
            continue
        return True
    return False


def _read_lines(stream: IO[bytes], into: queue.Queue[_Line], closed: threading.Event, limit: int) -> None:
    """Hand over each line of stdout; once the channel is closed, read on to the end of file
    (unread, so that the end of file says no process holds stdout any more)."""
    with stream:
        for line in iter(lambda: stream.readline(limit + 1), b""):
            item: _Line = line
            if len(line) > limit and not line.endswith(b"\n"):
                item = _TooLong()
                while line and not line.endswith(b"\n"):  # the rest of it, never held whole
                    line = stream.readline(limit + 1)
            if not _hand_over(item, into, closed):
                while stream.read(1 << 16):
                    pass
                return
        _hand_over(None, into, closed)


def _keep_tail(stream: IO[bytes], tail: bytearray, lock: threading.Lock) -> None:
    with stream:
        for chunk in iter(lambda: os.read(stream.fileno(), 1 << 16), b""):
            with lock:
                tail += chunk
                del tail[:-STDERR_TAIL_BYTES]


def _write_lines(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    with contextlib.suppress(OSError), stream:  # a broken pipe: the reader reports the exit
        for data in iter(lines.get, None):
            stream.write(data)
            stream.flush()


def _pipe(stream: IO[bytes]) -> str:
    """How a process's file descriptor links to this pipe in /proc (both ends share the inode)."""
    return f"pipe:[{os.fstat(stream.fileno()).st_ino}]"


def _holders(pipes: frozenset[str]) -> set[int]:
    """Every other process holding one of `pipes` (Linux; nothing where /proc is not there)."""
    found = set()
    for process in _PROC.glob("[0-9]*"):
        pid = int(process.name)
        if pid == os.getpid():
            continue
        with contextlib.suppress(OSError):  # it ended, or it is not ours to look at
            if any(os.readlink(fd) in pipes for fd in (process / "fd").iterdir()):
                found.add(pid)
    return found


def _exit_status(waited: Any) -> int:
    """As subprocess reports it: the exit code, or minus the signal that ended the process."""
    code: int = waited.si_status
    return code if waited.si_code == os.CLD_EXITED else -code


class AdapterProcess:
    """The adapter command, started once; `kill()` ends it and what it started."""

    def __init__(self, command: str) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as exc:  # an unclosed quote
            raise ChannelError(f"the adapter command cannot be split into words: {exc}") from None
        if not argv:
            raise ChannelError("the adapter command is empty")
        try:
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
        self._pipes = frozenset({_pipe(stdout), _pipe(stderr)}) if _POSIX else frozenset()
        self._closed = threading.Event()
        self._replies: queue.Queue[_Line] = queue.Queue(maxsize=1)
        self._requests: queue.Queue[bytes | None] = queue.Queue()
        self._tail = bytearray()
        self._tail_lock = threading.Lock()
        self._stdout_reader = threading.Thread(
            target=_read_lines, args=(stdout, self._replies, self._closed, MAX_REPLY_LINE_BYTES)
        )
        self._stderr_reader = threading.Thread(target=_keep_tail, args=(stderr, self._tail, self._tail_lock))
        self._readers = (self._stdout_reader, self._stderr_reader)
        for thread in (*self._readers, threading.Thread(target=_write_lines, args=(stdin, self._requests))):
            thread.daemon = True
            thread.start()

    def send(self, data: bytes) -> None:
        self._requests.put(data)

    def close_input(self) -> None:
        self._requests.put(None)

    def receive(self, timeout: float) -> Any:
        """The next message, parsed."""
        line = self._next_line(timeout)
        if line is None:
            code = self.exit_status(1.0)
            if code is None:
                raise ChannelError("the adapter closed its stdout")
            raise ChannelError(f"the adapter exited with code {code}")
        if isinstance(line, _TooLong):
            raise ChannelError(
                f"the adapter wrote a line longer than {MAX_REPLY_LINE_BYTES} bytes (the reply line limit)"
            )
        try:
            return loads(line.decode("utf-8"))
        except TooDeep as exc:
            raise ChannelError(f"the adapter's reply {exc}") from None
        except ValueError as exc:  # UnicodeDecodeError included
            raise ChannelError(f"the adapter wrote what is not JSON ({exc}): {_clip(line)}") from None

    def _next_line(self, timeout: float) -> _Line:
        """The next line, waiting at most `timeout` seconds; an adapter that exits meanwhile fails
        at once, even when a process it started keeps its stdout open."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self._replies.get(timeout=min(_POLL, max(deadline - time.monotonic(), 0)))
            except queue.Empty:
                pass
            code = self.exit_status(0)
            if code is not None:
                raise ChannelError(f"the adapter exited with code {code}")
            if time.monotonic() >= deadline:
                raise ChannelError(f"the adapter gave no answer within {timeout:g} s (timeout)")

    def exit_status(self, timeout: float) -> int | None:
        """Its exit status, or None if it is still running after `timeout` seconds.

        Where the system can (os.waitid), the process is left unreaped, so that its process
        group id stays its own until `kill()` has killed the group."""
        if self._process.returncode is not None or not hasattr(os, "waitid"):
            try:
                return self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                return None
        deadline, pause = time.monotonic() + timeout, 0.001
        while True:
            waited = os.waitid(os.P_PID, self._process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if waited is not None:
                return _exit_status(waited)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.05)

    def kill(self) -> None:
        """Kill it and its process group (POSIX: its group id is reserved while any member lives,
        so this reaches no other process), then whatever still holds its stdout or stderr."""
        if _POSIX:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)
        else:
            self._process.kill()
        self._process.wait()
        self.close_input()
        self._closed.set()
        for _ in range(_SWEEPS):
            for reader in self._readers:
                reader.join(_GRACE)
            holders = _holders(self._pipes) if any(r.is_alive() for r in self._readers) else set()
            if not holders:
                return
            for pid in holders:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def stderr_tail(self) -> str:
        """The last lines it wrote on stderr; all of them (within the tail) once it has ended."""
        if self._process.returncode is not None:
            self._stderr_reader.join(timeout=1.0)
        with self._tail_lock:
            text = self._tail.decode("utf-8", "replace")
        return "\n".join(line.rstrip() for line in text.splitlines()[-STDERR_LINES:])
