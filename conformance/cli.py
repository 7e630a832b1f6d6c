"""The `streamroute` command: `run` vectors against an implementation, `lint` vector files."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .lint import lint
from .results import Status
from .schemas import BUNDLED_VECTORS
from .suite import DEFAULT_ADAPTER, Suite, UsageError


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--vectors",
        metavar="DIR",
        type=Path,
        action="append",
        default=[],
        help="a directory of vector files, instead of the bundled ones (repeatable)",
    )


def _run(args: argparse.Namespace) -> int:
    suite = Suite.prepare(args.adapter, args.vectors, args.profile, args.expected_failures)
    for warning in suite.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    counts: Counter[Status] = Counter()
    for vector in suite.vectors:
        result = suite.run(vector)
        counts[result.status] += 1
        if result.status.is_failure or (args.verbose and result.status is not Status.PASSED):
            print(f"{result.status.value.upper()} {vector.id} ({vector.path})\n  {result.message}")
            if result.details:
                print("\n".join("  " + line for line in result.details.splitlines()))
            print()
    for error in suite.file_errors:
        print(f"BAD VECTOR FILE {error}\n")
    parts = [
        f"{counts[status]} {status.value}"
        for status in Status
        if counts[status] or status in (Status.PASSED, Status.FAILED, Status.ERRORED)
    ]
    if suite.file_errors:
        parts.append(f"{len(suite.file_errors)} bad vector files")
    if suite.deselected:
        parts.append(f"{suite.deselected} deselected")
    print(f"implementation: {suite.implementation.name}")
    print("streamroute: " + ", ".join(parts))
    if not suite.vectors:
        print("streamroute: no vectors selected", file=sys.stderr)
        return 1
    failed = any(counts[s] for s in Status if s.is_failure) or suite.file_errors
    return 1 if failed else 0


def _lint(args: argparse.Namespace) -> int:
    roots = args.vectors or [BUNDLED_VECTORS]
    count, problems = lint(roots, check_coverage=args.coverage or not args.vectors)
    for problem in problems:
        print(problem)
    print(f"streamroute lint: {count} vectors, {len(problems)} problems")
    return 1 if problems or not count else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="streamroute", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run vectors against an implementation and print a summary")
    run.add_argument(
        "--adapter",
        metavar="MODULE:CALLABLE",
        help=f"the Python implementation to test (default: the reference, {DEFAULT_ADAPTER})",
    )
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
    run.set_defaults(handler=_run)

    check = commands.add_parser("lint", help="check vector files against their schema and the spec")
    _add_selection(check)
    check.add_argument(
        "--coverage",
        action="store_true",
        help="also require a vector for every requirement (default for the bundled vectors)",
    )
    check.set_defaults(handler=_lint)

    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except UsageError as exc:
        print(f"streamroute: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
