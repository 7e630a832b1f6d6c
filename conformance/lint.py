"""Checks of vector files beyond their schema, against the spec they cite."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from streamroute.producer.checker import Violation, check_capture, check_events
from streamroute.producer.session_checker import check_session

from .attribution import AttributionTableError, read_table
from .requirements import LEVEL_RANK, Requirement, read_requirements
from .schemas import SPEC_DIR
from .vector_cache import VectorCache
from .vectors import Vector, load_vectors

# Producer requirements (spec/producer.md) are checked by captures, not vectors: tests/test_capture.py
# requires a broken capture reporting each. Vectors declare the ones their stream breaks.
PRODUCER = "PROD-"
# Control steps after which the client reads no more of the stream it was reading.
_STOPS_READING = frozenset({"restart", "cancel"})


def _is_control(entry: Any) -> bool:
    return isinstance(entry, dict) and "control" in entry and "type" not in entry


def _streams(events: list[Any]) -> Iterator[tuple[list[int], bool]]:
    """The producer's streams in an execution vector: the indexes of each one's events, and whether
    the client stopped reading it (a restart or cancel after its last event). Each
    `response.created` after the first begins the next stream: a later turn, or a replay."""
    current: list[int] = []
    stopped = False
    for index, entry in enumerate(events):
        if _is_control(entry):
            stopped = stopped or entry["control"] in _STOPS_READING
            continue
        if current and isinstance(entry, dict) and entry.get("type") == "response.created":
            yield current, stopped
            current = []
        current.append(index)
        stopped = False
    if current:
        yield current, stopped


def producer_violations(vector: Vector) -> list[Violation]:
    """Every PROD-* violation in the vector's stream, `at` its index among the vector's events
    (for an sse vector, among the SSE events its bytes dispatch)."""
    if vector.stream is not None:
        return check_capture(vector.stream, "sse").violations
    events = vector.events
    if vector.profile == "session":  # many responses on several lanes: one stream per turn
        return check_session(events)
    one = [(list(range(len(events))), False)]
    streams = list(_streams(events)) if vector.profile == "execution" else one
    return [
        Violation(None if v.at is None else indexes[v.at], v.requirement, v.message)
        for indexes, stopped in streams
        for v in check_events([events[i] for i in indexes], cut=stopped)
    ]


def producer_faults(vector: Vector) -> list[str]:
    """The producer requirements the vector's stream breaks: what its `producer_faults` must say."""
    return sorted({v.requirement for v in producer_violations(vector)})


def _producer_problems(vector: Vector, where: str, requirements: dict[str, Requirement]) -> list[str]:
    """The vector's stream breaks exactly the producer requirements it declares."""
    declared = list(vector.data.get("producer_faults", []))
    problems = [
        f"{where}: producer_faults names {r}, which spec/producer.md does not define"
        for r in declared
        if not (r.startswith(PRODUCER) and r in requirements)
    ]
    first: dict[str, Violation] = {}
    for violation in producer_violations(vector):
        first.setdefault(violation.requirement, violation)
    problems += [
        f"{where}: {v.where}: {r} is broken but not in producer_faults: {v.message}"
        for r, v in first.items()
        if r not in declared
    ]
    problems += [
        f"{where}: producer_faults names {r}, but the stream does not break it"
        for r in declared
        if r in requirements and r not in first
    ]
    return problems


def _vector_problems(vector: Vector, requirements: dict[str, Requirement]) -> list[str]:
    problems = []
    where = f"{vector.path}: {vector.id}"
    problems += _producer_problems(vector, where, requirements)
    cited = [requirements[r] for r in vector.spec if r in requirements]
    problems += [
        f"{where}: cites {r}, which the spec does not define" for r in vector.spec if r not in requirements
    ]
    if cited:
        strongest = max((r.level for r in cited), key=LEVEL_RANK.__getitem__)
        if vector.level != strongest:
            problems.append(
                f"{where}: level {vector.level}, but the strongest cited requirement is {strongest}"
            )
    last_at = -1
    # An sse vector's `at` counts dispatched SSE events (spec/sse.md section 7).
    events = len(vector.events) if vector.dispatched is None else vector.dispatched
    for index, outcome in enumerate(vector.expected):
        at = outcome["at"]
        position = events if at == "close" else at
        if position < last_at:
            problems.append(f"{where}: expected outcome {index} (event {at}) comes before an earlier event's")
        last_at = max(last_at, position)
        if vector.compare is not None and outcome["kind"] not in vector.compare:
            problems.append(
                f"{where}: expected outcome {index} is a {outcome['kind']}, which `compare` leaves out"
            )
    return problems


def _attribution_problems(spec_dir: Path, requirements: dict[str, Requirement]) -> list[str]:
    """The attribution table (spec/attribution.md) reads, and charges only requirements of the spec."""
    path = spec_dir / "attribution.md"
    if not path.exists():
        return []
    try:
        rules = read_table(path)
    except AttributionTableError as error:
        return [str(error)]
    return [
        f"{path}:{rule.line}: charges {r}, which the spec does not define"
        for rule in rules
        for r in rule.charges
        if r not in requirements
    ]


def lint(
    roots: Sequence[Path], check_coverage: bool, spec_dir: Path = SPEC_DIR, cache: VectorCache | None = None
) -> tuple[int, list[str]]:
    """The number of vectors checked and every problem found; `cache`, the vector files read before."""
    vectors, file_errors = load_vectors(roots, cache)
    requirements, problems = read_requirements(spec_dir)
    problems += [str(error) for error in file_errors]
    problems += _attribution_problems(spec_dir, requirements)
    for vector in vectors:
        problems += _vector_problems(vector, requirements)
    if check_coverage:
        cited = {r for vector in vectors for r in vector.spec}
        problems += [
            f"{requirement.source}: requirement {requirement.id} has no vector"
            for requirement in requirements.values()
            if requirement.id not in cited and not requirement.id.startswith(PRODUCER)
        ]
    return len(vectors), problems
