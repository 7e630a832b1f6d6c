"""Implementations behind an adapter command: the example adapters pass, every broken one is caught.

The broken adapters (tests/protocol_adapters/) each wrap the reference and
break the protocol one way; the run always completes and never counts them
as passing.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import hello, options_met, write_vector
from streamroute.conformance import channel
from streamroute.conformance.cli import main
from streamroute.conformance.implementation import AdapterLoadError, PythonImplementation
from streamroute.conformance.limits import MAX_MESSAGE_CHARS, STDERR_TAIL_BYTES, TOO_DEEP
from streamroute.conformance.protocol import (
    STOP,
    ProtocolImplementation,
    SmokeFailure,
    run_message,
    smoke,
    start_message,
)
from streamroute.conformance.results import Result, Status, run_vector
from streamroute.conformance.schemas import (
    PROTOCOL_RUN,
    PROTOCOL_RUN_REPLY,
    PROTOCOL_START,
    PROTOCOL_START_REPLY,
    PROTOCOL_STOP,
    first_error,
    option_defaults,
    protocol_version,
)
from streamroute.conformance.suite import Suite, UsageError
from streamroute.conformance.vectors import Vector, load_vectors
from streamroute.reference import serve
from streamroute.reference.adapter import router

ADAPTERS = Path(__file__).parent / "protocol_adapters"
ROOT = Path(__file__).parent.parent
NODE_EXAMPLE = ROOT / "adapters" / "node-example" / "adapter.js"
REFERENCE = shlex.join([sys.executable, "-m", "streamroute.reference.serve"])
TIMEOUT = 1.0

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


@pytest.fixture(scope="module")
def streams(bundled: list[Vector]) -> list[Vector]:
    """The bundled vectors given as event streams (an sse vector gives bytes instead)."""
    return [vector for vector in bundled if "events" in vector.data]


def broken(script: str, *args: str) -> str:
    return shlex.join([sys.executable, str(ADAPTERS / script), *args])


def _hellos(root: Path, count: int) -> list[Vector]:
    for index in range(count):
        write_vector(root, hello(id=f"core/v{index}"))
    vectors, errors = load_vectors([root])
    assert not errors
    return vectors


def _run(command: str, vectors: list[Vector]) -> list[Result]:
    implementation = ProtocolImplementation.start(command, TIMEOUT)
    try:
        return [run_vector(implementation, vector) for vector in vectors]
    finally:
        implementation.close()


def _inline(tmp_path: Path, body: str) -> str:
    """The command of an adapter script written here: imports, then `body`, which defines reply_to."""
    script = tmp_path / "adapter.py"
    imports = (
        "import os, sys\n"
        "from streamroute.reference.adapter import router\n"
        "from streamroute.reference.serve import reference_replies, serve\n"
        "answer = reference_replies(router)\n"
    )
    script.write_text(imports + body + "serve(reply_to)\n", encoding="utf-8")
    return shlex.join([sys.executable, str(script)])


def _statuses(results: list[Result]) -> list[Status]:
    return [result.status for result in results]


# -- the example adapters ----------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("adapter", ["router", "arguments_done_router"])
def test_the_reference_over_the_protocol_passes_every_vector_it_claims(
    adapter: str, bundled: list[Vector]
) -> None:
    implementation = ProtocolImplementation.start(f"{REFERENCE} {adapter}", TIMEOUT * 5)
    try:
        results = [run_vector(implementation, vector) for vector in bundled]
    finally:
        implementation.close()
    options = implementation.options
    expected = [
        Status.NOT_APPLICABLE
        if vector.profile not in implementation.profiles or not options_met(vector, options)
        else Status.PASSED
        for vector in bundled
    ]
    assert _statuses(results) == expected, [r for r in results if r.status is not Status.PASSED]


@pytest.mark.slow
def test_the_reference_answers_the_same_over_the_protocol_as_in_process(streams: list[Vector]) -> None:
    in_process = PythonImplementation.load("streamroute.reference.adapter:router")
    implementation = ProtocolImplementation.start(REFERENCE, TIMEOUT * 5)
    try:
        assert all(implementation.produce(v) == in_process.produce(v) for v in streams)
    finally:
        implementation.close()


@needs_node
def test_the_node_example_passes_every_core_vector(bundled: list[Vector]) -> None:
    implementation = ProtocolImplementation.start(f"node {NODE_EXAMPLE}", TIMEOUT * 5)
    try:
        results = {vector.id: run_vector(implementation, vector) for vector in bundled}
    finally:
        implementation.close()
    assert implementation.info["language"] == "javascript"
    assert implementation.options == option_defaults()
    canonical = option_defaults()
    not_applicable = {
        v.id
        for v in bundled
        if v.profile != "core"
        or not options_met(v, canonical)
        or not v.call_types <= set(canonical["call_types"])
    }
    assert len(not_applicable) < len(bundled)
    failures = [r for r in results.values() if r.status not in (Status.PASSED, Status.NOT_APPLICABLE)]
    assert not failures, "\n".join(f"{r.vector_id}: {r.message}\n{r.details}" for r in failures)
    assert {i for i, r in results.items() if r.status is Status.NOT_APPLICABLE} == not_applicable


# -- the broken adapters -----------------------------------------------------


# -- one protocol version, read from spec/protocol-start.schema.json ------------

# A version written into an adapter's code: `PROTOCOL_VERSION = 1`, `version: 1`, `"version": 1`.
RESTATED_VERSION = re.compile(r"""(\b\w*VERSION\s*=|["']?\bversion["']?\s*:)\s*\d""")


def test_no_adapter_restates_the_protocol_version() -> None:
    sources = [ROOT / "reference" / "serve.py"]
    sources += [
        p
        for p in (ROOT / "adapters").rglob("*")
        if p.suffix in (".py", ".js") and "node_modules" not in p.parts
    ]
    restated = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sources
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if RESTATED_VERSION.search(line)
    ]
    assert restated == []


LOOP_BY_PATH = f"""
import sys
sys.path.insert(0, {str(ROOT / "adapters")!r})
from protocol_loop import serve_streams
serve_streams({{"name": "x", "version": "0", "language": "python", "profiles": ["core"]}}, print)
"""
NODE_LOOP = f"""
require({str(ROOT / "adapters" / "node-common" / "responses_events.js")!r})
  .serve({{name: "x", version: "0", language: "javascript", profiles: ["core"]}}, async () => ({{}}));
"""


@pytest.mark.parametrize(
    "command",
    [
        # -I -S: no site-packages, so nothing of streamroute: what a library adapter's virtualenv has.
        [sys.executable, "-I", "-S", "-c", LOOP_BY_PATH],
        pytest.param(["node", str(NODE_EXAMPLE)], marks=needs_node),
        pytest.param(["node", "-e", NODE_LOOP], marks=needs_node),
    ],
    ids=["python-library-loop", "node-example", "node-library-loop"],
)
def test_each_adapter_loop_answers_the_version_of_the_schema(command: list[str]) -> None:
    commands = json.dumps(start_message()) + "\n" + json.dumps(STOP) + "\n"
    done = subprocess.run(command, input=commands, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["version"] == protocol_version()


def test_a_crash_errors_that_vector_with_its_stderr_and_the_run_goes_on(tmp_path: Path) -> None:
    results = _run(broken("crash_on_third.py"), _hellos(tmp_path, 7))
    errored, passed = Status.ERRORED, Status.PASSED
    assert _statuses(results) == [passed, passed, errored, passed, passed, errored, passed]
    assert results[2].message.startswith("the adapter exited with code 3; a new adapter process serves")
    assert "crash_on_third: third vector, exiting on purpose" in results[2].details


def test_a_hang_errors_that_vector_within_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No wait is longer than the timeout, and the hung process is killed, not waited for: counted
    over the waits and kills themselves, never timed."""
    waits: list[float] = []
    killed: list[channel.AdapterProcess] = []  # kept, so that no two have the same id
    receive, kill = channel.AdapterProcess.receive, channel.AdapterProcess.kill

    def receiving(process: channel.AdapterProcess, timeout: float) -> object:
        waits.append(timeout)
        return receive(process, timeout)

    def killing(process: channel.AdapterProcess) -> None:
        killed.append(process)
        kill(process)

    monkeypatch.setattr(channel.AdapterProcess, "receive", receiving)
    monkeypatch.setattr(channel.AdapterProcess, "kill", killing)
    results = _run(broken("hang.py"), _hellos(tmp_path, 3))
    assert _statuses(results) == [Status.PASSED, Status.ERRORED, Status.PASSED]
    assert results[1].message.startswith("the adapter gave no answer within 1 s (timeout)")
    assert "hang: second vector, sleeping on purpose" in results[1].details
    assert waits
    assert max(waits) <= TIMEOUT
    assert (
        len({id(process) for process in killed}) == 2
    )  # the hung process at its deadline, its successor at the end


def test_garbage_on_stdout_errors_every_vector(tmp_path: Path) -> None:
    results = _run(broken("garbage.py"), _hellos(tmp_path, 3))
    assert _statuses(results) == [Status.ERRORED] * 3
    assert "the adapter wrote what is not JSON" in results[0].message
    assert "'routing core/v0...'" in results[0].message


def test_a_claimed_profile_it_fails_is_failed_not_errored(tmp_path: Path) -> None:
    results = _run(broken("fails_claimed.py", "core"), _hellos(tmp_path, 2))
    assert _statuses(results) == [Status.FAILED] * 2
    assert results[0].message == 'outcome 3: missing outcome @close end status="completed"'


def test_vectors_of_a_profile_it_does_not_claim_are_not_applicable(tmp_path: Path) -> None:
    results = _run(broken("fails_claimed.py"), _hellos(tmp_path, 2))
    assert _statuses(results) == [Status.NOT_APPLICABLE] * 2
    assert "profile 'core' is not among those streamroute-reference declares" in results[0].message


def test_a_wrong_protocol_version_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "mine"
    _hellos(root, 1)
    refused = (
        f"speaks protocol version {protocol_version() + 1}; this harness speaks version {protocol_version()}"
    )
    with pytest.raises(UsageError, match=refused):
        Suite.prepare(vector_dirs=[root], adapter_command=broken("wrong_version.py"))
    assert main(["run", "--vectors", str(root), "--adapter-command", broken("wrong_version.py")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert refused in err


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ('reply["seq"] = 99', "the adapter answered seq 99 to seq 1"),
        ('reply["events"] = reply["events"][1:]', "answered 3 entries in `events` for 4 events"),
        ('del reply["close"]', "reply is out of protocol: 'close' is a required property"),
        ('reply["skipped"] = True', "reply is out of protocol: 'reason' is a required property"),
        ("reply = [reply]", "reply is out of protocol: [{"),
    ],
)
def test_a_reply_out_of_protocol_errors_the_vector(tmp_path: Path, change: str, reason: str) -> None:
    command = _inline(
        tmp_path,
        "def reply_to(message):\n"
        "    reply = answer(message)\n"
        f"    if message['cmd'] == 'run':\n        {change}\n"
        "    return reply\n",
    )
    [result] = _run(command, _hellos(tmp_path / "v", 1))
    assert result.status is Status.ERRORED
    assert reason in result.message


def test_an_invalid_outcome_fails_the_vector_as_in_process(tmp_path: Path) -> None:
    command = _inline(
        tmp_path,
        "def reply_to(message):\n"
        "    reply = answer(message)\n"
        "    if message['cmd'] == 'run':\n"
        "        reply['events'][2] = [{'kind': 'text.delta'}]\n"
        "    return reply\n",
    )
    [result] = _run(command, _hellos(tmp_path / "v", 1))
    assert result.status is Status.FAILED
    assert result.message.startswith(
        "outcome 1 (from event 2) is not a valid outcome: 'item_id' is a required property"
    )


def test_an_adapter_that_describes_itself_differently_after_a_restart_is_errored(tmp_path: Path) -> None:
    command = _inline(
        tmp_path,
        "def reply_to(message):\n"
        "    if message['cmd'] == 'run':\n        sys.exit(1)\n"
        "    reply = answer(message)\n"
        "    reply['implementation']['version'] = str(os.getpid())\n"
        "    return reply\n",
    )
    results = _run(command, _hellos(tmp_path / "v", 2))
    assert results[0].message.startswith("the adapter exited with code 1")
    assert results[1].message.startswith("the restarted adapter describes itself differently")


def test_skipped_and_errored_answers_are_reported_never_passed(tmp_path: Path) -> None:
    for suffix in ("skip", "error"):
        write_vector(tmp_path, hello(id=f"core/v-{suffix}"))
    vectors, _ = load_vectors([tmp_path])
    results = {r.vector_id: r for r in _run(broken("declines.py"), vectors)}
    assert results["core/v-skip"] == Result(
        "core/v-skip", Status.SKIPPED, "not supported yet (https://example.org/1)"
    )
    assert results["core/v-error"] == Result(
        "core/v-error",
        Status.ERRORED,
        "the adapter reports: KeyError: 'delta'",
        "Traceback: ...",
        charged=("CORE-EVT-2",),  # an implementation that raises breaks CORE-EVT-2 (spec/attribution.md)
        signature="errored CORE-EVT-2: no answer",
    )
    assert not Status.SKIPPED.is_failure


# -- smoke -------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [REFERENCE, pytest.param(f"node {NODE_EXAMPLE}", marks=needs_node)],
)
def test_smoke_describes_a_working_adapter(command: str) -> None:
    line = smoke(command, TIMEOUT * 5)
    assert "speaks streamroute adapter protocol 1; profiles: core" in line
    assert "\n" not in line


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        (broken("garbage.py"), "on a two-event stream: the adapter wrote what is not JSON"),
        (
            broken("wrong_version.py"),
            f"the adapter speaks protocol version {protocol_version() + 1}; "
            f"this harness speaks version {protocol_version()}",
        ),
        ("no-such-adapter-command", "cannot start the adapter"),
        (shlex.join([sys.executable, "-c", "import time; time.sleep(60)"]), "no answer within 1 s"),
        (
            shlex.join([sys.executable, "-c", "raise SystemExit('I do not speak it')"]),
            "the adapter exited with code 1; its stderr ends: I do not speak it",
        ),
    ],
)
def test_smoke_says_what_is_wrong_in_one_line(
    command: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SmokeFailure) as failure:
        smoke(command, TIMEOUT)
    assert problem in str(failure.value)
    assert main(["smoke", "--adapter-command", command, "--timeout", str(TIMEOUT)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("streamroute smoke: adapter ")
    assert err.count("\n") == 1


# -- the messages themselves -------------------------------------------------


def test_the_harness_sends_messages_valid_against_their_schemas(streams: list[Vector]) -> None:
    assert first_error(PROTOCOL_START, start_message()) is None
    assert first_error(PROTOCOL_STOP, STOP) is None
    assert all(first_error(PROTOCOL_RUN, run_message(n, v)) is None for n, v in enumerate(streams))


@pytest.mark.slow
def test_the_reference_replies_valid_against_their_schemas(streams: list[Vector]) -> None:
    replies = serve.reference_replies(router)
    assert first_error(PROTOCOL_START_REPLY, replies(start_message())) is None
    for seq, vector in enumerate(streams):
        reply = replies(run_message(seq, vector))
        assert first_error(PROTOCOL_RUN_REPLY, reply) is None, vector.id


# -- what an adapter can send, and leave behind (spec/protocol.md, sections 6 and 9) --


@pytest.mark.slow
@pytest.mark.parametrize("where", ["reply", "outcome"])
def test_a_reply_nested_too_deep_errors_the_vector_naming_the_limit(
    tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = broken("deep_reply.py", where)
    results = _run(command, _hellos(tmp_path, 2))
    assert _statuses(results) == [Status.ERRORED] * 2
    assert results[0].message.startswith(f"the adapter's reply {TOO_DEEP}")
    assert main(["run", "--vectors", str(tmp_path), "--adapter-command", command]) == 1
    assert "Traceback" not in capsys.readouterr().err


def _flooded(where: str, vectors: list[Vector]) -> list[Result]:
    """The results of floods.py writing lines of 4 MiB on `where`, then of 16 MiB: four times the
    bytes must not take twice the memory of the harness's own Python objects."""
    results: list[Result] = []
    peaks = []
    for mib in (4, 16):
        tracemalloc.start()
        try:
            results += _run(broken("floods.py", where, str(mib)), vectors)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert peaks[1] < 2 * peaks[0], f"4 times the bytes took {peaks[1] / peaks[0]:.1f} times the memory"
    return results


@pytest.mark.slow
def test_a_reply_line_past_the_limit_errors_the_vector_and_is_never_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(channel, "MAX_REPLY_LINE_BYTES", 1 << 20)
    results = _flooded("stdout", _hellos(tmp_path, 2))
    assert _statuses(results) == [Status.ERRORED] * 4
    assert results[0].message == (
        "the adapter wrote a line longer than 1048576 bytes (the reply line limit); "
        "a new adapter process serves the next vector"
    )


@pytest.mark.slow
def test_the_stderr_tail_is_a_bounded_number_of_bytes(tmp_path: Path) -> None:
    results = _flooded("stderr", _hellos(tmp_path, 1))
    assert _statuses(results) == [Status.ERRORED] * 2
    assert results[0].message.startswith("the adapter exited with code 1")
    assert STDERR_TAIL_BYTES <= len(results[0].details) < STDERR_TAIL_BYTES + 100


def _alive(pid: int) -> bool:
    """The process runs (a zombie, killed and waiting for its parent to reap it, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the system
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _ended(pid: int) -> bool:
    """A killed process may take a moment to go: wait for that, up to a few seconds."""
    for _ in range(100):
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
@pytest.mark.parametrize(
    "mode",
    [
        "child",
        pytest.param("session", marks=pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")),
    ],
)
@pytest.mark.parametrize("crash", [False, True])
def test_no_process_the_adapter_starts_outlives_it(tmp_path: Path, mode: str, crash: bool) -> None:
    """After a clean `stop`, and after each restart: a child in the adapter's process group, or
    one that left it with setsid, holding the adapter's pipes."""
    pids = tmp_path / "pids"
    command = broken("forks.py", mode, str(pids), *(["crash"] if crash else []))
    results = _run(command, _hellos(tmp_path / "v", 2))
    assert _statuses(results) == [Status.ERRORED if crash else Status.PASSED] * 2
    if crash:  # at once, though its child still holds its stdout
        assert results[0].message.startswith("the adapter exited with code 3")
    started = [int(pid) for pid in pids.read_text(encoding="ascii").split()]
    assert len(started) == (2 if crash else 1)
    assert [pid for pid in started if not _ended(pid)] == []


def test_a_start_reply_past_its_limits_is_refused_in_one_line(tmp_path: Path) -> None:
    command = _inline(
        tmp_path,
        "def reply_to(message):\n"
        "    reply = answer(message)\n"
        "    if message['cmd'] == 'start':\n"
        "        reply['implementation']['name'] = 'n' * 100_000\n"
        "    return reply\n",
    )
    with pytest.raises(AdapterLoadError) as refused:
        ProtocolImplementation.start(command, TIMEOUT)
    message = str(refused.value)
    assert "the adapter's start reply is out of protocol: 'nnn" in message
    assert message.endswith("characters in all) (at /implementation/name)")
    assert len(message) < MAX_MESSAGE_CHARS + len(command)
