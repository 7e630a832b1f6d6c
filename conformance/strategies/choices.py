"""The decisions a generated case is drawn with, and who takes them.

Every drawing function takes a `Choices` and asks it for small integers:
`below(n)`, and what is built on it (`pick`, `chance`, `coin`, `integer`).
Each decision shrinks toward 0, the first option, which is always the plain
case. Two sources answer:

* `Drawn`, Hypothesis: each decision is one Hypothesis draw, so it shrinks
  on its own and the example database can replay it. The shape of a case is
  drawn this way: how many items and of which kind, which deviations, how it
  ends.
* `Seeded`, a `random.Random` seeded by one drawn integer: the details of one
  item, one deviation or one rendering (texts, cuts, how each event names
  things) are decided by it, a hundred times faster than Hypothesis draws
  them. Seed 0 takes the first option of every decision, so when Hypothesis
  shrinks a seed to 0 the details it decided become the plainest ones.

`Decoded` takes the decisions `Drawn` takes, from a byte string, without
Hypothesis: each as Hypothesis's `BytestringProvider` decodes the integer
a `Drawn` decision draws, so the bytes `fuzz_one_input` is given draw the
same case through Hypothesis (where a failing case is saved and shrunk) and
without it, at a fraction of the cost (tests/test_fuzz.py holds the two the
same).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import cache
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

SEED_LIMIT = 1 << 32


class Choices(ABC):
    """A source of decisions, each an integer that shrinks toward 0."""

    @abstractmethod
    def below(self, n: int) -> int:
        """An integer `0 <= k < n`."""

    @abstractmethod
    def seeded(self) -> Seeded:
        """A source of its own, for the details of one part of the case."""

    def integer(self, lo: int, hi: int) -> int:
        return lo + self.below(hi - lo + 1)

    def pick(self, options: Sequence[T]) -> T:
        """One of the options, each as likely (duplicates weigh more); shrinks to the first."""
        return options[self.below(len(options))]

    def chance(self, one_in: int) -> bool:
        """True one time in `one_in`; shrinks to False, the plain case."""
        return self.below(one_in) == one_in - 1

    def coin(self) -> bool:
        return self.below(2) == 1


@cache
def _below(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, n - 1)


class Drawn(Choices):
    """Decisions drawn by Hypothesis, inside a composite strategy."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def below(self, n: int) -> int:
        return 0 if n == 1 else self.draw(_below(n))

    def seeded(self) -> Seeded:
        return Seeded(self.below(SEED_LIMIT))


class Overrun(Exception):
    """The bytes ran out before the case was drawn: a case needing more is not drawn."""


class Decoded(Choices):
    """The decisions of a byte string, read as Hypothesis's `BytestringProvider` reads the integers
    `Drawn` draws (`st.integers(0, n - 1)`): the fewest whole bytes holding the bits of `n - 1`,
    big-endian, the first byte masked to its bits; a value past `n - 1` is drawn again."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.index = 0

    def below(self, n: int) -> int:
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        size = (bits + 7) >> 3
        mask = (1 << (bits % 8)) - 1 if bits % 8 else 0xFF
        data = self.data
        while True:
            start = self.index
            if start + size > len(data):
                raise Overrun
            self.index = start + size
            value = data[start] & mask
            if size > 1:
                value = value << (8 * (size - 1)) | int.from_bytes(data[start + 1 : start + size], "big")
            if value < n:
                return value

    def seeded(self) -> Seeded:
        return Seeded(self.below(SEED_LIMIT))


def _first() -> float:
    """What seed 0 draws in place of `random()`: 0.0, the first option of every decision."""
    return 0.0


class Seeded(Choices):
    """Decisions of a seeded `random.Random`; seed 0: the first option of each."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._random = random.Random(seed).random if seed else _first

    # random() * n rather than randrange(n), three times faster; its bias, under 2**-20 for the
    # largest n drawn (a seed), changes nothing a case means. The decisions built on `below` are
    # written out, as it decides them, since a case takes hundreds.
    def below(self, n: int) -> int:
        return int(self._random() * n)

    def pick(self, options: Sequence[T]) -> T:
        return options[int(self._random() * len(options))]

    def integer(self, lo: int, hi: int) -> int:
        return lo + int(self._random() * (hi - lo + 1))

    def chance(self, one_in: int) -> bool:
        return int(self._random() * one_in) == one_in - 1

    def coin(self) -> bool:
        return self._random() >= 0.5

    def seeded(self) -> Seeded:
        return Seeded(self.below(SEED_LIMIT))
