"""Progress on long runs (conformance/progress.py, tests/heartbeat.py), with a fake clock and a fake
terminal: the tests count lines, never time."""

from __future__ import annotations

import configparser
import io
import random
from pathlib import Path

import pytest
from conftest import hello, write_vector
from heartbeat import Heartbeat
from streamroute.conformance.cli import main
from streamroute.conformance.progress import PERIOD, TICK, Progress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_a_line_comes_once_a_period_naming_what_runs() -> None:
    clock, out = Clock(), io.StringIO()
    progress = Progress("vectors", 3, prefix="streamroute run", stream=out, clock=clock)
    assert not progress.live  # a StringIO is no terminal
    progress.step("core/a")
    clock.now += PERIOD - 1
    progress.tick()
    assert out.getvalue() == ""  # a fast run says nothing
    clock.now += 1
    progress.tick()
    progress.tick()
    assert out.getvalue() == f"streamroute run: 0 of 3 vectors; running core/a for {PERIOD:.0f} s\n"
    progress.finished(failed=True)
    progress.step("core/b")
    clock.now += PERIOD
    progress.tick()
    assert (
        out.getvalue().splitlines()[-1]
        == "streamroute run: 1 of 3 vectors, 1 failed; running core/b for 20 s"
    )


def test_a_long_run_is_never_silent_for_30_seconds() -> None:
    """Steps of any length, the thread's ticks a second apart: lines at most 30 seconds apart."""
    clock, out = Clock(), io.StringIO()
    progress = Progress("tests", 1000, stream=out, clock=clock)
    started, lines = clock.now, []
    draw = random.Random(7)
    for number in range(300):
        progress.step(f"test {number}")
        for _ in range(draw.choice([0, 0, 1, 3, 45])):  # most steps are fast, some take long
            clock.now += 1
            before = out.getvalue().count("\n")
            progress.tick()
            if out.getvalue().count("\n") > before:
                lines.append(clock.now)
        progress.finished()
    gaps = [b - a for a, b in zip([started, *lines], [*lines, clock.now], strict=True)]
    assert len(lines) > 1
    assert max(gaps) <= 30


def test_on_a_terminal_one_status_line_kept_out_of_the_output() -> None:
    clock, terminal, output = Clock(), Terminal(), io.StringIO()
    progress = Progress("vectors", 2, stream=terminal, clock=clock)
    assert progress.live
    progress.step("core/a")
    assert terminal.getvalue() == "\r\x1b[K[0/2] · core/a (0 s)"
    clock.now += 3
    progress.tick()
    assert terminal.getvalue().endswith("\r\x1b[K[0/2] · core/a (3 s)")
    progress.finished(failed=True)
    progress.say("FAILED core/a", output)
    assert output.getvalue() == "FAILED core/a\n"
    # cleared before the output, drawn again after it
    assert terminal.getvalue().endswith("\r\x1b[K[1/2] 1 failed\r\x1b[K\r\x1b[K[1/2] 1 failed")
    progress.close()
    assert terminal.getvalue().endswith("\r\x1b[K")


def _vectors(root: Path) -> Path:
    for number in range(3):
        write_vector(root, hello(id=f"core/hello-{number}"))
    wrong = hello(id="core/wrong")
    wrong["expect"]["outcomes"][1]["delta"] = "Help"
    write_vector(root, wrong)
    return root


def test_run_keeps_a_status_line_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["run", "--vectors", str(_vectors(tmp_path)), "-q"]) == 1
    shown = terminal.getvalue()
    for number in range(3):
        assert f"· core/hello-{number} (" in shown
    assert "\r\x1b[K[4/4] 1 failed" in shown
    assert "\r\x1b[Kstreamroute: 1 vector failed or errored\n" in shown  # cleared before what follows
    out = capsys.readouterr().out
    assert "\x1b" not in out  # the status line never mixes with the output
    assert "FAILED core/wrong: outcome 1" in out


