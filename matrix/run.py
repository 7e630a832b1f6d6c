"""`streamroute matrix`: run real implementations and publish what they do.

A matrix file (docs/matrix.yaml) lists implementations, each an adapter
command (spec/protocol.md), the library entry point its adapter drives, and
how to install what it needs: `pip`, pinned requirements for a virtualenv of
its own (with `constraints`, a pip constraints file pinning every other
package), or `npm`, a folder with a package.json that is copied to a folder of
its own and installed there (`npm ci` when it holds a package-lock.json).
What is installed is stamped with the lockfiles' content, so a changed
lockfile reinstalls. Nothing is installed into the harness's environment. It also lists the
*findings*: each names a cause of failure and the failures it explains, by a
regular expression on the failure message, optionally limited to some
implementations or vectors. Every failing vector of the matrix shows the
finding that explains it, and one no finding explains is shown as
unexplained, so docs/findings.md can be checked against what really fails.

Each implementation runs once with the existing machinery (Suite, the JSON
Lines report); the matrix (docs/matrix.md) is rendered from the reports it
writes (docs/reports/ID.jsonl), so each cell can be traced to its report,
and from what each run records beside it (docs/reports/ID.run.json: platform,
runtime and installed package versions). It shows each claim's verdict, the
routing and the robustness class apart, and each implementation's verdict on
each requirement (`Requirements`): a requirement fails when a failing vector
charges it (spec/vectors.md section 5), passes when vectors citing it ran and
none charges it, and is not applicable when none ran.
"""

from __future__ import annotations

import json
import platform
import re
import shlex
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from streamroute.conformance.claims import RequirementVerdict, requirement_key, requirement_verdicts
from streamroute.conformance.observation import observes_of
from streamroute.conformance.progress import Progress
from streamroute.conformance.report import Report, write_report
from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.results import CLASSES, Status
from streamroute.conformance.schemas import BUNDLED_VECTORS, SPEC_DIR, option_defaults
from streamroute.conformance.suite import DEFAULT_TIMEOUT, Suite, UsageError, run_suite
from streamroute.conformance.vectors import load_vectors, read_yaml

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_COUNTED = (Status.PASSED, Status.FAILED, Status.ERRORED, Status.SKIPPED, Status.NOT_APPLICABLE)
# A finding's class (docs/findings.md): a defect a user of the library hits on streams real producers
# send; a robustness gap, on streams that break producer rules; a design, under the option that names
# it (`none` while the spec has no option for it); a difference the library's user cannot hit or see
# (the harness charges what the API does not own, or what has no effect); a vector to be fixed.
_CLASS = re.compile(r"^(defect|robustness gap|choice \(option [a-z_]+\)|not observable|unrealistic vector)$")
_LEVELS = ("MUST", "SHOULD", "MAY")
_PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")  # the project name a pip requirement starts with


@dataclass(frozen=True)
class Entry:
    """One implementation of the matrix."""

    id: str
    label: str
    command: str
    entry_point: str
    pip: tuple[str, ...] = ()
    constraints: str | None = None
    npm: str | None = None

    def packages(self) -> tuple[str, ...]:
        """The packages the entry installs by name (their versions are shown in the matrix)."""
        if self.npm:
            manifest = json.loads((Path(self.npm) / "package.json").read_text(encoding="utf-8"))
            return tuple(manifest.get("dependencies", {}))
        return tuple(m.group() for r in self.pip if not r.startswith("-") and (m := _PROJECT.match(r)))


@dataclass(frozen=True)
class Finding:
    id: str
    title: str
    classification: str
    match: re.Pattern[str]
    implementations: tuple[str, ...] = ()  # entry id prefixes; empty: all
    vectors: tuple[str, ...] = ()  # vector ids; empty: all
    evidence: str = "synthetic"  # that a real producer sends the stream (an issue, a recording, a line)
    severity: str = ""  # what a user of the library hits

    def explains(self, entry: str, vector: str, message: str) -> bool:
        if self.implementations and not any(entry.startswith(p) for p in self.implementations):
            return False
        if self.vectors and vector not in self.vectors:
            return False
        return self.match.search(message) is not None


