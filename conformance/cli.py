"""The `streamroute` command: `run` vectors against an implementation, `smoke`-test an adapter
command, render a run's report (`summary`, `badge`, `baseline`), `lint` vector files,
`check-capture` a recorded stream, `probe` a producer through scenarios."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any, NoReturn

# A module only one command uses is imported when that command runs, so that the others
# start without it: Hypothesis, for one, is loaded by `fuzz` only.
from . import render
from .gate import Gate
from .implementation import described, unknown_profiles
from .limits import Shown, printable
from .progress import Progress
from .report import Record, Report, ReportError, report_of, unwritable, write_text
from .results import Status
from .schemas import BUNDLED_VECTORS, SPEC_DIR, VECTOR, protocol_version, schema
from .selection import Selection, add_selection_arguments
from .suite import (
    DEFAULT_ADAPTER,
    DEFAULT_TIMEOUT,
    Suite,
    UsageError,
    check_implementation,
    load_implementation,
    run_suite,
    vector_roots,
)
from .vector_cache import VectorCache, enabled


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line, like every other usage error."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.partition(" ")[2]
        raise UsageError(f"{command}: {message}" if command else message)


def _versions() -> str:
    """The package's version and the versions of what it speaks, each read from its one source:
    the package metadata, spec/VERSION, the vector schema's `format` and the protocol's `start`."""
    vector_format = schema(VECTOR + "#/properties/format")
    formats = vector_format["enum"] if "enum" in vector_format else [vector_format["const"]]
    return (
        f"streamroute {version('streamroute')}\n"
        f"spec {(SPEC_DIR / 'VERSION').read_text(encoding='utf-8').strip()}\n"
        f"vector format {', '.join(map(str, formats))}\n"
        f"adapter protocol {protocol_version()}\n"
    )


class _Versions(argparse.Action):
    """`--version`: like argparse's own, but several lines, and worked out only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        sys.stdout.write(_versions())
        parser.exit()


def _writable(path: Path | None) -> None:
    """UsageError, before any work, for an output file that cannot be written where it is asked."""
    problem = None if path is None else unwritable(path)
    if problem is not None:
        raise UsageError(problem)


def _optional_path(text: str) -> Path | None:
    """A path; an empty one, as an unset variable gives, is none."""
    return Path(text) if text else None


def _count(text: str) -> int:
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
    """An option of both front ends: `streamroute run --NAME` (and `fuzz`, `smoke`, `lint` where they
    take it) and the pytest plugin's `--streamroute-NAME`, or `--streamroute-PYTEST`."""

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
    Option("expected-failures", "vector ids known to fail, one a line", "FILE", _optional_path),
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
    Option("max-skipped", "fail the run when more than N vectors are skipped", "N", _count),
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


def prepare_suite(given: Callable[[str], Any], selection: Selection | None = None) -> Suite:
    """The suite the shared options ask for; `given(name)`: the value of option `name`, None if none."""
    timeout = given("timeout")
    problem = unknown_profiles(given("allow-partial") or ())
    if problem is not None:
        raise UsageError(f"--allow-partial: {problem}")
    gate = Gate(bool(given("allow-empty")), tuple(given("allow-partial") or ()), given("max-skipped"))
    return Suite.prepare(
        given("adapter"),
        given("vectors"),
        given("profile"),
        given("expected-failures"),
        adapter_command=given("adapter-command"),
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        gate=gate,
        no_cache=bool(given("no-cache")),
        selection=selection,
    )


def _add(parser: argparse.ArgumentParser, *names: str, **settings: Any) -> None:
    """The shared options `names`, with `settings` (a default, `required`) for each of them."""
    for name in names:
        parser.add_argument("--" + name, **{**SHARED_OPTIONS[name].settings, **settings})


def _run(args: argparse.Namespace) -> int:
    _writable(args.report)
    _writable(args.junitxml)
    if args.report and args.junitxml and args.report.resolve() == args.junitxml.resolve():
        raise UsageError(f"--report and --junitxml name the same file, {args.report}")
    if args.maxfail is not None and args.maxfail < 1:
        raise UsageError("--maxfail must be at least 1")
    suite = prepare_suite(lambda name: getattr(args, name.replace("-", "_")), Selection.of(args))
    try:
        return _run_suite(suite, args)
    finally:
        suite.close()


