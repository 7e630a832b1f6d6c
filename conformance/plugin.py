"""The pytest plugin: one test item per vector, its node id the vector id.

Registered through the `pytest11` entry point; it adds items only when asked
to (`--streamroute`, or any other `--streamroute-*` option), so installing
streamroute changes no other test run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .results import Result, Status
from .suite import DEFAULT_ADAPTER, Suite, UsageError
from .vectors import Vector, VectorFileError


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("streamroute", "streamroute conformance vectors")
    group.addoption("--streamroute", action="store_true", help="run the streamroute vectors")
    group.addoption(
        "--streamroute-adapter",
        metavar="MODULE:CALLABLE",
        help=f"the implementation to test (default: {DEFAULT_ADAPTER})",
    )
    group.addoption(
        "--streamroute-vectors",
        metavar="DIR",
        action="append",
        default=[],
        help="a directory of vector files, instead of the bundled ones (repeatable)",
    )
    group.addoption(
        "--streamroute-profile", action="append", default=[], help="run only vectors of this profile (repeatable)"
    )
    group.addoption("--streamroute-expected-failures", metavar="FILE", help="vector ids known to fail, one a line")


class VectorFailed(Exception):
    def __init__(self, result: Result) -> None:
        super().__init__(result.message)
        self.result = result


class VectorItem(pytest.Item):
    def __init__(self, *, vector: Vector, suite: Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.vector = vector
        self.suite = suite

    def runtest(self) -> None:
        result = self.suite.run(self.vector)
        if result.status is Status.NOT_APPLICABLE:
            pytest.skip(f"not applicable: {result.message}")
        if result.status is Status.EXPECTED_FAILURE:
            pytest.xfail(f"expected failure: {result.message}")
        if result.status is not Status.PASSED:
            raise VectorFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, VectorFailed):
            result = excinfo.value.result
            return f"{result.status.value}: {self.vector.title}\n{self.vector.path}\n{result.message}\n{result.details}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.vector.path, None, f"vector {self.vector.id}"


class BadVectorFile(pytest.Item):
    def __init__(self, *, error: VectorFileError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise VectorFailed(Result(str(self.error.path), Status.FAILED, str(self.error)))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return f"bad vector file: {self.error}"

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.error.path, None, f"bad vector file {self.error.path}"


def _active(config: pytest.Config) -> bool:
    option = config.option
    return bool(
        option.streamroute
        or option.streamroute_adapter
        or option.streamroute_vectors
        or option.streamroute_profile
        or option.streamroute_expected_failures
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    # tryfirst: vector items exist before -k, -m and --deselect filter the list.
    if not _active(config):
        return
    option = config.option
    expected_failures = option.streamroute_expected_failures
    try:
        suite = Suite.prepare(
            option.streamroute_adapter,
            [Path(d) for d in option.streamroute_vectors],
            option.streamroute_profile,
            Path(expected_failures) if expected_failures else None,
        )
    except UsageError as exc:
        raise pytest.UsageError(f"streamroute: {exc}") from exc
    for warning in suite.warnings:
        config.issue_config_time_warning(pytest.PytestConfigWarning(f"streamroute: {warning}"), stacklevel=2)
    items.extend(VectorItem.from_parent(session, name=v.id, nodeid=v.id, vector=v, suite=suite) for v in suite.vectors)
    items.extend(BadVectorFile.from_parent(session, name=str(e.path), nodeid=str(e.path), error=e) for e in suite.file_errors)
