"""The GitHub Action (action.yml), its run step run here as a runner runs it: the step's command and
environment read from action.yml, `${{ inputs.* }}` filled in from the inputs, the GITHUB_* and
RUNNER_* variables pointed at temporary files, and `streamroute` from this environment on PATH. And
the pre-commit hook of .pre-commit-hooks.yaml, run as pre-commit runs it in another project."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
RUN_STEP = next(step for step in STEPS if step.get("id") == "run")
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
REFERENCE = "streamroute.reference.adapter:router"
FOLDERS = ("core/args", "core/lifecycle")  # two bundled folders, each its own vectors root


@dataclass
class Ran:
    status: int
    stdout: str
    stderr: str
    summary: str
    outputs: dict[str, str]

    def report(self) -> list[dict[str, Any]]:
        text = Path(self.outputs["report"]).read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines()]

    def junit(self) -> ET.Element:
        return ET.parse(self.outputs["junitxml"]).getroot()


def _strings(node: Any) -> list[str]:
    """Every string in action.yml, keys and values."""
    if isinstance(node, dict):
        return [text for key, value in node.items() for text in (*_strings(key), *_strings(value))]
    if isinstance(node, list):
        return [text for value in node for text in _strings(value)]
    return [node] if isinstance(node, str) else []


def _evaluate(text: str, contexts: dict[str, dict[str, str]]) -> str:
    """`text` with each `${{ context.name }}` replaced; any other expression fails the test."""

    def value(match: re.Match[str]) -> str:
        context, _, name = match.group(1).rpartition(".")
        assert context in contexts, f"action.yml: the test cannot evaluate ${{{{ {match.group(1)} }}}}"
        return contexts[context].get(name, "")

    return EXPRESSION.sub(value, text)


def _outputs(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return dict(line.split("=", 1) for line in lines)


def _on_path() -> dict[str, str]:
    """This environment, with this Python's `streamroute` first on PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def run_action(
    tmp_path: Path, *, cwd: Path | None = None, environment: dict[str, str] | None = None, **inputs: str
) -> Ran:
    """The action's run step with these inputs (Python names: adapter_command for adapter-command),
    in `cwd` (`tmp_path` by default), with the job's `environment` beside the runner's variables."""
    given = {name.replace("_", "-"): value for name, value in inputs.items()}
    assert set(given) <= set(ACTION["inputs"]), (
        f"not inputs of the action: {set(given) - set(ACTION['inputs'])}"
    )
    values = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()} | given
    github = tmp_path / "github"
    github.mkdir()
    env = {name: _evaluate(str(value), {"inputs": values}) for name, value in RUN_STEP["env"].items()}
    env |= {
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_STEP_SUMMARY": str(github / "summary.md"),
        "GITHUB_OUTPUT": str(github / "output"),
        "RUNNER_TEMP": str(github / "temp"),
        "PYTHONPATH": str(Path(__file__).parent),  # broken_routers
        **(environment or {}),
    }
    bash = shutil.which("bash")
    assert bash is not None
    assert RUN_STEP["shell"] == "bash"
    done = subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", RUN_STEP["run"]],
        cwd=cwd or tmp_path,
        env={**_on_path(), **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    summary = github / "summary.md"
    return Ran(
        done.returncode,
        done.stdout,
        done.stderr,
        summary.read_text(encoding="utf-8") if summary.exists() else "",
        _outputs(github / "output"),
    )


def vector_roots(tmp_path: Path) -> list[Path]:
    """A copy of each folder of FOLDERS as a vectors root of its own (ids are paths under the root)."""
    roots = []
    for index, folder in enumerate(FOLDERS):
        root = tmp_path / f"vectors-{index}"
        shutil.copytree(ROOT / "vectors" / folder, root / folder)
        roots.append(root)
    return roots


def _vectors_input(roots: list[Path]) -> str:
    return "".join(f"  {root}\n" for root in roots)  # one a line, as a YAML block gives them


def _testcases(ran: Ran) -> list[ET.Element]:
    return list(ran.junit().iter("testcase"))


def _failing(testcases: list[ET.Element]) -> int:
    return sum(1 for case in testcases if case.find("failure") is not None or case.find("error") is not None)


def test_every_input_the_action_uses_is_declared_and_every_declared_one_is_used() -> None:
    used = {name for text in _strings(ACTION["runs"]) for name in re.findall(r"\binputs\.([\w-]+)", text)}
    assert used == set(ACTION["inputs"])
    for name, spec in ACTION["inputs"].items():
        assert spec["description"].strip(), f"input {name} has no description"


def test_the_step_outputs_the_action_uses_are_those_of_a_step_it_has() -> None:
    ids = {step["id"] for step in STEPS if "id" in step}
    referenced = {
        match for text in _strings(ACTION) for match in re.findall(r"\bsteps\.([\w-]+)\.outputs\.", text)
    }
    assert referenced <= ids
    for name, spec in ACTION["outputs"].items():
        assert spec["value"] == f"${{{{ steps.run.outputs.{name} }}}}", f"output {name}"


def test_streamroute_is_installed_from_the_actions_own_checkout_and_run_by_that_python(
    tmp_path: Path,
) -> None:
    """The version that runs is the tag the workflow names: the action's own checkout, installed
    into the Python that then runs it, whatever other `streamroute` is on PATH."""
    (install,) = [step for step in STEPS if "pip install" in step.get("run", "")]
    assert install["run"] == 'python -m pip install "$GITHUB_ACTION_PATH"'
    assert RUN_STEP["run"] == 'python "$GITHUB_ACTION_PATH/action/run.py"'
    other = tmp_path / "bin"
    other.mkdir()
    (other / "streamroute").write_text("#!/bin/sh\necho another streamroute >&2\nexit 3\n", encoding="utf-8")
    (other / "streamroute").chmod(0o755)
    path = f"{other}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    ran = run_action(tmp_path, environment={"PATH": path}, adapter=REFERENCE, profiles="session")
    assert ran.status == 0, ran.stderr
    assert "another streamroute" not in ran.stderr


def test_the_reference_passes_with_summary_report_and_junit(tmp_path: Path) -> None:
    roots = vector_roots(tmp_path)
    ran = run_action(tmp_path, adapter=REFERENCE, vectors=_vectors_input(roots), profiles="core")
    assert ran.status == 0, ran.stdout + ran.stderr
    assert ran.stdout.startswith("$ streamroute run --report ")
    assert ran.summary.startswith("## streamroute: ")
    assert " passes" in ran.summary.splitlines()[0]
    assert ran.outputs["exit-code"] == "0"
    lines = ran.report()
    vectors = [line for line in lines if line["line"] == "vector"]
    files = sorted(path.relative_to(root) for root in roots for path in root.rglob("*.yaml"))
    assert sorted(Path(f"{line['id']}.yaml") for line in vectors) == files
    statuses = {line["status"] for line in vectors}
    assert "passed" in statuses
    assert statuses <= {"passed", "not applicable"}  # a vector of an option value it does not take
    assert lines[-1]["line"] == "footer"
    testcases = _testcases(ran)
    assert len(testcases) == len(vectors)
    assert _failing(testcases) == 0
    upload = next(step for step in STEPS if step.get("uses", "").startswith("actions/upload-artifact@"))
    paths = _evaluate(upload["with"]["path"], {"steps.run.outputs": ran.outputs}).split()
    assert paths == [ran.outputs["report"], ran.outputs["junitxml"]]
    assert all(Path(path).is_file() for path in paths)


def test_a_broken_router_fails_with_every_file_written(tmp_path: Path) -> None:
    roots = vector_roots(tmp_path)
    ran = run_action(tmp_path, adapter="broken_routers:EarlyCall", vectors=_vectors_input(roots))
    assert ran.status == 1, ran.stdout + ran.stderr
    assert ran.outputs["exit-code"] == "1"
    assert " fails" in ran.summary.splitlines()[0]
    vectors = [line for line in ran.report() if line["line"] == "vector"]
    failed = [line["id"] for line in vectors if line["status"] in ("failed", "errored")]
    assert failed
    assert all(f"`{vector_id}`" in ran.summary for vector_id in failed)
    testcases = _testcases(ran)
    assert len(testcases) == len(vectors)
    assert _failing(testcases) == len(failed)

    # The same failures listed as expected (`streamroute baseline`) pass the step.
    baseline = tmp_path / "expected-failures.txt"
    subprocess.run(
        ["streamroute", "baseline", ran.outputs["report"], "-o", str(baseline)], check=True, env=_on_path()
    )
    again = tmp_path / "again"
    again.mkdir()
    rerun = run_action(
        again,
        adapter="broken_routers:EarlyCall",
        vectors=_vectors_input(roots),
        expected_failures=str(baseline),
    )
    assert rerun.status == 0, rerun.stdout + rerun.stderr
    statuses = {line["id"]: line["status"] for line in rerun.report() if line["line"] == "vector"}
    assert {statuses[vector_id] for vector_id in failed} == {"expected failure"}


@pytest.mark.parametrize(
    ("inputs", "reason"),
    [
        ({}, "give the input `adapter` (module:callable) or `adapter-command`"),
        ({"adapter": REFERENCE, "profiles": "core, nonsense"}, "nonsense"),
        ({"adapter": REFERENCE, "adapter_command": "python -m streamroute.reference.serve"}, "not both"),
        ({"adapter": REFERENCE, "timeout": "soon"}, "--timeout"),
        ({"adapter": REFERENCE, "artifact_name": "x\nexit-code=0"}, "`artifact-name`"),
        ({"adapter": REFERENCE, "artifact_name": ".."}, "`artifact-name`"),
    ],
    ids=[
        "no-implementation",
        "unknown-profile",
        "two-implementations",
        "bad-timeout",
        "name-injects",
        "name-up",
    ],
)
def test_a_usage_error_exits_2_and_says_why(tmp_path: Path, inputs: dict[str, str], reason: str) -> None:
    ran = run_action(tmp_path, **inputs)
    assert ran.status == 2, ran.stdout + ran.stderr
    assert ran.outputs == {"exit-code": "2"}  # no report: the upload step is skipped
    assert ran.summary.startswith("## streamroute: the run did not start\n")
    assert reason in ran.summary
    assert "::error title=streamroute::" in ran.stdout


def test_the_pre_commit_hook_lints_the_projects_own_vectors(tmp_path: Path) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "streamroute-lint"
    assert hook["pass_filenames"] is False  # the linter reads a directory, never single files
    command = [*shlex.split(hook["entry"]), *hook["args"]]
    vector = tmp_path / "vectors" / "core" / "text" / "plain-answer.yaml"  # its id, under `vectors`
    vector.parent.mkdir(parents=True)
    shutil.copyfile(ROOT / "vectors" / "core" / "text" / "plain-answer.yaml", vector)

    def lint() -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, cwd=tmp_path, env=_on_path(), capture_output=True, text=True)

    clean = lint()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    vector.write_text(
        vector.read_text(encoding="utf-8").replace("level: MUST", "level: MAY"), encoding="utf-8"
    )
    broken = lint()
    assert broken.returncode == 1
    assert (
        f"{Path('vectors/core/text/plain-answer.yaml')}: core/text/plain-answer: level MAY" in broken.stdout
    )
