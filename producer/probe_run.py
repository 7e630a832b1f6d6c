"""One probe run as `streamroute probe` and the producer matrix make it: scenarios chosen, the fake
upstream started (unless live), each scenario probed, and the report, JUnit XML and the summary
written into the output folder beside the captures and the vectors made of them."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from streamroute.conformance.progress import Progress
from streamroute.conformance.suite import load_implementation

from .exchange import ProbeFailure, endpoint
from .probe import Probe, ScenarioResult, Target, probe_all
from .probe_report import Record, footer, header, junit_xml, scenario_record, summary_markdown, write_report
from .scenarios import Scenario, load_scenarios
from .upstream import FakeUpstream

REPORT, JUNIT, SUMMARY = "report.jsonl", "junit.xml", "summary.md"
ROUTER_TIMEOUT = 300.0  # seconds the router has for one capture: litellm's mebibyte of arguments is 25 MB


class ProbeUsageError(Exception):
    """Options that cannot be meant, or a producer that cannot be reached: one line."""


@dataclass(frozen=True)
class ProbeRun:
    target: Target
    roots: Sequence[Path]
    output: Path
    upstream_port: int | None  # None: live, no fake upstream
    only: Sequence[str] = ()
    producer: dict[str, Any] = field(default_factory=dict)  # what a matrix run says of the producer
    adapter: str | None = None  # the router that judges the captures: the reference by default
    adapter_command: str | None = None


def choose(roots: Sequence[Path], only: Sequence[str], live: bool) -> list[Scenario]:
    scenarios, problems = load_scenarios(roots)
    if problems:
        raise ProbeUsageError(
            f"{problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
        )
    unknown = sorted(set(only) - {s.id for s in scenarios})
    if unknown:
        raise ProbeUsageError(f"no scenario {', '.join(unknown)}")
    chosen = [s for s in scenarios if not only or s.id in only]
    if live and not any(s.live for s in chosen):
        raise ProbeUsageError("none of the chosen scenarios is marked live")
    return chosen


def run_probe(
    run: ProbeRun, line: Callable[[ScenarioResult], str | None] = lambda _: None, prefix: str = "probe"
) -> list[Record]:
    """Probe the producer and write what was found, printing the `line` of each scenario's result
    as it comes, with progress as conformance/progress.py shows it (each line and progress line
    starting with `prefix`); ProbeUsageError for what stops the run at once, UsageError for a
    router that cannot be loaded."""
    try:
        endpoint(run.target.base_url)
    except ProbeFailure as exc:
        raise ProbeUsageError(str(exc)) from None
    scenarios = choose(run.roots, run.only, run.upstream_port is None)
    for stale in ("captures", "vectors"):  # a capture of an earlier run is never taken for this one's
        shutil.rmtree(run.output / stale, ignore_errors=True)
    run.output.mkdir(parents=True, exist_ok=True)
    try:
        upstream = None if run.upstream_port is None else FakeUpstream(run.upstream_port)
    except OSError as exc:
        raise ProbeUsageError(
            f"the fake upstream cannot listen on 127.0.0.1:{run.upstream_port}: {exc.strerror}"
        ) from None
    started, clock = datetime.now(timezone.utc), time.monotonic()
    try:
        router = load_implementation(run.adapter, run.adapter_command, ROUTER_TIMEOUT)
    except BaseException:
        if upstream is not None:
            upstream.close()
        raise
    probe = Probe(run.target, router, upstream, run.output)
    progress = Progress("scenarios", len(scenarios), prefix=prefix)

    def show(result: ScenarioResult) -> None:
        shown = line(result)
        if shown is not None:
            progress.say(shown)

    try:
        with progress.ticking():
            results = probe_all(probe, scenarios, show, progress)
    except ProbeFailure as exc:  # ServerDown: nothing answers at the base URL
        raise ProbeUsageError(str(exc)) from None
    finally:
        router.close()
        if upstream is not None:
            upstream.close()
    lines = [scenario_record(probe, result) for result in results]
    records = [header(probe, started, run.producer), *lines, footer(lines, time.monotonic() - clock)]
    write_report(run.output / REPORT, records)
    (run.output / JUNIT).write_text(junit_xml(records), encoding="utf-8")
    (run.output / SUMMARY).write_text(summary_markdown(records), encoding="utf-8")
    return records