def _run_suite(suite: Suite, args: argparse.Namespace) -> int:
    for warning in suite.warnings:
        print(f"warning: {printable(warning, Shown.LINE)}", file=sys.stderr)
    print(f"implementation: {described(suite.implementation.info)}")
    if suite.reference_by_default:
        print("implementation: the reference router, as neither --adapter nor --adapter-command names one")

    folding = render.Folding()
    progress = Progress("vectors", len(suite.vectors), prefix="streamroute run")

    def show(record: Record) -> None:  # each vector as it comes, from its report line
        status = Status(record["status"])
        if status is Status.SKIPPED or (args.quiet and status.is_failure):
            progress.say(render.vector_line(record))
        elif status.is_failure or (args.verbose and status is not Status.PASSED):
            text = render.vector_text(record) if args.verbose else folding.text(record)
            if text is not None:
                progress.say(text)

    with progress.ticking():
        run = run_suite(suite, show, args.maxfail, progress)
    for error in suite.file_errors:
        print(f"BAD VECTOR FILE {printable(str(error))}" + ("" if args.quiet else "\n"))
    for line in [*folding.summary(), *render.triage_lines(run.records)]:
        print(line)
    report = report_of(suite, run)
    if args.report:
        report.write(args.report)
    if args.junitxml:
        write_text(args.junitxml, render.junit_xml(report), "JUnit XML")
    for line in render.claim_lines(report):
        print(line)
    if run.totals.not_run:
        vectors = "vector" if args.maxfail == 1 else "vectors"
        print(f"streamroute: stopped after {args.maxfail} failed or errored {vectors} (--maxfail)")
    print("streamroute: " + run.totals.describe())
    for problem in report.problems:
        if problem.startswith("no vector ran"):
            why = "each is not applicable or skipped" if suite.vectors else "none is selected"
            problem = f"no vector ran: {why}; --allow-empty accepts that"
        print(f"streamroute: {problem}", file=sys.stderr)
    return 1 if report.problems else 0


def _smoke(args: argparse.Namespace) -> int:
    from .protocol import SmokeFailure, smoke

    check_implementation(None, args.adapter_command, args.timeout)
    try:
        print(printable(smoke(args.adapter_command, args.timeout), Shown.LINE))
    except SmokeFailure as exc:
        print(f"streamroute smoke: {printable(str(exc), Shown.LINE)}", file=sys.stderr)
        return 1
    return 0


def _summary(args: argparse.Namespace) -> int:
    report = Report.load(args.report)
    formats = {"text": render.summary_text, "markdown": render.summary_markdown, "junit": render.junit_xml}
    sys.stdout.write(formats[args.format](report))
    return 1 if report.failed else 0


def _output(text: str, path: Path | None) -> None:
    if path is None:
        sys.stdout.write(text)
        return
    _writable(path)
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from exc


def _badge(args: argparse.Namespace) -> int:
    _output(json.dumps(render.badge(Report.load(args.report))) + "\n", args.output)
    return 0


def _baseline(args: argparse.Namespace) -> int:
    from .expected_failures import baseline

    _output(baseline(Report.load(args.report).vectors), args.output)
    return 0


def _show(args: argparse.Namespace) -> int:
    from .selection import SelectionError
    from .show import shown, vector_file

    try:
        path = vector_file(vector_roots(args.vectors), args.id)
        sys.stdout.write(shown(path))
    except SelectionError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot read {exc.filename}: {exc.strerror}") from None
    return 0


def _lint(args: argparse.Namespace) -> int:
    from streamroute.producer.scenarios import BUNDLED_SCENARIOS, lint_scenarios

    from .lint import lint

    cache = VectorCache() if enabled(args.no_cache) else None
    count, problems = lint(vector_roots(args.vectors), args.coverage or not args.vectors, cache=cache)
    for warning in [] if cache is None else cache.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    scenario_roots = args.scenarios or ([] if args.vectors else [BUNDLED_SCENARIOS])
    scenarios, scenario_problems = lint_scenarios(scenario_roots) if scenario_roots else (0, [])
    for problem in problems + scenario_problems:
        print(problem)
    found = len(problems) + len(scenario_problems)
    linted = f"{count} vectors" + (f", {scenarios} scenarios" if scenario_roots else "")
    print(f"streamroute lint: {linted}, {found} problems")
    return 1 if found or (not count and not scenarios) else 0


