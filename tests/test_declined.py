"""An in-process adapter declines a vector (`streamroute.conformance.Declined`), as an adapter command
answers `skipped`; and a function-only router declares `call_types: [function]`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import hello, write_vector
from streamroute.conformance import Declined
from streamroute.conformance.cli import main
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.results import Status, run_vector
from streamroute.conformance.vectors import load_vectors
from streamroute.conformance.worker import WorkerImplementation
from streamroute.reference import Outcome, Router

ADAPTER = """
from streamroute.conformance import Declined
from streamroute.reference.adapter import router as _reference


class Adapter:
    options = {OPTIONS}

    def __init__(self, tools):
        if any(tool["type"] == "custom" for tool in tools):
            raise Declined("custom tools are not routed yet", "https://example.org/7")
        self.router = _reference(tools)

    def feed(self, event):
        return self.router.feed(event)

    def close(self):
        return self.router.close()
"""


def _adapter(directory: Path, monkeypatch: pytest.MonkeyPatch, options: object = None) -> str:
    (directory / "declining.py").write_text(
        ADAPTER.replace("{OPTIONS}", repr(options or {})), encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(directory))
    return "declining:Adapter"


def _lines(report: Path) -> dict[str, dict[str, object]]:
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    return {str(line["id"]): line for line in lines if line["line"] == "vector"}


def test_an_adapter_that_declines_custom_tool_vectors_passes_with_them_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    adapter, report = _adapter(tmp_path, monkeypatch), tmp_path / "report.jsonl"
    # What only the declined vectors observe is not observed: the claim is partial, accepted here.
    run = ["run", "--adapter", adapter, "--profile", "core", "--report", str(report), "-q"]
    assert main([*run, "--allow-partial", "core"]) == 0
    lines = _lines(report)
    skipped = {vector_id: line for vector_id, line in lines.items() if line["status"] == "skipped"}
    assert "core/calls/custom-input-not-parsed" in skipped
    assert skipped["core/calls/custom-input-not-parsed"]["message"] == (
        "custom tools are not routed yet (https://example.org/7)"
    )
    assert (
        "SKIPPED core/calls/custom-input-not-parsed: custom tools are not routed yet (https://example.org/7)"
        in (capsys.readouterr().out)
    )
    assert main(run) == 1  # without accepting the partial claim, the run fails, saying why
    assert "core (routing) is partial" in capsys.readouterr().err


class DeclinesText:
    """Declines a vector at its first text delta, after routing the events before it."""

    def __init__(self, tools: object) -> None:
        self.router = Router()

    def feed(self, event: Any) -> list[Outcome]:
        if isinstance(event, dict) and event.get("type") == "response.output_text.delta":
            raise Declined("text is shown by the client's own renderer, not routed")
        return self.router.feed(event)

    def close(self) -> list[Outcome]:
        return self.router.close()


class DeclinesWithNoReason(DeclinesText):
    def __init__(self, tools: object) -> None:
        raise Declined("  ")


@pytest.mark.parametrize("in_a_worker", [False, True])
def test_declined_mid_stream_skips_the_vector_and_an_empty_reason_errors_it(
    tmp_path: Path, in_a_worker: bool
) -> None:
    write_vector(tmp_path, hello())
    [vector], _ = load_vectors([tmp_path])
    load = WorkerImplementation.load if in_a_worker else PythonImplementation.load
    declines = load("test_declined:DeclinesText")
    try:
        result = run_vector(declines, vector)
    finally:
        declines.close()
    assert (result.status, result.message) == (
        Status.SKIPPED,
        "text is shown by the client's own renderer, not routed",
    )
    silent = load("test_declined:DeclinesWithNoReason")
    try:
        result = run_vector(silent, vector)
    finally:
        silent.close()
    assert result.status is Status.ERRORED
    assert result.message == "building the router raised Declined with no reason; Declined(reason) needs one"


def test_a_function_only_router_declares_call_types_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter, report = _adapter(tmp_path, monkeypatch, {"call_types": ["function"]}), tmp_path / "report.jsonl"
    assert main(["run", "--adapter", adapter, "--profile", "core", "--report", str(report)]) == 0
    line = _lines(report)["core/calls/custom-input-not-parsed"]
    assert line["status"] == "not applicable"
    assert line["message"] == "needs call type 'custom'; declining:Adapter declares function"
