"""One vector at a time: `streamroute run --id` and `-k` (conformance/selection.py), `streamroute show`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamroute.conformance.cli import main
from streamroute.conformance.schemas import BUNDLED_VECTORS
from streamroute.conformance.selection import Selection
from streamroute.conformance.vectors import Vector

EXPRESSIONS = [
    "args",
    "ARGS and not done",
    "calls or (text and not delta)",
    "not core",
    "core/args/only-",
    "(sse or session) and not cut",
    "",
]


def _ran(tmp_path: Path, *selection: str) -> list[str]:
    report = tmp_path / "report.jsonl"
    main(["run", *selection, "--report", str(report), "--allow-empty"])
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return [line["id"] for line in lines if line["line"] == "vector"]


def test_run_id_runs_exactly_that_vector(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _ran(tmp_path, "--id", "core/args/only-in-arguments-done") == ["core/args/only-in-arguments-done"]
    assert "1 passed, 0 failed, 0 errored, " in capsys.readouterr().out
    both = ["--id", "core/text/plain-answer", "--id", "core/args/only-in-arguments-done"]
    assert _ran(tmp_path, *both) == ["core/args/only-in-arguments-done", "core/text/plain-answer"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--id", "core/args/only-in-argument-done"],
            "streamroute: --id core/args/only-in-argument-done: no vector has this id; did you mean "
            "core/args/only-in-arguments-done",
        ),
        (["-k", "args and ("], "streamroute: -k 'args and (' is not a keyword expression: at column 11: "),
        (["-k", "args(x=1)"], "streamroute: -k: a keyword expression takes no call arguments"),
    ],
)
def test_a_selection_that_cannot_be_meant_is_a_usage_error(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", *arguments]) == 2
    assert capsys.readouterr().err.startswith(message)


def test_k_selects_as_pytest_selects_the_plugins_items(
    pytester: pytest.Pytester, bundled: list[Vector]
) -> None:
    """The same expressions, given to pytest's own -k over the plugin's items (node id: the vector
    id), choose the same vectors."""
    ids = {vector.id for vector in bundled}
    for expression in EXPRESSIONS:
        chosen = [vector.id for vector in Selection(keyword=expression).select(bundled)]
        collected = pytester.runpytest("--streamroute", "--collect-only", "-q", "-k", expression)
        assert chosen == [line for line in collected.outlines if line in ids], expression
        assert chosen or expression == "not core"


def test_show_prints_the_absolute_path_and_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "core/args/only-in-arguments-done"]) == 0
    path = BUNDLED_VECTORS.absolute() / "core" / "args" / "only-in-arguments-done.yaml"
    assert capsys.readouterr().out == f"# {path}\n" + path.read_text(encoding="utf-8")
    assert main(["show", "core/args/only-in-argument-done"]) == 2
    assert "did you mean core/args/only-in-arguments-done" in capsys.readouterr().err