def _matrix(args: argparse.Namespace) -> int:
    from streamroute.matrix.run import misclassed_failures, run_matrix, unexplained

    if args.producers:
        from streamroute.matrix.producers import add_producer_sections, run_producers

        config, reports = args.config.parent / "producer-matrix.yaml", args.reports / "producers"
        for probed in run_producers(config, args.workdir, reports, args.only):
            print(f"{probed.producer.id}: {probed.records[-1]['counts'] if probed.records else probed.why}")
        add_producer_sections(config, reports, args.output)
        print(f"streamroute matrix: wrote the producer section of {args.output}")
        return 0

    matrix, reports = run_matrix(args.config, args.output, args.reports, args.workdir, args.only)
    for line in unexplained(matrix, reports):
        print(f"unexplained failure: {line}")
    for line in misclassed_failures(matrix, reports):
        print(f"routing failure not explained by a defect: {line}")
    for entry, report in reports:
        print(f"{entry.id}: {report.totals.describe()}")
    print(f"streamroute matrix: wrote {args.output}")
    return 0


def _fuzz(args: argparse.Namespace) -> int:
    from .fuzz import fuzz

    if args.examples < 1:
        raise UsageError("--examples must be at least 1")
    if args.save_to is not None and args.save_to.exists() and not args.save_to.is_dir():
        raise UsageError(f"--save-to {args.save_to} is not a directory")
    implementation = load_implementation(args.adapter, args.adapter_command, args.timeout)
    progress = Progress("generated streams run", prefix="streamroute fuzz")
    try:
        with progress.ticking():
            outcome = fuzz(implementation, args.examples, args.seed, args.save_to, progress=progress)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        implementation.close()
    print(f"implementation: {described(implementation.info)}")
    failure = outcome.failure
    declined = len(outcome.declined)
    if failure is None and declined == outcome.examples:
        print(
            f"streamroute fuzz: the implementation declined all {declined} generated streams: none was judged"
        )
        return 1
    if failure is None:
        skipped = f" ({declined} declined by the implementation)" if declined else ""
        print(f"streamroute fuzz: {outcome.examples} generated streams{skipped}, no failure")
        return 0
    print(f"FAILED a generated stream (shrunk to {len(failure.stream.events)} events):")
    print(printable("\n".join("  " + line for line in failure.message.splitlines())))
    if failure.path is not None:
        print(f"streamroute fuzz: wrote {failure.path} (vector {failure.vector['id']})")
    print(f"streamroute fuzz: failed after {outcome.examples} generated streams, shrinking included")
    return 1


def _bench(args: argparse.Namespace) -> int:
    from streamroute.bench.benchmark import main as bench

    if not args.scale > 0 or args.repeats < 1 or not args.memory_mib > 0:
        raise UsageError("--scale and --memory-mib must be positive and --repeats at least 1")
    for root in args.vectors:
        if not root.is_dir():
            raise UsageError(f"--vectors {root}: not a directory")
    vectors = args.vectors or [BUNDLED_VECTORS]
    if args.json is None or args.json == "-":
        output = None if args.json is None else sys.stdout
        return bench(args.scale, args.repeats, output, args.memory_mib, vectors)
    _writable(Path(args.json))
    try:  # opened now, to append, so that a file that cannot be written fails before any work
        with open(args.json, "a", encoding="utf-8") as file:
            return bench(args.scale, args.repeats, file, args.memory_mib, vectors)
    except OSError as exc:
        raise UsageError(f"cannot write {args.json}: {exc.strerror}") from exc


