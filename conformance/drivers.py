"""How generated cases are drawn, kept and shrunk: Hypothesis, given seeded bytes.

Case `i` of seed `s` is the case the bytes of `random.Random(f"{s}:{i}")` draw
(`case_bytes`): the fuzzer decodes them itself, as Hypothesis's
`BytestringProvider` does (strategies/choices.py, `Decoded`), and a failing
case's bytes go to Hypothesis's interface for external fuzzers,
`fuzz_one_input`, which draws the same case and keeps it in the example
database; `Driver.shrunk` then shrinks what the database holds
(`hypothesis.find`, its random fixed, so a shrink is the same every time). Drawing
from bytes costs no engine run per case, draws every case afresh (a
Hypothesis run left to itself spends most examples on variations of the few
it drew first), and draws no constants: Hypothesis's own provider also draws
constants it collects from the source of the modules it deems local
(`providers._get_local_constants`: every module outside site-packages, this
tree's in an editable install), so one seed would draw other cases from an
editable install than from an installed copy, or after any change to the
adapter's source. Shrinking sets those constants aside as well
(`without_local_constants`).

A database shared by several processes (a directory on shared storage) makes
a campaign: a failure one of them keeps, every other one shrinks and reports
(`Namespaced` keeps the failures of different implementations and sources
apart).
"""

from __future__ import annotations

import random
import unittest
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

import hypothesis.core
from hypothesis import HealthCheck, Phase, Verbosity, find, given, settings
from hypothesis import strategies as st
from hypothesis.database import ExampleDatabase
from hypothesis.errors import HypothesisWarning, NoSuchExample
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants

T = TypeVar("T")

BUFFER_SIZE = 4096  # the bytes one case is drawn from; a case needing more is not drawn
SHRINK_EXAMPLES = 500  # the cases a shrink may run


def case_bytes(seed: int, index: int) -> bytes:
    """The bytes case `index` of `seed` is drawn from."""
    return random.Random(f"{seed}:{index}").randbytes(BUFFER_SIZE)


@dataclass(frozen=True)
class Shard:
    """Part `index` of `count` of a seed's cases: those whose index is `index` modulo `count`, so
    that `count` processes together draw what one would."""

    index: int = 0
    count: int = 1

    def indexes(self) -> Iterator[int]:
        number = self.index
        while True:
            yield number
            number += self.count


WHOLE = Shard()  # every case: one process draws them all
_SUFFIXES = (b".secondary", b".pareto")  # the corpora Hypothesis keeps beside a test's own


class Namespaced(ExampleDatabase):
    """The cases of one test in a database under keys of `namespace`: the test that keeps a failing
    case and the search that shrinks it share them, whatever keys Hypothesis derives for each, and
    campaigns against other implementations, or of other sources, share the database's storage
    without replaying (and so deleting) each other's cases."""

    def __init__(self, database: ExampleDatabase, namespace: str) -> None:
        super().__init__()
        self.database = database
        self.key = namespace.encode("utf-8")

    def _key(self, key: bytes) -> bytes:
        return self.key + next((suffix for suffix in _SUFFIXES if key.endswith(suffix)), b"")

    def save(self, key: bytes, value: bytes) -> None:
        self.database.save(self._key(key), value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.database.fetch(self._key(key))

    def delete(self, key: bytes, value: bytes) -> None:
        self.database.delete(self._key(key), value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.database.move(self._key(src), self._key(dest), value)


@contextmanager
def without_local_constants() -> Iterator[None]:
    """Hypothesis's provider, while this lasts, draws none of the constants it collects from local
    modules (a Hypothesis without that collection has nothing to set aside)."""
    collect = getattr(providers, "_get_local_constants", None)
    if collect is None:
        yield
        return
    providers._get_local_constants = Constants
    providers.CONSTANTS_CACHE.cache.clear()  # its pools were made with the local constants
    try:
        yield
    finally:
        providers._get_local_constants = collect
        providers.CONSTANTS_CACHE.cache.clear()


@contextmanager
def _fixed_random() -> Iterator[None]:
    """Hypothesis shrinks with a random it seeds from one of its thread's; `hypothesis.seed`,
    which would fix that, also turns the database off. This fixes the thread's while a shrink
    runs, so a shrink is the same every time (a Hypothesis without it has nothing to fix)."""
    local = getattr(hypothesis.core, "threadlocal", None)
    if local is None or not hasattr(local, "_hypothesis_global_random"):
        yield
        return
    saved = local._hypothesis_global_random
    local._hypothesis_global_random = random.Random(0)
    try:
        yield
    finally:
        local._hypothesis_global_random = saved


class _Kept(Exception):
    """A failing case, which `fuzz_one_input` keeps in the database."""


def _quiet(**given: object) -> settings:
    return settings(
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        **given,  # type: ignore[arg-type]
    )


class Driver(Generic[T]):
    """Cases of `strategy` that `fails`, kept in and shrunk from `database`."""

    def __init__(
        self, strategy: st.SearchStrategy[T], fails: Callable[[T], bool], database: ExampleDatabase
    ) -> None:
        @_quiet(database=database)
        @given(strategy)
        def test(case: T) -> None:
            if fails(case):
                raise _Kept

        # `given` types the wrapper as the test it wraps, without the handle it adds.
        self.fuzz_one_input: Callable[[bytes], bytes | None] = test.hypothesis.fuzz_one_input  # type: ignore[attr-defined]
        self.strategy = strategy
        self.fails = fails
        self.database = database

    def keep(self, data: bytes) -> bool:
        """Draw the case of `data` through Hypothesis, and keep it in the database if it fails;
        whether it failed."""
        with warnings.catch_warnings():  # the repr of a case past the 1 MiB limit is long, and never shown
            warnings.simplefilter("ignore", HypothesisWarning)
            try:
                self.fuzz_one_input(data)
            except _Kept:
                return True
        return False

    def shrunk(self) -> T | None:
        """The smallest failing case Hypothesis shrinks the cases the database holds to; None when
        it holds none that fails (one that passes now is dropped)."""
        with without_local_constants(), _fixed_random(), warnings.catch_warnings():
            warnings.simplefilter("ignore", HypothesisWarning)
            try:
                return find(
                    self.strategy,
                    self.fails,
                    settings=_quiet(
                        database=self.database,
                        phases=(Phase.reuse, Phase.shrink),
                        max_examples=SHRINK_EXAMPLES,
                    ),
                    database_key=b"shrunk",  # the namespace's, as every key is (`Namespaced`)
                )
            except (NoSuchExample, unittest.SkipTest):  # none failing; none at all
                return None
