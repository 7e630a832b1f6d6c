"""The run step of the streamroute action (action.yml), standard library only.

It runs `streamroute run`, with the Python that runs it and into which action.yml installed the
action's own checkout, against the implementation the inputs name, writing the JSON Lines
report and JUnit under $RUNNER_TEMP/<artifact-name>/, appends `streamroute summary --format
markdown` to $GITHUB_STEP_SUMMARY, sets the step's outputs in $GITHUB_OUTPUT, and exits with the
run's status. The inputs arrive as INPUT_* variables, so the same step runs outside GitHub, as
tests/test_action.py runs it; without the GITHUB_* variables the summary goes to stdout.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

USAGE_ERROR = 2  # as `streamroute` exits for one
# The streamroute the action installed into this Python (action.yml), whatever else is on PATH: the
# version that runs is the action's own, the tag the workflow names.
STREAMROUTE = (sys.executable, "-m", "streamroute.conformance.cli")
ARTIFACT_NAME = r"[A-Za-z0-9._-]+"
# The options of `streamroute run` that take an input's value as it is.
OPTIONS = (
    ("--adapter", "ADAPTER"),
    ("--adapter-command", "ADAPTER_COMMAND"),
    ("--expected-failures", "EXPECTED_FAILURES"),
    ("--timeout", "TIMEOUT"),
)


def _input(name: str) -> str:
    return os.environ.get(f"INPUT_{name}", "").strip()


def _arguments(report: Path, junitxml: Path) -> list[str]:
    """The arguments of `streamroute run` the inputs ask for."""
    arguments = ["run", "--report", str(report), "--junitxml", str(junitxml)]
    for option, name in OPTIONS:
        if _input(name):
            arguments += [option, _input(name)]
    for directory in _input("VECTORS").splitlines():
        if directory.strip():
            arguments += ["--vectors", directory.strip()]
    for profile in re.split(r"[\s,]+", _input("PROFILES")):
        if profile:
            arguments += ["--profile", profile]
    return arguments


def _append(variable: str, text: str) -> None:
    """Append to the file a GITHUB_* variable names; to stdout when it is unset (outside GitHub)."""
    path = os.environ.get(variable)
    if not path:
        sys.stdout.write(text)
        return
    with open(path, "a", encoding="utf-8") as file:
        file.write(text)


def _no_report(status: int, problem: str) -> int:
    """Say why there is no report in the log, as an annotation, and in the job summary; `status`."""
    escaped = problem.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")  # workflow commands
    print(f"::error title=streamroute::{escaped}", flush=True)
    what = "did not start" if status == USAGE_ERROR else f"ended with exit status {status} and no report"
    _append("GITHUB_STEP_SUMMARY", f"## streamroute: the run {what}\n\n{problem}\n")
    _append("GITHUB_OUTPUT", f"exit-code={status}\n")
    return status


def main() -> int:
    if not _input("ADAPTER") and not _input("ADAPTER_COMMAND"):
        # An unset variable must never test the reference unnoticed, as `streamroute run` alone would.
        return _no_report(USAGE_ERROR, "give the input `adapter` (module:callable) or `adapter-command`")
    name = _input("ARTIFACT_NAME") or "streamroute"
    if not re.fullmatch(ARTIFACT_NAME, name) or set(name) == {"."}:
        # It names a folder and goes into the step's outputs: one plain word, nothing that escapes.
        return _no_report(USAGE_ERROR, f"the input `artifact-name` must match {ARTIFACT_NAME}, not {name!r}")
    folder = Path(os.environ.get("RUNNER_TEMP") or tempfile.gettempdir()) / name
    folder.mkdir(parents=True, exist_ok=True)
    report, junitxml = folder / "report.jsonl", folder / "junit.xml"
    for stale in (report, junitxml):  # a file left by an earlier run in this job is not this run's
        stale.unlink(missing_ok=True)
    arguments = _arguments(report, junitxml)
    print(f"$ streamroute {shlex.join(arguments)}", flush=True)
    # stderr is passed on as it comes (the run's progress lines), its last line kept for the summary.
    with subprocess.Popen([*STREAMROUTE, *arguments], stderr=subprocess.PIPE, text=True) as run:
        assert run.stderr is not None
        last = ""
        for line in run.stderr:
            sys.stderr.write(line)
            sys.stderr.flush()
            last = line.strip() or last
    if not report.exists():
        return _no_report(
            run.returncode or USAGE_ERROR, last or f"`streamroute run` exited with {run.returncode}"
        )
    written = [("report", report), ("junitxml", junitxml)]
    outputs = [f"exit-code={run.returncode}", *(f"{name}={path}" for name, path in written if path.exists())]
    _append("GITHUB_OUTPUT", "".join(line + "\n" for line in outputs))
    summary = subprocess.run(
        [*STREAMROUTE, "summary", "--format", "markdown", str(report)], stdout=subprocess.PIPE, text=True
    )
    _append("GITHUB_STEP_SUMMARY", summary.stdout)
    if summary.returncode not in (0, 1):  # 1 only says the run failed, which its own status says
        return summary.returncode
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
