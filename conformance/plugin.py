"""The pytest plugin: one test item per vector, its node id the vector id.

Registered through the `pytest11` entry point; it adds items only when asked
to (`--streamroute`, or any other `--streamroute-*` option), so installing
streamroute changes no other test run. The implementation under test is named
in the report header. Options without an implementation
(`--streamroute-adapter` or `--streamroute-adapter-command`) are refused, so an
unset CI variable never tests the reference unnoticed; `--streamroute` alone
asks for the reference. A session in which no vector ran fails, unless
`--streamroute-allow-empty`.

Each vector's outcome is its report line (conformance/report.py), made where
the vector runs and carried on pytest's test report, so that an xdist
controller sees it too: pytest shows it rendered as `streamroute run` does,
`--streamroute-report` writes the lines as `run --report` does, and pytest's
JUnit XML gets the vector's profile and folder as its classname. A vector runs
in its item's setup, so that one the implementation did not answer (errored)
is a pytest error, and a JUnit `<error>`; a failed one fails in the call.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Generator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from _pytest._code.code import TerminalRepr
from _pytest._io import TerminalWriter
from _pytest.junitxml import xml_key
from hypothesis.database import DirectoryBasedExampleDatabase

from .cli import SHARED_OPTIONS, Option, prepare_suite
from .drivers import Shard
from .fuzz import fuzz
from .implementation import before_abandoning, described
from .limits import Shown, printable
from .render import claim_lines, junit_names, vector_text
from .report import Record, Report, ReportError, SuiteRun, Totals, report_of, unwritable
from .report import vector_record as make_record
from .results import Result, Status
from .suite import DEFAULT_ADAPTER, Suite, UsageError, timed
from .vectors import Vector, VectorFileError

FUZZ_ITEM = "streamroute-fuzz"
RECORD = "streamroute_record"  # the attribute of pytest's test report that carries a vector's report line


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("streamroute", "streamroute conformance vectors")
    group.addoption(
        "--streamroute",
        action="store_true",
        help=f"run the streamroute vectors; alone, against the reference ({DEFAULT_ADAPTER})",
    )
    for option in SHARED_OPTIONS.values():  # those of `streamroute run` and `fuzz`, as they take them
        group.addoption(f"--streamroute-{option.pytest or option.name}", **option.settings)
    group.addoption(
        "--streamroute-fuzz-shards",
        metavar="K",
        type=int,
        default=1,
        help="split the generated streams into K test items, for pytest-xdist's workers (a campaign)",
    )
    group.addoption(
        "--streamroute-fuzz-database",
        metavar="DIR",
        help="keep failures in this Hypothesis example database, shared by a campaign's workers and"
        " machines: each replays what any of them found",
    )


class VectorFailed(Exception):
    def __init__(self, result: Result) -> None:
        super().__init__(result.message)
        self.result = result


@dataclass(frozen=True)
class _Reason:
    message: str  # what pytest's short summary and JUnit's `message` show


class _Shown(TerminalRepr):
    """A vector that did not pass, as pytest shows it: its report line rendered, with its reason
    as the one line (`reprcrash.message`) that pytest's short summary and JUnit XML take."""

    def __init__(self, record: Record) -> None:
        self.text = vector_text(record)
        self.reprcrash = _Reason(printable(record["message"].partition("\n")[0], Shown.LINE))

    def toterminal(self, tw: TerminalWriter) -> None:
        for line in self.text.splitlines():
            tw.line(line)


class VectorItem(pytest.Item):
    def __init__(self, *, vector: Vector, suite: Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.vector = vector
        self.suite = suite
        self.result: Result | None = None
        self.record: Record | None = None

    def setup(self) -> None:
        self.result, seconds = timed(self.suite, self.vector)
        self.record = make_record(self.suite, self.vector, self.result, seconds)
        if self.result.status is Status.ERRORED:
            raise VectorFailed(self.result)

    def runtest(self) -> None:
        result = self.result
        assert result is not None, "a vector runs in its item's setup"
        reason = printable(result.message, Shown.LINE)  # pytest shows it as one line of its own
        if result.status is Status.NOT_APPLICABLE:
            pytest.skip(f"not applicable: {reason}")
        if result.status is Status.SKIPPED:
            pytest.skip(f"skipped by the implementation: {reason}")
        if result.status is Status.EXPECTED_FAILURE:
            pytest.xfail(f"expected failure: {reason}")
        if result.status is not Status.PASSED:
            raise VectorFailed(result)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, VectorFailed) and self.record is not None:
            return _Shown(self.record)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.vector.path, None, f"vector {self.vector.id}"


