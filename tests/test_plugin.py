"""The pytest plugin, run the way a user runs it."""

from __future__ import annotations

import contextlib
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.conformance.cli import SHARED_OPTIONS, main
from streamroute.conformance.report import Report

pytest_plugins = ["pytester"]


def _mine(root: Path) -> Path:
    write_vector(root, hello())
    wrong = hello(id="core/wrong")
    wrong["expect"]["outcomes"][1]["delta"] = "Help"
    write_vector(root, wrong)
    return root


def test_one_item_per_vector_named_by_its_id(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    result = pytester.runpytest("--streamroute", "--streamroute-vectors", str(root), "--collect-only", "-q")
    assert result.outlines[:2] == ["core/hello", "core/wrong"]


def test_a_failure_shows_what_streamroute_run_prints(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    result = pytester.runpytest("--streamroute", "--streamroute-vectors", str(root), "-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED core/wrong (*/mine/core/wrong.yaml)",
            "  A one-delta answer",
            "  checks CORE-TEXT-1, CORE-LIFE-5 (MUST)",
            '  outcome 1: field \'delta\': expected "Help", got "Hello"',
            "*#*expected*#*actual",
            '*!=*1*@2 text.delta*delta="Help"*1*@2 text.delta*delta="Hello"',
            "*events: @0 response.created; @2 response.output_text.delta; @3 response.completed",
            # the short summary carries the reason, not the title
            'FAILED core/wrong - outcome 1: field \'delta\': expected "Help", got "Hello"',
        ]
    )


def test_selection_by_keyword_works_on_vector_ids(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    result = pytester.runpytest("--streamroute", "--streamroute-vectors", str(root), "-k", "hello")
    result.assert_outcomes(passed=1, deselected=1)


def test_expected_failures_xfail_and_stale_entries_fail(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    listed = pytester.path / "expected.txt"
    listed.write_text("core/wrong\n", encoding="utf-8")
    pytester.runpytest(
        "--streamroute", "--streamroute-vectors", str(root), "--streamroute-expected-failures", str(listed)
    ).assert_outcomes(passed=1, xfailed=1)
    listed.write_text("core/wrong\ncore/hello\ncore/never\n", encoding="utf-8")
    result = pytester.runpytest(
        "--streamroute", "--streamroute-vectors", str(root), "--streamroute-expected-failures", str(listed)
    )
    result.assert_outcomes(failed=1, xfailed=1, warnings=2)
    result.stdout.fnmatch_lines(
        ["*stale expected failure*", "*core/never matches no vector*", "*3 entries name a vector id alone*"]
    )


def test_a_bad_vector_file_is_a_failing_item(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    write_vector(root, "format: [\n", name="core/bad.yaml")
    result = pytester.runpytest("--streamroute", "--streamroute-vectors", str(root))
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*bad vector file:*core/bad.yaml: not valid YAML*"])


def test_vectors_of_an_undeclared_option_are_skipped_with_the_reason(
    pytester: pytest.Pytester,
) -> None:
    root = _mine(pytester.path / "mine")
    write_vector(root, hello(id="core/later", options={"tool_call_point": "arguments_done"}))
    result = pytester.runpytest("--streamroute", "--streamroute-vectors", str(root), "-rs")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*not applicable: needs option tool_call_point=arguments_done*"])


@pytest.mark.parametrize("selection", [["--streamroute-profile", "sse"], ["-k", "nothing-matches"]])
def test_a_session_in_which_no_vector_ran_fails_unless_allowed(
    pytester: pytest.Pytester, selection: list[str]
) -> None:
    pytester.makepyfile("def test_own(): pass")
    root = pytester.path / "mine"
    write_vector(root, hello())
    write_vector(root, hello(id="core/later", options={"tool_call_point": "arguments_done"}))
    options = ["--streamroute", "--streamroute-vectors", str(root), *selection]
    result = pytester.runpytest(*options)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["streamroute: no vector ran: *; --streamroute-allow-empty accepts that"])
    assert pytester.runpytest(*options, "--streamroute-allow-empty").ret == pytest.ExitCode.OK


def test_an_empty_vectors_directory_fails_unless_allowed(pytester: pytest.Pytester) -> None:
    (pytester.path / "empty").mkdir()
    options = ["--streamroute", "--streamroute-vectors", str(pytester.path / "empty")]
    result = pytester.runpytest(*options)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["streamroute: no vector ran: none is selected; *"])
    assert pytester.runpytest(*options, "--streamroute-allow-empty").ret == pytest.ExitCode.OK


def test_the_header_names_the_implementation_under_test(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    result = pytester.runpytest("--streamroute", "--streamroute-vectors", str(root), "--collect-only")
    result.stdout.fnmatch_lines(
        [
            "streamroute: implementation under test: streamroute.reference.adapter:router (python), *",
            "streamroute: that is the reference router, as --streamroute alone asks",
        ]
    )
    adapter = ["--streamroute-adapter", "broken_routers:TextMix"]
    result = pytester.runpytest("--streamroute-vectors", str(root), *adapter, "--collect-only")
    result.stdout.fnmatch_lines(
        ["streamroute: implementation under test: broken_routers:TextMix (python), version unknown: *"]
    )
    result.stdout.no_fnmatch_line("*reference router*")


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        (["--streamroute-profile", "core"], "no implementation to test: give --streamroute-adapter *"),
        (["--streamroute-adapter", ""], "the adapter is empty; give it as module:callable"),
        (["--streamroute-adapter-command", ""], "the adapter command is empty"),
        (
            ["--streamroute", "--streamroute-timeout", "0"],
            "the timeout must be a positive number of seconds*",
        ),
    ],
)
def test_options_without_an_implementation_are_refused(
    pytester: pytest.Pytester, options: list[str], problem: str
) -> None:
    pytester.makepyfile("def test_own(): pass")
    result = pytester.runpytest(*options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*streamroute: {problem}"])


# A value for each shared option that is not an implementation's: each asks for the plugin.
GIVEN = {
    "timeout": ["5"],
    "vectors": ["mine"],
    "profile": ["core"],
    "expected-failures": ["listed.txt"],
    "report": ["report.jsonl"],
    "allow-empty": [],
    "allow-partial": ["core"],
    "max-skipped": ["0"],
    "no-cache": [],
    "examples": ["3"],
    "seed": ["1"],
    "save-to": ["saved"],
}


def test_the_shared_options_are_the_plugins_and_the_commands() -> None:
    assert set(GIVEN) == set(SHARED_OPTIONS) - {"adapter", "adapter-command"}
    taken = {name for command in ("run", "fuzz") for name in _long_options(command)}
    assert {f"--{option.name}" for option in SHARED_OPTIONS.values()} <= taken


def _long_options(command: str) -> set[str]:
    with pytest.raises(SystemExit), contextlib.redirect_stdout(io.StringIO()) as shown:
        main([command, "--help"])
    return set(re.findall(r"--[a-z-]+", shown.getvalue()))


@pytest.mark.parametrize("name", sorted(GIVEN))
def test_any_shared_option_asks_for_the_plugin(pytester: pytest.Pytester, name: str) -> None:
    pytester.makepyfile("def test_own(): pass")
    option = SHARED_OPTIONS[name]
    result = pytester.runpytest(f"--streamroute-{option.pytest or option.name}", *GIVEN[name])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*streamroute: no implementation to test: give --streamroute-adapter *"])


def test_the_adapter_option_reaches_another_implementation(pytester: pytest.Pytester) -> None:
    root = pytester.path / "mine"
    write_vector(root, hello(events=[*hello()["events"], {"type": "acme:ping"}]))
    result = pytester.runpytest(
        "--streamroute-vectors", str(root), "--streamroute-adapter", "broken_routers:RaiseOnUnknown"
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "ERRORED core/hello (*/core/hello.yaml)",
            "*feed(event 4) raised ValueError: unknown event type acme:ping",
        ]
    )


def test_a_bad_adapter_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--streamroute-adapter", "nowhere_at_all:router")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*streamroute: cannot load adapter 'nowhere_at_all:router'*"])


