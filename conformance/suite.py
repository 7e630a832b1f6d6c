"""One conformance run's setup, shared by the CLI and the pytest plugin."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .expected_failures import ExpectedFailures
from .implementation import AdapterLoadError, Implementation, PythonImplementation
from .protocol import ProtocolImplementation
from .results import Result, run_vector
from .schemas import BUNDLED_VECTORS, VECTOR, schema
from .vectors import Vector, VectorFileError, load_vectors

# The harness reaches the reference only through this adapter string.
DEFAULT_ADAPTER = "streamroute.reference.adapter:router"
# Seconds an adapter process has for each answer (spec/protocol.md).
DEFAULT_TIMEOUT = 5.0


class UsageError(Exception):
    """Bad options: reported in one line before any vector runs."""


def _loaded(load: Callable[..., Implementation], *args: Any) -> Implementation:
    try:
        return load(*args)
    except AdapterLoadError as exc:
        raise UsageError(str(exc)) from exc


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
        *,
        adapter_command: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Suite:
        unknown = sorted(set(profiles) - set(known_profiles()))
        if unknown:
            raise UsageError(f"unknown profile {', '.join(unknown)}; known: {', '.join(known_profiles())}")
        if adapter is not None and adapter_command is not None:
            raise UsageError("give a Python adapter or an adapter command, not both")
        if not timeout > 0:
            raise UsageError(f"the timeout must be a positive number of seconds, not {timeout:g}")
        if adapter_command is None:
            implementation: Implementation = _loaded(PythonImplementation.load, adapter or DEFAULT_ADAPTER)
        try:
            listed = ExpectedFailures.load(expected_failures) if expected_failures else None
        except OSError as exc:
            raise UsageError(f"cannot read the expected failures file: {exc}") from exc
        vectors, file_errors = load_vectors(list(vector_dirs) or [BUNDLED_VECTORS])
        selected = [v for v in vectors if not profiles or v.profile in profiles]
        unknown_ids = listed.unknown(v.id for v in vectors) if listed else []
        warnings = [f"{expected_failures}: {vector_id} matches no vector" for vector_id in unknown_ids]
        if adapter_command is not None:  # last: nothing above can fail and leave its process running
            implementation = _loaded(ProtocolImplementation.start, adapter_command, timeout)
        return cls(implementation, selected, file_errors, listed, len(vectors) - len(selected), warnings)

    def run(self, vector: Vector) -> Result:
        result = run_vector(self.implementation, vector)
        return self.expected_failures.apply(result) if self.expected_failures else result

    def listed(self, vector: Vector) -> bool:
        """The vector is in the expected-failures list."""
        return self.expected_failures is not None and vector.id in self.expected_failures.ids

    def close(self) -> None:
        self.implementation.close()
