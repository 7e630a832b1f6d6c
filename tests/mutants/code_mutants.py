"""Code mutants: mutmut changes the code mechanically (operators, constants, conditions, arguments),
one change at a time, and the bundled vectors are the only tests that may tell each change apart.

Two targets: the reference (the modules of `REFERENCE_MODULES`, and of `WIRE_MODULES` the
streamroute.wire modules it reads bytes with, under every adapter of reference/adapter.py) and the
independent router of tests/mutants/independent_router.py (at both tool-call points), so the
vectors are seen constraining code they were not written beside. The independent router's fault
branches (`if self.has(Fault...)`) are the requirement mutants of tests/mutants/core.py, never run
without a fault, so mutmut mutates only the lines the vectors reach there
(`mutate_only_covered_lines`); the reference has every line mutated.

`python -m mutants.code_mutants` (from tests/, as `tox -e code-mutants` runs it) lays out each
target in a directory of its own (the mutated copy of the code, code_mutants_suite.py as the test
suite with code_mutants_order.py as its conftest.py, the vectors in this process), runs mutmut
there, writes what it found to docs/code-mutants.json and checks it against the triage,
tests/mutants/code-mutants.yaml: every mutant no vector kills has exactly one entry there, which
says why no stream can tell it from the code (`equivalent`), what the suite deliberately does not
check (`limitation`), or which vector, added for it, kills it now (`killed_by`; the run checks that
this vector alone kills it). It fails when a survivor has no entry, an entry matches no mutant, or
fewer than `LEAST_KILL_RATE` of the mutants that are not equivalent are killed. docs/coverage.md
shows the result (mutants/report.py).
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
import tokenize
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "code-mutants.json"
TRIAGE = Path(__file__).resolve().parent / "code-mutants.yaml"
SUITE = Path(__file__).resolve().parent / "code_mutants_suite.py"
SUITE_ORDER = Path(__file__).resolve().parent / "code_mutants_order.py"  # the suite's conftest.py
LEAST_KILL_RATE = 0.98
VERDICTS = ("equivalent", "limitation", "killed_by")
# mutmut's statuses (mutmut/stats.py) as this report counts them: a timeout is a kill, since a
# mutant that hangs errors the vector at the harness's deadline.
KILLED = frozenset({"killed", "timeout", "segfault"})
UNKILLED = frozenset({"survived", "no tests"})
NOT_RUN = "not checked"  # mutmut's status of a mutant a run stopped before reaching


@dataclass(frozen=True)
class Package:
    """Code a target copies into its work directory, and the part of it mutmut mutates."""

    name: str  # its import path under the work directory's src/ ("": modules at the top)
    files: tuple[Path, ...]  # copied there, as they are in the repository
    mutated: tuple[str, ...]  # the files of them mutmut mutates, by file name

    @property
    def directory(self) -> Path:
        """Where the copy lives, under the work directory."""
        return Path("src", *self.name.split(".")) if self.name else Path("src")

    def label(self, file: str) -> str:
        """How results and the triage name a file of it: its path under src/ less the `streamroute`
        namespace, which for the reference and wire/ is its path in the repository too."""
        return "/".join([*self.name.split(".")[1:], file]) if "." in self.name else file


@dataclass(frozen=True)
class Target:
    name: str
    title: str
    packages: tuple[Package, ...]
    adapters: tuple[str, ...]
    only_covered_lines: bool

    @property
    def mutated(self) -> dict[str, str]:
        """Each mutated file's copy (its path in the work directory) and how results name it."""
        return {
            (package.directory / file).as_posix(): package.label(file)
            for package in self.packages
            for file in package.mutated
        }

    @property
    def mutates_the_checker(self) -> bool:
        """Whether it mutates wire/, the producer checker's SSE decoder too."""
        return any(package.name == "streamroute.wire" and package.mutated for package in self.packages)


REFERENCE_MODULES = ("router", "sse", "fields", "patch", "consumers", "executor", "ledger", "connection")
# The reference reads the bytes of a stream with streamroute.wire (decoder, strict JSON, session
# steps): its byte path is mutated with it.
WIRE_MODULES = ("event_stream", "strict_json", "session")


