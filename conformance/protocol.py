"""Implementations in any language, through the adapter protocol of spec/protocol.md.

One adapter process serves the whole run. Whatever it does wrong (it exits,
does not answer within the timeout, writes what is not JSON, answers out of
protocol) errors the vector it was running, with the reason and the tail of
its stderr; the process is killed and a new one started for the next vector,
so the run always completes and a broken adapter never passes a vector.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .channel import AdapterProcess, ChannelError, encode
from .compare import json_equal
from .declarations import DECLARATIONS
from .declarations import problem as declaration_problem
from .implementation import (
    AdapterFailure,
    AdapterLoadError,
    AdapterSkipped,
    Produced,
    Streamed,
    declared_classes,
    declared_observes,
    declared_options,
    declared_profiles,
)
from .limits import MAX_DETAILS_CHARS, MAX_MESSAGE_CHARS, clip
from .schemas import OUTCOME, PROTOCOL_RUN_REPLY, PROTOCOL_START_REPLY, first_error, protocol_version
from .vectors import Vector

PROTOCOL_VERSION = protocol_version()
RUN_REPLY_ENVELOPE = PROTOCOL_RUN_REPLY + "#/$defs/envelope"
STOP: dict[str, Any] = {"cmd": "stop"}


def _smoke_response(status: str) -> dict[str, Any]:
    """A response object as the API sends it: a library that builds on it must not fail for want of it."""
    return {"id": "resp_smoke", "object": "response", "status": status, "output": [], "error": None}


# What `smoke` runs: the smallest stream every router can route.
SMOKE_VECTOR = Vector(
    Path("<smoke>"),
    {
        "id": "smoke",
        "tools": [],
        "events": [
            {"type": "response.created", "sequence_number": 0, "response": _smoke_response("in_progress")},
            {"type": "response.completed", "sequence_number": 1, "response": _smoke_response("completed")},
        ],
    },
)


class ProtocolError(Exception):
    """A message that is JSON, but not what the protocol says."""


class Broken(Exception):
    """The adapter broke the protocol and its process is gone; `stderr` is the tail it left."""

    def __init__(self, reason: str, stderr: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stderr = stderr

    def one_line(self) -> str:
        last = clip(self.stderr.rsplit("\n", 1)[-1], MAX_MESSAGE_CHARS // 2)
        return f"{self.reason}; its stderr ends: {last}" if last else self.reason

    def details(self) -> str:
        if not self.stderr:
            return "(the adapter wrote nothing on stderr)"
        return "stderr of the adapter, last lines:\n" + self.stderr


def start_message() -> dict[str, Any]:
    return {"cmd": "start", "version": PROTOCOL_VERSION}


def run_message(seq: int, vector: Vector, chunks: Sequence[bytes] | None = None) -> dict[str, Any]:
    """The `run` command; an sse vector goes as `chunks`, its bytes cut one way (spec/sse.md section 6)."""
    body: dict[str, Any] = {"id": vector.id, "tools": vector.tools}
    if chunks is None:
        body["events"] = vector.events
    else:
        body["chunks"] = [base64.b64encode(chunk).decode("ascii") for chunk in chunks]
    return {"cmd": "run", "seq": seq, "vector": body}


def _start(command: str, timeout: float) -> tuple[AdapterProcess, dict[str, Any]]:
    """A started adapter and the implementation it describes, or Broken."""
    try:
        process = AdapterProcess(command)
    except ChannelError as exc:
        raise Broken(str(exc), "") from None
    try:
        process.send(encode(start_message()))
        reply = process.receive(timeout)
        version = reply.get("version") if isinstance(reply, dict) else None
        if version is not None and not json_equal(version, PROTOCOL_VERSION):
            raise ProtocolError(
                f"the adapter speaks protocol version {_shown(version)}; "
                f"this harness speaks version {PROTOCOL_VERSION}"
            )
        described = reply.get("implementation") if isinstance(reply, dict) else None
        for declaration in DECLARATIONS:  # what it declares of itself, said in words
            if isinstance(described, dict) and declaration.name in described:
                wrong = declaration_problem(declaration, described[declaration.name])
                if wrong is not None:
                    raise ProtocolError(f"the adapter's start reply {wrong}")
        problem = first_error(PROTOCOL_START_REPLY, reply)
        if problem is not None:
            raise ProtocolError(f"the adapter's start reply is out of protocol: {problem}")
    except (ChannelError, ProtocolError) as exc:
        process.kill()
        raise Broken(str(exc), process.stderr_tail()) from None
    return process, reply["implementation"]


class ProtocolImplementation:
    """An implementation behind an adapter command (`--adapter-command`)."""

    def __init__(
        self, command: str, timeout: float, process: AdapterProcess, described: dict[str, Any]
    ) -> None:
        self.command = command
        self.timeout = timeout
        self._process: AdapterProcess | None = process
        self._described = described
        self._seq = 0
        self.options = declared_options(described.get("options", {}), f"adapter {command!r}")
        self.observes = declared_observes(described.get("observes"), f"adapter {command!r}")
        declared_classes(described.get("classes"), f"adapter {command!r}")
        self.info = {**described, "options": self.options}

    @classmethod
    def start(cls, command: str, timeout: float) -> ProtocolImplementation:
        try:
            process, described = _start(command, timeout)
        except Broken as exc:
            raise AdapterLoadError(f"adapter {command!r}: {exc.one_line()}") from None
        try:
            declared_profiles(described["profiles"], f"adapter {command!r}")
            return cls(command, timeout, process, described)
        except AdapterLoadError:
            process.kill()
            raise

    @property
    def name(self) -> str:
        return str(self.info["name"])

    @property
    def profiles(self) -> frozenset[str]:
        return frozenset(self.info["profiles"])

    def produce(self, vector: Vector) -> list[Produced]:
        return self._ran(vector, None).produced

    def produce_stream(self, vector: Vector, chunks: Sequence[bytes]) -> Streamed:
        return self._ran(vector, chunks)

    def _ran(self, vector: Vector, chunks: Sequence[bytes] | None) -> Streamed:
        """The outcomes the adapter answered, or AdapterFailure, or AdapterSkipped."""
        try:
            reply = self.answer(vector, chunks)
        except Broken as exc:
            reason = f"{exc.reason}; a new adapter process serves the next vector"
            raise AdapterFailure(reason, exc.details()) from None
        # What the adapter says is shown clipped: a reply may be as long as the reply line limit.
        if "skipped" in reply:
            issue = f" ({reply['issue_url']})" if "issue_url" in reply else ""
            raise AdapterSkipped(clip(reply["reason"] + issue, MAX_MESSAGE_CHARS))
        if "errored" in reply:
            message = clip(reply["message"], MAX_MESSAGE_CHARS)
            raise AdapterFailure(
                f"the adapter reports: {message}", clip(reply.get("details", ""), MAX_DETAILS_CHARS)
            )
        return Streamed(reply["events"], reply["close"])

    def answer(self, vector: Vector, chunks: Sequence[bytes] | None = None) -> dict[str, Any]:
        """The adapter's reply to `run`, in protocol; Broken if it broke the protocol (its process
        is then gone), AdapterFailure if the vector is not JSON."""
        self._seq += 1
        try:
            data = encode(run_message(self._seq, vector, chunks))
        except (TypeError, ValueError) as exc:
            raise AdapterFailure(f"the vector cannot be sent as JSON: {exc}") from None
        # A stream's dispatched events are the adapter's to count; the vector checks how many.
        return self._exchange(data, self._seq, len(vector.events) if chunks is None else None)

    def _exchange(self, data: bytes, seq: int, events: int | None) -> dict[str, Any]:
        """A reply in protocol to one `run`, or Broken (and the process is gone)."""
        process = self._process or self._restart()
        try:
            process.send(data)
            reply = process.receive(self.timeout)
            problem = first_error(RUN_REPLY_ENVELOPE, reply)
            if problem is not None:
                raise ProtocolError(f"the adapter's reply is out of protocol: {problem}")
            if not json_equal(reply["seq"], seq):
                raise ProtocolError(f"the adapter answered seq {_shown(reply['seq'])} to seq {seq}")
            ran = not ("skipped" in reply or "errored" in reply)
            if ran and events is not None and len(reply["events"]) != events:
                raise ProtocolError(
                    f"the adapter answered {len(reply['events'])} entries in `events` for {events} events"
                )
        except (ChannelError, ProtocolError) as exc:
            self._process = None
            process.kill()
            raise Broken(str(exc), process.stderr_tail()) from None
        assert isinstance(reply, dict)
        return reply

    def _restart(self) -> AdapterProcess:
        try:
            process, described = _start(self.command, self.timeout)
        except Broken as exc:
            raise Broken(f"cannot restart the adapter: {exc.reason}", exc.stderr) from None
        if described != self._described:
            process.kill()
            raise Broken("the restarted adapter describes itself differently", process.stderr_tail())
        self._process = process
        return process

    def stop(self) -> int | None:
        """Send `stop` and wait for the exit: its status, or None if it had to be killed. Either
        way, whatever the adapter started is killed with it (see channel.py)."""
        process, self._process = self._process, None
        if process is None:
            return 0
        process.send(encode(STOP))
        process.close_input()
        code = process.exit_status(self.timeout)
        process.kill()
        return code

    def close(self) -> None:
        self.stop()


def _shown(value: Any) -> str:
    return clip(repr(value), 100)


class SmokeFailure(Exception):
    """What is wrong with an adapter, in one line."""


def smoke(command: str, timeout: float) -> str:
    """One line describing a working adapter, or SmokeFailure saying what is wrong."""
    try:
        implementation = ProtocolImplementation.start(command, timeout)
    except AdapterLoadError as exc:
        raise SmokeFailure(str(exc)) from None
    try:
        problem = _smoke_run(implementation)
    finally:
        code = implementation.stop()
    if problem is None and code != 0:
        problem = (
            f"it did not exit within {timeout:g} s of `stop`"
            if code is None
            else f"it exited with code {code} after `stop`"
        )
    if problem is not None:
        raise SmokeFailure(f"adapter {command!r}: {problem}")
    info = implementation.info
    options = ", ".join(f"{name}={value}" for name, value in sorted(implementation.options.items()))
    return (
        f"{info['name']} {info['version']} ({info['language']}) speaks streamroute adapter protocol "
        f"{PROTOCOL_VERSION}; profiles: {', '.join(sorted(implementation.profiles)) or 'none'}; "
        f"options: {options}"
    )


def _smoke_run(implementation: ProtocolImplementation) -> str | None:
    try:
        reply = implementation.answer(SMOKE_VECTOR)
    except Broken as exc:
        return f"on a two-event stream: {exc.reason}"
    if "errored" in reply:
        return f"on a two-event stream, it reports: {reply['message']}"
    if "skipped" in reply:
        return None  # an answer in protocol
    outcomes = [outcome for entry in reply["events"] for outcome in entry] + reply["close"]
    for index, outcome in enumerate(outcomes):
        problem = first_error(OUTCOME, outcome)
        if problem is not None:
            return f"outcome {index} of a two-event stream is not a valid outcome: {problem}"
    return None
