"""The options both front ends take: `streamroute run --NAME` (and `fuzz`, `smoke`, `show`, `lint`,
`probe` where they take it) and the pytest plugin's `--streamroute-NAME`, each defined once here.

The pytest plugin's entry point reads this module as pytest starts, in every test run of any
project with streamroute installed, so it imports nothing of the harness: the rest is loaded
only when a streamroute option is given.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The implementation tested when none is named: the one place the harness names the reference.
DEFAULT_ADAPTER = "streamroute.reference.adapter:router"
# Seconds an implementation has for each vector: an adapter command for each answer
# (spec/protocol.md), an in-process adapter for each produce call.
DEFAULT_TIMEOUT = 5.0


def optional_path(text: str) -> Path | None:
    """A path; an empty one, as an unset variable gives, is none."""
    return Path(text) if text else None


def count(text: str) -> int:
    """A number of vectors: a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is less than 0")
    return value


@dataclass(frozen=True)
class Option:
    """An option of both front ends: `streamroute COMMAND --NAME` and the pytest plugin's
    `--streamroute-NAME`, or `--streamroute-PYTEST`."""

    name: str
    help: str
    metavar: str | None = None
    type: Callable[[str], Any] | None = None
    repeatable: bool = False  # given again, it adds a value
    flag: bool = False  # takes no value
    pytest: str | None = None  # the plugin's name for it, when not `name`

    @property
    def settings(self) -> dict[str, Any]:
        """What argparse's `add_argument` and pytest's `addoption` both take for it."""
        if self.flag:
            return {"action": "store_true", "help": self.help}
        repeated = {"action": "append", "default": []} if self.repeatable else {}
        return {"metavar": self.metavar, "type": self.type, "help": self.help, **repeated}

    @property
    def dest(self) -> str:
        """Its attribute on pytest's `config.option`."""
        return "streamroute_" + (self.pytest or self.name).replace("-", "_")


_SHARED = (
    Option(
        "adapter",
        f"the Python implementation to test (the reference is {DEFAULT_ADAPTER})",
        "MODULE:CALLABLE",
    ),
    Option(
        "adapter-command",
        "an implementation in any language, behind this adapter command (spec/protocol.md)",
        "CMD",
    ),
    Option(
        "timeout",
        f"how long the implementation has for each vector (default: {DEFAULT_TIMEOUT:g})",
        "SECONDS",
        float,
    ),
    Option(
        "vectors", "a directory of vector files, instead of the bundled ones (repeatable)", "DIR", Path, True
    ),
    Option("profile", "run only vectors of this profile (repeatable)", "PROFILE", repeatable=True),
    Option("expected-failures", "vector ids known to fail, one a line", "FILE", optional_path),
    Option("report", "also write a JSON Lines report (spec/report.schema.json)", "FILE", Path),
    Option(
        "allow-empty",
        "pass a run in which no vector ran (each not applicable, skipped or not selected)",
        flag=True,
    ),
    Option(
        "allow-partial",
        "pass a partial claim of this profile: not every MUST requirement observed (repeatable)",
        "PROFILE",
        repeatable=True,
    ),
    Option("max-skipped", "fail the run when more than N vectors are skipped", "N", count),
    Option(
        "no-cache",
        "read every vector file anew, not from the cache of files already read (always so when CI is set)",
        flag=True,
    ),
    Option(
        "examples", "how many generated streams to run, judged by their ground truth", "N", int, pytest="fuzz"
    ),
    Option("seed", "the generated streams' random seed, to repeat a run", "S", int, pytest="fuzz-seed"),
    Option(
        "save-to",
        "write a shrunk failing stream as a vector file under DIR/fuzz/",
        "DIR",
        Path,
        pytest="fuzz-save-to",
    ),
)
SHARED_OPTIONS = {option.name: option for option in _SHARED}


def add_shared(parser: argparse.ArgumentParser, *names: str, **settings: Any) -> None:
    """The shared options `names` of a command, with `settings` (a default, `required`) for each."""
    for name in names:
        parser.add_argument("--" + name, **{**SHARED_OPTIONS[name].settings, **settings})
