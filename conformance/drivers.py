"""How generated cases are drawn, replayed and shrunk: Hypothesis driven by seeded bytes.

A case is drawn by running a Hypothesis test on a byte string
(`fuzz_one_input`, Hypothesis's interface for external fuzzers): case `i` of
seed `s` is the case the bytes of `random.Random(f"{s}:{i}")` decode to. That
costs no engine run per case, draws every case afresh (a Hypothesis run left to
itself spends most examples on variations of the few it drew first), and
decodes bytes with Hypothesis's `BytestringProvider`, which draws no constants:
Hypothesis's own provider also draws constants it collects from the source of
the modules it deems local (`providers._get_local_constants`: every module
outside site-packages, this tree's in an editable install), so one seed would
draw other cases from an editable install than from an installed copy, or after
any change to the adapter's source.

A failing case is saved, by `fuzz_one_input`, in the test's example database;
`Driver.replay` runs the test on what the database holds, Hypothesis shrinks a
case that still fails, and the test raises on the shrunk one. A database shared
by several processes (a directory on shared storage) makes a campaign: a failure
one of them finds, every other one replays (`Namespaced` keeps the failures of
different implementations and sources apart). Replaying and shrinking run with
the local constants set aside as well (`without_local_constants`), so a shrunk
case too is the same in either install.
"""

from __future__ import annotations

import contextlib
import random
import unittest
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from hypothesis.database import ExampleDatabase
from hypothesis.errors import HypothesisWarning
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants

T = TypeVar("T")

BUFFER_SIZE = 4096  # the bytes one case is drawn from; a case needing more is not drawn
SHRINK_EXAMPLES = 500  # the replayed cases a shrink may run


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


class Namespaced(ExampleDatabase):
    """A database whose keys are prefixed with `namespace`: campaigns against other implementations,
    or of other sources, share its storage without replaying (and so deleting) each other's cases."""

    def __init__(self, database: ExampleDatabase, namespace: str) -> None:
        super().__init__()
        self.database = database
        self.prefix = namespace.encode("utf-8") + b"\0"

    def save(self, key: bytes, value: bytes) -> None:
        self.database.save(self.prefix + key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.database.fetch(self.prefix + key)

    def delete(self, key: bytes, value: bytes) -> None:
        self.database.delete(self.prefix + key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.database.move(self.prefix + src, self.prefix + dest, value)


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


class Driver(Generic[T]):
    """A Hypothesis test of `check` on cases of `strategy`, run one case at a time from bytes or on
    what `database` holds."""

    def __init__(
        self,
        strategy: st.SearchStrategy[T],
        check: Callable[[T], None],
        database: ExampleDatabase | None = None,
    ) -> None:
        @settings(
            max_examples=SHRINK_EXAMPLES,
            database=database,
            deadline=None,
            phases=(Phase.reuse, Phase.shrink),
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
            report_multiple_bugs=False,
        )
        @given(strategy)
        def test(case: T) -> None:
            check(case)

        self.test = test
        # `given` types the wrapper as the test it wraps, without the handle it adds.
        self.fuzz_one_input: Callable[[bytes], bytes | None] = test.hypothesis.fuzz_one_input  # type: ignore[attr-defined]
        self.database = database

    def run(self, data: bytes) -> bool:
        """Check the case `data` decodes to; False when it decodes to none (too few bytes). What the
        check raises, it raises, once the case is saved in the database."""
        with warnings.catch_warnings():  # the repr of a case past the 1 MiB limit is long, and never shown
            warnings.simplefilter("ignore", HypothesisWarning)
            return self.fuzz_one_input(data) is not None

    def replay(self) -> None:
        """Check the cases the database holds, shrinking one that fails; raises what the check raises
        on the shrunk case. Nothing saved: nothing checked."""
        if self.database is None:
            return
        with without_local_constants(), warnings.catch_warnings():
            warnings.simplefilter("ignore", HypothesisWarning)
            with contextlib.suppress(unittest.SkipTest):  # the database holds no case of this test
                self.test()