def reference_adapters() -> tuple[str, ...]:
    """Every adapter of reference/adapter.py: each option's code runs where it is declared."""
    from streamroute.reference import adapter

    return tuple(
        f"streamroute.reference.adapter:{name}"
        for name, value in vars(adapter).items()
        if isinstance(value, adapter.ReferenceAdapter)
    )


def _folder(directory: str, modules: Sequence[str] = ()) -> Package:
    """A folder of the repository copied whole, `modules` of it mutated."""
    return Package(
        f"streamroute.{directory}",
        tuple(sorted(path for path in (ROOT / directory).iterdir() if path.is_file())),
        tuple(f"{module}.py" for module in modules),
    )


def targets() -> list[Target]:
    return [
        Target(
            "reference",
            "the reference (reference/, and wire/ for its byte path)",
            # spec/ beside the reference, as in the repository: reference/codes.py reads it
            (_folder("reference", REFERENCE_MODULES), _folder("wire", WIRE_MODULES), _folder("spec")),
            reference_adapters(),
            only_covered_lines=False,
        ),
        Target(
            "independent",
            "the independent router (tests/mutants/independent_router.py)",
            (
                Package(
                    "",
                    (ROOT / "tests" / "mutants" / "independent_router.py",),
                    ("independent_router.py",),
                ),
            ),
            ("independent_router:router", "independent_router:arguments_done_router"),
            only_covered_lines=True,
        ),
    ]


# -- a mutant, as the triage names it ---------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    """One mutant, by where it is and what it changes: stable while that line of code is."""

    file: str  # as `Package.label` names it
    function: str  # `Class.method` or `function`
    before: str  # the changed lines as they are, stripped, joined by a newline
    after: str  # the same lines as the mutant has them

    def describe(self) -> str:
        return f"{self.file} {self.function}: {self.before!r} -> {self.after!r}"


@dataclass(frozen=True)
class Outcome:
    """A mutant and what mutmut found."""

    mutation: Mutation
    status: str  # mutmut's: killed, survived, no tests, timeout, ...
    name: str  # mutmut's name for it, valid in the run's work directory only

    def as_json(self) -> dict[str, str]:
        return {"status": self.status, **vars(self.mutation)}


# -- running mutmut ------------------------------------------------------------------------------


