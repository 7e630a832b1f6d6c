"""The producer matrix: real bridges and gateways started on this machine and probed through every
scenario (`streamroute matrix --producers`), and their table on docs/matrix.md and the page.

A producer file (docs/producer-matrix.yaml) lists producers, each installed as a client of the
matrix is (matrix/run.py `install`: a virtualenv of pinned requirements and a constraints file,
or an npm folder with its lockfile), then started by its `start` command on a free loopback port
with the fake upstream on another; `config`, when given, is a template file written beside it
with those ports filled in. `{python}`, `{dir}`, `{repo}`, `{port}`, `{upstream}` (the fake
upstream's base URL, with /v1), `{upstream_root}` (without), `{needs}` (the folder under the
workdir a producer no registry holds runs from) and `{config}` fill the command, the
environment, the template and `base_url` (where it serves `/responses`; default
`http://127.0.0.1:{port}/v1`). The probe (producer/probe_run.py) writes each producer's report to
docs/reports/producers/ID.jsonl, and what its run ran on beside it (ID.run.json).

It lists the findings too: each explains findings of the probe (a check and a regular expression
on its message, for some producers and scenarios), names the producer's source lines it was
verified in, and links its upstream-ready report in docs/upstream/. A finding of a report that no
finding explains is shown as unexplained, as in the client matrix.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import yaml
from streamroute.conformance.suite import UsageError
from streamroute.conformance.vectors import read_yaml
from streamroute.producer.exchange import wait_until_up
from streamroute.producer.probe import Target
from streamroute.producer.probe_report import ProbeReportError, Record, read_report, scenarios_of
from streamroute.producer.probe_run import REPORT, ProbeRun, ProbeUsageError, run_probe
from streamroute.producer.scenarios import BUNDLED_SCENARIOS

from .run import Entry, _strings, _text, _versions, describe_run, install

START_SECONDS = 180  # how long a producer may take to listen: litellm's proxy imports for a while
MARK = "<!-- producer matrix -->"  # where the producer section begins, in docs/matrix.md and the page


@dataclass(frozen=True)
class Producer:
    id: str
    label: str
    kind: str  # what it is: a gateway, a library bridge, a server bridge
    entry: Entry  # how it is installed, as a client of the matrix is
    start: str
    models: dict[str, str]
    env: dict[str, str] = field(default_factory=dict)
    base_url: str = "http://127.0.0.1:{port}/v1"  # where it serves /responses
    config: str | None = None
    api_key: str | None = None
    transport: str = "sse"  # or websocket: the Responses API's WebSocket mode
    needs: str | None = None  # a folder under the workdir it runs from, no registry's; absent: skipped


@dataclass(frozen=True)
class ProducerFinding:
    id: str
    title: str
    classification: str
    checks: tuple[str, ...]  # the probe's checks it explains
    match: re.Pattern[str]
    report: str  # its upstream-ready report, docs/upstream/...
    source: tuple[str, ...]  # the producer's source lines it was verified in
    producers: tuple[str, ...] = ()  # id prefixes; empty: all
    scenarios: tuple[str, ...] = ()  # empty: all

    def explains(self, producer: str, scenario: str, finding: Record) -> bool:
        return (
            finding["check"] in self.checks
            and (not self.producers or any(producer.startswith(p) for p in self.producers))
            and (not self.scenarios or scenario in self.scenarios)
            and self.match.search(finding["message"]) is not None
        )


@dataclass(frozen=True)
class ProducerMatrix:
    producers: tuple[Producer, ...]
    findings: tuple[ProducerFinding, ...]
    timeout: float

    def explain(self, producer: str, scenario: str, finding: Record) -> ProducerFinding | None:
        return next((f for f in self.findings if f.explains(producer, scenario, finding)), None)


def _mapping(item: dict[str, Any], key: str, where: str) -> dict[str, str]:
    value = item.get(key) or {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise UsageError(f"{where}: `{key}` must be a mapping of strings")
    return {str(k): v for k, v in value.items()}


def _items(data: dict[str, Any], key: str, path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each mapping of the list `key`, with where it is, for messages."""
    for number, item in enumerate(data.get(key) or []):
        where = f"{path}: {key}[{number}]"
        if not isinstance(item, dict):
            raise UsageError(f"{where}: expected a mapping")
        yield where, item


