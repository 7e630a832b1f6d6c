"""`streamroute bench` works and prints its table; no wall-clock assertions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamroute.conformance import bench
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


def test_the_patch_preview_workload_previews_and_calls() -> None:
    workload = bench.patch_preview(0.05)
    router = Router(consumers_for(workload.tools))
    outcomes = [outcome for event in workload.events for outcome in router.feed(event)]
    kinds = [outcome["kind"] for outcome in outcomes]
    assert kinds.count("diff.update") > 2  # the stream time advances: the throttle lets several through
    assert kinds[-3:] == ["diff.finish", "tool.call", "lifecycle"]


def test_the_command_prints_the_table_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "bench.json"
    assert (
        main(["bench", "--scale", "0.02", "--repeats", "1", "--memory-mib", "0.25", "--json", str(output)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "| workload | b/a |" in printed
    assert "Peak memory" in printed
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
        assert row["eps"]["full"] > 0
        assert row["growth_10x"] > 0
    if result["machine"]["openai"] is None:
        assert result["all"]["full_over_sdk"] is None
        assert "(c) unavailable" in printed


def test_peak_memory_is_measured() -> None:
    memory = bench.peak_memory(256 * 1024)
    assert memory["peak_bytes"] > 0
    assert memory["stream_bytes"] > memory["arguments_bytes"]
