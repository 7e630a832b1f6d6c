"""The pytest plugin, run the way a user runs it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import hello, write_vector

pytest_plugins = ["pytester"]


def _mine(root: Path) -> Path:
    write_vector(root, hello())
    wrong = hello(id="core/wrong")
    wrong["expect"]["outcomes"][1]["delta"] = "Help"
    write_vector(root, wrong)
    return root


def test_one_item_per_vector_named_by_its_id(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    result = pytester.runpytest("--streamroute-vectors", str(root), "--collect-only", "-q")
    assert result.outlines[:2] == ["core/hello", "core/wrong"]


def test_a_failure_shows_expected_and_actual_side_by_side(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    result = pytester.runpytest("--streamroute-vectors", str(root))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            '*outcome 1: field \'delta\': expected "Help", got "Hello"',
            "*expected*| actual",
            '!=*@2 text.delta*delta="Help"*| @2 text.delta*delta="Hello"*',
        ]
    )


def test_selection_by_keyword_works_on_vector_ids(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    result = pytester.runpytest("--streamroute-vectors", str(root), "-k", "hello")
    result.assert_outcomes(passed=1, deselected=1)


def test_expected_failures_xfail_and_stale_entries_fail(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    listed = pytester.path / "expected.txt"
    listed.write_text("core/wrong\n", encoding="utf-8")
    pytester.runpytest(
        "--streamroute-vectors", str(root), "--streamroute-expected-failures", str(listed)
    ).assert_outcomes(passed=1, xfailed=1)
    listed.write_text("core/wrong\ncore/hello\ncore/never\n", encoding="utf-8")
    result = pytester.runpytest(
        "--streamroute-vectors", str(root), "--streamroute-expected-failures", str(listed)
    )
    result.assert_outcomes(failed=1, xfailed=1, warnings=1)
    result.stdout.fnmatch_lines(["*stale expected failure*", "*core/never matches no vector*"])


def test_a_bad_vector_file_is_a_failing_item(pytester: pytest.Pytester) -> None:
    root = _mine(pytester.path / "mine")
    write_vector(root, "format: [\n", name="core/bad.yaml")
    result = pytester.runpytest("--streamroute-vectors", str(root))
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*bad vector file:*core/bad.yaml: not valid YAML*"])


def test_vectors_of_an_undeclared_option_are_skipped_with_the_reason(
    pytester: pytest.Pytester,
) -> None:
    root = pytester.path / "mine"
    write_vector(root, hello(options={"tool_call_point": "arguments_done"}))
    result = pytester.runpytest("--streamroute-vectors", str(root), "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not applicable: needs option tool_call_point=arguments_done*"])


def test_the_adapter_option_reaches_another_implementation(pytester: pytest.Pytester) -> None:
    root = pytester.path / "mine"
    write_vector(root, hello(events=[*hello()["events"], {"type": "acme:ping"}]))
    result = pytester.runpytest(
        "--streamroute-vectors", str(root), "--streamroute-adapter", "broken_routers:RaiseOnUnknown"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["errored: *", "*feed(event 4) raised ValueError: unknown event type acme:ping"]
    )


def test_a_bad_adapter_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--streamroute-adapter", "nowhere_at_all:router")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*streamroute: cannot load adapter 'nowhere_at_all:router'*"])


def test_without_its_options_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_own(): pass")
    pytester.runpytest().assert_outcomes(passed=1)


def test_the_bundled_suite_runs_against_the_reference(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--streamroute", "-q")
    assert result.ret == pytest.ExitCode.OK
