"""The two complete workflows of docs/ci.md, run as they stand: each step of the file as a runner
runs it, in a small project of its kind, the action's own run step included (tests/test_action.py
runs it as a runner would). The actions a workflow takes from elsewhere (checkout, setup-python,
setup-node) stand for what this machine already has: the project is checked out where the steps
run, this Python and this Node.js are the ones set up."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import yaml
from streamroute.conformance.schemas import protocol_version
from test_action import ROOT, Ran, _on_path, run_action

CI_MD = ROOT / "docs" / "ci.md"
OURS = re.compile(r"^<owner>/streamroute@v1$")  # the action, as docs/ci.md says to take it


def workflow(name: str) -> dict[str, Any]:
    """The workflow file of docs/ci.md whose block starts with `# .github/workflows/NAME`."""
    blocks = re.findall(r"```yaml\n(.*?)```", CI_MD.read_text(encoding="utf-8"), re.DOTALL)
    (block,) = [block for block in blocks if block.startswith(f"# .github/workflows/{name}\n")]
    parsed: dict[str, Any] = yaml.safe_load(block)
    return parsed


def run_workflow(flow: dict[str, Any], project: Path, tmp_path: Path, environment: dict[str, str]) -> Ran:
    """Each step of the workflow's one job, in order, as a runner runs it; what the action made."""
    (job,) = flow["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest"
    ran: Ran | None = None
    for step in job["steps"]:
        uses = step.get("uses", "")
        if uses == "actions/checkout@v4":
            continue  # the project is where the steps run
        if uses == "actions/setup-python@v5":
            assert re.fullmatch(r"3\.1[0-3]", step["with"]["python-version"])  # one streamroute runs on
        elif uses == "actions/setup-node@v4":
            if shutil.which("node") is None:
                pytest.skip("Node.js is not installed")
            assert int(step["with"]["node-version"]) >= 16  # as adapters/node-example needs
        elif OURS.match(uses):
            ran = run_action(tmp_path, cwd=project, environment=environment, **_inputs(step["with"]))
            assert ran.status == 0, ran.stdout + ran.stderr
        else:
            assert set(step) == {"run"}, f"a step the test cannot run: {step}"
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                cwd=project,
                env={**_on_path(), **environment},
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, f"{step['run']}: {done.stdout}{done.stderr}"
    assert ran is not None, "the workflow does not use the action"
    return ran


def _inputs(given: dict[str, Any]) -> dict[str, str]:
    return {name.replace("-", "_"): str(value) for name, value in given.items()}


def _passed(ran: Ran, profile: str) -> None:
    vectors = [line for line in ran.report() if line["line"] == "vector"]
    assert vectors
    assert {line["profile"] for line in vectors} == {profile}
    assert ran.outputs["exit-code"] == "0"
    assert " passes" in ran.summary.splitlines()[0]


def _python_project(root: Path) -> Path:
    """A package `my_router` whose adapter module is the README's adapter (the reference router
    in the place of a router of one's own), with the pyproject.toml a project has."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    adapter = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert adapter.startswith("# my_adapter.py\n")
    (root / "my_router").mkdir(parents=True)
    (root / "my_router" / "__init__.py").write_text('"""A stream router."""\n', encoding="utf-8")
    (root / "my_router" / "streamroute_adapter.py").write_text(adapter, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "my-router"\nversion = "1.0.0"\n\n'
        '[tool.setuptools]\npackages = ["my_router"]\n',
        encoding="utf-8",
    )
    return root


def _job_python(root: Path) -> Path:
    """A virtualenv for the job's Python, which sees this environment's packages (streamroute and
    what it needs) as its own site packages, `.pth` files included, so that the test changes no
    environment but this one."""
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, capture_output=True)
    (site,) = (root / "lib").glob("python3.*/site-packages")
    ours = sysconfig.get_paths()["purelib"]
    (site / "streamroute-test-environment.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    return root / "bin"


def test_the_python_projects_workflow_passes_as_it_stands(tmp_path: Path) -> None:
    project = _python_project(tmp_path / "project")
    # The job's `python` is a Python of its own, which `pip install .` changes (it builds the
    # project with setuptools from the package index pip is set up with, as tox builds
    # streamroute's own wheel).
    job = _job_python(tmp_path / "job")
    environment = {"PATH": f"{job}{os.pathsep}{os.environ['PATH']}"}
    ran = run_workflow(workflow("streamroute.yml"), project, tmp_path, environment)
    assert not (Path(sysconfig.get_paths()["purelib"]) / "my_router").exists()  # this one is as it was
    _passed(ran, "core")
    assert ran.report()[0]["implementation"]["name"] == "my_router.streamroute_adapter:Adapter"


def _node_project(root: Path) -> Path:
    """adapters/node-example as a project of its own: the router in src/, its adapter in test/,
    answering the protocol version this harness speaks, a package.json and its lockfile."""
    example = ROOT / "adapters" / "node-example"
    (root / "src").mkdir(parents=True)
    (root / "test").mkdir()
    shutil.copy(example / "router.js", root / "src" / "router.js")
    adapter = (example / "adapter.js").read_text(encoding="utf-8")
    for shared, own in [
        (
            'const { PROTOCOL_VERSION } = require("../node-common/protocol.js");',
            f"const PROTOCOL_VERSION = {protocol_version()};",
        ),
        ('require("./router.js")', 'require("../src/router.js")'),
    ]:
        assert shared in adapter
        adapter = adapter.replace(shared, own)
    (root / "test" / "streamroute-adapter.js").write_text(adapter, encoding="utf-8")
    package = {"name": "my-router", "version": "1.0.0", "private": True}
    (root / "package.json").write_text(json.dumps(package), encoding="utf-8")
    lock = {"name": "my-router", "version": "1.0.0", "lockfileVersion": 3, "requires": True}
    lock["packages"] = {"": {"name": "my-router", "version": "1.0.0"}}
    (root / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    return root


def test_the_node_projects_workflow_passes_as_it_stands(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    project = _node_project(tmp_path / "project")
    ran = run_workflow(workflow("streamroute-node.yml"), project, tmp_path, {"npm_config_offline": "true"})
    _passed(ran, "core")
    assert ran.report()[0]["implementation"]["language"] == "javascript"
