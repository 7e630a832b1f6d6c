"""One conformance run's setup, shared by the CLI and the pytest plugin."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .expected_failures import ExpectedFailures
from .implementation import AdapterLoadError, Implementation, PythonImplementation
from .results import Result, run_vector
from .schemas import BUNDLED_VECTORS, VECTOR, schema
from .vectors import Vector, VectorFileError, load_vectors

# The harness reaches the reference only through this adapter string.
DEFAULT_ADAPTER = "streamroute.reference.adapter:router"


class UsageError(Exception):
    """Bad options: reported in one line before any vector runs."""


def known_profiles() -> list[str]:
    return list(schema(VECTOR + "#/$defs/profile")["enum"])


@dataclass
class Suite:
    implementation: Implementation
    vectors: list[Vector]
    file_errors: list[VectorFileError]
    expected_failures: ExpectedFailures | None
    deselected: int
    warnings: list[str]

    @classmethod
    def prepare(
        cls,
        adapter: str | None = None,
        vector_dirs: Sequence[Path] = (),
        profiles: Sequence[str] = (),
        expected_failures: Path | None = None,
    ) -> Suite:
        unknown = sorted(set(profiles) - set(known_profiles()))
        if unknown:
            raise UsageError(f"unknown profile {', '.join(unknown)}; known: {', '.join(known_profiles())}")
        try:
            implementation = PythonImplementation.load(adapter or DEFAULT_ADAPTER)
        except AdapterLoadError as exc:
            raise UsageError(str(exc)) from exc
        try:
            listed = ExpectedFailures.load(expected_failures) if expected_failures else None
        except OSError as exc:
            raise UsageError(f"cannot read the expected failures file: {exc}") from exc
        vectors, file_errors = load_vectors(list(vector_dirs) or [BUNDLED_VECTORS])
        selected = [v for v in vectors if not profiles or v.profile in profiles]
        unknown_ids = listed.unknown(v.id for v in vectors) if listed else []
        warnings = [f"{expected_failures}: {vector_id} matches no vector" for vector_id in unknown_ids]
        return cls(implementation, selected, file_errors, listed, len(vectors) - len(selected), warnings)

    def run(self, vector: Vector) -> Result:
        result = run_vector(self.implementation, vector)
        return self.expected_failures.apply(result) if self.expected_failures else result
