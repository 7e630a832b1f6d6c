"""An in-process adapter in a worker process of its own, as the front ends run one.

A `module:callable` adapter runs inside the process that loads it, and some of
what it can do ends that process: `os._exit(0)`, a signal, a crash in native
code. Nothing left in the process could then report it, and a run that ends
with exit status 0 and no summary is a silent pass. So `streamroute run`,
`streamroute fuzz` and the pytest plugin run such an adapter in a worker: a
child forked from the harness, which loads the adapter and runs each vector
under the rules of an in-process adapter (conformance/implementation.py), and
answers with the JSON of what it produced. The harness's own process never
runs adapter code.

When the worker ends without answering, the vector it was running is errored
with the worker's exit status, and the next vector gets a new worker. The
worker's deadline for each answer is the in-process deadline plus its grace (a
second at least): an adapter that ignores the deadline, or hangs in native code
that no signal reaches, has its worker killed, and the vector is errored. A
worker runs in a process group of its own, killed whole when the worker ends,
so nothing the adapter started outlives it; a process it forks that returns
into the worker's code leaves without a word, so only the worker answers. The
user's Ctrl-C reaches the harness, which stops the run and its worker; a
Ctrl-C the worker receives is taken for the user's too (nothing can tell them
apart).

A fork, not a new interpreter: the worker keeps what the front end set up
(`sys.path`, an imported conftest, a test's mock), as an in-process adapter
would see it. The worker leaves with `os._exit`, so nothing of the parent's
(atexit handlers, pytest's teardown) runs twice. Requests go to the worker as
pickles (the harness's own objects); answers come back as JSON, parsed within
the harness's limits.
"""

from __future__ import annotations

import array
import contextlib
import os
import pickle
import select
import signal
import struct
import sys
import time
import warnings
from collections.abc import Sequence
from typing import Any

from .channel import encode
from .implementation import (
    AdapterFailure,
    AdapterLoadError,
    AdapterSkipped,
    DeadlinePassed,
    Produced,
    PythonImplementation,
    Streamed,
    least_grace,
    run_by_a_worker,
)
from .limits import MAX_REPLY_LINE_BYTES, loads
from .options import DEFAULT_TIMEOUT
from .vectors import Vector

AVAILABLE = hasattr(os, "fork")  # elsewhere the front ends run the adapter in their own process

_LENGTH = struct.Struct(">Q")  # each message: its length in bytes, then the bytes
# How long a worker that closed its pipes, or was told to stop, has to exit before it is killed.
_EXIT_GRACE = 1.0


# The worker's exit status when it can no longer write its answers.
_PIPE_LOST = 86
_TOO_LONG = f"answered more than the {MAX_REPLY_LINE_BYTES} bytes of JSON a reply may hold"


class _Ended(Exception):
    """The worker closed its end before answering: it exited or was killed."""


def _write(fd: int, data: bytes) -> None:
    message = memoryview(_LENGTH.pack(len(data)) + data)
    while message:
        message = message[os.write(fd, message) :]


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    """`size` bytes from `fd`; TimeoutError past `deadline`, _Ended at the end of the pipe."""
    parts: list[bytes] = []
    while size:
        if deadline is not None:
            ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0.0))
            if not ready:
                raise TimeoutError
        part = os.read(fd, min(size, 1 << 20))
        if not part:
            raise _Ended
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _read(fd: int, deadline: float | None = None, *, reply: bool = True) -> bytes:
    """One message: a reply is held to the reply limit; a request is the harness's own, as large
    as the vector it carries (a stream in pieces may join more than a reply may hold)."""
    (size,) = _LENGTH.unpack(_read_exactly(fd, _LENGTH.size, deadline))
    if reply and size > MAX_REPLY_LINE_BYTES:
        raise AdapterFailure(_TOO_LONG)
    return _read_exactly(fd, size, deadline)


