from __future__ import annotations

import copy
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from heartbeat import heartbeat
from hypothesis import HealthCheck, settings
from streamroute.conformance.schemas import BUNDLED_VECTORS
from streamroute.conformance.vectors import Vector, load_vectors

# Hypothesis profiles, chosen by STREAMROUTE_HYPOTHESIS_PROFILE: `ci` (the default) keeps the
# whole suite fast and repeatable; `thorough` (tox -e fuzz) runs 10,000 generated streams per
# property and the robustness fuzzing of tests/test_robustness.py on 1,000,000 events.
settings.register_profile(
    "ci", max_examples=60, deadline=None, database=None, derandomize=True, print_blob=True
)
settings.register_profile(
    "thorough",
    max_examples=10_000,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("STREAMROUTE_HYPOTHESIS_PROFILE", "ci"))
THOROUGH = os.environ.get("STREAMROUTE_HYPOTHESIS_PROFILE") == "thorough"

# A small valid vector; tests derive broken or failing ones from it.
HELLO: dict[str, Any] = {
    "format": 1,
    "id": "core/hello",
    "title": "A one-delta answer",
    "spec": ["CORE-TEXT-1", "CORE-LIFE-5"],
    "level": "MUST",
    "profile": "core",
    # The shortest stream the tests need: no content part, stub response objects.
    "producer_faults": ["PROD-EVT-2", "PROD-PART-2"],
    "tools": [],
    "events": [
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {"id": "resp_1", "status": "in_progress"},
        },
        {
            "type": "response.output_item.added",
            "sequence_number": 1,
            "output_index": 0,
            "item": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            },
        },
        {
            "type": "response.output_text.delta",
            "sequence_number": 2,
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "Hello",
        },
        {
            "type": "response.completed",
            "sequence_number": 3,
            "response": {"id": "resp_1", "status": "completed"},
        },
    ],
    "expect": {
        "outcomes": [
            {"at": 0, "kind": "lifecycle", "event": "created", "response_id": "resp_1"},
            {
                "at": 2,
                "kind": "text.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": "Hello",
            },
            {"at": 3, "kind": "lifecycle", "event": "completed", "response_id": "resp_1"},
            {"at": "close", "kind": "end", "status": "completed"},
        ]
    },
}


def options_met(vector: Vector, options: dict[str, Any]) -> bool:
    """The vector's `options` hold for these option values: each the value it states, or one of
    the values it lists."""
    return all(
        options.get(name) in (stated if isinstance(stated, list) else [stated])
        for name, stated in vector.options.items()
    )


def calls_made(run: Callable[[], object]) -> int:
    """The work of `run`, counted: every call of a Python function or a built-in it makes, as
    `sys.setprofile` sees them. Tests check growth with it: the count is the same on a busy machine
    as on an idle one, which a time is not (`streamroute bench` reports the times)."""
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls


def hello(**changes: Any) -> dict[str, Any]:
    """HELLO with top-level keys replaced."""
    return {**copy.deepcopy(HELLO), **changes}


def write_vector(root: Path, data: Any, name: str | None = None) -> Path:
    """Write `data` as a vector file under `root`, at its id's path unless `name` is given."""
    relative = name or f"{data['id']}.yaml"
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        yaml.safe_dump(data, sort_keys=False) if not isinstance(data, str) else data,
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="session")
def bundled() -> list[Vector]:
    vectors, errors = load_vectors([BUNDLED_VECTORS])
    assert not errors, "\n".join(map(str, errors))
    return vectors


def pytest_configure(config: pytest.Config) -> None:
    beating = heartbeat(config)  # tests/heartbeat.py: progress off a terminal, whole lines under tox
    if beating is not None:
        config.pluginmanager.register(beating, "streamroute-tests-heartbeat")
