"""Failures sorted for triage (conformance/triage.py): grouped by class, profile and requirement,
counts first, worst first; and no field that differs is ever cut from the aligned comparison."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import hello, write_vector
from streamroute.conformance.cli import main
from streamroute.conformance.triage import groups


def _line(
    vector_id: str, status: str, charged: list[str], profile: str = "core", cls: str = "routing"
) -> Any:
    return {"id": vector_id, "status": status, "charged": charged, "profile": profile, "class": cls}


def test_groups_come_routing_first_then_most_failures_and_requirements_must_first() -> None:
    lines = [
        _line("core/a", "failed", ["CORE-CALL-8"]),  # a MAY requirement, charged twice
        _line("core/b", "failed", ["CORE-CALL-8", "CORE-TEXT-1"]),
        _line("core/c", "errored", ["CORE-EVT-2"]),
        _line("core/d", "passed", []),
        _line("core/e", "expected failure", ["CORE-TEXT-1"]),  # known: not for triage
        _line("sse/a", "failed", ["SSE-LINE-1"], "sse"),
        _line("core/r1", "failed", ["CORE-EVT-6"], cls="robustness"),
        _line("core/r2", "failed", ["CORE-EVT-6"], cls="robustness"),
        _line("core/r3", "failed", ["CORE-EVT-6"], cls="robustness"),
        _line("core/r4", "failed", ["CORE-EVT-6"], cls="robustness"),
    ]
    found = groups(lines)
    assert [group.name for group in found] == ["routing core", "routing sse", "robustness core"]
    core = found[0]
    assert [(c.requirement, c.level, c.vectors) for c in core.charged] == [
        ("CORE-EVT-2", "MUST", 1),
        ("CORE-TEXT-1", "MUST", 1),
        ("CORE-CALL-8", "MAY", 2),
    ]
    assert [line["id"] for line in core.vectors] == ["core/c", "core/b", "core/a"]


def _ninety(root: Path) -> Path:
    """90 failing vectors: 60 expect other text, 30 a long text that differs only at its end."""
    for number in range(60):
        wrong = hello(id=f"core/wrong-{number:02}")
        wrong["expect"]["outcomes"][1]["delta"] = "Help"
        write_vector(root, wrong)
    for number in range(30):
        long = hello(id=f"core/long-{number:02}")
        text = "word " * 80 + f"ends {number}"
        long["events"][2]["delta"] = text + "."
        long["expect"]["outcomes"][1]["delta"] = text + "!"
        write_vector(root, long)
    write_vector(root, hello())
    return root


@pytest.mark.parametrize("quiet", [[], ["-q"]])
def test_a_run_of_90_failures_prints_a_grouped_summary_and_cuts_no_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quiet: list[str]
) -> None:
    report = tmp_path / "report.jsonl"
    assert main(["run", "--vectors", str(_ninety(tmp_path / "mine")), "--report", str(report), *quiet]) == 1
    out = capsys.readouterr().out
    grouped = [
        "failures by class, profile and requirement (worst first):",
        "  robustness core: 90 vectors failed or errored",
        "    MUST   CORE-TEXT-1 (90)",
    ]
    assert "\n".join(grouped) in out
    if not quiet:  # each comparison shows both sides of each field that differs, whole
        lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
        rows = [row for line in lines[1:-1] for c in line.get("comparisons", []) for row in c["rows"]]
        differing = [(row, name) for row in rows for name in row.get("fields", [])]
        assert len(differing) == 90
        for row, name in differing:
            for cell in (row["expected"], row["actual"]):
                shown = re.search(rf'{name}="(?:[^"\\]|\\.)*"', cell["fields"])
                assert shown is not None
                assert shown.group() in out

    assert main(["summary", str(report)]) == 1
    summary = capsys.readouterr().out
    assert summary.index("\n".join(grouped)) < summary.index("\nFAILED ")  # counts first, then the list
    listed = re.findall(r"^FAILED (\S+)", summary, re.MULTILINE)
    assert len(listed) == 90
    assert main(["summary", str(report), "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert "| robustness | core | 90 | CORE-TEXT-1 (MUST) 90 |" in markdown
    assert markdown.index("| robustness | core | 90 |") < markdown.index("| `core/")
