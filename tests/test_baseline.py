"""Expected failures pinned to how they fail (conformance/expected_failures.py, signature.py): a
baseline made while a vector fails one way fails the run when the vector fails another way, and
`streamroute baseline` writes the same bytes for the same failures."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from streamroute.conformance.cli import main
from streamroute.reference import Outcome, Router

INVALID_JSON = "core/calls/invalid-json"  # its call must be refused: tool.error invalid_json


class _Refusing:
    """The reference, with what it makes of a refused call changed by `changed`."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router()

    def changed(self, outcome: Outcome) -> Outcome:
        return outcome

    def feed(self, event: Any) -> list[Outcome]:
        return [self.changed(dict(outcome)) for outcome in self.router.feed(event)]

    def close(self) -> list[Outcome]:
        return [self.changed(dict(outcome)) for outcome in self.router.close()]


class RefusesWithAnotherCode(_Refusing):
    """Refuses a call whose arguments are not JSON, but says so with a code of its own."""

    def changed(self, outcome: Outcome) -> Outcome:
        return {**outcome, "code": "bad_arguments"} if outcome.get("code") == "invalid_json" else outcome


class RunsWhatIsNotJson(_Refusing):
    """Calls a tool with empty arguments where its arguments are not JSON."""

    def changed(self, outcome: Outcome) -> Outcome:
        if outcome.get("code") != "invalid_json":
            return outcome
        call = {"kind": "tool.call", "item_id": outcome["item_id"], "call_id": outcome["call_id"]}
        return {**call, "name": "read_file", "tool_type": "function", "arguments": {}}


def _run(tmp_path: Path, adapter: str, name: str, *extra: str) -> tuple[int, Path]:
    report = tmp_path / f"{name}.jsonl"
    code = main(
        [
            "run",
            "--adapter",
            f"test_baseline:{adapter}",
            "--id",
            INVALID_JSON,
            "--report",
            str(report),
            *extra,
        ]
    )
    return code, report


def _baseline(report: Path, path: Path) -> str:
    assert main(["baseline", str(report), "-o", str(path)]) == 0
    return path.read_text(encoding="utf-8")


def _charged(report: Path) -> str:
    """What the report's one vector charges, as a signature states it (spec/attribution.md decides)."""
    line = json.loads(report.read_text(encoding="utf-8").splitlines()[1])
    return ",".join(line["charged"])


def test_a_listed_vector_that_fails_another_way_fails_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _run(tmp_path, "RefusesWithAnotherCode", "first")
    assert code == 1
    listed = tmp_path / "expected-failures.txt"
    written = _baseline(report, listed)
    old = f"failed {_charged(report)}: tool.error(invalid_json) became tool.error(bad_arguments)"
    assert [line for line in written.splitlines() if not line.startswith("#")] == [
        f"{INVALID_JSON}  {old}"
        "  # Complete arguments that are not JSON (an extra closing brace) give tool.error invalid_json"
    ]
    assert _run(tmp_path, "RefusesWithAnotherCode", "again", "--expected-failures", str(listed))[0] == 0
    capsys.readouterr()
    # The router now runs the call it refused: the same vector, failing another way.
    code, changed = _run(tmp_path, "RunsWhatIsNotJson", "changed", "--expected-failures", str(listed))
    assert code == 1
    new = f"failed {_charged(changed)}: tool.error(invalid_json) became tool.call"
    shown = capsys.readouterr().out
    assert f"fails otherwise than its expected failure: listed `{old}`, now `{new}`" in shown
    # Written anew from that run, the baseline pins the new failure.
    assert f"{INVALID_JSON}  {new}  #" in _baseline(changed, listed)


def test_regenerating_a_baseline_gives_the_same_bytes(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    _, report = _run(first, "RunsWhatIsNotJson", "report")
    written = _baseline(report, first / "expected-failures.txt")
    # A second run, elsewhere and later, with the baseline of the first, and a baseline of it.
    code, again = _run(
        second, "RunsWhatIsNotJson", "report", "--expected-failures", str(first / "expected-failures.txt")
    )
    assert code == 0
    assert _baseline(again, second / "expected-failures.txt") == written
    header = json.loads(report.read_text(encoding="utf-8").splitlines()[0])
    assert str(tmp_path) not in written
    assert header["started"] not in written
    assert header["started"][:10] not in written  # not even the day


def test_an_id_only_entry_accepts_any_failure_and_says_how_to_pin_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = tmp_path / "old.txt"
    listed.write_text(f"{INVALID_JSON}  # refused with another code\n", encoding="utf-8")
    assert _run(tmp_path, "RunsWhatIsNotJson", "report", "--expected-failures", str(listed))[0] == 0
    err = capsys.readouterr().err
    assert (
        f"warning: {listed}: 1 entry names a vector id alone, which accepts any failure of the vector; "
        f"to pin each to how it fails, run with --report REPORT and write the file anew with "
        f"`streamroute baseline REPORT -o {listed}`"
    ) in err