def _answer(implementation: PythonImplementation, request: tuple[Vector, bytes | None, Any]) -> Any:
    """What the worker answers for one vector, as JSON data."""
    vector, stream, lengths = request
    try:
        if stream is None:
            return {"produced": [[entry.at, entry.outcome] for entry in implementation.produce(vector)]}
        chunks, start = [], 0
        for length in lengths:
            chunks.append(stream[start : start + length])
            start += length
        streamed = implementation.produce_stream(vector, chunks)
        return {"streamed": [streamed.events, streamed.close]}
    except AdapterFailure as failure:
        return {"failure": [failure.message, failure.details]}
    except AdapterSkipped as skipped:
        return {"skipped": skipped.reason}


def _serve(spec: str, timeout: float, requests: int, replies: int) -> None:
    """The worker: load the adapter, then answer each request until the harness closes the pipe.
    Whatever escapes the in-process rules is answered too, never an exit without a word; a process
    the adapter forks returns here as well, and leaves without writing (only the worker answers)."""
    run_by_a_worker()
    worker = os.getpid()

    def answer(message: Any) -> None:
        if os.getpid() != worker:
            os._exit(0)
        data = encode(message)
        _write(replies, data if len(data) <= MAX_REPLY_LINE_BYTES else encode({"failure": [_TOO_LONG, ""]}))

    try:
        implementation = PythonImplementation.load(spec, timeout)
    except AdapterLoadError as refused:
        return answer({"refused": str(refused)})
    except KeyboardInterrupt:
        return answer({"interrupted": True})
    except DeadlinePassed:  # it passed between the adapter's code and the harness's
        return answer({"refused": f"cannot load adapter {spec!r}: it did not load within {timeout:g} s"})
    except BaseException as exc:
        return answer({"refused": f"cannot load adapter {spec!r}: {_described(exc)}"})
    answer({"loaded": implementation.info})
    while True:
        try:
            request = pickle.loads(_read(requests, reply=False))
        except (_Ended, OSError):
            return  # the harness is done with this worker
        try:
            reply = _answer(implementation, request)
        except KeyboardInterrupt:
            reply = {"interrupted": True}
        except BaseException as exc:
            reply = {"failure": [f"the vector ended in {_described(exc)}", ""]}
        try:
            answer(reply)
        except (TypeError, ValueError) as exc:  # not JSON: the in-process rules should have said so
            answer({"failure": [f"answered what is not JSON: {exc}", ""]})
        except OSError:  # the adapter closed or replaced the pipe: say so by the exit status
            os._exit(_PIPE_LOST)


