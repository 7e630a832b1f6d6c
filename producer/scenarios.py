"""Probe scenarios (spec/scenario.schema.json, spec/producer.md section 8): loaded, checked, expanded.

A scenario file is YAML, read as vector files are (conformance/vectors.py: one document, no
duplicate keys, JSON values only), valid against its schema, its id its path under its root.
`{"$repeat": TEXT, "times": N}` stands for a long string and is expanded on load, so that a
megabyte of arguments is a line of the file. `lint_scenarios` adds what a schema cannot say: the
requirements `expect.keeps` names exist, and a relaying scenario's own upstream stream keeps every
producer rule unless its upstream is meant to be faulty.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.schemas import SPEC_DIR, first_error
from streamroute.conformance.vectors import read_yaml

SCENARIO = "urn:streamroute:schema:scenario"
# In the repository and in an installed wheel alike, scenarios/ sits beside this package's folder.
BUNDLED_SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
SUFFIX = ".yaml"
# Steps that make the upstream's stream faulty on purpose: a relaying scenario with one of these
# need not keep the producer rules upstream.
UPSTREAM_FAULTS = ("disconnect", "data")


class ScenarioError(Exception):
    """A scenario file that cannot be used; one line naming the file and what is wrong."""


def expand(value: Any) -> Any:
    """`value` with every `{"$repeat": TEXT, "times": N}` replaced by TEXT N times over."""
    if isinstance(value, dict):
        if set(value) == {"$repeat", "times"} and isinstance(value["$repeat"], str):
            return value["$repeat"] * int(value["times"])
        return {key: expand(member) for key, member in value.items()}
    if isinstance(value, list):
        return [expand(member) for member in value]
    return value


@dataclass(frozen=True)
class Scenario:
    path: Path
    data: dict[str, Any]  # expanded

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def title(self) -> str:
        return str(self.data["title"])

    @property
    def api(self) -> str:
        """The upstream endpoint it scripts: chat-completions or responses."""
        return str(self.data["upstream"]["api"])

    @property
    def live(self) -> bool:
        return bool(self.data.get("live", False))

    @property
    def request(self) -> dict[str, Any]:
        return dict(self.data["request"])

    @property
    def upstream(self) -> dict[str, Any]:
        return dict(self.data["upstream"])

    @property
    def expect(self) -> dict[str, Any]:
        return dict(self.data["expect"])

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The request's tools as a router's tool list names them."""
        return [
            {"name": tool["name"], "type": tool["type"]} for tool in self.data["request"].get("tools", [])
        ]

    @property
    def statuses(self) -> tuple[str, ...]:
        status = self.data["expect"]["status"]
        return tuple(status) if isinstance(status, list) else (status,)


def load_scenario(path: Path, root: Path) -> Scenario:
    try:
        data = read_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{path}: cannot read it: {exc}") from None
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{path}: not YAML: {' '.join(str(exc).split())}") from None
    except ValueError as exc:  # a duplicate key, a value JSON cannot hold
        raise ScenarioError(f"{path}: {exc}") from None
    problem = first_error(SCENARIO, data)
    if problem is not None:
        raise ScenarioError(f"{path}: does not match the scenario schema: {problem}")
    expected_id = path.relative_to(root).with_suffix("").as_posix()
    if data["id"] != expected_id:
        raise ScenarioError(
            f"{path}: id {data['id']!r} must be its path under the scenarios root, {expected_id!r}"
        )
    return Scenario(path, expand(data))


def load_scenarios(roots: Sequence[Path]) -> tuple[list[Scenario], list[str]]:
    """Every scenario under `roots`, in id order, and one line for each file that cannot be used."""
    scenarios: dict[str, Scenario] = {}
    problems: list[str] = []
    for root in roots:
        if not root.is_dir():
            problems.append(f"{root}: is not a directory of scenarios")
            continue
        for path in sorted(root.rglob(f"*{SUFFIX}")):
            try:
                scenario = load_scenario(path, root)
            except ScenarioError as exc:
                problems.append(str(exc))
                continue
            if scenario.id in scenarios:
                problems.append(
                    f"{path}: duplicate id {scenario.id!r}, also in {scenarios[scenario.id].path}"
                )
            else:
                scenarios[scenario.id] = scenario
    return [scenarios[key] for key in sorted(scenarios)], problems


def upstream_events(scenario: Scenario) -> list[dict[str, Any]]:
    """The Responses events a relaying scenario's upstream sends, as the fake upstream numbers and
    completes them (upstream.py)."""
    from .upstream import responses_event

    model = "streamroute-probe"
    steps = scenario.upstream.get("steps", [])
    events = [step["event"] for step in steps if "event" in step for _ in range(step.get("times", 1))]
    return [responses_event(event, number, model) for number, event in enumerate(events)]


def lint_scenarios(roots: Sequence[Path]) -> tuple[int, list[str]]:
    """The number of scenarios checked and every problem found."""
    from .checker import check_events

    scenarios, problems = load_scenarios(roots)
    requirements, _ = read_requirements(SPEC_DIR)
    for scenario in scenarios:
        where = f"{scenario.path}: {scenario.id}"
        problems += [
            f"{where}: expect.keeps names {rule}, which spec/producer.md does not define"
            for rule in scenario.expect["keeps"]
            if rule not in requirements
        ]
        steps = scenario.upstream.get("steps", [])
        faulty = any(kind in step for step in steps for kind in UPSTREAM_FAULTS)
        if scenario.api == "responses" and "steps" in scenario.upstream and not faulty:
            problems += [
                f"{where}: its upstream stream breaks {v.requirement} at {v.where}: {v.message}"
                for v in check_events(upstream_events(scenario))
            ]
        if scenario.api == "chat-completions" and any("event" in step for step in steps):
            problems.append(f"{where}: a chat-completions upstream sends chunks, not Responses events")
        if scenario.api == "responses" and any(kind in step for step in steps for kind in ("delta", "usage")):
            problems.append(f"{where}: a Responses upstream sends events, not chat-completions chunks")
    return len(scenarios), problems
