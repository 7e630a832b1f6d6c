"""In-process adapters run under the rules of adapter commands: whatever they do, the vector is
errored, the run completes and fails; the user's Ctrl-C still stops it (tests/hostile_adapters.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.conformance.cli import main
from streamroute.conformance.implementation import AdapterLoadError, PythonImplementation
from streamroute.conformance.results import Status, run_vector
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
    "AnswersForEver": "feed(event 0) raised ValueError: more than 100000 outcomes from one call",
    "AnswersABoobyTrap": "reading its outcomes raised SystemExit: 0",
}


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


@pytest.mark.parametrize("name", ATTACKS)
def test_the_command_completes_the_run_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = _hello(tmp_path / "mine")
    argv = ["run", "--vectors", str(root), "--adapter", f"hostile_adapters:{name}", "--timeout", TIMEOUT]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert f"ERRORED core/hello ({root / 'core/hello.yaml'})\n  {ATTACKS[name]}\n" in out
    assert out.splitlines()[-1] == "streamroute: 0 passed, 0 failed, 1 errored"


@pytest.mark.parametrize("name", ["Skips", "XFails", "ExitsZero", "ExitsPytest", "RaisesKeyboardInterrupt"])
def test_pytest_fails_the_vector_whatever_the_adapter_raises(pytester: pytest.Pytester, name: str) -> None:
    root = _hello(pytester.path / "mine")
    result = pytester.runpytest(
        "--streamroute-vectors", str(root), "--streamroute-adapter", f"hostile_adapters:{name}"
    )
    result.assert_outcomes(failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["errored: *", f"*{ATTACKS[name]}*"])


def test_the_deadline_applies_in_pytest(pytester: pytest.Pytester) -> None:
    root = _hello(pytester.path / "mine")
    adapter = ["--streamroute-adapter", "hostile_adapters:Hangs", "--streamroute-timeout", TIMEOUT]
    result = pytester.runpytest("--streamroute-vectors", str(root), *adapter)
    result.assert_outcomes(failed=1)
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


WATCHDOG = (
    "streamroute: hostile_adapters:IgnoresTheDeadline is still running feed(event 0) of vector core/hello"
    f" 1 s past its {TIMEOUT} s deadline, and cannot be interrupted"
    " (it ignores the deadline or is stuck outside Python code); the run ends here"
)


def test_the_watchdog_ends_a_run_whose_adapter_ignores_the_deadline(tmp_path: Path) -> None:
    root = _hello(tmp_path / "mine")
    adapter = ["--adapter", "hostile_adapters:IgnoresTheDeadline", "--timeout", TIMEOUT]
    done = _run_alone("-m", "streamroute.conformance.cli", "run", "--vectors", str(root), *adapter)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [WATCHDOG]
    assert done.stdout.startswith("implementation: hostile_adapters:IgnoresTheDeadline ")


def test_the_watchdog_line_reaches_the_terminal_under_pytest(tmp_path: Path) -> None:
    root = _hello(tmp_path / "mine")
    adapter = ["--streamroute-adapter", "hostile_adapters:IgnoresTheDeadline"]
    options = ["--streamroute-vectors", str(root), *adapter, "--streamroute-timeout", TIMEOUT]
    done = _run_alone("-m", "pytest", "-p", "no:cacheprovider", str(tmp_path), *options)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == WATCHDOG


def test_an_unknown_profile_claim_is_refused_at_load(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AdapterLoadError) as refused:
        PythonImplementation.load("hostile_adapters:ClaimsAnUnknownProfile")
    assert str(refused.value) == (
        "adapter 'hostile_adapters:ClaimsAnUnknownProfile' claims an unknown profile ssee; "
        "known: core, custom-tools, execution, sse"
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