def load_producer_matrix(path: Path) -> ProducerMatrix:
    try:
        data = read_yaml(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, ValueError) as exc:
        raise UsageError(f"cannot read the producer matrix file: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("producers"), list):
        raise UsageError(f"{path}: expected a mapping with a list of `producers`")
    producers = []
    for where, item in _items(data, "producers", path):
        producer_id = _text(item, "id", where)
        transport = item.get("transport", "sse")
        if transport not in ("sse", "websocket"):
            raise UsageError(f"{where}: `transport` must be sse or websocket")
        entry = Entry(
            item.get("installs_with") or producer_id,  # the folder it is installed in: another's, to share it
            producer_id,
            "{dir}",  # `install` answers with the folder it installed into
            _text(item, "kind", where),
            _strings(item.get("pip"), f"{where}: pip"),
            item.get("constraints"),
            item.get("npm"),
        )
        producers.append(
            Producer(
                producer_id,
                _text(item, "label", where),
                _text(item, "kind", where),
                entry,
                _text(item, "start", where),
                _mapping(item, "models", where),
                _mapping(item, "env", where),
                item.get("base_url") or "http://127.0.0.1:{port}/v1",
                item.get("config"),
                item.get("api_key"),
                transport,
                item.get("needs"),
            )
        )
    findings = []
    for where, item in _items(data, "findings", path):
        try:
            pattern = re.compile(_text(item, "match", where))
        except re.error as exc:
            raise UsageError(f"{where}: bad `match`: {exc}") from exc
        findings.append(
            ProducerFinding(
                _text(item, "id", where),
                _text(item, "title", where),
                _text(item, "class", where),
                _strings(item.get("checks"), f"{where}: checks"),
                pattern,
                _text(item, "report", where),
                _strings(item.get("source"), f"{where}: source"),
                _strings(item.get("producers"), f"{where}: producers"),
                _strings(item.get("scenarios"), f"{where}: scenarios"),
            )
        )
    timeout = data.get("timeout", 30)
    if not isinstance(timeout, (int, float)) or not timeout > 0:
        raise UsageError(f"{path}: `timeout` must be a positive number of seconds")
    return ProducerMatrix(tuple(producers), tuple(findings), float(timeout))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _filled(template: str, values: dict[str, str]) -> str:
    return template.format(**values)


def run_producer(matrix: ProducerMatrix, producer: Producer, workdir: Path, reports: Path) -> list[Record]:
    """Install, start and probe one producer; its report and run description go to `reports`."""
    home = Path(shlex.split(install(producer.entry, workdir))[0])
    port, upstream_port = _free_port(), _free_port()
    values = {
        "python": str(home / "venv" / "bin" / "python"),
        "dir": str(home),
        "port": str(port),
        "upstream": f"http://127.0.0.1:{upstream_port}/v1",
        "upstream_root": f"http://127.0.0.1:{upstream_port}",
        "repo": str(Path.cwd()),  # the matrix runs from the repository root
        "needs": str((workdir / producer.needs).resolve()) if producer.needs else "",
    }
    if producer.config:
        written = home / Path(producer.config).name
        written.write_text(
            _filled(Path(producer.config).read_text(encoding="utf-8"), values), encoding="utf-8"
        )
        values["config"] = str(written)
    env = {**os.environ, **{name: _filled(value, values) for name, value in producer.env.items()}}
    log = home / f"{producer.id}.log"  # one installed with another has its own
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            shlex.split(_filled(producer.start, values)),
            cwd=home,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        base_url = _filled(producer.base_url, values)
        if not _listening(process, base_url):
            tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:] or ["nothing"]
            raise UsageError(f"{producer.id} did not start listening on {port}; its log ends: {tail[0]}")
        run = ProbeRun(
            Target(
                base_url,
                producer.models,
                {"Authorization": f"Bearer {producer.api_key}"} if producer.api_key else {},
                matrix.timeout,
                producer.transport,
            ),
            [BUNDLED_SCENARIOS],
            home / "probe" / producer.id,
            upstream_port,
            producer={"id": producer.id, "transport": producer.transport},
        )
        try:
            records = run_probe(run, prefix=f"producer matrix: {producer.id}")
        except ProbeUsageError as exc:
            raise UsageError(f"{producer.id}: {exc}") from None
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    reports.mkdir(parents=True, exist_ok=True)
    (reports / f"{producer.id}.jsonl").write_bytes((home / "probe" / producer.id / REPORT).read_bytes())
    about = describe_run(producer.entry, workdir)
    (reports / f"{producer.id}.run.json").write_text(json.dumps(about, indent=2) + "\n", encoding="utf-8")
    return records


