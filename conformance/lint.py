"""Checks of vector files beyond their schema, against the spec they cite."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .requirements import LEVEL_RANK, Requirement, read_requirements
from .schemas import SPEC_DIR
from .vectors import Vector, load_vectors

# Producer requirements (spec/producer.md) are checked by captures, not vectors: tests/test_capture.py
# requires a broken capture reporting each.
PRODUCER = "PROD-"


def _vector_problems(vector: Vector, requirements: dict[str, Requirement]) -> list[str]:
    problems = []
    where = f"{vector.path}: {vector.id}"
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
        if at != "close" and at >= events:
            problems.append(f"{where}: expected outcome {index} names event {at}, but there are {events}")
        if position < last_at:
            problems.append(f"{where}: expected outcome {index} (event {at}) comes before an earlier event's")
        last_at = max(last_at, position)
        if vector.compare is not None and outcome["kind"] not in vector.compare:
            problems.append(
                f"{where}: expected outcome {index} is a {outcome['kind']}, which `compare` leaves out"
            )
    return problems


def lint(roots: Sequence[Path], check_coverage: bool, spec_dir: Path = SPEC_DIR) -> tuple[int, list[str]]:
    """The number of vectors checked and every problem found."""
    vectors, file_errors = load_vectors(roots)
    requirements, problems = read_requirements(spec_dir)
    problems += [str(error) for error in file_errors]
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