def test_without_its_options_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_own(): pass")
    pytester.runpytest().assert_outcomes(passed=1)


@pytest.mark.slow
def test_the_bundled_suite_runs_against_the_reference(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--streamroute", "-q")
    assert result.ret == pytest.ExitCode.OK


def _lines(path: Path) -> list[dict[str, object]]:
    """A report's lines, less what differs from run to run."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        for varying in ("seconds", "started"):
            line.pop(varying, None)
    return lines


def test_the_plugin_writes_the_report_streamroute_run_writes(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    written = pytester.path / "pytest.jsonl"
    result = pytester.runpytest(
        "--streamroute", "--streamroute-vectors", str(root), "--streamroute-report", str(written)
    )
    result.assert_outcomes(passed=1, failed=1)
    Report.load(written)  # valid against the report schema
    run = pytester.path / "run.jsonl"
    assert main(["run", "--vectors", str(root), "--report", str(run)]) == 1
    assert _lines(written) == _lines(run)


def test_the_plugin_refuses_a_report_it_cannot_write(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--streamroute", "--streamroute-report", str(pytester.path))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*streamroute: --streamroute-report: cannot write {pytester.path}: it is a directory"]
    )


def test_junit_xml_from_pytest_has_classnames_and_errors(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    write_vector(root, hello(id="core/text/raises", events=[*hello()["events"], {"type": "acme:ping"}]))
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest(
        "--streamroute-vectors",
        str(root),
        "--streamroute-adapter",
        "broken_routers:RaiseOnUnknown",
        f"--junitxml={junit}",
        "-rA",
    )
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["ERROR core/text/raises - feed(event 4) raised ValueError: unknown event type*"]
    )
    cases = {case.attrib["name"]: case for case in ET.parse(junit).iter("testcase")}
    assert {name: case.attrib["classname"] for name, case in cases.items()} == {
        "hello": "core",
        "wrong": "core",
        "raises": "core.text",
    }
    (error,) = cases["raises"]
    assert error.tag == "error"
    assert "feed(event 4) raised ValueError: unknown event type acme:ping" in error.attrib["message"]
    assert error.text is not None
    assert re.match(r"ERRORED core/text/raises \(/.*/core/text/raises\.yaml\)\n", error.text)
    (failure,) = cases["wrong"]
    assert (failure.tag, failure.attrib["message"]) == (
        "failure",
        'outcome 1: field \'delta\': expected "Help", got "Hello"',
    )


def test_a_partial_claim_fails_the_session_unless_its_profile_is_allowed(pytester: pytest.Pytester) -> None:
    """spec/README.md, Conformance classes: a claim the API cannot show is no pass, in pytest too."""
    pytester.makepyfile(
        shows_little="""
class Adapter:
    observes = {"end": []}

    def __init__(self, tools):
        pass

    def feed(self, event):
        return []

    def close(self):
        return [{"kind": "end"}]
"""
    )
    options = [
        "--streamroute-adapter",
        "shows_little:Adapter",
        "--streamroute-profile",
        "core",
        "-p",
        "no:cacheprovider",
    ]
    result = pytester.runpytest(*options)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["streamroute: core (routing) is partial: *; --streamroute-allow-partial core accepts that"]
    )
    assert pytester.runpytest(*options, "--streamroute-allow-partial", "core").ret == pytest.ExitCode.OK
