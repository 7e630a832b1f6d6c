"""Each kind of code in its own room: the harness reaches the reference only as its default adapter,
the reference depends on no other part of the project but the leaf both import (wire/), and the
leaf on nothing but the standard library; a command run against an adapter in a process of its own
loads no reference module."""

from __future__ import annotations

import ast
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from streamroute.conformance.options import DEFAULT_ADAPTER

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("reference", "conformance", "producer", "bench", "matrix", "wire")


def _imported(path: Path) -> set[str]:
    """The modules `path` imports, relative imports made absolute under `streamroute`."""
    package = ["streamroute", path.parent.name]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
            if node.module is None:  # `from . import worker`
                names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def _modules(part: str) -> list[Path]:
    return sorted((ROOT / part).glob("*.py"))


@pytest.mark.parametrize("path", _modules("conformance"), ids=lambda path: path.name)
def test_the_harness_imports_no_reference_module(path: Path) -> None:
    reached = {name for name in _imported(path) if name.startswith("streamroute.reference")}
    assert not reached, (
        f"{path.name} imports {sorted(reached)}; the harness names the reference only as {DEFAULT_ADAPTER!r}"
    )


def test_the_harness_names_the_reference_in_one_place() -> None:
    naming = [
        path.name for path in _modules("conformance") if "streamroute.reference" in path.read_text("utf-8")
    ]
    assert naming == ["options.py"]
    assert DEFAULT_ADAPTER.startswith("streamroute.reference.")


def _parts_reached(path: Path, *allowed: str) -> set[str]:
    """The modules of the project's other parts that `path` imports, but those of `allowed`."""
    others = {f"streamroute.{part}" for part in PARTS if part not in (path.parent.name, *allowed)}
    return {name for name in _imported(path) if ".".join(name.split(".")[:2]) in others}


@pytest.mark.parametrize("path", _modules("reference"), ids=lambda path: path.name)
def test_the_reference_depends_on_no_other_part_of_the_project_but_the_leaf(path: Path) -> None:
    reached = _parts_reached(path, "wire")
    assert not reached, f"{path.name} imports {sorted(reached)}"


@pytest.mark.parametrize("path", _modules("wire"), ids=lambda path: path.name)
def test_the_leaf_imports_the_standard_library_and_itself_only(path: Path) -> None:
    reached = _parts_reached(path)
    foreign = {
        name
        for name in _imported(path) - {"__future__"}
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("streamroute.wire")
    }
    assert not reached, f"{path.name} imports {sorted(reached)}"
    assert not foreign, f"{path.name} imports {sorted(foreign)}, which are not in the standard library"


@pytest.mark.parametrize("part", PARTS)
def test_every_part_is_a_package_of_the_distribution(part: str) -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"streamroute.{part}" = "{part}"' in pyproject
    assert (ROOT / part / "__init__.py").is_file()


# -- what a command loads ------------------------------------------------------------------------

# The reference over the adapter protocol: the reference runs in the adapter's process alone.
ADAPTER_COMMAND = shlex.join([sys.executable, "-m", "streamroute.reference.serve"])
CLI = "from streamroute.conformance.cli import main; raise SystemExit(main())"
COMMANDS = {
    "streamroute lint": ["-c", CLI, "lint"],
    "streamroute run --adapter-command": [
        "-c",
        CLI,
        "run",
        "--adapter-command",
        ADAPTER_COMMAND,
        "-k",
        "done",
    ],
    "pytest --streamroute-adapter-command": [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--streamroute-adapter-command",
        ADAPTER_COMMAND,
        "-k",
        "done",
    ],
}


def _loaded(arguments: list[str], cwd: Path) -> set[str]:
    """The modules a Python process with these arguments imported, as `-X importtime` lists
    them on its stderr (the adapter's own process is started without it)."""
    finished = subprocess.run(
        [sys.executable, "-X", "importtime", *arguments], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    lines = [line for line in finished.stderr.splitlines() if line.startswith("import time:")]
    assert len(lines) > 100, finished.stderr  # the listing is there: an empty one proves nothing
    return {line.rpartition("|")[2].strip() for line in lines}


@pytest.mark.parametrize("command", COMMANDS)
def test_the_harness_process_loads_no_reference_module(command: str, tmp_path: Path) -> None:
    """What a command loads, not only what its modules import: the reference is the adapter's."""
    loaded = _loaded(COMMANDS[command], tmp_path)
    # The harness ran: the CLI, or the plugin's harness, which the plugin imports once a streamroute
    # option is given (the plugin itself is not listed: pytest imports an entry point with
    # `importlib.import_module`, which `-X importtime` does not report).
    assert "streamroute.conformance.cli" in loaded or "streamroute.conformance.plugin_run" in loaded
    reference = sorted(name for name in loaded if name.split(".")[:2] == ["streamroute", "reference"])
    assert reference == [], f"{command} loaded {reference} in the harness's process"