class FuzzItem(pytest.Item):
    """Generated streams against the implementation (conformance/fuzz.py): one test item, or one
    per shard of a campaign."""

    def __init__(
        self,
        *,
        suite: Suite,
        examples: int,
        seed: int | None,
        save_to: str | None,
        shard: Shard,
        database: str | None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.suite = suite
        self.examples = examples
        self.seed = seed
        self.save_to = Path(save_to) if save_to else None
        self.shard = shard
        self.database = database

    def runtest(self) -> None:
        database = DirectoryBasedExampleDatabase(self.database) if self.database else None
        implementation = self.suite.implementation
        outcome = fuzz(
            implementation, self.examples, self.seed, self.save_to, database=database, shard=self.shard
        )
        failure = outcome.failure
        if failure is not None:
            saved = f"wrote {failure.path}" if failure.path else "--streamroute-fuzz-save-to DIR saves it"
            notes = "".join(f"\n({note})" for note in outcome.notes)
            message = f"a generated stream failed ({saved}):{notes}\n{failure.message}"
            raise VectorFailed(Result(FUZZ_ITEM, Status.FAILED, message))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, VectorFailed):
            return printable(excinfo.value.result.message)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path(FUZZ_ITEM), None, f"{self.examples} generated streams"


class BadVectorFile(pytest.Item):
    def __init__(self, *, error: VectorFileError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise VectorFailed(Result(str(self.error.path), Status.FAILED, str(self.error)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return printable(f"bad vector file: {self.error}")

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.error.path, None, f"bad vector file {self.error.path}"


class VectorSuite(pytest.Collector):
    """The vectors of one run, as a collector beside the user's own tests."""

    def __init__(self, *, suite: Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite

    def collect(self) -> list[pytest.Item]:
        items: list[pytest.Item] = [
            VectorItem.from_parent(self, name=v.id, nodeid=v.id, vector=v, suite=self.suite)
            for v in self.suite.vectors
        ]
        items += [
            BadVectorFile.from_parent(self, name=str(e.path), nodeid=str(e.path), error=e)
            for e in self.suite.file_errors
        ]
        option = self.config.option
        if option.streamroute_fuzz:
            count = max(option.streamroute_fuzz_shards, 1)
            for index in range(count):
                name = FUZZ_ITEM if count == 1 else f"{FUZZ_ITEM}[{index}]"
                item = FuzzItem.from_parent(
                    self,
                    name=name,
                    nodeid=name,
                    suite=self.suite,
                    examples=-(-option.streamroute_fuzz // count),  # the examples, spread over the shards
                    seed=option.streamroute_fuzz_seed,
                    save_to=option.streamroute_fuzz_save_to,
                    shard=Shard(index, count),
                    database=option.streamroute_fuzz_database,
                )
                items.append(item)
        return items


class _Session:
    """The plugin's part of one pytest session, registered as a plugin of its own: the suite, and
    whether any vector ran."""

    def __init__(self, config: pytest.Config, suite: Suite) -> None:
        self.config = config
        self.suite = suite
        self.executed = 0
        self.records: list[Record] = []
        self.claims: list[str] = []  # each class's claims, as `streamroute run` prints them
        self.problems: list[str] = []  # what fails the session beyond a failed vector (conformance/gate.py)
        self.started, self.clock = datetime.now(timezone.utc), time.perf_counter()
        self.selected = self.deselected = 0  # vector items
        self.report_problem: str | None = None
        self.junit_names = {vector.id: junit_names(vector.id, vector.profile) for vector in suite.vectors}
        self.junit_names.update(
            {str(error.path): ("vector files", str(error.path)) for error in suite.file_errors}
        )
        capture = config.pluginmanager.getplugin("capturemanager")
        # The watchdog that ends a stuck run writes its line to the terminal, not into a capture.
        self.abandon_hook = before_abandoning(
            None if capture is None else lambda: capture.suspend_global_capture(in_=True)
        )

    def close(self) -> None:
        before_abandoning(self.abandon_hook)
        self.suite.close()

    def pytest_report_header(self) -> list[str]:
        lines = [f"streamroute: implementation under test: {described(self.suite.implementation.info)}"]
        if self.suite.reference_by_default:
            lines.append("streamroute: that is the reference router, as --streamroute alone asks")
        return lines

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Generator[None, Any, None]:
        # The vectors live in the installed package, outside the paths pytest
        # collects from, so they join the session's top-level collectors here.
        outcome = yield
        report: pytest.CollectReport = outcome.get_result()
        if isinstance(collector, pytest.Session) and report.passed:
            report.result.append(
                VectorSuite.from_parent(collector, name="streamroute", nodeid="streamroute", suite=self.suite)
            )

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.selected = sum(isinstance(item, VectorItem) for item in session.items)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += sum(isinstance(item, VectorItem) for item in items)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, None]:
        outcome = yield
        report: pytest.TestReport = outcome.get_result()
        if not isinstance(item, VectorItem) or item.record is None:
            return
        if call.when == "setup" and report.failed:  # errored: shown as a failure is, not as a traceback
            report.longrepr = _Shown(item.record)
        if call.when == "call" or (call.when == "setup" and report.failed):
            setattr(report, RECORD, item.record)

    @pytest.hookimpl(tryfirst=True)  # before pytest's JUnit XML writer opens the test case
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        xml = self.config.stash.get(xml_key, None)
        if xml is not None and report.nodeid in self.junit_names:
            classname, name = self.junit_names[report.nodeid]
            reporter = xml.node_reporter(report)
            reporter.add_attribute("classname", classname)
            reporter.add_attribute("name", name)
        record = getattr(report, RECORD, None)
        if record is not None:
            self.records.append(record)
            self.executed += Status(record["status"]).executed
        elif report.nodeid.startswith(FUZZ_ITEM) and report.when == "call" and not report.skipped:
            self.executed += 1

    def _report(self) -> Report:
        counts = Counter(Status(record["status"]) for record in self.records)
        deselected = self.suite.deselected + self.deselected
        not_run = max(self.selected - len(self.records), 0)  # an xdist controller collects nothing
        totals = Totals(counts, len(self.suite.file_errors), deselected, not_run)
        run = SuiteRun(self.records, totals, self.started, time.perf_counter() - self.clock)
        return report_of(self.suite, run)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.config.option.collectonly or hasattr(self.config, "workerinput"):
            return  # an xdist worker: its controller sees every report and decides
        report = self._report()
        path = self.config.option.streamroute_report
        if path is not None:
            try:
                report.write(Path(path))
            except ReportError as exc:
                self.report_problem = str(exc)
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        self.claims = claim_lines(report)
        # What fails the run beyond a failed vector, which pytest has counted (conformance/gate.py);
        # the fuzz item is a test that ran, so a session of it alone is not empty.
        problems = [p for p in report.problems if not p.endswith("failed or errored")]
        if self.executed and not report.vectors:
            problems = [p for p in problems if not p.startswith("no vector ran")]
        if (
            self.config.option.streamroute_allow_empty
            and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED
        ):
            session.exitstatus = pytest.ExitCode.OK
        if problems and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        self.problems = problems

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for line in self.claims:
            terminalreporter.write_line(f"streamroute: {line}")
        if self.report_problem is not None:
            terminalreporter.write_line(f"streamroute: {self.report_problem}", red=True)
        for problem in self.problems:
            if problem.startswith("no vector ran"):
                why = (
                    "each is not applicable, skipped or deselected"
                    if self.suite.vectors
                    else "none is selected"
                )
                problem = f"no vector ran: {why}; --allow-empty accepts that"
            terminalreporter.write_line(f"streamroute: {problem.replace(' --', ' --streamroute-')}", red=True)


_SESSION = pytest.StashKey[_Session]()


def _active(config: pytest.Config) -> bool:
    """Asked for: `--streamroute`, or any shared option given."""
    option = config.option
    values = (getattr(option, _dest(shared)) for shared in SHARED_OPTIONS.values())
    given = (value is not None and value is not False and value != [] for value in values)  # 0 is given
    return bool(option.streamroute) or any(given)


def _dest(option: Option) -> str:
    return "streamroute_" + (option.pytest or option.name).replace("-", "_")


def pytest_configure(config: pytest.Config) -> None:
    if not _active(config):
        return
    option = config.option
    named = option.streamroute_adapter is not None or option.streamroute_adapter_command is not None
    if not (named or option.streamroute):
        raise pytest.UsageError(
            "streamroute: no implementation to test: give --streamroute-adapter MODULE:CALLABLE or "
            "--streamroute-adapter-command CMD (--streamroute alone tests the reference)"
        )
    problem = None if option.streamroute_report is None else unwritable(option.streamroute_report)
    if problem is not None:
        raise pytest.UsageError(f"streamroute: --streamroute-report: {problem}")
    try:
        suite = prepare_suite(lambda name: getattr(option, _dest(SHARED_OPTIONS[name])))
    except UsageError as exc:
        raise pytest.UsageError(f"streamroute: {exc}") from exc
    for warning in suite.warnings:
        config.issue_config_time_warning(pytest.PytestConfigWarning(f"streamroute: {warning}"), stacklevel=2)
    session = _Session(config, suite)
    config.stash[_SESSION] = session
    config.pluginmanager.register(session, "streamroute-session")


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION, None)
    if session is not None:
        session.close()
