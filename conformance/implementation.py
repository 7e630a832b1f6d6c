"""The one interface through which the harness reaches every implementation.

An implementation is anything with a name, the profiles and options it
declares, and `produce(vector)`: run the vector's events through a fresh
router and return every outcome with the event that produced it. Failures of
the implementation itself (it raised, answered something that is not a list)
are `AdapterFailure`, never an exception that escapes the harness.
"""

from __future__ import annotations

import copy
import importlib
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .schemas import OPTIONS, first_error, option_defaults
from .vectors import At, Vector


@dataclass(frozen=True)
class Produced:
    at: At
    outcome: Any


class AdapterFailure(Exception):
    """The implementation failed to answer; the vector is `errored`."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class Implementation(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def profiles(self) -> frozenset[str]: ...

    @property
    def options(self) -> dict[str, Any]: ...

    def produce(self, vector: Vector) -> list[Produced]: ...


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
            raise AdapterFailure(
                f"{step} raised {type(exc).__name__}: {exc}", traceback.format_exc()
            ) from exc
        return produced


def _outcomes(answer: object) -> Iterable[Any]:
    if isinstance(answer, (str, bytes, dict)) or not isinstance(answer, Iterable):
        raise TypeError(f"expected an iterable of outcomes, got {type(answer).__name__}")
    return list(answer)