def _stage(target: Target, workdir: Path) -> None:
    """The directory mutmut works in: src/ with a copy of the code, tests/ with the suite."""
    if workdir.exists():
        shutil.rmtree(workdir)
    for package in target.packages:
        (workdir / package.directory).mkdir(parents=True)
        for path in package.files:
            shutil.copy2(path, workdir / package.directory / path.name)
    (workdir / "tests").mkdir()
    shutil.copy2(SUITE, workdir / "tests" / "test_vectors.py")
    shutil.copy2(SUITE_ORDER, workdir / "tests" / "conftest.py")
    config = {
        "source_paths": [package.directory.as_posix() for package in target.packages if package.mutated],
        "also_copy": [package.directory.as_posix() for package in target.packages if not package.mutated],
        "only_mutate": list(target.mutated),
        "pytest_add_cli_args_test_selection": ["tests/test_vectors.py"],
        "pytest_add_cli_args": ["-p", "no:cacheprovider"],
        "mutate_only_covered_lines": target.only_covered_lines,
        "use_git_change_detection": False,
    }
    lines = ["[tool.mutmut]", *(f"{key} = {json.dumps(value)}" for key, value in config.items())]
    (workdir / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _environment(target: Target) -> dict[str, str]:
    # No plugin of the environment's (streamroute's own, hypothesis, xdist) in the suite's pytest:
    # mutmut starts one for each mutant, and the suite needs none.
    return {
        **os.environ,
        "STREAMROUTE_CODE_MUTANTS_ADAPTERS": ",".join(target.adapters),
        "STREAMROUTE_CODE_MUTANTS_CHECKER": "1" if target.mutates_the_checker else "",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


COST = "cost.json"  # in a target's work directory: what its mutmut run cost


def run_mutmut(target: Target, workdir: Path, workers: int) -> None:
    """mutmut over the target, in `workdir` (laid out anew), with `workers` mutants at a time; what
    it cost (wall-clock and CPU seconds) is left in the work directory beside mutmut's results."""
    _stage(target, workdir)
    # Until mutmut ends, its cost is not known: `--collect` of a run still going reads it so.
    unfinished = {"workers": workers, "wall_seconds": None, "cpu_seconds": None}
    (workdir / COST).write_text(json.dumps(unfinished) + "\n", encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    with (workdir / "mutmut.log").open("wb") as log:
        finished = subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(workers)],
            cwd=workdir,
            env=_environment(target),
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
        )
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if finished.returncode != 0:
        log_path = workdir / "mutmut.log"
        raise SystemExit(f"mutmut failed on {target.name} (exit {finished.returncode}): see {log_path}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    cost = {"workers": workers, "wall_seconds": round(wall), "cpu_seconds": round(cpu)}
    (workdir / COST).write_text(json.dumps(cost) + "\n", encoding="utf-8")


def read_outcomes(target: Target, workdir: Path, described: Callable[[str, str], bool]) -> Iterator[Outcome]:
    """Each mutant of the last run in `workdir` and its status; what it changes is read (from its
    diff, which is slow) only where `described(function, status)` says, and is empty elsewhere."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code
    from mutmut.utils.format_utils import orig_function_and_class_names_from_key

    cwd = Path.cwd()
    os.chdir(workdir)  # mutmut reads its files relative to the directory it works in
    try:
        mutated = target.mutated
        for meta in sorted(Path("mutants/src").rglob("*.py.meta")):
            source = meta.relative_to("mutants").with_suffix("")
            if source.as_posix() not in mutated:
                continue
            codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
            for name, code in sorted(codes.items(), key=lambda item: _mutant_order(item[0])):
                method, class_name = orig_function_and_class_names_from_key(name)
                function = f"{class_name}.{method}" if class_name else method
                status = status_by_exit_code[code]
                diff = (
                    get_diff_for_mutant(name, path=source).splitlines()[2:]
                    if described(function, status)
                    else []
                )
                mutation = Mutation(
                    mutated[source.as_posix()],
                    function,
                    "\n".join(line[1:].strip() for line in diff if line.startswith("-")),
                    "\n".join(line[1:].strip() for line in diff if line.startswith("+")),
                )
                yield Outcome(mutation, status, name)
    finally:
        os.chdir(cwd)


def _mutant_order(name: str) -> tuple[str, int]:
    function, _, number = name.rpartition("__mutmut_")
    return function, int(number)


def killed_alone(target: Target, workdir: Path, pairs: Sequence[tuple[str, str]]) -> dict[str, bool]:
    """For each (mutmut name, vector id): whether that vector alone kills the mutant."""
    if not pairs:
        return {}
    script = workdir / "tests" / "test_vectors.py"
    answer = subprocess.run(
        [sys.executable, str(script), *(f"{name}={vector}" for name, vector in pairs)],
        cwd=workdir / "mutants",
        env={**_environment(target), "PYTHONPATH": str(workdir / "mutants" / "src")},
        capture_output=True,
        text=True,
        check=True,
    )
    return {name: verdict == "killed" for name, verdict in json.loads(answer.stdout).items()}


# -- the triage ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    target: str
    mutation: Mutation
    verdict: str  # one of VERDICTS
    why: str  # for killed_by, the vector id


def read_triage(path: Path = TRIAGE) -> tuple[list[Entry], list[str]]:
    """The triage's entries, and what is wrong with it, one line each."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    entries: list[Entry] = []
    problems: list[str] = []
    known = {target.name for target in targets()}
    for target, listed in data.items():
        if target == "reasons":
            continue
        if target not in known:
            problems.append(f"{path.name}: unknown target {target!r}; known: {', '.join(sorted(known))}")
            continue
        for index, item in enumerate(listed or []):
            where = f"{path.name}: {target} entry {index}"
            verdicts = [key for key in VERDICTS if key in item]
            missing = [
                key for key in ("file", "function", "from", "to") if not isinstance(item.get(key), str)
            ]
            if missing or len(verdicts) != 1 or not isinstance(item.get(verdicts[0]), str):
                problems.append(f"{where}: needs file, function, from, to and one of {', '.join(VERDICTS)}")
                continue
            mutation = Mutation(item["file"], item["function"], item["from"], item["to"])
            entries.append(Entry(target, mutation, verdicts[0], item[verdicts[0]].strip()))
    return entries, problems


@dataclass(frozen=True)
class Verdicts:
    """One target's run held against the triage."""

    total: int  # the mutants run
    not_run: int  # the mutants a stopped run did not reach
    killed: int  # by the vectors that were there when the mutant was triaged
    killed_by_new: int  # by a vector added for it
    equivalent: int
    limitation: int
    untriaged: list[Mutation]
    stale: list[Entry]  # entries that match no survivor of the run

    @property
    def kill_rate(self) -> float:
        relevant = self.total - self.equivalent
        return (self.killed + self.killed_by_new) / relevant if relevant else 1.0


def judge(measured: dict[str, Any], entries: Sequence[Entry]) -> Verdicts:
    """One target's run (as docs/code-mutants.json keeps it) against that target's entries."""
    unkilled = Counter(_mutation(m) for m in measured["unkilled"])
    newly_killed = Counter(_mutation(m) for m in measured["killed_by_new"])
    counts: Counter[str] = Counter()
    stale: list[Entry] = []
    for entry in entries:
        pool = newly_killed if entry.verdict == "killed_by" else unkilled
        if pool[entry.mutation] > 0:
            pool[entry.mutation] -= 1
            counts[entry.verdict] += 1
        else:
            stale.append(entry)
    statuses = measured["statuses"]
    killed = sum(statuses.get(status, 0) for status in KILLED)
    return Verdicts(
        total=sum(count for status, count in statuses.items() if status != NOT_RUN),
        not_run=statuses.get(NOT_RUN, 0),
        killed=killed - counts["killed_by"],
        killed_by_new=counts["killed_by"],
        equivalent=counts["equivalent"],
        limitation=counts["limitation"],
        untriaged=sorted(unkilled.elements(), key=Mutation.describe),
        stale=stale,
    )


def _mutation(measured: dict[str, str]) -> Mutation:
    return Mutation(measured["file"], measured["function"], measured["before"], measured["after"])


def read_results(path: Path = RESULTS) -> dict[str, Any] | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def problems_of(results: dict[str, Any], entries: Sequence[Entry]) -> list[str]:
    """What keeps the run and the triage from agreeing, one line each; empty: they agree."""
    problems: list[str] = []
    for name, measured in results["targets"].items():
        verdicts = judge(measured, [e for e in entries if e.target == name])
        problems += [f"{name}: survives, not triaged: {m.describe()}" for m in verdicts.untriaged]
        for entry in verdicts.stale:
            found = "is killed by that vector alone" if entry.verdict == "killed_by" else "survives"
            problems.append(
                f"{name}: triaged as {entry.verdict}, but no such mutant {found}: {entry.mutation.describe()}"
            )
        if verdicts.not_run:
            problems.append(f"{name}: {verdicts.not_run} mutants were not run: the run was stopped")
        if verdicts.kill_rate < LEAST_KILL_RATE:
            problems.append(
                f"{name}: kills {verdicts.kill_rate:.1%} of the mutants that are not equivalent;"
                f" at least {LEAST_KILL_RATE:.0%} must be"
            )
    return problems


# -- drafting entries ----------------------------------------------------------------------------

_PROSE = re.compile(r"[A-Za-z]+ [A-Za-z{]+")


def only_prose_changes(mutation: Mutation) -> bool:
    """Whether the mutant changes nothing but text for people: what it changes lies inside one
    string literal holding words (a message, whose wording the spec leaves free). A guess, for
    drafting entries; the entry is still read and written by hand."""
    before, after = mutation.before, mutation.after
    start = next(
        (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
        min(len(before), len(after)),
    )
    tail = next(
        (i for i, (a, b) in enumerate(zip(reversed(before), reversed(after), strict=False)) if a != b),
        min(len(before), len(after)) - start,
    )
    end = max(start, len(before) - tail)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(before).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    offsets = [0, *itertools.accumulate(len(line) for line in before.splitlines(keepends=True))]
    for first, last in _string_spans(tokens, offsets):
        if first <= start and end <= last:
            return bool(_PROSE.search(before[first:last]))
    return False


# Python 3.12 tokenizes an f-string as pieces (PEP 701); before, as one STRING token.
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


def _string_spans(tokens: Iterable[tokenize.TokenInfo], offsets: list[int]) -> Iterator[tuple[int, int]]:
    """Where each string literal of the tokens starts and ends, an f-string whole."""
    opened: list[int] = []  # the starts of the f-strings open, nested ones last
    for token in tokens:
        first = offsets[token.start[0] - 1] + token.start[1]
        last = offsets[token.end[0] - 1] + token.end[1]
        if token.type == _FSTRING_START:
            opened.append(first)
        elif token.type == _FSTRING_END:
            yield opened.pop(), last
        elif token.type == tokenize.STRING:
            yield first, last


def draft(untriaged: Iterable[Mutation]) -> str:
    """Entries, in the triage's form, for survivors that have none: a message's wording marked
    equivalent by the triage's `message` reason, every other one with no verdict yet, for a person
    to triage (read_triage refuses an entry without one)."""
    lines = []
    for mutation in untriaged:
        lines += [f"  - file: {mutation.file}", f"    function: {mutation.function}"]
        lines += [f"    from: {json.dumps(mutation.before)}", f"    to: {json.dumps(mutation.after)}"]
        lines.append(
            "    equivalent: *message"
            if only_prose_changes(mutation)
            else "    # equivalent, limitation or killed_by?"
        )
    return "\n".join(lines) + "\n"


# -- the command ---------------------------------------------------------------------------------


def measure(target: Target, workdir: Path, entries: Sequence[Entry]) -> dict[str, Any]:
    """What the last run in `workdir` found, as docs/code-mutants.json keeps it. A mutant the triage
    says a vector added for it kills is run on that vector alone, and counted killed by it when it
    fails there (`--collect` of a run made before the vector was added counts it so too)."""
    claimed = [e for e in entries if e.target == target.name and e.verdict == "killed_by"]
    functions = {e.mutation.function for e in claimed}
    outcomes = list(read_outcomes(target, workdir, lambda f, status: status in UNKILLED or f in functions))
    claims: dict[Mutation, list[str]] = {}
    for entry in claimed:
        claims.setdefault(entry.mutation, []).append(entry.why)
    # Two mutants can make one mutation (two equal lines of a function), each killed by its own
    # vector: every mutant of a mutation is tried with each vector claimed for it, one at a time.
    alone: dict[str, bool] = {}
    for turn in range(max(map(len, claims.values()), default=0)):
        pairs = [
            (o.name, claims[o.mutation][turn])
            for o in outcomes
            if len(claims.get(o.mutation, ())) > turn and not alone.get(o.name)
        ]
        alone |= {name: True for name, killed in killed_alone(target, workdir, pairs).items() if killed}
    statuses = Counter("killed" if alone.get(o.name) else o.status for o in outcomes)
    return {
        "adapters": list(target.adapters),
        "files": list(target.mutated.values()),
        "only_covered_lines": target.only_covered_lines,
        **json.loads((workdir / COST).read_text(encoding="utf-8")),
        "statuses": dict(sorted(statuses.items())),
        "unkilled": [o.as_json() for o in outcomes if o.status in UNKILLED and not alone.get(o.name)],
        "killed_by_new": [o.as_json() for o in outcomes if alone.get(o.name)],
    }


def main(argv: Sequence[str] | None = None) -> int:
    summary = (__doc__ or "").split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python -m mutants.code_mutants", description=summary)
    parser.add_argument("--workdir", type=Path, default=ROOT / "build" / "code-mutants")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--target", action="append", choices=[t.name for t in targets()])
    parser.add_argument(
        "--collect", action="store_true", help="read the last run of each target, run nothing"
    )
    parser.add_argument(
        "--draft", action="store_true", help="print entries for the survivors the triage lacks"
    )
    args = parser.parse_args(argv)
    entries, problems = read_triage()
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    measured: dict[str, Any] = {}
    for target in targets():
        if args.target and target.name not in args.target:
            continue
        workdir = args.workdir / target.name
        if not args.collect:
            print(f"mutmut over {target.title}: {len(target.adapters)} adapters, in {workdir}", flush=True)
            run_mutmut(target, workdir, args.workers)
        measured[target.name] = measure(target, workdir, entries)
    from mutmut import __version__ as mutmut_version

    previous = read_results() or {"targets": {}}  # read now: another target may have been run meanwhile
    results = {"mutmut": mutmut_version, "targets": {**previous["targets"], **measured}}
    RESULTS.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")
    if args.draft:
        for name in measured:
            untriaged = judge(results["targets"][name], [e for e in entries if e.target == name]).untriaged
            print(f"# {name}: {len(untriaged)} survivors to triage\n{draft(untriaged)}")
    problems += problems_of(results, entries)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
