"""Kill the reference executor between state changes, restart it, replay: nothing runs twice.

A child process runs the executor on an SQLite ledger over one stream of six
calls, then approves the one that needs approval. It kills itself (SIGKILL:
no cleanup, no goodbye) right after its N-th *step*: a committed ledger move,
or a tool's side effect (a line appended to a file). The parent restarts it
on the same database, and it recovers and replays the whole stream, until a
run completes. After every run the parent checks that no side effect
happened twice and that no final record changed; after the last, that every
call is final and ran exactly once, unless a kill fell between its start and
its end, where the spec says it is reported `interrupted` and never rerun.

The files live in memory-backed storage when the system has one (/dev/shm):
the kernel keeps what a killed process wrote, so the fsyncs that protect
against a power cut would only cost time here.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import signal
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamroute.reference import Router
from streamroute.reference.executor import Executor, Tool
from streamroute.reference.ledger import Ledger, Record, SqliteLedger, State

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="kills forked processes")

RANDOM_KILLS = 200  # on top of one kill at each step of a clean run
SEED = 20260601

Step = Callable[[str], None]


def _function_call(seq: Iterator[int], index: int, call_id: str, name: str, arguments: str) -> list[Any]:
    item = {"id": f"fc_{call_id}", "type": "function_call", "call_id": call_id, "name": name}
    half = len(arguments) // 2
    return [
        {
            "type": "response.output_item.added",
            "sequence_number": next(seq),
            "output_index": index,
            "item": {**item, "status": "in_progress", "arguments": ""},
        },
        *[
            {
                "type": "response.function_call_arguments.delta",
                "sequence_number": next(seq),
                "item_id": item["id"],
                "output_index": index,
                "delta": delta,
            }
            for delta in (arguments[:half], arguments[half:])
        ],
        {
            "type": "response.output_item.done",
            "sequence_number": next(seq),
            "output_index": index,
            "item": {**item, "status": "completed", "arguments": arguments},
        },
    ]


CALLS = [  # call id, tool, arguments; `ok` returns, `boom` fails, `pay` needs approval
    ("call_a", "ok", {"key": "a"}),
    ("call_b", "ok", {"key": "b"}),
    ("call_bad", "ok", {"key": 7}),  # rejected: invalid_arguments
    ("call_c", "boom", {"key": "c"}),
    ("call_d", "ok", {"key": "d"}),
    ("call_pay", "pay", {"key": "pay"}),
]


def _stream() -> list[Any]:
    seq = itertools.count()
    response = {"id": "resp_faults", "status": "in_progress"}
    events: list[Any] = [{"type": "response.created", "sequence_number": next(seq), "response": response}]
    for index, (call_id, name, arguments) in enumerate(CALLS):
        events += _function_call(seq, index, call_id, name, json.dumps(arguments))
    completed = {**response, "status": "completed"}
    return [*events, {"type": "response.completed", "sequence_number": next(seq), "response": completed}]


STREAM = _stream()


class StepLedger:
    """A ledger that reports every committed move as a step."""

    def __init__(self, inner: Ledger, step: Step) -> None:
        self.inner = inner
        self.step = step

    def get(self, call_id: str) -> Record | None:
        return self.inner.get(call_id)

    def insert(self, record: Record) -> bool:
        written = self.inner.insert(record)
        if written:
            self.step(f"{record.state} {record.call_id}")
        return written

    def update(self, record: Record, expected: State) -> bool:
        written = self.inner.update(record, expected)
        if written:
            self.step(f"{record.state} {record.call_id}")
        return written

    def readdress(self, record: Record, previous: str) -> bool:
        written = self.inner.readdress(record, previous)
        if written:
            self.step(f"{record.state} {previous} -> {record.call_id}")
        return written

    def records(self) -> list[Record]:
        return self.inner.records()

    def unfinished(self) -> list[Record]:
        return self.inner.unfinished()


def _tools(effects: Path, step: Step) -> list[Tool]:
    def effect(arguments: dict[str, Any]) -> None:
        fd = os.open(effects, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(fd, f"call_{arguments['key']}\n".encode())  # one write(2): whole, even if killed after
        os.close(fd)
        step(f"effect call_{arguments['key']}")

    def ok(arguments: dict[str, Any]) -> dict[str, str]:
        effect(arguments)
        return {"done": arguments["key"]}

    def boom(arguments: dict[str, Any]) -> None:
        effect(arguments)
        raise RuntimeError("the service answered 503")

    schema = {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}
    return [
        Tool("ok", run=ok, parameters=schema),
        Tool("boom", run=boom, parameters=schema),
        Tool("pay", run=ok, parameters=schema, requires_approval=True),
    ]


def _consume(database: Path, effects: Path, step: Step) -> None:
    """One life of the application: recover, replay the stream, approve the payment."""
    ledger = SqliteLedger(database)
    executor = Executor(_tools(effects, step), StepLedger(ledger, step))
    executor.recover()
    router = Router()
    for event in STREAM:
        executor.feed(router.feed(event))
    executor.feed(router.close())
    executor.approve("call_pay")
    ledger.close()


def _clean_run_steps(tmp_path: Path) -> list[str]:
    steps: list[str] = []
    _consume(tmp_path / "clean.db", tmp_path / "clean.effects", steps.append)
    return steps


def _run_killed_at(database: Path, effects: Path, kill_at: int) -> bool:
    """Run one life in a child process that dies right after step `kill_at`; True if it was killed."""
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        counter = itertools.count(1)

        def step(label: str) -> None:
            if next(counter) == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

        try:
            _consume(database, effects, step)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return True
    assert os.WIFEXITED(status)
    assert os.WEXITSTATUS(status) == 0, "the child failed; see its traceback"
    return False


def _records(database: Path) -> dict[str, Record]:
    ledger = SqliteLedger(database)
    try:
        return {record.call_id: record for record in ledger.records()}
    finally:
        ledger.close()


def _effects(effects: Path) -> Counter[str]:
    return Counter(effects.read_text().split()) if effects.exists() else Counter()


class Trial:
    """One database and one effects file, run until a life completes."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir()
        self.database = directory / "calls.db"
        self.effects = directory / "effects"
        self.final: dict[str, Record] = {}
        self.kills = 0

    def run(self, kill_at: int) -> bool:
        killed = _run_killed_at(self.database, self.effects, kill_at)
        self.kills += killed
        records = _records(self.database)
        ran_twice = {key: n for key, n in _effects(self.effects).items() if n > 1}
        assert not ran_twice, f"ran twice: {ran_twice}"
        for call_id, final in self.final.items():  # no completed result is lost or changed
            assert records[call_id] == final
        self.final = {
            r.call_id: r for r in records.values() if r.state in ("TOOL_SUCCEEDED", "FAILED", "CANCELLED")
        }
        return killed

    def check_end(self) -> list[str]:
        """Every call final and run at most once; the ids of the interrupted ones."""
        records = _records(self.database)
        effects = _effects(self.effects)
        assert sorted(records) == sorted(call_id for call_id, _, _ in CALLS)
        interrupted = []
        for call_id, name, arguments in CALLS:
            record, ran = records[call_id], effects[call_id]
            if record.code == "interrupted":  # a kill between its start and its end
                assert record.started
                assert ran <= 1
                interrupted.append(call_id)
            elif call_id == "call_bad":
                assert (record.state, record.code, record.started) == ("FAILED", "invalid_arguments", False)
            elif name == "boom":
                assert (record.state, record.code, ran) == ("FAILED", "tool_failed", 1)
            else:
                assert (record.state, record.result, ran) == ("TOOL_SUCCEEDED", {"done": arguments["key"]}, 1)
        assert len(interrupted) <= self.kills
        return interrupted


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    if not Path("/dev/shm").is_dir():
        yield tmp_path
        return
    directory = Path(tempfile.mkdtemp(prefix="streamroute-faults-", dir="/dev/shm"))
    yield directory
    shutil.rmtree(directory)


@pytest.mark.slow
def test_a_kill_at_each_step_then_a_restart_reruns_nothing_and_loses_nothing(scratch: Path) -> None:
    steps = _clean_run_steps(scratch)
    assert len(steps) == 21
    for kill_at, label in enumerate(steps, start=1):
        trial = Trial(scratch / f"step-{kill_at}")
        assert trial.run(kill_at), f"no kill at step {kill_at} ({label})"
        assert not trial.run(len(steps) + 1)
        step, call_id = label.split()
        # Killed between its start and its end, the call is uncertain; killed
        # after TOOL_READY it never started, and the restart starts it.
        uncertain = [call_id] if step in ("TOOL_RUNNING", "effect") else []
        assert trial.check_end() == uncertain, f"kill after step {kill_at} ({label})"


@pytest.mark.slow
def test_random_kills_over_replays_never_run_a_call_twice(scratch: Path) -> None:
    rng = random.Random(SEED)
    steps = len(_clean_run_steps(scratch))
    kills = trials = 0
    while kills < RANDOM_KILLS:
        trial = Trial(scratch / f"trial-{trials}")
        trials += 1
        while trial.run(rng.randint(1, steps)):  # until one life completes
            pass
        trial.check_end()
        kills += trial.kills