def _listening(process: subprocess.Popen[bytes], base_url: str) -> bool:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        if wait_until_up(base_url, 1):
            return True
    return False


@dataclass(frozen=True)
class Probed:
    """One producer's report as the matrix shows it; `records` empty: not run, for `why`."""

    producer: Producer
    records: list[Record]
    why: str = ""
    about: dict[str, Any] = field(default_factory=dict)  # what its run ran on (ID.run.json)


def load_reports(matrix: ProducerMatrix, reports: Path) -> list[Probed]:
    shown = []
    for producer in matrix.producers:
        path = reports / f"{producer.id}.jsonl"
        if not path.exists():
            why = (
                f"needs {producer.needs}, not there when the matrix ran" if producer.needs else "not run yet"
            )
            shown.append(Probed(producer, [], why))
            continue
        about = path.with_suffix(".run.json")
        try:
            records = read_report(path)
        except ProbeReportError as exc:
            raise UsageError(str(exc)) from None
        shown.append(
            Probed(producer, records, about=json.loads(about.read_text("utf-8")) if about.exists() else {})
        )
    return shown


def run_producers(config: Path, workdir: Path, reports: Path, only: Sequence[str] = ()) -> list[Probed]:
    """Run the producers of the file (those in `only`, if given; the others' reports are reused)."""
    matrix = load_producer_matrix(config)
    unknown = sorted(set(only) - {p.id for p in matrix.producers})
    if unknown:
        raise UsageError(f"no producer {', '.join(unknown)} in {config}")
    for producer in matrix.producers:
        if only and producer.id not in only:
            continue
        if producer.needs and not (workdir / producer.needs).is_dir():
            print(
                f"producer matrix: {producer.id}: skipped: {workdir / producer.needs} is not there",
                file=sys.stderr,
            )
            continue
        print(f"producer matrix: {producer.id}: installing, starting and probing", file=sys.stderr)
        records = run_producer(matrix, producer, workdir, reports)
        print(f"producer matrix: {producer.id}: {records[-1]['counts']}", file=sys.stderr)
    return load_reports(matrix, reports)


# -- rendering -------------------------------------------------------------------------------------


def _finding_link(finding: ProducerFinding | None) -> str:
    if finding is None:
        return "**unexplained**"
    return f"[{finding.id}]({finding.report})"


def _cells(matrix: ProducerMatrix, probed: Probed) -> dict[str, Record]:
    return {record["id"]: record for record in scenarios_of(probed.records)}


def markdown(matrix: ProducerMatrix, shown: Sequence[Probed], reports_dir: str) -> str:
    """The producer section of docs/matrix.md; finding reports are named relative to docs/."""
    scenario_ids = sorted({r["id"] for p in shown for r in scenarios_of(p.records)})
    lines = [
        MARK,
        "## Producers",
        "",
        "Real bridges and gateways, each started on this machine in front of the fake upstream and "
        "driven through every scenario by `streamroute probe` (`streamroute matrix --producers`, "
        "[producer-matrix.yaml](producer-matrix.yaml)). A cell is the scenario's status; a failed one "
        "names its findings. Each finding was verified in the producer's source and has an "
        f"upstream-ready report in [upstream/](upstream/). Reports: [{reports_dir}/]({reports_dir}/).",
        "",
        "| scenario | " + " | ".join(p.producer.id for p in shown) + " |",
        "|" + "---|" * (1 + len(shown)),
    ]
    unexplained = 0
    for scenario in scenario_ids:
        cells = []
        for probed in shown:
            record = _cells(matrix, probed).get(scenario)
            if record is None:
                cells.append("-")
                continue
            links = []
            for finding in record["findings"]:
                explained = matrix.explain(probed.producer.id, scenario, finding)
                unexplained += explained is None
                links.append(_finding_link(explained))
            shown_status = record["status"] if record["status"] != "failed" else "**failed**"
            cells.append(shown_status + (" " + ", ".join(dict.fromkeys(links)) if links else ""))
        lines.append(f"| `{scenario}` | " + " | ".join(cells) + " |")
    lines += ["", "| producer | kind | packages | run | scenarios |", "|---|---|---|---|---|"]
    for probed in shown:
        if not probed.records:
            lines.append(f"| {probed.producer.label} | {probed.producer.kind} | - | - | {probed.why} |")
            continue
        counts = ", ".join(f"{n} {status}" for status, n in probed.records[-1]["counts"].items())
        versions = _versions(probed.producer.entry, probed.about)
        lines.append(
            f"| {probed.producer.label} | {probed.producer.kind} | {versions} "
            f"| [{probed.records[0]['started']}]({reports_dir}/{probed.producer.id}.jsonl) | {counts} |"
        )
    lines += [
        "",
        "| finding | class | producers | checks | verified in | report |",
        "|---|---|---|---|---|---|",
    ]
    for finding in matrix.findings:
        where = "<br>".join(f"`{line}`" for line in finding.source)
        lines.append(
            f"| {finding.id}: {finding.title} | {finding.classification} "
            f"| {', '.join(finding.producers) or 'all'} | {', '.join(finding.checks)} | {where} "
            f"| [{finding.report.rpartition('/')[2]}]({finding.report}) |"
        )
    lines += ["", f"Producer findings no finding explains: {unexplained}.", ""]
    return "\n".join(lines)