def test_fuzz_keeps_a_status_line_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["fuzz", "--examples", "3", "--seed", "1"]) == 0
    assert "· stream 3 of 3 (" in terminal.getvalue()


def test_the_tests_heartbeat_prints_whole_lines_under_tox(monkeypatch: pytest.MonkeyPatch) -> None:
    clock, out = Clock(), io.StringIO()
    beat = Heartbeat(out, "py311", whole_lines=True, clock=clock)
    beat.progress.total = 2
    beat.pytest_runtest_logstart("tests/test_a.py::test_slow")
    clock.now += PERIOD
    beat.progress.tick()
    report = pytest.TestReport("tests/test_a.py::test_slow", ("x", 1, "t"), {}, "failed", None, "call")
    beat.pytest_runtest_logreport(report)
    beat.pytest_runtest_logfinish("tests/test_a.py::test_slow")
    assert out.getvalue().splitlines() == [
        "py311: 0 of 2 tests; running tests/test_a.py::test_slow for 20 s",
        "py311: FAILED tests/test_a.py::test_slow",
    ]


class _Outcome:
    def __init__(self, result: tuple[str, str, str]) -> None:
        self.result = result

    def get_result(self) -> tuple[str, str, str]:
        return self.result

    def force_result(self, result: tuple[str, str, str]) -> None:
        self.result = result


@pytest.mark.parametrize("whole_lines", [True, False])
def test_under_tox_no_letter_is_printed_and_the_status_stays(whole_lines: bool) -> None:
    beat = Heartbeat(io.StringIO(), "py311", whole_lines)
    hook = beat.pytest_report_teststatus()
    next(hook)
    outcome = _Outcome(("failed", "F", "FAILED"))
    with pytest.raises(StopIteration):
        hook.send(outcome)
    assert outcome.result == (("failed", "", "FAILED") if whole_lines else ("failed", "F", "FAILED"))


def test_the_readmes_test_command_keeps_talking() -> None:
    """The README's test command (which CI runs) shows the environments' output as it comes, and
    tox.ini has the tests print their whole lines under the environment's name."""
    root = Path(__file__).resolve().parent.parent
    command = "python3 -m pip install tox && python3 -m tox run-parallel -m check --parallel-live"
    assert f"\n{command}\n" in (root / "README.md").read_text(encoding="utf-8")
    assert (root / ".ci" / "run").read_text(encoding="utf-8").splitlines()[-1] == command
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(root / "tox.ini", encoding="utf-8")
    assert "STREAMROUTE_TEST_PROGRESS = {env_name}" in tox["testenv"]["set_env"]
    for name in ("testenv", "testenv:slow"):
        assert tox[name]["commands"].startswith("pytest -q ")  # no per-file line left open
    assert PERIOD + TICK < 30


def test_under_xdist_the_total_is_what_a_worker_collected() -> None:
    """The controller collects nothing: the count comes from a worker's collection."""
    clock, out = Clock(), io.StringIO()
    beat = Heartbeat(out, "py", whole_lines=True, clock=clock)
    beat.pytest_xdist_node_collection_finished(["tests/test_a.py::test_one", "tests/test_a.py::test_two"])
    beat.pytest_runtest_logstart("tests/test_a.py::test_one")
    clock.now += PERIOD
    beat.progress.tick()
    assert out.getvalue() == "py: 0 of 2 tests; running tests/test_a.py::test_one for 20 s\n"


def test_off_tox_a_line_of_the_tests_progress_starts_a_line_of_its_own() -> None:
    clock, out = Clock(), io.StringIO()
    beat = Heartbeat(out, "tests", whole_lines=False, clock=clock)
    beat.pytest_runtest_logstart("tests/test_a.py::test_slow")
    clock.now += PERIOD
    beat.progress.tick()
    assert out.getvalue() == "\ntests: 0 tests; running tests/test_a.py::test_slow for 20 s\n"