def _described(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _exit_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"killed by signal {number} ({signal.Signals(number).name})"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


class WorkerImplementation:
    """An in-process adapter (`module:callable`) run by a worker process, under the module docstring's
    rules; an Implementation like any other."""

    def __init__(self, spec: str, timeout: float) -> None:
        self.timeout = timeout
        self._spec = spec
        self._pid = 0
        self._requests = self._replies = -1
        self._info = self._start()

    @classmethod
    def load(cls, spec: str, timeout: float = DEFAULT_TIMEOUT) -> WorkerImplementation:
        return cls(spec, timeout)

    @property
    def name(self) -> str:
        return str(self._info["name"])

    @property
    def profiles(self) -> frozenset[str]:
        return frozenset(self._info["profiles"])

    @property
    def options(self) -> dict[str, Any]:
        return dict(self._info["options"])

    @property
    def info(self) -> dict[str, Any]:
        return dict(self._info)

    def _deadline(self) -> float:
        return time.monotonic() + self.timeout + least_grace(self.timeout)

    def _start(self) -> dict[str, Any]:
        """A new worker with the adapter loaded, and its `info`; AdapterLoadError when it cannot be."""
        requests_out, requests_in = os.pipe()
        replies_out, replies_in = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # what they buffer must not be written twice
            stream.flush()
        with warnings.catch_warnings():
            # Python 3.12+ warns when other threads exist (a test's watchdog, a channel's readers):
            # they hold no lock the worker takes, so the fork is safe.
            warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # pragma: no cover (the worker; its effects are what the tests observe)
            os.setpgid(0, 0)  # a group of its own, which _stop kills whole
            os.close(requests_in)
            os.close(replies_out)
            try:
                _serve(self._spec, self.timeout, requests_out, replies_in)
            finally:
                for stream in (sys.stdout, sys.stderr):
                    with contextlib.suppress(BaseException):  # what the adapter printed, if it can be
                        stream.flush()
                os._exit(0)
        with contextlib.suppress(OSError):  # as the worker does: whichever runs first makes the group
            os.setpgid(pid, pid)
        os.close(requests_out)
        os.close(replies_in)
        self._pid, self._requests, self._replies = pid, requests_in, replies_out
        try:
            reply = self._reply("while loading it")
        except AdapterFailure as failure:
            raise AdapterLoadError(f"cannot load adapter {self._spec!r}: {failure.message}") from None
        if "refused" in reply:
            self._stop()
            raise AdapterLoadError(str(reply["refused"]))
        info: dict[str, Any] = reply["loaded"]
        return info

    def _reply(self, during: str) -> dict[str, Any]:
        """The worker's next answer; AdapterFailure, and no worker, when it ends or runs out of time."""
        try:
            reply: dict[str, Any] = loads(_read(self._replies, self._deadline()).decode("ascii"))
        except TimeoutError:
            self._stop(kill=True)
            grace = least_grace(self.timeout)
            raise AdapterFailure(
                f"did not return within {self.timeout:g} s, nor in {grace:g} s more, and was killed {during}"
            ) from None
        except _Ended:
            status, killed = self._stop()
            if killed:  # it closed the pipe and lived on
                raise AdapterFailure(f"closed the harness's pipe and was killed {during}") from None
            if status == f"exit status {_PIPE_LOST}":
                raise AdapterFailure(f"closed or replaced the harness's pipe {during}") from None
            raise AdapterFailure(f"ended its process ({status}) {during}") from None
        except AdapterFailure:
            self._stop()
            raise
        if reply.get("interrupted"):
            self._stop()
            raise KeyboardInterrupt
        return reply

    def _ask(self, vector: Vector, chunks: Sequence[bytes] | None) -> Any:
        if not self._pid:
            try:
                self._start()
            except AdapterLoadError as exc:
                raise AdapterFailure(f"a new worker for the adapter could not load it: {exc}") from None
        lengths = None if chunks is None else array.array("Q", map(len, chunks))
        request = (vector, None if chunks is None else b"".join(chunks), lengths)
        with contextlib.suppress(BrokenPipeError):  # it ended while idle: its status is read below
            _write(self._requests, pickle.dumps(request))
        reply = self._reply("before it answered")
        if "failure" in reply:
            message, details = reply["failure"]
            raise AdapterFailure(message, details)
        if "skipped" in reply:
            raise AdapterSkipped(reply["skipped"])
        return reply

    def produce(self, vector: Vector) -> list[Produced]:
        return [Produced(at, outcome) for at, outcome in self._ask(vector, None)["produced"]]

    def produce_stream(self, vector: Vector, chunks: Sequence[bytes]) -> Streamed:
        events, close = self._ask(vector, chunks)["streamed"]
        return Streamed(events, close)

    def _stop(self, kill: bool = False) -> tuple[str, bool]:
        """End the worker (idempotent), killing it when `kill` or when it does not exit on its own
        within a grace period, and every process left in its group; how it ended, and whether the
        harness had to kill it."""
        if not self._pid:
            return "already ended", False
        for fd in (self._requests, self._replies):
            os.close(fd)  # an idle worker reads the end of its requests and exits
        pid, self._pid = self._pid, 0
        waited, status = os.waitpid(pid, os.WNOHANG)
        give_up = time.monotonic() + (0.0 if kill else _EXIT_GRACE)
        while not waited and time.monotonic() < give_up:
            time.sleep(0.01)
            waited, status = os.waitpid(pid, os.WNOHANG)
        killed = not waited
        with contextlib.suppress(ProcessLookupError):  # what the adapter started dies with it
            os.killpg(pid, signal.SIGKILL)
        if killed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        return _exit_status(status), killed

    def close(self) -> None:
        self._stop()
