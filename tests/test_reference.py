"""The reference passes every bundled vector, and says what the spec says."""

from __future__ import annotations

import re

import pytest
from streamroute.conformance.lint import lint
from streamroute.conformance.results import Status
from streamroute.conformance.schemas import BUNDLED_VECTORS, SPEC_DIR
from streamroute.conformance.suite import Suite
from streamroute.conformance.vectors import Vector
from streamroute.reference import EVENT_TYPES


@pytest.mark.parametrize(
    "adapter",
    ["streamroute.reference.adapter:router", "streamroute.reference.adapter:arguments_done_router"],
)
def test_reference_passes_every_applicable_vector(adapter: str) -> None:
    suite = Suite.prepare(adapter)
    results = [suite.run(vector) for vector in suite.vectors]
    failures = [
        f"{r.vector_id}: {r.message}\n{r.details}"
        for r in results
        if r.status is not Status.PASSED and r.status is not Status.NOT_APPLICABLE
    ]
    assert not failures, "\n".join(failures)
    options = suite.implementation.options
    not_applicable = {r.vector_id for r in results if r.status is Status.NOT_APPLICABLE}
    assert not_applicable == {
        v.id for v in suite.vectors if any(options[name] != value for name, value in v.options.items())
    }


def test_the_core_profile_has_at_least_sixty_vectors(bundled: list[Vector]) -> None:
    assert sum(v.profile == "core" for v in bundled) >= 60


def test_the_custom_tools_profile_has_at_least_thirty_vectors(bundled: list[Vector]) -> None:
    assert sum(v.profile == "custom-tools" for v in bundled) >= 30


def test_both_tool_call_points_have_their_own_vectors(bundled: list[Vector]) -> None:
    points = {v.options.get("tool_call_point") for v in bundled}
    assert {"output_item_done", "arguments_done"} <= points


def test_bundled_vectors_lint_clean_with_full_coverage() -> None:
    count, problems = lint([BUNDLED_VECTORS], check_coverage=True)
    assert count > 0
    assert problems == []


def _routing_table_types() -> set[str]:
    """The event types named in the first column of spec/core.md's routing table."""
    text = (SPEC_DIR / "core.md").read_text(encoding="utf-8")
    table = text.split("## 9. Routing table", 1)[1].split("\n## ", 1)[0]
    types: set[str] = set()
    for row in table.splitlines():
        if not row.startswith("| `"):
            continue
        names = re.findall(r"`([^`]+)`", row.split("|")[1])
        family = ""
        for name in names:
            if name.startswith("."):
                types.add(family + name)
            else:
                family = name.rsplit(".", 1)[0]
                types.add(name)
    return types


def test_the_routing_table_and_the_reference_name_the_same_event_types() -> None:
    assert _routing_table_types() == set(EVENT_TYPES)
