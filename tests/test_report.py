"""Reports of a run over the adapter protocol, what they render to, and both front ends' options."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.conformance.cli import main
from streamroute.conformance.limits import MAX_DETAILS_CHARS, MAX_MESSAGE_CHARS, TOO_DEEP
from streamroute.conformance.render import summary_markdown
from streamroute.conformance.report import Report
from streamroute.conformance.results import MAX_CELL_CHARS, MAX_DIFFERING_CHARS, Status
from streamroute.conformance.schemas import REPORT, first_error, schema

pytest_plugins = ["pytester"]

ADAPTERS = Path(__file__).parent / "protocol_adapters"
REFERENCE = shlex.join([sys.executable, "-m", "streamroute.reference.serve"])


def _mine(root: Path) -> Path:
    """One passing vector, one failing, one the adapter skips, one it reports an error on."""
    write_vector(root, hello())
    wrong = hello(id="core/wrong")
    wrong["expect"]["outcomes"][1]["delta"] = "Help"
    write_vector(root, wrong)
    write_vector(root, hello(id="core/hello-skip"))
    write_vector(root, hello(id="core/hello-error"))
    return root


def _declines() -> str:
    return shlex.join([sys.executable, str(ADAPTERS / "declines.py")])


def _report(tmp_path: Path, *extra: str) -> tuple[int, Path]:
    report = tmp_path / "report.jsonl"
    args = ["run", "--vectors", str(_mine(tmp_path / "mine")), "--adapter-command", _declines()]
    code = main([*args, "--report", str(report), *extra])
    return code, report


def test_the_report_has_a_header_a_line_per_vector_and_a_footer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _report(tmp_path)
    assert code == 1
    out = capsys.readouterr().out
    assert "SKIPPED core/hello-skip: not supported yet (https://example.org/1)" in out
    assert out.splitlines()[-1] == "streamroute: 1 passed, 1 failed, 1 errored, 1 skipped"
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert [first_error(REPORT, line) for line in lines] == [None] * 6
    header, *vectors, footer = lines
    assert header["suite"]["name"] == "streamroute"
    assert header["protocol"] == 1
    assert header["implementation"]["name"] == "streamroute-reference"
    assert header["implementation"]["options"]["tool_call_point"] == "output_item_done"
    assert {line["id"]: line["status"] for line in vectors} == {
        "core/hello": "passed",
        "core/hello-error": "errored",
        "core/hello-skip": "skipped",
        "core/wrong": "failed",
    }
    assert footer["totals"]["passed"] == 1
    assert footer["totals"]["skipped"] == 1


def test_the_report_statuses_are_the_harness_statuses() -> None:
    assert set(schema(REPORT + "#/$defs/status")["enum"]) == {status.value for status in Status}


def test_summary_renders_text_and_markdown_and_exits_1_on_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report = _report(tmp_path)
    capsys.readouterr()
    assert main(["summary", str(report)]) == 1
    text = capsys.readouterr().out
    assert "implementation: streamroute-reference" in text
    assert "FAILED core/wrong (charges CORE-TEXT-1)\n  outcome 1: field 'delta'" in text
    assert "SKIPPED core/hello-skip\n  not supported yet" in text
    assert text.splitlines()[-1] == "result: FAILED"
    assert main(["summary", str(report), "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert markdown.startswith("## streamroute: streamroute-reference")
    assert (
        "| `core/hello-error` | errored | CORE-EVT-2 | the adapter reports: KeyError: 'delta' |" in markdown
    )


def test_a_baseline_fed_back_as_expected_failures_makes_the_run_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report = _report(tmp_path)
    baseline = tmp_path / "baseline.txt"
    assert main(["baseline", str(report), "-o", str(baseline)]) == 0
    written = baseline.read_text(encoding="utf-8")
    assert [line.split()[0] for line in written.splitlines() if line[:1] != "#"] == [
        "core/hello-error",
        "core/wrong",
    ]
    assert "core/wrong  failed CORE-TEXT-1: text.delta delta differs  # A one-delta answer\n" in written
    assert str(tmp_path) not in written
    capsys.readouterr()
    code, again = _report(tmp_path, "--expected-failures", str(baseline))
    assert code == 0
    assert main(["summary", str(again)]) == 0
    assert "2 expected failure" in capsys.readouterr().out
    # Regenerated from the passing run, the baseline is the same file, byte for byte.
    assert main(["baseline", str(again)]) == 0
    assert capsys.readouterr().out == written


def test_a_stale_entry_is_left_out_of_the_next_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = tmp_path / "listed.txt"
    listed.write_text("core/hello\ncore/wrong\n", encoding="utf-8")
    code, report = _report(tmp_path, "--expected-failures", str(listed))
    assert code == 1
    capsys.readouterr()
    assert main(["baseline", str(report)]) == 0
    entries = [line.split()[0] for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    assert entries == ["core/hello-error", "core/wrong"]


def test_the_badge_is_a_shields_endpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, report = _report(tmp_path)
    badge = tmp_path / "badge.json"
    assert main(["badge", str(report), "-o", str(badge)]) == 0
    assert json.loads(badge.read_text(encoding="utf-8")) == {
        "schemaVersion": 1,
        "label": "streamroute (other vectors)",
        "message": "robustness 25%",
        "color": "red",
    }
    passing = tmp_path / "passing"
    write_vector(passing / "mine", hello())
    main(["run", "--vectors", str(passing / "mine"), "--report", str(passing / "report.jsonl")])
    capsys.readouterr()
    assert main(["badge", str(passing / "report.jsonl")]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["message"], shown["color"]) == ("robustness 100%", "brightgreen")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("", "a report starts with its one header line"),
        ("not json\n", "report.jsonl:1: not JSON"),
        ('{"line": "vector"}\n', "report.jsonl:1: not a report line: 'id' is a required property"),
    ],
)
def test_an_unreadable_report_is_a_usage_error(
    tmp_path: Path, content: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.jsonl"
    report.write_text(content, encoding="utf-8")
    assert main(["summary", str(report)]) == 2
    assert problem in capsys.readouterr().err


def test_a_report_without_its_footer_is_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report = _report(tmp_path)
    lines = report.read_text(encoding="utf-8").splitlines()
    report.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["badge", str(report)]) == 2
    assert "incomplete report" in capsys.readouterr().err


def test_options_that_cannot_go_together_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--adapter", "a:b", "--adapter-command", "c"]) == 2
    assert main(["run", "--adapter-command", REFERENCE, "--timeout", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "streamroute: give a Python adapter or an adapter command, not both",
        "streamroute: the timeout must be a positive number of seconds, not 0",
    ]


def test_the_plugin_reaches_an_adapter_command(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    result = pytester.runpytest(
        "--streamroute-vectors",
        str(root),
        "--streamroute-adapter-command",
        _declines(),
        "--streamroute-timeout",
        "2",
        "-rs",
    )
    result.assert_outcomes(passed=1, failed=1, errors=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "ERRORED core/hello-error (*/core/hello-error.yaml)",
            "*the adapter reports: KeyError: 'delta'",
            "*skipped by the implementation: not supported yet (https://example.org/1)",
        ]
    )


def test_the_plugin_refuses_a_wrong_protocol_version(pytester: pytest.Pytester) -> None:
    command = shlex.join([sys.executable, str(ADAPTERS / "wrong_version.py")])
    root = pytester.path / "mine"
    write_vector(root, hello())
    result = pytester.runpytest("--streamroute-vectors", str(root), "--streamroute-adapter-command", command)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*speaks protocol version 2; this harness speaks version 1*"])


@pytest.mark.slow
def test_what_an_adapter_says_reaches_the_report_clipped_to_the_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.jsonl"
    command = shlex.join([sys.executable, str(ADAPTERS / "says_too_much.py")])
    root = _mine(tmp_path / "mine")
    assert main(["run", "--vectors", str(root), "--adapter-command", command, "--report", str(report)]) == 1
    capsys.readouterr()
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert [first_error(REPORT, line) for line in lines] == [None] * len(lines)
    vectors = {line["id"]: line for line in lines if line["line"] == "vector"}
    assert {vector_id: line["status"] for vector_id, line in vectors.items()} == {
        "core/hello": "failed",
        "core/hello-error": "errored",
        "core/hello-skip": "skipped",
        "core/wrong": "failed",
    }
    for line in vectors.values():
        assert len(line["message"]) <= MAX_MESSAGE_CHARS
        assert len(line["details"]) <= MAX_DETAILS_CHARS
    assert vectors["core/hello-error"]["message"].endswith("characters in all)")
    assert vectors["core/hello-error"]["details"].endswith(f"… (cut: {8 << 20} characters in all)")
    invalid = vectors["core/hello"]["message"]
    assert invalid.startswith("outcome 3 (from event close) is not a valid outcome: 'xxx")
    assert invalid.endswith("characters in all) (at /status)")


def test_a_report_line_nested_past_the_depth_limit_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.jsonl"
    report.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    assert main(["summary", str(report)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"report.jsonl:1: not a report line: it {TOO_DEEP}" in err


def test_the_report_schema_states_the_limits_of_the_harness() -> None:
    vector = schema(REPORT + "#/$defs/vector")["properties"]
    assert (vector["message"]["maxLength"], vector["details"]["maxLength"]) == (
        MAX_MESSAGE_CHARS,
        MAX_DETAILS_CHARS,
    )
    assert schema(REPORT + "#/$defs/file_error")["properties"]["message"]["maxLength"] == MAX_MESSAGE_CHARS
    cell = schema(REPORT + "#/$defs/cell")["properties"]
    assert cell["event"]["maxLength"] == MAX_CELL_CHARS
    assert cell["fields"]["maxLength"] == MAX_CELL_CHARS + MAX_DIFFERING_CHARS
    ops = schema(REPORT + "#/$defs/comparison")["properties"]["rows"]["items"]["properties"]["op"]["enum"]
    assert set(ops) == {"equal", "differs", "missing", "unexpected", "omitted"}


def test_a_markdown_summary_shows_a_message_as_written_not_as_html(tmp_path: Path) -> None:
    """A job summary renders Markdown and HTML: each character of their syntax in a message is
    escaped (CommonMark's backslash escapes), so its `<` opens no tag and its `|` ends no cell."""
    _, path = _report(tmp_path)
    report = Report.load(path)
    wrong = next(line for line in report.vectors if line["id"] == "core/wrong")
    wrong["message"] = "expected <b>bold</b> & <!-- | -->"
    row = next(row for row in summary_markdown(report).splitlines() if "core/wrong" in row)
    assert (
        row == "| `core/wrong` | failed | CORE-TEXT-1 | expected \\<b\\>bold\\</b\\> \\& \\<!-- \\| --\\> |"
    )


@pytest.mark.parametrize("allowed", [False, True])
def test_summary_and_badge_judge_a_run_with_no_vector_as_run_did(
    tmp_path: Path, pytester: pytest.Pytester, allowed: bool
) -> None:
    """Issue 26: `--allow-empty` passed the run, and `summary` of its report failed it. The report
    records it, so every reader of the report agrees with the run's exit, through both front ends."""
    (tmp_path / "empty").mkdir()
    option = ["--allow-empty"] if allowed else []
    report = tmp_path / "report.jsonl"
    code = main(["run", "--vectors", str(tmp_path / "empty"), "--report", str(report), *option])
    assert code == (0 if allowed else 1)
    assert Report.load(report).header["gate"]["allow_empty"] is allowed
    assert main(["summary", str(report)]) == code
    assert main(["badge", str(report), "-o", str(tmp_path / "badge.json")]) == 0
    assert json.loads((tmp_path / "badge.json").read_text(encoding="utf-8"))["color"] == (
        "yellow" if allowed else "red"  # a pass that judged nothing is no green
    )
    plugin_report = pytester.path / "plugin.jsonl"
    options = ["--streamroute", "--streamroute-vectors", str(tmp_path / "empty")]
    options += ["--streamroute-report", str(plugin_report)]
    result = pytester.runpytest(*options, *(["--streamroute-allow-empty"] if allowed else []))
    assert result.ret == (pytest.ExitCode.OK if allowed else pytest.ExitCode.TESTS_FAILED)
    assert main(["summary", str(plugin_report)]) == code
