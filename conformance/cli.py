"""The `streamroute` command: `run` vectors against an implementation, `smoke`-test an adapter
command, render a run's report (`summary`, `badge`, `baseline`), `lint` vector files,
`check-capture` a recorded stream."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .capture import check_capture
from .fuzz import fuzz, load_implementation
from .lint import lint
from .matrix import run_matrix, unexplained
from .protocol import SmokeFailure, smoke
from .render import badge, baseline, summary_markdown, summary_text
from .report import Report, ReportError, run_suite, write_report
from .requirements import read_requirements
from .results import Result, Status
from .schemas import BUNDLED_VECTORS, SPEC_DIR
from .suite import DEFAULT_ADAPTER, DEFAULT_TIMEOUT, Suite, UsageError
from .vectors import Vector


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--vectors",
        metavar="DIR",
        type=Path,
        action="append",
        default=[],
        help="a directory of vector files, instead of the bundled ones (repeatable)",
    )


def _add_adapter_command(parser: argparse.ArgumentParser, required: bool = False) -> None:
    parser.add_argument(
        "--adapter-command",
        metavar="CMD",
        required=required,
        help="an implementation in any language, behind this adapter command (spec/protocol.md)",
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"how long the adapter command has for each answer (default: {DEFAULT_TIMEOUT:g})",
    )


def _run(args: argparse.Namespace) -> int:
    suite = Suite.prepare(
        args.adapter,
        args.vectors,
        args.profile,
        args.expected_failures,
        adapter_command=args.adapter_command,
        timeout=args.timeout,
    )
    try:
        return _run_suite(suite, args)
    finally:
        suite.close()


def _run_suite(suite: Suite, args: argparse.Namespace) -> int:
    for warning in suite.warnings:
        print(f"warning: {warning}", file=sys.stderr)

    def show(vector: Vector, result: Result) -> None:
        if result.status is Status.SKIPPED:
            print(f"SKIPPED {vector.id}: {result.message}")
        elif result.status.is_failure or (args.verbose and result.status is not Status.PASSED):
            print(f"{result.status.value.upper()} {vector.id} ({vector.path})\n  {result.message}")
            if result.details:
                print("\n".join("  " + line for line in result.details.splitlines()))
            print()

    run = run_suite(suite, show)
    for error in suite.file_errors:
        print(f"BAD VECTOR FILE {error}\n")
    if args.report:
        write_report(args.report, suite, run)
    print(f"implementation: {suite.implementation.name}")
    print("streamroute: " + run.totals.describe())
    if not suite.vectors:
        print("streamroute: no vectors selected", file=sys.stderr)
    return 1 if run.totals.failed else 0


def _smoke(args: argparse.Namespace) -> int:
    try:
        print(smoke(args.adapter_command, args.timeout))
    except SmokeFailure as exc:
        print(f"streamroute smoke: {exc}", file=sys.stderr)
        return 1
    return 0


def _summary(args: argparse.Namespace) -> int:
    report = Report.load(args.report)
    render = summary_markdown if args.format == "markdown" else summary_text
    sys.stdout.write(render(report))
    return 1 if report.totals.failed else 0


def _output(text: str, path: Path | None) -> None:
    if path is None:
        sys.stdout.write(text)
    else:
        path.write_text(text, encoding="utf-8")


def _badge(args: argparse.Namespace) -> int:
    _output(json.dumps(badge(Report.load(args.report))) + "\n", args.output)
    return 0


def _baseline(args: argparse.Namespace) -> int:
    _output(baseline(Report.load(args.report), str(args.report)), args.output)
    return 0


def _lint(args: argparse.Namespace) -> int:
    roots = args.vectors or [BUNDLED_VECTORS]
    count, problems = lint(roots, check_coverage=args.coverage or not args.vectors)
    for problem in problems:
        print(problem)
    print(f"streamroute lint: {count} vectors, {len(problems)} problems")
    return 1 if problems or not count else 0


def _matrix(args: argparse.Namespace) -> int:
    matrix, reports = run_matrix(args.config, args.output, args.reports, args.workdir, args.only)
    for line in unexplained(matrix, reports):
        print(f"unexplained failure: {line}")
    for entry, report in reports:
        print(f"{entry.id}: {report.totals.describe()}")
    print(f"streamroute matrix: wrote {args.output}")
    return 0


def _fuzz(args: argparse.Namespace) -> int:
    if args.examples < 1:
        raise UsageError("--examples must be at least 1")
    implementation = load_implementation(args.adapter, args.adapter_command, args.timeout)
    try:
        outcome = fuzz(implementation, args.examples, args.seed, args.save_to)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        implementation.close()
    print(f"implementation: {implementation.name}")
    failure = outcome.failure
    if failure is None:
        print(f"streamroute fuzz: {outcome.examples} generated streams, no failure")
        return 0
    print(f"FAILED a generated stream (shrunk to {len(failure.stream.events)} events):")
    print("\n".join("  " + line for line in failure.message.splitlines()))
    if failure.path is not None:
        print(f"streamroute fuzz: wrote {failure.path} (vector {failure.vector['id']})")
    print(f"streamroute fuzz: failed after {outcome.examples} generated streams, shrinking included")
    return 1


def _bench(args: argparse.Namespace) -> int:
    from .bench import main as bench  # imports the reference; only this command needs it

    if not args.scale > 0 or args.repeats < 1:
        raise UsageError("--scale must be positive and --repeats at least 1")
    return bench(args.scale, args.repeats, args.json, args.memory_mib)


def _check_capture(args: argparse.Namespace) -> int:
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="streamroute", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run vectors against an implementation and print a summary")
    run.add_argument(
        "--adapter",
        metavar="MODULE:CALLABLE",
        help=f"the Python implementation to test (default: the reference, {DEFAULT_ADAPTER})",
    )
    _add_adapter_command(run)
    _add_selection(run)
    run.add_argument(
        "--profile",
        action="append",
        default=[],
        help="run only vectors of this profile (repeatable)",
    )
    run.add_argument(
        "--expected-failures",
        metavar="FILE",
        type=Path,
        help="vector ids known to fail, one a line",
    )
    run.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also list not applicable and expected failures",
    )
    run.add_argument(
        "--report",
        metavar="FILE",
        type=Path,
        help="also write a JSON Lines report (spec/report.schema.json)",
    )
    run.set_defaults(handler=_run)

    check_adapter = commands.add_parser(
        "smoke", help="check that an adapter command speaks the adapter protocol; say what is wrong if not"
    )
    _add_adapter_command(check_adapter, required=True)
    check_adapter.set_defaults(handler=_smoke)

    summarize = commands.add_parser(
        "summary", help="render a report as text or Markdown; exit 1 if the run failed"
    )
    summarize.add_argument("report", metavar="REPORT", type=Path, help="a report of `run --report`")
    summarize.add_argument("--format", choices=["text", "markdown"], default="text")
    summarize.set_defaults(handler=_summary)

    shield = commands.add_parser("badge", help="a shields.io endpoint badge (JSON) from a report")
    shield.add_argument("report", metavar="REPORT", type=Path, help="a report of `run --report`")
    shield.add_argument("-o", "--output", metavar="FILE", type=Path, help="write it here, not to stdout")
    shield.set_defaults(handler=_badge)

    expected = commands.add_parser(
        "baseline", help="an expected-failures file listing the vectors that fail in a report"
    )
    expected.add_argument("report", metavar="REPORT", type=Path, help="a report of `run --report`")
    expected.add_argument("-o", "--output", metavar="FILE", type=Path, help="write it here, not to stdout")
    expected.set_defaults(handler=_baseline)

    check = commands.add_parser("lint", help="check vector files against their schema and the spec")
    _add_selection(check)
    check.add_argument(
        "--coverage",
        action="store_true",
        help="also require a vector for every requirement (default for the bundled vectors)",
    )
    check.set_defaults(handler=_lint)

    capture = commands.add_parser(
        "check-capture",
        help="check a recorded stream as a producer must emit it (spec/producer.md); exit 1 if it breaks any",
    )
    capture.add_argument(
        "capture",
        metavar="FILE",
        type=Path,
        help="the stream's SSE bytes as received, or JSON Lines of events",
    )
    capture.add_argument(
        "--format", choices=["sse", "jsonl"], help="default: JSON Lines if the file starts with `{`, else SSE"
    )
    capture.set_defaults(handler=_check_capture)

    table = commands.add_parser(
        "matrix",
        help="install and run real implementations (a matrix file), write their reports and docs/matrix.md",
    )
    table.add_argument("--config", metavar="FILE", type=Path, default=Path("docs/matrix.yaml"))
    table.add_argument("--output", metavar="FILE", type=Path, default=Path("docs/matrix.md"))
    table.add_argument("--reports", metavar="DIR", type=Path, default=Path("docs/reports"))
    table.add_argument(
        "--workdir",
        metavar="DIR",
        type=Path,
        default=Path(".matrix"),
        help="where each implementation gets its own virtualenv or node_modules (default: .matrix)",
    )
    table.add_argument(
        "--only",
        metavar="ID",
        action="append",
        default=[],
        help="run only this implementation (repeatable); the others' reports are reused",
    )
    table.set_defaults(handler=_matrix)

    generate = commands.add_parser(
        "fuzz",
        help="run generated streams against an implementation, judged by their ground truth; "
        "save a shrunk failure as a vector",
    )
    generate.add_argument(
        "--adapter",
        metavar="MODULE:CALLABLE",
        help=f"the Python implementation to test (default: the reference, {DEFAULT_ADAPTER})",
    )
    _add_adapter_command(generate)
    generate.add_argument(
        "--examples", metavar="N", type=int, default=200, help="how many streams to generate (default: 200)"
    )
    generate.add_argument("--seed", metavar="S", type=int, help="the random seed, to repeat a run")
    generate.add_argument(
        "--save-to",
        metavar="DIR",
        type=Path,
        help="write a failure as a vector file under DIR/fuzz/ (then: streamroute run --vectors DIR)",
    )
    generate.set_defaults(handler=_fuzz)

    measure = commands.add_parser(
        "bench",
        help="measure the reference router against json.loads and the openai SDK, at 1x and 10x size",
    )
    measure.add_argument(
        "--scale", metavar="X", type=float, default=1.0, help="the streams' size (default: 1)"
    )
    measure.add_argument(
        "--repeats", metavar="N", type=int, default=5, help="runs of each measure; the median counts"
    )
    measure.add_argument(
        "--memory-mib",
        metavar="M",
        type=float,
        default=10,
        help="MiB of function-call arguments in the stream whose peak memory is measured (default: 10)",
    )
    measure.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    measure.set_defaults(handler=_bench)

    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except (UsageError, ReportError) as exc:
        print(f"streamroute: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
