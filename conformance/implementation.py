"""The one interface through which the harness reaches every implementation.

An implementation is anything with a name, the profiles and options it
declares, and `produce(vector)`: run the vector's events through a fresh
router and return every outcome with the event that produced it;
`produce_stream(vector, chunks)` does the same for an sse vector's bytes, cut
into chunks, and answers per dispatched SSE event (spec/sse.md section 6).
Failures of the implementation itself (it raised, answered something that is
not a list) are `AdapterFailure`, never an exception that escapes the harness;
a vector the implementation declines is `AdapterSkipped`. `info` is what
reports say about it, and `close()` releases what it holds (an adapter
process).
"""

from __future__ import annotations

import copy
import importlib
import importlib.metadata
import os
import sys
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .schemas import OPTIONS, first_error, option_defaults
from .vectors import At, Vector


@dataclass(frozen=True)
class Produced:
    at: At
    outcome: Any


@dataclass(frozen=True)
class Streamed:
    """The answer to a stream of bytes: the outcomes of each dispatched SSE event, in order, then close's."""

    events: list[list[Any]]
    close: list[Any]

    @property
    def produced(self) -> list[Produced]:
        """Every outcome with the index of the SSE event that produced it, as the harness numbers them."""
        produced = [
            Produced(index, outcome) for index, outcomes in enumerate(self.events) for outcome in outcomes
        ]
        return produced + [Produced("close", outcome) for outcome in self.close]


class AdapterFailure(Exception):
    """The implementation failed to answer; the vector is `errored`."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class AdapterSkipped(Exception):
    """The implementation declines the vector, with a reason: `skipped`, never passed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Implementation(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def profiles(self) -> frozenset[str]: ...

    @property
    def options(self) -> dict[str, Any]: ...

    @property
    def info(self) -> dict[str, Any]:
        """The implementation object of spec/protocol-start-reply.schema.json."""
        ...

    def produce(self, vector: Vector) -> list[Produced]: ...

    def produce_stream(self, vector: Vector, chunks: Sequence[bytes]) -> Streamed: ...

    def close(self) -> None: ...


class AdapterLoadError(Exception):
    """An adapter that cannot even be loaded: a usage error, reported before any vector runs."""


def declared_options(declared: object, source: str) -> dict[str, Any]:
    """The declared options with defaults filled in, checked against the options schema."""
    problem = first_error(OPTIONS, declared)
    if problem is not None:
        raise AdapterLoadError(f"{source} declares invalid options: {problem}")
    assert isinstance(declared, dict)
    return {**option_defaults(), **declared}


@dataclass
class PythonImplementation:
    """An implementation given as `module:callable` (see the README's adapter contract)."""

    name: str
    factory: Any
    profiles: frozenset[str] = field(default_factory=frozenset)
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, spec: str) -> PythonImplementation:
        module_name, sep, attribute = spec.partition(":")
        if not sep or not module_name or not attribute:
            raise AdapterLoadError(f"adapter {spec!r} must be given as module:callable")
        if os.getcwd() not in sys.path:  # as `python -m` does: the user's adapter sits beside them
            sys.path.insert(0, os.getcwd())
        try:
            target: Any = importlib.import_module(module_name)
            for part in attribute.split("."):
                target = getattr(target, part)
        except Exception as exc:  # an adapter's import may fail in any way
            raise AdapterLoadError(f"cannot load adapter {spec!r}: {type(exc).__name__}: {exc}") from exc
        if not callable(target):
            raise AdapterLoadError(f"adapter {spec!r} is not callable")
        profiles = getattr(target, "profiles", ("core",))
        if isinstance(profiles, str) or not all(isinstance(p, str) for p in profiles):
            raise AdapterLoadError(f"adapter {spec!r}: `profiles` must be a list of profile names")
        options = declared_options(getattr(target, "options", {}), f"adapter {spec!r}")
        return cls(spec, target, frozenset(profiles), options)

    @property
    def info(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": _distribution_version(self.name.partition(".")[0].partition(":")[0]),
            "language": "python",
            "profiles": sorted(self.profiles),
            "options": self.options,
        }

    def close(self) -> None:
        pass  # nothing to release: the implementation runs in this process

    def produce(self, vector: Vector) -> list[Produced]:
        produced: list[Produced] = []
        step = "building the router"
        try:
            router = self.factory(copy.deepcopy(vector.tools))
            for index, event in enumerate(copy.deepcopy(vector.events)):
                step = f"feed(event {index})"
                produced += (Produced(index, outcome) for outcome in _outcomes(router.feed(event)))
            step = "close()"
            produced += (Produced("close", outcome) for outcome in _outcomes(router.close()))
        except Exception as exc:  # whatever the implementation does, the harness goes on
            raise _raised(step, exc) from exc
        return produced

    def produce_stream(self, vector: Vector, chunks: Sequence[bytes]) -> Streamed:
        events: list[list[Any]] = []
        step = "building the router"
        try:
            router = self.factory(copy.deepcopy(vector.tools))
            for index, chunk in enumerate(chunks):
                step = f"feed_bytes(chunk {index})"
                events += (list(_outcomes(outcomes)) for outcomes in _outcomes(router.feed_bytes(chunk)))
            step = "close()"
            closing = list(_outcomes(router.close()))
        except Exception as exc:  # whatever the implementation does, the harness goes on
            raise _raised(step, exc) from exc
        return Streamed(events, closing)


def _raised(step: str, exc: Exception) -> AdapterFailure:
    return AdapterFailure(f"{step} raised {type(exc).__name__}: {exc}", traceback.format_exc())


def _distribution_version(top_level_module: str) -> str:
    for distribution in importlib.metadata.packages_distributions().get(top_level_module, []):
        return importlib.metadata.version(distribution)
    return "unknown"


def _outcomes(answer: object) -> Iterable[Any]:
    if isinstance(answer, (str, bytes, dict)) or not isinstance(answer, Iterable):
        raise TypeError(f"expected an iterable of outcomes, got {type(answer).__name__}")
    return list(answer)