def _probe(args: argparse.Namespace) -> int:
    from streamroute.producer.probe import ScenarioResult, Target
    from streamroute.producer.probe_report import failed, summary_markdown
    from streamroute.producer.probe_run import REPORT, ProbeRun, ProbeUsageError, run_probe
    from streamroute.producer.scenarios import BUNDLED_SCENARIOS

    if args.live and args.upstream_port is not None:
        raise UsageError("--live probes a service with no fake upstream; --upstream-port names one")
    if not args.timeout > 0:
        raise UsageError(f"--timeout must be a positive number of seconds, not {args.timeout:g}")
    models: dict[str, str] = {}
    for given in args.model:
        api, sep, name = given.rpartition("=")
        for each in [api] if sep else ["chat-completions", "responses"]:
            if each not in ("chat-completions", "responses") or not name:
                raise UsageError(f"--model {given!r}: give NAME, or chat-completions=NAME or responses=NAME")
            models[each] = name
    run = ProbeRun(
        Target(
            args.base_url,
            {"chat-completions": "streamroute-probe", "responses": "streamroute-probe", **models},
            {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {},
            args.timeout,
            args.transport,
        ),
        args.scenarios or [BUNDLED_SCENARIOS],
        args.output,
        None if args.live else (8900 if args.upstream_port is None else args.upstream_port),
        args.only,
        adapter=args.adapter,
        adapter_command=args.adapter_command,
    )

    def line(result: ScenarioResult) -> str:
        return f"{result.status.value.upper()} {result.id}" + (
            f": {result.message}" if result.message else ""
        )

    try:
        records = run_probe(run, line, "streamroute probe")
    except ProbeUsageError as exc:
        raise UsageError(str(exc)) from None
    print(summary_markdown(records).split("\n\n")[1])
    print(f"streamroute probe: wrote {args.output / REPORT} and the captures beside it")
    return 1 if failed(records) else 0


def _check_capture(args: argparse.Namespace) -> int:
    from streamroute.producer.checker import check_capture

    from .requirements import read_requirements

    try:
        data = args.capture.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the capture: {exc}") from exc
    report = check_capture(data, args.format)
    requirements, _ = read_requirements(SPEC_DIR)
    for v in report.violations:
        print(f"{args.capture}: {v.where}: {v.requirement} ({requirements[v.requirement].level}) {v.message}")
    count = len(report.violations)
    print(f"{args.capture}: {report.events} events ({report.format}), {count} violation{'s' * (count != 1)}")
    return 1 if report.violations else 0


def _vectorize(args: argparse.Namespace) -> int:
    from streamroute.producer.vectorize import VectorizeError, vector_id, vectorize

    from .vector_files import write_vector

    try:
        data = args.capture.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the capture: {exc}") from exc
    id_pattern = schema(VECTOR + "#/properties/id")["pattern"]
    if args.id is not None and not re.fullmatch(id_pattern, args.id):
        raise UsageError(f"--id {args.id!r} is not a vector id ({id_pattern})")
    if args.output.exists() and not args.output.is_dir():
        raise UsageError(f"--output {args.output} is not a directory")
    base_id = args.id or vector_id(args.capture)
    try:
        vectors = vectorize(data, str(args.capture), base_id, args.format)
    except VectorizeError as exc:
        print(f"streamroute vectorize: {exc}", file=sys.stderr)
        return 1
    for made in vectors:
        path = args.output / f"{made['id']}.yaml"
        if path.exists() and not args.force:
            raise UsageError(f"{path} exists; --force replaces it")
    for made in vectors:
        try:
            path = write_vector(made, args.output)
        except OSError as exc:
            raise UsageError(f"cannot write under {args.output}: {exc.strerror}") from exc
        except ValueError as exc:  # a value YAML cannot state and read back
            (args.output / f"{made['id']}.yaml").unlink(missing_ok=True)
            print(f"streamroute vectorize: {exc}", file=sys.stderr)
            return 1
        compared = ", ".join(made["expect"]["compare"])
        print(f"streamroute vectorize: wrote {path} (vector {made['id']}; compares {compared})")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="streamroute", description=__doc__)
    parser.add_argument(
        "--version",
        action=_Versions,
        nargs=0,
        default=argparse.SUPPRESS,
        help="print the versions of streamroute, the spec, the vector format and the adapter protocol",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run vectors against an implementation and print a summary")
    _add(run, "adapter", "adapter-command")
    _add(run, "timeout", default=DEFAULT_TIMEOUT)
    _add(run, "vectors", "profile", "expected-failures")
    add_selection_arguments(run)
    run.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also list not applicable and expected failures",
    )
    _add(run, "report")
    run.add_argument(
        "--junitxml",
        metavar="FILE",
        type=Path,
        help="also write JUnit XML, rendered from the report (a test case per vector)",
    )
    run.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="one line per failed or errored vector, instead of its comparison or traceback",
    )
    run.add_argument(
        "-x",
        "--exitfirst",
        dest="maxfail",
        action="store_const",
        const=1,
        help="stop at the first failed or errored vector",
    )
    run.add_argument(
        "--maxfail",
        metavar="N",
        type=int,
        help="stop after N failed or errored vectors; the others count as not run",
    )
    _add(run, "allow-empty", "allow-partial", "max-skipped", "no-cache")
    run.set_defaults(handler=_run)

    smoke = commands.add_parser(
        "smoke", help="check that an adapter command speaks the adapter protocol; say what is wrong if not"
    )
    _add(smoke, "adapter-command", required=True)
    _add(smoke, "timeout", default=DEFAULT_TIMEOUT)
    smoke.set_defaults(handler=_smoke)

    summary = commands.add_parser(
        "summary", help="render a report as text or Markdown; exit 1 if the run failed"
    )
    summary.add_argument("report", metavar="REPORT", type=Path, help="a report of `run --report`")
    summary.add_argument("--format", choices=["text", "markdown", "junit"], default="text")
    summary.set_defaults(handler=_summary)

    badge = commands.add_parser("badge", help="a shields.io endpoint badge (JSON) from a report")
    badge.add_argument("report", metavar="REPORT", type=Path, help="a report of `run --report`")
    badge.add_argument("-o", "--output", metavar="FILE", type=Path, help="write it here, not to stdout")
    badge.set_defaults(handler=_badge)

    baseline = commands.add_parser(
        "baseline", help="an expected-failures file listing the vectors that fail in a report"
    )
    baseline.add_argument("report", metavar="REPORT", type=Path, help="a report of `run --report`")
    baseline.add_argument("-o", "--output", metavar="FILE", type=Path, help="write it here, not to stdout")
    baseline.set_defaults(handler=_baseline)

    show = commands.add_parser("show", help="print a vector's file: its absolute path, then its content")
    show.add_argument("id", metavar="ID", help="the vector's id, its path under the vectors root")
    _add(show, "vectors")
    show.set_defaults(handler=_show)

    lint = commands.add_parser("lint", help="check vector files against their schema and the spec")
    _add(lint, "vectors", "no-cache")
    lint.add_argument(
        "--scenarios",
        metavar="DIR",
        type=Path,
        action="append",
        default=[],
        help="a directory of probe scenarios (repeatable; default: the bundled ones, unless --vectors)",
    )
    lint.add_argument(
        "--coverage",
        action="store_true",
        help="also require a vector for every requirement (default for the bundled vectors)",
    )
    lint.set_defaults(handler=_lint)

    check_capture = commands.add_parser(
        "check-capture",
        help="check a recorded stream as a producer must emit it (spec/producer.md); exit 1 if it breaks any",
    )
    check_capture.add_argument(
        "capture",
        metavar="FILE",
        type=Path,
        help="the stream's SSE bytes as received, or JSON Lines of events",
    )
    check_capture.add_argument(
        "--format", choices=["sse", "jsonl"], help="default: JSON Lines if the file starts with `{`, else SSE"
    )
    check_capture.set_defaults(handler=_check_capture)

    vectorize = commands.add_parser(
        "vectorize",
        help="turn a recorded stream into vectors whose expectations come from its own final response",
    )
    vectorize.add_argument(
        "capture", metavar="FILE", type=Path, help="SSE bytes as received, or JSON Lines of events"
    )
    vectorize.add_argument("--format", choices=["sse", "jsonl"], help="default: as check-capture guesses it")
    vectorize.add_argument(
        "--id", help="the vector id (default: recorded/ and the file's name; -1, -2 ... per response)"
    )
    vectorize.add_argument(
        "--output", metavar="DIR", type=Path, default=Path("."), help="the vectors root to write under"
    )
    vectorize.add_argument("--force", action="store_true", help="replace vector files that exist")
    vectorize.set_defaults(handler=_vectorize)

    probe = commands.add_parser(
        "probe",
        help="drive a producer (a Responses server or gateway) through scenarios behind a fake upstream; "
        "check, route and vectorize what it streams (spec/producer.md section 8)",
    )
    probe.add_argument(
        "--base-url", required=True, help="the producer's API root, e.g. http://127.0.0.1:4000/v1"
    )
    probe.add_argument(
        "--upstream-port",
        metavar="PORT",
        type=int,
        help="the loopback port of the fake upstream the producer is pointed at (default: 8900)",
    )
    probe.add_argument(
        "--live",
        action="store_true",
        help="a real model behind --base-url: no fake upstream, live scenarios only",
    )
    probe.add_argument(
        "--model",
        metavar="[API=]NAME",
        action="append",
        default=[],
        help="the model to ask for (default streamroute-probe); chat-completions=NAME or responses=NAME "
        "for the scenarios of one upstream API (repeatable)",
    )
    probe.add_argument(
        "--transport",
        choices=["sse", "websocket"],
        default="sse",
        help="POST and read SSE (default), or the Responses API's WebSocket mode on the same path",
    )
    probe.add_argument("--api-key", help="sent as a bearer token")
    probe.add_argument(
        "--timeout", metavar="SECONDS", type=float, default=30.0, help="the longest silence of the producer"
    )
    probe.add_argument(
        "--scenarios",
        metavar="DIR",
        type=Path,
        action="append",
        default=[],
        help="instead of the bundled ones",
    )
    probe.add_argument("--only", metavar="ID", action="append", default=[], help="run only this scenario")
    probe.add_argument(
        "--output",
        metavar="DIR",
        type=Path,
        default=Path("probe-report"),
        help="where report.jsonl, junit.xml, summary.md, captures/ and vectors/ go (default: probe-report)",
    )
    _add(probe, "adapter", "adapter-command")
    probe.set_defaults(handler=_probe)

    matrix = commands.add_parser(
        "matrix",
        help="install and run real implementations (a matrix file), write their reports and docs/matrix.md",
    )
    matrix.add_argument("--config", metavar="FILE", type=Path, default=Path("docs/matrix.yaml"))
    matrix.add_argument("--output", metavar="FILE", type=Path, default=Path("docs/matrix.md"))
    matrix.add_argument("--reports", metavar="DIR", type=Path, default=Path("docs/reports"))
    matrix.add_argument(
        "--workdir",
        metavar="DIR",
        type=Path,
        default=Path(".matrix"),
        help="where each implementation gets its own virtualenv or node_modules (default: .matrix)",
    )
    matrix.add_argument(
        "--only",
        metavar="ID",
        action="append",
        default=[],
        help="run only this implementation (repeatable); the others' reports are reused",
    )
    matrix.add_argument(
        "--producers",
        action="store_true",
        help="run the producers of producer-matrix.yaml (beside --config) through `probe` instead, "
        "and write their section of the matrix",
    )
    matrix.set_defaults(handler=_matrix)

    fuzz = commands.add_parser(
        "fuzz",
        help="run generated streams against an implementation, judged by their ground truth; "
        "save a shrunk failure as a vector",
    )
    _add(fuzz, "adapter", "adapter-command")
    _add(fuzz, "timeout", default=DEFAULT_TIMEOUT)
    _add(fuzz, "examples", default=200)
    _add(fuzz, "seed", "save-to")
    fuzz.set_defaults(handler=_fuzz)

    bench = commands.add_parser(
        "bench",
        help="measure the reference router against json.loads and the openai SDK, at 1x and 10x size",
    )
    bench.add_argument("--scale", metavar="X", type=float, default=1.0, help="the streams' size (default: 1)")
    bench.add_argument(
        "--repeats", metavar="N", type=int, default=5, help="runs of each measure; the median counts"
    )
    bench.add_argument(
        "--memory-mib",
        metavar="M",
        type=float,
        default=10,
        help="MiB of function-call arguments in the stream whose peak memory is measured (default: 10)",
    )
    bench.add_argument(
        "--vectors",
        metavar="DIR",
        type=Path,
        action="append",
        default=[],
        help="the vectors whose `streamroute run` is measured against their YAML parse (repeatable; "
        "default: the bundled ones)",
    )
    bench.add_argument(
        "--json", metavar="FILE", help="also write the figures as JSON, checked before any work; - for stdout"
    )
    bench.set_defaults(handler=_bench)

    if isinstance(sys.stdout, io.TextIOWrapper):  # each line out at once, even if the run ends abruptly
        sys.stdout.reconfigure(line_buffering=True)
    try:
        args = parser.parse_args(argv)
        code: int = args.handler(args)
    except (UsageError, ReportError) as exc:
        print(f"streamroute: {printable(str(exc), Shown.LINE)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("streamroute: interrupted", file=sys.stderr)
        return 130  # as a shell reports a SIGINT
    except BrokenPipeError:  # whoever read the output stopped (`| head`): say nothing more, fail quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # and the flush at exit with it
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