def html(matrix: ProducerMatrix, shown: Sequence[Probed]) -> str:
    """The producer table of the page: scenarios by producers, each failed cell with its findings."""
    scenario_ids = sorted({r["id"] for p in shown for r in scenarios_of(p.records)})
    head = "".join(
        f'<th data-producer="{escape(p.producer.id)}">{escape(p.producer.label)}</th>' for p in shown
    )
    rows = []
    for scenario in scenario_ids:
        cells = []
        for probed in shown:
            record = _cells(matrix, probed).get(scenario)
            status = "-" if record is None else record["status"]
            css = {"passed": "pass", "failed": "fail"}.get(status, "na")
            items = "".join(
                f"<li><code>{escape(f['check'])}</code> {escape(f['message'][:160])} "
                + (
                    f'<a href="{escape(explained.report)}">{escape(explained.id)}</a>'
                    if (explained := matrix.explain(probed.producer.id, scenario, f)) is not None
                    else '<span class="unexplained">unexplained</span>'
                )
                + "</li>"
                for f in (record or {}).get("findings", [])
            )
            body = (
                f"<details><summary>{status}</summary><ul>{items}</ul></details>" if items else escape(status)
            )
            data = f'data-producer="{escape(probed.producer.id)}" data-scenario="{escape(scenario)}"'
            cells.append(f'<td class="{css}" {data}>{body}</td>')
        rows.append(f"<tr><td><code>{escape(scenario)}</code></td>{''.join(cells)}</tr>")
    return "\n".join(
        [
            MARK,
            '<h2 id="producers">Producers</h2>',
            "<p>Real bridges and gateways probed through every scenario by <code>streamroute probe</code> "
            'behind the fake upstream (<a href="producer-matrix.yaml">producer-matrix.yaml</a>); each '
            "finding "
            'links its upstream-ready report in <a href="upstream/">upstream/</a>.</p>',
            f'<table id="producers-table"><thead><tr><th>scenario</th>{head}</tr></thead><tbody>',
            *rows,
            "</tbody></table>",
        ]
    )


def with_section(document: str, section: str, before: str | None = None) -> str:
    """`document` with its producer section (from MARK on, up to `before`) replaced by `section`."""
    if MARK in document:
        start = document.index(MARK)
        end = document.index(before, start) if before and before in document[start:] else len(document)
    else:
        start = end = document.index(before) if before and before in document else len(document)
    return document[:start] + section + "\n" + document[end:]


def add_producer_sections(config: Path, reports: Path, output: Path) -> None:
    """Write the producer section into docs/matrix.md (`output`) and the page beside it, rendered
    from the producer reports in `reports`; nothing when there is no producer file `config`."""
    if not config.exists():
        return
    matrix = load_producer_matrix(config)
    shown = load_reports(matrix, reports)
    relative = Path(os.path.relpath(reports.resolve(), output.resolve().parent)).as_posix()
    if output.exists():
        output.write_text(
            with_section(output.read_text(encoding="utf-8"), markdown(matrix, shown, relative)), "utf-8"
        )
    page = output.with_suffix(".html")
    if page.exists():
        page.write_text(
            with_section(page.read_text(encoding="utf-8"), html(matrix, shown), "</body>"), "utf-8"
        )
