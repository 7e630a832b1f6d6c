"""In-process adapters run under the rules of adapter commands: whatever they do, the vector is
errored, the run completes and fails; the user's Ctrl-C still stops it (tests/hostile_adapters.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import hello, write_vector
from hypothesis import given
from hypothesis import strategies as st
from streamroute.conformance.cli import main
from streamroute.conformance.implementation import (
    AdapterLoadError,
    PythonImplementation,
    _as_json,
    known_profiles,
)
from streamroute.conformance.judge import run_vector
from streamroute.conformance.limits import TooDeep, loads
from streamroute.conformance.results import Status
from streamroute.conformance.vectors import Vector, load_vectors

pytest_plugins = ["pytester"]

TESTS = Path(__file__).parent
TIMEOUT = "0.25"

# Each hostile adapter, and what the errored vector's message says.
ATTACKS = {
    "ExitsZero": "feed(event 0) raised SystemExit: 0",
    "RaisesGeneratorExit": "feed(event 0) raised GeneratorExit",
    "RaisesKeyboardInterrupt": "feed(event 0) raised KeyboardInterrupt",
    "Skips": "feed(event 0) raised Skipped: not today",
    "XFails": "feed(event 0) raised XFailed: known to fail",
    "ExitsPytest": "feed(event 0) raised Exit: enough",
    "Hangs": f"feed(event 0) did not return within {TIMEOUT} s",
    "CatchesTheDeadline": f"feed(event 0) did not return within {TIMEOUT} s, caught the deadline and went on",
    "RaisesTheUnprintable": "feed(event 0) raised _Unprintable",
    "AnswersBytes": "outcome 0 (from event 0): Object of type bytes is not JSON serializable",
    "AnswersTooDeep": "outcome 0 (from event 0): nests arrays and objects deeper than 256 levels"
    " (the JSON depth limit)",
    "AnswersForEver": "feed(event 0) answered more than 100000 outcomes from one call",
    "AnswersABoobyTrap": "reading its outcomes raised SystemExit: 0",
}


# Adapters that end or stall the process they run in; the front ends run them in a worker process.
ENDS_ITS_PROCESS = {
    "EndsTheProcess": "ended its process (exit status 0) before it answered",
    "KillsItself": "ended its process (killed by signal 9 (SIGKILL)) before it answered",
    "ClosesItsPipes": "closed or replaced the harness's pipe before it answered",
    "IgnoresTheDeadline": (
        f"did not return within {TIMEOUT} s, nor in 1 s more, and was killed before it answered"
    ),
}
# What the errored vector says, whatever the adapter did.
ERRORED = {**ATTACKS, **ENDS_ITS_PROCESS}


def _hello(root: Path) -> Path:
    write_vector(root, hello())
    return root


def _vector(tmp_path: Path) -> Vector:
    return load_vectors([_hello(tmp_path)])[0][0]


@pytest.mark.parametrize(("name", "message"), ATTACKS.items())
def test_a_hostile_adapter_errors_the_vector(tmp_path: Path, name: str, message: str) -> None:
    implementation = PythonImplementation.load(f"hostile_adapters:{name}", float(TIMEOUT))
    result = run_vector(implementation, _vector(tmp_path))
    assert (result.status, result.message) == (Status.ERRORED, message)


@pytest.mark.parametrize("name", ERRORED)
def test_the_command_completes_the_run_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = _hello(tmp_path / "mine")
    argv = ["run", "--vectors", str(root), "--adapter", f"hostile_adapters:{name}", "--timeout", TIMEOUT]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "ERRORED core/hello " in out
    assert f"\n  {ERRORED[name]}\n" in out
    assert out.splitlines()[-1] == "streamroute: 0 passed, 0 failed, 1 errored"


@pytest.mark.parametrize(
    "name",
    [
        "Skips",
        "XFails",
        "ExitsZero",
        "ExitsPytest",
        "RaisesKeyboardInterrupt",
        "EndsTheProcess",
        "KillsItself",
    ],
)
def test_pytest_fails_the_vector_whatever_the_adapter_raises(pytester: pytest.Pytester, name: str) -> None:
    root = _hello(pytester.path / "mine")
    result = pytester.runpytest(
        "--streamroute-vectors", str(root), "--streamroute-adapter", f"hostile_adapters:{name}"
    )
    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["ERRORED core/hello *", f"*{ERRORED[name]}*"])


def test_the_deadline_applies_in_pytest(pytester: pytest.Pytester) -> None:
    root = _hello(pytester.path / "mine")
    adapter = ["--streamroute-adapter", "hostile_adapters:Hangs", "--streamroute-timeout", TIMEOUT]
    result = pytester.runpytest("--streamroute-vectors", str(root), *adapter)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*{ATTACKS['Hangs']}*"])


@pytest.mark.parametrize("name", ["PressesCtrlC", "SwallowsCtrlC"])
def test_the_users_ctrl_c_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    implementation = PythonImplementation.load(f"hostile_adapters:{name}")
    with pytest.raises(KeyboardInterrupt):
        run_vector(implementation, _vector(tmp_path / "one"))
    root = _hello(tmp_path / "mine")
    assert main(["run", "--vectors", str(root), "--adapter", f"hostile_adapters:{name}"]) == 130
    assert capsys.readouterr().err.splitlines() == ["streamroute: interrupted"]


def _run_alone(*argv: str) -> subprocess.CompletedProcess[str]:
    """A run in a process of its own, from tests/, where hostile_adapters sits."""
    command = [sys.executable, *argv]
    return subprocess.run(command, cwd=TESTS, capture_output=True, text=True, timeout=60, check=False)


def test_only_the_worker_answers_what_the_adapter_forks_leaves_without_a_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "mine"
    write_vector(root, hello())
    write_vector(root, {**hello(), "id": "core/hello-again"})
    assert main(["run", "--vectors", str(root), "--adapter", "hostile_adapters:ForksAndRoutes"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "streamroute: 2 passed, 0 failed, 0 errored"


def test_the_run_goes_on_in_a_new_worker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "mine"
    write_vector(root, hello())
    write_vector(root, {**hello(), "id": "core/hello-again"})
    monkeypatch.setenv("STREAMROUTE_TEST_MARKER", str(tmp_path / "ended-once"))
    assert main(["run", "--vectors", str(root), "--adapter", "hostile_adapters:EndsTheProcessOnce"]) == 1
    out = capsys.readouterr().out
    assert "  ended its process (exit status 0) before it answered\n" in out
    assert out.splitlines()[-1] == "streamroute: 0 passed, 1 failed, 1 errored"


def test_an_adapter_that_ends_its_process_at_import_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ends_at_import.py").write_text("import os\nos._exit(0)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["run", "--adapter", "ends_at_import:Adapter"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "streamroute: cannot load adapter 'ends_at_import:Adapter': ended its process (exit status 0) "
        "while loading it"
    ]


def _run_alone(*argv: str) -> subprocess.CompletedProcess[str]:
    """A process of its own, from tests/, where hostile_adapters sits."""
    command = [sys.executable, *argv]
    return subprocess.run(command, cwd=TESTS, capture_output=True, text=True, timeout=60, check=False)


# PythonImplementation alone, without a worker, as tests and mutants use it.
IN_PROCESS = f"""
from pathlib import Path
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.limits import TooDeep, loads
from streamroute.conformance.vectors import load_vectors
implementation = PythonImplementation.load("hostile_adapters:IgnoresTheDeadline", {TIMEOUT})
run_vector(implementation, load_vectors([Path(__import__("sys").argv[1])])[0][0])
"""
WATCHDOG = (
    "streamroute: hostile_adapters:IgnoresTheDeadline is still running feed(event 0) of vector core/hello"
    f" 1 s past its {TIMEOUT} s deadline, and cannot be interrupted"
    " (it ignores the deadline or is stuck outside Python code); the run ends here"
)


@pytest.mark.slow
def test_in_process_the_watchdog_ends_a_run_whose_adapter_ignores_the_deadline(tmp_path: Path) -> None:
    done = _run_alone("-c", IN_PROCESS, str(_hello(tmp_path / "mine")))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [WATCHDOG]


def test_an_unknown_profile_claim_is_refused_at_load(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AdapterLoadError) as refused:
        PythonImplementation.load("hostile_adapters:ClaimsAnUnknownProfile")
    assert str(refused.value) == (
        "adapter 'hostile_adapters:ClaimsAnUnknownProfile' declares profile 'ssee'; "
        f"allowed: one of {', '.join(known_profiles())}; see spec/README.md#the-router"
    )
    assert main(["run", "--adapter", "hostile_adapters:ClaimsAnUnknownProfile"]) == 2
    assert capsys.readouterr().err.splitlines() == [f"streamroute: {refused.value}"]


def test_an_adapter_that_exits_as_it_is_imported_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "exits_at_import.py").write_text("import sys\nsys.exit(0)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["run", "--adapter", "exits_at_import:Adapter"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "streamroute: cannot load adapter 'exits_at_import:Adapter': importing it raised SystemExit: 0"
    ]


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8), st.just(b"bytes")
)
_KEYS = st.one_of(st.text(max_size=4), st.integers(-2, 2), st.booleans(), st.none(), st.floats(0, 1))
_ANSWERS = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.tuples(inner), st.dictionaries(_KEYS, inner, max_size=3)
    ),
    max_leaves=12,
)


def _read_back(value: object) -> object:
    """What an answer is as its JSON text read back, or the type of error the text raises."""
    try:
        return loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        return type(exc)


def _copied(value: object) -> object:
    """The harness's copy of an answer, or the type of error it raises."""
    try:
        return _as_json(value)
    except (TypeError, ValueError) as exc:
        return type(exc)


@given(_ANSWERS)
def test_an_answer_is_copied_as_its_json_text_reads_back(answer: object) -> None:
    """The copy the harness makes of each answer is its JSON text read back, however it is made:
    the same values of the same types, the same errors."""
    assert repr(_copied(answer)) == repr(_read_back(answer))


@pytest.mark.parametrize("depth", [63, 64, 65, 256, 257])
def test_a_deep_answer_is_copied_as_its_json_text_reads_back(depth: int) -> None:
    nested: list[object] = []
    for _ in range(depth - 1):
        nested = [nested]
    assert repr(_copied(nested)) == repr(_read_back(nested))
    assert (_copied(nested) is TooDeep) == (depth > 256)
