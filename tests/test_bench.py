"""`streamroute bench` works and prints its tables; no wall-clock or CPU-time assertions, here or in
any other test: times belong to the benchmark, and tests count work instead."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.bench import benchmark as bench
from streamroute.conformance.cli import main
from streamroute.reference.consumers import consumers_for
from streamroute.reference.router import Router


@pytest.mark.parametrize("make", bench.WORKLOADS)
def test_each_workload_routes_cleanly(make: bench.Workload) -> None:
    workload = make(0.05)  # type: ignore[operator]
    router = Router(consumers_for(workload.tools))
    outcomes = [outcome for event in workload.events for outcome in router.feed(event)]
    outcomes += router.close()
    kinds = {outcome["kind"] for outcome in outcomes}
    assert "error" not in kinds
    assert "tool.error" not in kinds
    assert outcomes[-1] == {"kind": "end", "status": "completed"}
    # the full path, from SSE bytes, produces as many outcomes as the router alone
    assert bench.full_path(workload)() == len(outcomes)
    assert bench.json_path(workload)() == len(outcomes)
    # both floors decode every payload
    assert bench.floor(workload)() == bench.scanner_floor(workload)() == len(workload.payloads)


def test_the_patch_preview_workload_previews_and_calls() -> None:
    workload = bench.patch_preview(0.05)
    router = Router(consumers_for(workload.tools))
    outcomes = [outcome for event in workload.events for outcome in router.feed(event)]
    kinds = [outcome["kind"] for outcome in outcomes]
    assert kinds.count("diff.update") > 2  # the stream time advances: the throttle lets several through
    assert kinds[-3:] == ["diff.finish", "tool.call", "lifecycle"]


def test_a_ratio_is_paired_within_each_repeat_not_of_the_medians() -> None:
    ratio = bench.paired([1.0, 2.0, 9.0], [1.0, 4.0, 3.0])
    assert ratio == {"median": 1.0, "min": 0.5, "max": 3.0, "per_repeat": [1.0, 0.5, 3.0]}
    assert ratio["median"] != 2.0 / 3.0  # the ratio of the medians
    assert bench.paired([1.0], [0.0])["median"] == math.inf


def test_the_figures_pair_each_ratio_and_the_all_row_sums_each_repeat() -> None:
    seconds = {
        "floor": [1.0, 3.0],
        "scanner": [0.5, 1.0],
        "full": [2.0, 2.0],
        "json": [1.0, 6.0],
        "router": [0.5, 0.5],
        "full_10x": [20.0, 40.0],
        "json_10x": [10.0, 30.0],
    }
    figures = bench._figures(100, seconds)
    assert figures["seconds"]["floor"] == 2.0
    assert figures["eps"]["floor"] == 50.0
    assert figures["full_over_floor"]["per_repeat"] == [0.5, 1.5]
    assert figures["full_over_scanner"]["per_repeat"] == [0.25, 0.5]
    assert figures["growth_10x"]["per_repeat"] == [10.0, 20.0]
    assert figures["json_over_floor"]["per_repeat"] == [1.0, 0.5]
    assert figures["full_over_sdk"] is None


def _small_vectors(root: Path) -> Path:
    write_vector(root, hello())
    write_vector(root, hello(id="core/hello-again"))
    return root


@pytest.mark.slow
def test_the_command_prints_the_tables_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    output = tmp_path / "bench.json"
    output.write_text("the last run's figures, kept until this run has its own\n", encoding="utf-8")
    vectors = _small_vectors(tmp_path / "vectors")
    arguments = ["bench", "--scale", "0.02", "--repeats", "2", "--memory-mib", "0.25"]
    assert main([*arguments, "--vectors", str(vectors), "--json", str(output)]) == 0
    printed = capsys.readouterr().out
    assert "| workload | b/a | b/a' |" in printed
    assert "Peak memory" in printed
    assert "`streamroute run` over 2 vector files" in printed
    result = json.loads(output.read_text(encoding="utf-8"))
    assert [row["workload"] for row in result["workloads"]] == [
        "text answer",
        "4 calls, large arguments",
        "apply_patch",
        "apply_patch, streamed preview",
    ]
    assert [row["previews"] for row in result["workloads"]] == [False, False, False, True]
    assert result["all"]["events"] == sum(row["events"] for row in result["workloads"][:3])
    for row in [*result["workloads"], result["all"]]:
        assert row["eps"]["floor"] > 0
        assert row["eps"]["scanner"] > 0
        for name in ("full_over_floor", "full_over_scanner", "growth_10x"):
            ratio = row[name]
            assert len(ratio["per_repeat"]) == 2
            assert ratio["min"] <= ratio["median"] <= ratio["max"]
    assert list(result["growth"]) == [*bench.growth.SHAPES, "brackets inside a string"]
    for ratio in result["growth"].values():
        assert len(ratio["per_repeat"]) == 2
        assert ratio["min"] <= ratio["median"] <= ratio["max"]
    assert "| many events, one byte a chunk |" in printed
    suite = result["suite"]
    assert suite["files"] == 2
    assert len(suite["run_seconds"]) == len(suite["yaml_seconds"]) == len(suite["first_run_seconds"]) == 2
    assert suite["run_over_yaml"]["per_repeat"] == [
        run / parse for run, parse in zip(suite["run_seconds"], suite["yaml_seconds"], strict=True)
    ]
    assert suite["within_target"] is (suite["run_over_yaml"]["median"] <= 3)
    fuzzed = result["fuzz"]
    assert fuzzed["cases"] == 10  # 500 at scale 1
    assert fuzzed["sources"] == ["core", "custom-tools", "execution", "sse", "catalogue", "session"]
    assert len(fuzzed["draw_seconds"]) == len(fuzzed["judge_seconds"]) == len(fuzzed["route_seconds"]) == 2
    assert fuzzed["fuzz_over_route"]["per_repeat"] == [
        (draw + judge) / route
        for draw, judge, route in zip(
            fuzzed["draw_seconds"], fuzzed["judge_seconds"], fuzzed["route_seconds"], strict=True
        )
    ]
    assert fuzzed["rate"]["per_repeat"] == [
        fuzzed["cases"] / (draw + judge)
        for draw, judge in zip(fuzzed["draw_seconds"], fuzzed["judge_seconds"], strict=True)
    ]
    assert "generated streams a second" in printed
    assert ("Within 3x: yes" in printed) is suite["within_target"]
    plugin = result["plugin"]
    assert len(plugin["import_seconds"]) == 2
    assert plugin["modules"] >= 1  # the entry point itself, so the import measured is its own
    assert ("Within 20 ms: yes" in printed) is plugin["within_target"]
    if result["machine"]["openai"] is None:
        assert result["all"]["full_over_sdk"] is None
        assert "(c) unavailable" in printed


@pytest.mark.slow
def test_json_to_stdout_moves_the_tables_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    vectors = _small_vectors(tmp_path / "vectors")
    arguments = ["--scale", "0.01", "--repeats", "1", "--memory-mib", "0.1", "--vectors", str(vectors)]
    assert main(["bench", *arguments, "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["repeats"] == 1
    assert "| workload |" in captured.err


@pytest.mark.parametrize("where", ["absent/bench.json", "."])
def test_an_output_that_cannot_be_written_fails_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    monkeypatch.setattr(bench, "run", lambda *arguments: pytest.fail("the benchmark ran"))
    assert main(["bench", "--json", str(tmp_path / where)]) == 2
    assert capsys.readouterr().err.startswith(f"streamroute: cannot write {tmp_path / where}")


@pytest.mark.slow
def test_peak_memory_is_measured() -> None:
    memory = bench.peak_memory(256 * 1024)
    assert memory["peak_bytes"] > 0
    assert memory["stream_bytes"] > memory["arguments_bytes"]


CLOCKS = re.compile(r"\b(?:perf_counter|process_time|monotonic|timeit|time\.time)\b")


def test_no_test_reads_a_clock() -> None:
    """A time measured in a test depends on what else the machine does: the test is flaky."""
    tests = Path(__file__).resolve().parent
    reading = [
        f"{path.name}:{number}"
        for path in sorted(tests.glob("test_*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if CLOCKS.search(line) and path.name != "test_bench.py"
    ]
    assert reading == [], f"these lines read a clock; count work instead: {', '.join(reading)}"
