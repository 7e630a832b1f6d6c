"""The `streamroute` command, as a user runs it on a directory of their own."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.conformance.cli import main


def _mine(tmp_path: Path) -> Path:
    """A vector directory written by someone else: one passing, one failing vector."""
    root = tmp_path / "mine"
    write_vector(root, hello())
    wrong = hello(id="core/wrong")
    wrong["expect"]["outcomes"][1]["delta"] = "Help"
    write_vector(root, wrong)
    return root


def test_run_on_a_foreign_directory_reports_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--vectors", str(_mine(tmp_path))]) == 1
    out = capsys.readouterr().out
    assert "FAILED core/wrong" in out
    assert "outcome 1: field 'delta'" in out
    assert out.splitlines()[-1] == "streamroute: 1 passed, 1 failed, 0 errored"


def test_run_passes_with_the_failure_expected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = tmp_path / "expected.txt"
    listed.write_text("core/wrong\ncore/unheard-of\n", encoding="utf-8")
    code = main(["run", "--vectors", str(_mine(tmp_path)), "--expected-failures", str(listed)])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.splitlines()[-1] == "streamroute: 1 passed, 0 failed, 0 errored, 1 expected failure"
    assert "core/unheard-of matches no vector" in captured.err


def test_a_stale_expected_failure_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed = tmp_path / "expected.txt"
    listed.write_text("core/hello\ncore/wrong\n", encoding="utf-8")
    assert main(["run", "--vectors", str(_mine(tmp_path)), "--expected-failures", str(listed)]) == 1
    assert "stale expected failure" in capsys.readouterr().out


def test_a_bad_vector_file_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _mine(tmp_path)
    write_vector(root, "format: [\n", name="core/bad.yaml")
    listed = tmp_path / "expected.txt"
    listed.write_text("core/wrong\n", encoding="utf-8")
    assert main(["run", "--vectors", str(root), "--expected-failures", str(listed)]) == 1
    out = capsys.readouterr().out
    assert f"BAD VECTOR FILE {root / 'core/bad.yaml'}: not valid YAML" in out
    assert "1 bad vector files" in out


def test_no_selected_vector_is_a_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["run", "--vectors", str(tmp_path / "empty")]) == 1
    assert "no vectors selected" in capsys.readouterr().err


def test_usage_errors_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--adapter", "nowhere_at_all:router"]) == 2
    assert main(["run", "--profile", "telepathy"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("streamroute: cannot load adapter 'nowhere_at_all:router': ModuleNotFoundError")
    assert err[1].startswith("streamroute: unknown profile telepathy")


def test_run_against_the_bundled_vectors_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run"]) == 0
    assert " 0 failed, 0 errored" in capsys.readouterr().out.splitlines()[-1]


def test_run_lists_errored_vectors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "mine"
    write_vector(root, hello(events=[*hello()["events"], {"type": "acme:ping"}]))
    assert main(["run", "--vectors", str(root), "--adapter", "broken_routers:RaiseOnUnknown"]) == 1
    out = capsys.readouterr().out
    assert "ERRORED core/hello" in out
    assert out.splitlines()[-1] == "streamroute: 0 passed, 0 failed, 1 errored"


def test_lint_on_a_foreign_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--vectors", str(_mine(tmp_path))]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "streamroute lint: 2 vectors, 0 problems"
    assert main(["lint", "--vectors", str(_mine(tmp_path)), "--coverage"]) == 1


def test_the_readme_adapter_example_passes_the_bundled_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    example = readme.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "my_adapter.py").write_text(example, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["run", "--adapter", "my_adapter:Adapter"]) == 0
    assert " 0 failed, 0 errored" in capsys.readouterr().out.splitlines()[-1]