@dataclass(frozen=True)
class Matrix:
    profiles: tuple[str, ...]
    timeout: float
    entries: tuple[Entry, ...]
    findings: tuple[Finding, ...] = field(default=())

    def explain(self, entry: str, vector: str, message: str) -> Finding | None:
        return next((f for f in self.findings if f.explains(entry, vector, message)), None)


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where}: expected a list of strings")
    return tuple(value)


def _text(data: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or not value:
        raise UsageError(f"{where}: `{key}` must be a non-empty string")
    return value


def _optional_text(data: dict[str, Any], key: str, where: str) -> str | None:
    return None if data.get(key) is None else _text(data, key, where)


def load_matrix(path: Path) -> Matrix:
    try:
        data = read_yaml(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise UsageError(f"cannot read the matrix file: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("implementations"), list):
        raise UsageError(f"{path}: expected a mapping with a list of `implementations`")
    entries = []
    for number, item in enumerate(data["implementations"]):
        where = f"{path}: implementations[{number}]"
        if not isinstance(item, dict):
            raise UsageError(f"{where}: expected a mapping")
        entry_id = _text(item, "id", where)
        if not _ID.match(entry_id):
            raise UsageError(f"{where}: id {entry_id!r} must be letters, digits, '.', '_' or '-'")
        entries.append(
            Entry(
                entry_id,
                _text(item, "label", where, entry_id),
                _text(item, "command", where),
                _text(item, "entry_point", where),
                _strings(item.get("pip"), f"{where}: pip"),
                _optional_text(item, "constraints", where),
                _optional_text(item, "npm", where),
            )
        )
    if len({e.id for e in entries}) != len(entries):
        raise UsageError(f"{path}: implementation ids must be unique")
    findings = []
    for number, item in enumerate(data.get("findings") or []):
        where = f"{path}: findings[{number}]"
        if not isinstance(item, dict):
            raise UsageError(f"{where}: expected a mapping")
        try:
            pattern = re.compile(_text(item, "match", where))
        except re.error as exc:
            raise UsageError(f"{where}: bad `match`: {exc}") from exc
        classification = _text(item, "class", where)
        if not _CLASS.match(classification):
            raise UsageError(
                f"{where}: `class` {classification!r} must be defect, robustness gap, choice (option NAME), "
                "not observable or unrealistic vector"
            )
        findings.append(
            Finding(
                _text(item, "id", where),
                _text(item, "title", where),
                classification,
                pattern,
                _strings(item.get("implementations"), f"{where}: implementations"),
                _strings(item.get("vectors"), f"{where}: vectors"),
                _text(item, "evidence", where, "synthetic"),
                _text(item, "severity", where, "-"),
            )
        )
    profiles = _strings(data.get("profiles"), f"{path}: profiles") or ("core",)
    timeout = data.get("timeout", DEFAULT_TIMEOUT)
    if not isinstance(timeout, (int, float)) or not timeout > 0:
        raise UsageError(f"{path}: `timeout` must be a positive number of seconds")
    return Matrix(profiles, float(timeout), tuple(entries), tuple(findings))


@dataclass(frozen=True)
class Requirements:
    """The requirements the vectors check: what each vector cites (its `spec`), each one's level."""

    cited: Mapping[str, tuple[str, ...]]  # vector id -> requirement ids
    levels: Mapping[str, str]  # requirement id -> MUST, SHOULD or MAY

    @classmethod
    def bundled(cls) -> Requirements:
        vectors, _ = load_vectors([BUNDLED_VECTORS])  # a bad file is the lint's to report
        found, _ = read_requirements(SPEC_DIR)
        return cls(
            {v.id: tuple(v.data.get("spec", ())) for v in vectors},
            {requirement.id: requirement.level for requirement in found.values()},
        )

    def verdicts(self, report: Report) -> dict[str, bool]:
        """Each requirement a vector of the report ran for or a failure charged: False when a failure
        charges it (spec/vectors.md section 5), True when it was observed and passed."""
        return {
            r.requirement: r.verdict == "passed"
            for r in self._judged(report)
            if r.verdict in ("passed", "failed")
        }

    def unobservable(self, report: Report) -> set[str]:
        """The requirements the report's vectors cite that the implementation's API could not show
        (spec/observation.md), and no failure charged."""
        return {r.requirement for r in self._judged(report) if r.verdict == "not observable"}

    def counted(self, record: dict[str, Any]) -> tuple[str, ...]:
        """The requirements a vector line's verdict counts toward: what its failure charges, else
        what it observed."""
        if Status(record["status"]).is_failure or record["status"] == Status.EXPECTED_FAILURE.value:
            return tuple(record.get("charged") or self._cites(record))
        return tuple(record.get("observed_requirements", self._cites(record)))

    def _judged(self, report: Report) -> tuple[RequirementVerdict, ...]:
        lines = [{**v, "spec": list(self._cites(v))} for v in report.vectors]
        observes = observes_of(report.header["implementation"])

        def shows(requirement: str) -> bool:
            return observes is None or bool(observes.observable([requirement]))

        return requirement_verdicts(lines, self.levels, shows)

    def _cites(self, record: dict[str, Any]) -> tuple[str, ...]:
        return tuple(record.get("spec") or self.cited.get(record["id"], ()))


def _requirement_tables(requirements: Requirements, reports: Sequence[tuple[Entry, Report]]) -> list[str]:
    """Requirements passed and failed by level, then each requirement's verdict per implementation."""
    verdicts = [requirements.verdicts(report) for _, report in reports]
    unseen = [requirements.unobservable(report) for _, report in reports]
    ran = sorted(set().union(*verdicts, *unseen), key=requirement_key)
    lines = [
        "",
        "## Requirements",
        "",
        "A requirement fails when a failing vector charges it: the requirement whose outcome differs "
        "(spec/vectors.md section 5, spec/attribution.md), not every requirement the vector cites; it "
        "passes when vectors citing it ran and none charges it, and is not applicable (n/a) when none of "
        "them ran; it is not observable when the implementation's API shows none of what it is observed "
        "through (spec/observation.md). By level: requirements passed / failed (not applicable).",
        "",
        "| implementation | " + " | ".join(_LEVELS) + " |",
        "|" + "---|" * (1 + len(_LEVELS)),
    ]
    for (entry, _), verdict in zip(reports, verdicts, strict=True):
        cells = []
        for level in _LEVELS:
            ids = [r for r in ran if requirements.levels.get(r) == level]
            passed = sum(verdict.get(r) is True for r in ids)
            failed = sum(verdict.get(r) is False for r in ids)
            cells.append(f"{passed} / {failed} ({len(ids) - passed - failed})")
        lines.append(f"| {entry.id} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"By requirement ({len(ran)} requirements that a vector ran for, or that an API could not show, "
        "in at least one implementation):",
        "",
        "| requirement | level | " + " | ".join(e.id for e, _ in reports) + " |",
        "|" + "---|" * (2 + len(reports)),
    ]
    shown = {True: "pass", False: "**fail**", None: "n/a"}
    for requirement in ran:
        cells = [
            "not observable" if requirement in hidden else shown[verdict.get(requirement)]
            for verdict, hidden in zip(verdicts, unseen, strict=True)
        ]
        level = requirements.levels.get(requirement, "?")
        lines.append(f"| {requirement} | {level} | " + " | ".join(cells) + " |")
    return lines


def _options(report: Report) -> str:
    """The option values an implementation declares that are not canonical."""
    declared = report.header["implementation"].get("options", {})
    defaults = option_defaults()
    chosen = [f"`{name}: {value}`" for name, value in sorted(declared.items()) if defaults.get(name) != value]
    return ", ".join(chosen) or "canonical"


def _call(argv: list[str], log: Path) -> None:
    with log.open("a", encoding="utf-8") as out:
        out.write("$ " + shlex.join(argv) + "\n")
        out.flush()
        done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        raise UsageError(f"`{shlex.join(argv)}` failed (exit {done.returncode}); see {log}")


def _lockfile(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read the lockfile {path}: {exc}") from exc


# What `install` writes in an entry's folder last: the pins it installed.
INSTALLED = ".streamroute-installed"


def install(entry: Entry, workdir: Path) -> str:
    """Install what the entry needs in a folder of its own; return its adapter command."""
    home = (workdir / entry.id).resolve()
    stamp = home / INSTALLED
    wanted = [*entry.pip]
    if entry.constraints:
        wanted += [f"constraints {entry.constraints}:", _lockfile(Path(entry.constraints))]
    lock = None
    if entry.npm:
        # The adapter's files are copied afresh each run; node_modules is kept while the pins stay.
        home.mkdir(parents=True, exist_ok=True)
        for source in Path(entry.npm).iterdir():
            if source.is_file():
                shutil.copy2(source, home / source.name)
        lock = home / "package-lock.json"
        wanted += [f"npm {entry.npm}:", _lockfile(home / "package.json")]
        wanted += [_lockfile(lock)] if lock.exists() else []
    if not stamp.exists() or stamp.read_text(encoding="utf-8") != "\n".join(wanted):
        log = home / "install.log"
        home.mkdir(parents=True, exist_ok=True)
        if entry.pip:
            python = str(home / "venv" / "bin" / "python")
            _call([sys.executable, "-m", "venv", "--clear", str(home / "venv")], log)
            pins = ["--constraint", entry.constraints] if entry.constraints else []
            _call([python, "-m", "pip", "install", "-q", *pins, *entry.pip], log)
        if entry.npm:
            npm = shutil.which("npm")
            if npm is None:
                raise UsageError(f"{entry.id}: npm is not on PATH")
            how = ["ci"] if lock is not None and lock.exists() else ["install"]
            _call([npm, *how, "--prefix", str(home), "--no-audit", "--no-fund", "--silent"], log)
        stamp.write_text("\n".join(wanted), encoding="utf-8")
    return adapter_command(entry, workdir)


def adapter_command(entry: Entry, workdir: Path) -> str:
    """The entry's adapter command, run with what `install` put in its folder under `workdir`."""
    home = (workdir / entry.id).resolve()
    return entry.command.format(
        python=shlex.quote(str(home / "venv" / "bin" / "python")), dir=shlex.quote(str(home))
    )


def installed(entry: Entry, workdir: Path) -> bool:
    """Whether `install` has installed the entry under `workdir` (its stamp is written last)."""
    return (workdir / entry.id / INSTALLED).exists()


_LIST_DISTRIBUTIONS = (
    "import importlib.metadata as m, json; "
    "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"
)


def describe_run(entry: Entry, workdir: Path) -> dict[str, Any]:
    """What a run ran on: platform, runtimes, and every installed package with its version."""
    home = (workdir / entry.id).resolve()
    packages: dict[str, str] = {}
    if entry.pip:
        listed = subprocess.run(
            [str(home / "venv" / "bin" / "python"), "-c", _LIST_DISTRIBUTIONS],
            capture_output=True,
            text=True,
            check=False,
        )
        packages.update(json.loads(listed.stdout) if listed.returncode == 0 else {})
    if entry.npm:
        for name in entry.packages():
            manifest = home / "node_modules" / name / "package.json"
            if manifest.exists():
                packages[name] = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    node = shutil.which("node")
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),  # the virtualenvs are made from this Python
        "node": subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
        if node
        else None,
        "packages": dict(sorted(packages.items(), key=lambda item: item[0].lower())),
    }


def run_entry(matrix: Matrix, entry: Entry, command: str, report_path: Path) -> Report:
    """Run the matrix's profiles against one implementation and write its report."""
    suite = Suite.prepare(None, (), matrix.profiles, adapter_command=command, timeout=matrix.timeout)
    progress = Progress("vectors", len(suite.vectors), prefix=f"matrix: {entry.id}")
    try:
        with progress.ticking():
            run = run_suite(suite, progress=progress)
        write_report(report_path, suite, run)
    finally:
        suite.close()
    return Report.load(report_path)


def _cell(text: str) -> str:
    return text.split("\n", 1)[0].replace("|", "\\|")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _versions(entry: Entry, about: dict[str, Any]) -> str:
    installed = {_normalized(n): v for n, v in about.get("packages", {}).items()}
    return ", ".join(f"{n} {installed.get(_normalized(n), '?')}" for n in entry.packages()) or "-"


def render(
    matrix: Matrix,
    reports: Sequence[tuple[Entry, Report]],
    reports_dir: str,
    runs: Mapping[str, dict[str, Any]] | None = None,
    requirements: Requirements | None = None,
) -> str:
    """docs/matrix.md: implementations x profiles, where each ran, each requirement's verdict, then
    each failing vector with its finding. `runs` holds each entry's run description (describe_run),
    by entry id; `requirements`, what the vectors cite (the bundled vectors' when None)."""
    runs = runs or {}
    requirements = requirements or Requirements.bundled()
    lines = [
        "# Conformance matrix of real implementations",
        "",
        "Generated by `streamroute matrix` (`tox -e matrix`) from [matrix.yaml](matrix.yaml); "
        "do not edit by hand. The *routing* class holds the vectors whose stream a conforming producer "
        "sends; the *robustness* class those whose stream breaks producer rules (spec/README.md, "
        "Conformance classes): the two are verdicts apart. Each cell is passed / failed / errored "
        "(applicable vectors; not applicable ones are left out), then the claim's verdict "
        "(conforms, partial, fails). The JSON Lines reports it was rendered from are in "
        f"[{reports_dir}/]({reports_dir}/), each with what its run ran on (`ID.run.json`); each "
        "failure's cause is explained in [findings.md](findings.md). *options* are the option values "
        "the implementation declares that are not canonical (spec/core.md section 12).",
        "",
    ]
    claims = [(name, profile) for name in CLASSES for profile in matrix.profiles]
    header = (
        "| implementation | language | adapter | entry point | options | "
        + " | ".join(f"{name}: {profile}" for name, profile in claims)
        + " |"
    )
    lines += [header, "|" + "---|" * (5 + len(claims))]
    for entry, report in reports:
        info = report.header["implementation"]
        cells = [_claim_cell(report, name, profile) for name, profile in claims]
        lines.append(
            f"| {_cell(entry.label)} | {info['language']} | `{info['name']}` {info['version']} | "
            f"{_cell(entry.entry_point)} | {_options(report)} | " + " | ".join(cells) + " |"
        )
    suite = reports[0][1].header["suite"] if reports else {"version": "?"}
    lines += [
        "",
        f"Suite: streamroute {suite['version']}; profiles run: {', '.join(matrix.profiles)}.",
        "",
        "| implementation | run | platform | Python | Node.js | packages |",
        "|---|---|---|---|---|---|",
    ]
    for entry, report in reports:
        about = runs.get(entry.id, {})
        lines.append(
            f"| {entry.id} | {report.header.get('started', '?')} | {about.get('platform', '?')} | "
            f"{about.get('python', '?')} | {about.get('node') or '-'} | {_versions(entry, about)} |"
        )
    lines += _requirement_tables(requirements, reports)
    lines += _finding_table(matrix, reports)
    unexplained = 0
    for entry, report in reports:
        failing = [v for v in report.vectors if v["status"] in (Status.FAILED.value, Status.ERRORED.value)]
        totals = Counter(v["status"] for v in report.vectors)
        summary = ", ".join(f"{totals[s.value]} {s.value}" for s in _COUNTED if totals[s.value])
        lines += [
            "",
            f"## {entry.label}",
            "",
            f"Entry point: {entry.entry_point}. Command: `{entry.command}`"
            + (f"; pinned: `{' '.join(entry.pip)}`" if entry.pip else "")
            + (f", constraints `{entry.constraints}`" if entry.constraints else "")
            + (f"; npm package.json in `{entry.npm}`" if entry.npm else "")
            + f". Report: [{reports_dir}/{entry.id}.jsonl]({reports_dir}/{entry.id}.jsonl). {summary}.",
        ]
        for name in CLASSES:
            mine = sorted((v for v in failing if v.get("class", "routing") == name), key=lambda v: v["id"])
            if not mine:
                continue
            lines += ["", f"{_CLASS_TITLES[name]}:", "", "| vector | status | charges | finding | reason |"]
            lines.append("|---|---|---|---|---|")
            for v in mine:
                finding = matrix.explain(entry.id, v["id"], v["message"])
                if finding is None:
                    unexplained += 1
                    shown = "**unexplained**"
                else:
                    shown = f"[{finding.id}](findings.md#{finding.id.lower()})"
                charges = ", ".join(v.get("charged", ())) or "-"
                lines.append(f"| `{v['id']}` | {v['status']} | {charges} | {shown} | {_cell(v['message'])} |")
    misclassed = len(misclassed_failures(matrix, reports))
    lines += [
        "",
        f"Failures no finding explains: {unexplained}. Routing-class failures explained by a finding not "
        f"classed a defect: {misclassed}.",
        "",
    ]
    return "\n".join(lines)


_CLASS_TITLES = {
    "routing": "Routing class (streams a conforming producer sends)",
    "robustness": "Robustness class (streams that break producer rules)",
}


def _claim_cell(report: Report, name: str, profile: str) -> str:
    """passed / failed / errored vectors of one claim, and its verdict; `not claimed` without any."""
    mine = [v for v in report.vectors if v["profile"] == profile and v.get("class", "routing") == name]
    counts = Counter(v["status"] for v in mine)
    if counts.total() == counts[Status.NOT_APPLICABLE.value]:
        return "not claimed"
    cell = f"{counts[Status.PASSED.value]} / {counts[Status.FAILED.value]} / {counts[Status.ERRORED.value]}"
    if counts[Status.SKIPPED.value]:
        cell += f" ({counts[Status.SKIPPED.value]} skipped)"
    claim = next((c for c in report.claims if (c["class"], c["profile"]) == (name, profile)), None)
    if claim is not None:
        verdict = claim["verdict"]
        cell += f" · {verdict}" + (f" {claim['must_passed']}/{claim['must']}" if verdict == "partial" else "")
    return cell


def misclassed_failures(matrix: Matrix, reports: Sequence[tuple[Entry, Report]]) -> list[str]:
    """Failures of the routing class whose finding is not a defect: every such failure is one a user
    of the library hits on a stream real producers send, so its finding must say so."""
    return [
        f"{entry.id}: {v['id']}: {finding.id} is classed {finding.classification}"
        for entry, report in reports
        for v in report.vectors
        if v["status"] in (Status.FAILED.value, Status.ERRORED.value)
        and v.get("class", "routing") == "routing"
        and (finding := matrix.explain(entry.id, v["id"], v["message"])) is not None
        and finding.classification != "defect"
    ]


def _finding_table(matrix: Matrix, reports: Sequence[tuple[Entry, Report]]) -> list[str]:
    """How many failing vectors each finding explains, per implementation."""
    counts: dict[str, Counter[str]] = {f.id: Counter() for f in matrix.findings}
    for entry, report in reports:
        for v in report.vectors:
            if v["status"] in (Status.FAILED.value, Status.ERRORED.value):
                finding = matrix.explain(entry.id, v["id"], v["message"])
                if finding is not None:
                    counts[finding.id][entry.id] += 1
    if not matrix.findings:
        return []
    lines = [
        "",
        "## Findings",
        "",
        "Failing vectors each finding explains, per implementation (classes: see findings.md).",
        "",
        "| finding | class | " + " | ".join(e.id for e, _ in reports) + " |",
        "|" + "---|" * (2 + len(reports)),
    ]
    for f in matrix.findings:
        cells = [str(counts[f.id][e.id] or "") for e, _ in reports]
        lines.append(
            f"| [{f.id}](findings.md#{f.id.lower()}) {_cell(f.title)} | {f.classification} | "
            + " | ".join(cells)
            + " |"
        )
    return lines


def unexplained(matrix: Matrix, reports: Sequence[tuple[Entry, Report]]) -> list[str]:
    return [
        f"{entry.id}: {v['id']}: {v['message'].splitlines()[0] if v['message'] else ''}"
        for entry, report in reports
        for v in report.vectors
        if v["status"] in (Status.FAILED.value, Status.ERRORED.value)
        and matrix.explain(entry.id, v["id"], v["message"]) is None
    ]


def run_matrix(
    config: Path, output: Path, reports_dir: Path, workdir: Path, only: Sequence[str] = ()
) -> tuple[Matrix, list[tuple[Entry, Report]]]:
    """Install and run each implementation (or reuse the reports of those not in `only`), render."""
    matrix = load_matrix(config)
    unknown = sorted(set(only) - {e.id for e in matrix.entries})
    if unknown:
        raise UsageError(f"no implementation {', '.join(unknown)} in {config}")
    reports_dir.mkdir(parents=True, exist_ok=True)
    reports: list[tuple[Entry, Report]] = []
    runs: dict[str, dict[str, Any]] = {}
    for entry in matrix.entries:
        path = reports_dir / f"{entry.id}.jsonl"
        about = reports_dir / f"{entry.id}.run.json"
        if only and entry.id not in only:
            if path.exists():
                reports.append((entry, Report.load(path)))
                runs[entry.id] = json.loads(about.read_text(encoding="utf-8")) if about.exists() else {}
            continue
        print(f"matrix: {entry.id}: installing", file=sys.stderr)
        installing = Progress(prefix=f"matrix: {entry.id}")
        with installing.ticking():
            installing.step("its install")
            command = install(entry, workdir)
        runs[entry.id] = describe_run(entry, workdir)
        about.write_text(json.dumps(runs[entry.id], indent=2) + "\n", encoding="utf-8")
        print(f"matrix: {entry.id}: running {command}", file=sys.stderr)
        reports.append((entry, run_entry(matrix, entry, command, path)))
        print(f"matrix: {entry.id}: {reports[-1][1].totals.describe()}", file=sys.stderr)
    relative = Path(_relative(reports_dir.resolve(), output.resolve().parent)).as_posix()
    requirements = Requirements.bundled()
    output.write_text(render(matrix, reports, relative, runs, requirements), encoding="utf-8")
    from .page import render_page  # imported here: the page builds on this module

    page = render_page(matrix, reports, relative, requirements)
    output.with_suffix(".html").write_text(page, encoding="utf-8")
    from .producers import (
        add_producer_sections,
    )  # the producers' table beside the clients', from their reports

    add_producer_sections(config.parent / "producer-matrix.yaml", reports_dir / "producers", output)
    return matrix, reports


def _relative(path: Path, start: Path) -> str:
    try:
        return str(path.relative_to(start))
    except ValueError:
        return str(path)
