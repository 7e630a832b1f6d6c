"""The differences of a failing comparison, as attribution reads them (spec/attribution.md section 1).

The aligned comparison pairs outcomes by a longest common subsequence, which is how a reader
follows it; but it shows an outcome produced at another event, or in another order at its own
event, as one outcome missing and one unexpected, and a shift of one outcome pairs every outcome
after it with its neighbour's. Attribution asks what each difference is, so the unequal rows are
read again: an expected outcome that was produced in another place is *moved* (`at`: at another
event; `order`: at its own, among the same outcomes in another order), and only what is left pairs
at one event (one field or the kind differing) or stands alone (missing, unexpected).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .compare import at_key, compare, json_equal
from .implementation import Produced
from .vectors import At

Pair = tuple[int | None, int | None]  # an expected and an actual outcome's index, or None


@dataclass(frozen=True)
class Difference:
    """One way the produced outcomes part from the expected ones.

    `expected` and `produced` are outcomes (an expected one with its `at`; a produced one with
    the `at` of its event), either None when the other stands alone. `field` says how a pair
    differs: `at`, the expected outcome produced at another event; `order`, the outcomes of one
    event produced in another order (`expected` the outcome expected first where they part,
    `produced` the one produced there); else the first field of the expected outcome the produced
    one lacks or holds another value of, None for a pair of two kinds. `event` is the event at the
    difference's `at` (the expected outcome's, else the produced one's): None at close and in an
    sse vector, whose events the harness does not decode. `failure` names a difference that is no
    comparison: `invalid`, `raised`, `dispatched`."""

    expected: Mapping[str, Any] | None
    produced: Mapping[str, Any] | None
    event: Any = None
    field: str | None = None
    failure: str | None = None


_CALL_OUTCOMES = ("tool.call", "tool.error")
# Matching the unequal rows costs up to the product of their numbers; past this many comparisons
# what is left stands as it is, so that no implementation's output makes the harness hang.
MAX_MATCHES = 100_000


def differences(
    expected: Sequence[dict[str, Any]],
    actual: Sequence[Produced],
    pairs: Sequence[Pair],
    events: Sequence[Any] | None,
) -> list[Difference]:
    """The differences of the aligned comparison `pairs` of `expected` and `actual`; `events`
    are the vector's (None for an sse vector, whose events the harness does not decode)."""
    reading = _Reading(expected, actual, events)
    met: dict[int, int] = {i: j for i, j in pairs if i is not None and j is not None and reading.meets(i, j)}
    missing = [i for i, _ in pairs if i is not None and i not in met]
    unexpected = [j for _, j in pairs if j is not None and j not in met.values()]
    # An outcome produced at its event in another place among that event's outcomes.
    reordered: set[At] = set()
    for i, j in reading.matched(missing, unexpected, lambda i, j: reading.meets(i, j)):
        met[i] = j
        reordered.add(expected[i]["at"])
    found = [reading.order(at, met) for at in reordered]
    # An outcome produced at another event.
    found += [
        reading.difference(i, j, "at")
        for i, j in reading.matched(missing, unexpected, lambda i, j: reading.meets(i, j, elsewhere=True))
    ]
    # What is left, at one event: a field of one kind differs, else the kind.
    for i, j in reading.matched(missing, unexpected, lambda i, j: reading.at_one_event(i, j, same_kind=True)):
        found.append(reading.difference(i, j, reading.field(i, j)))
    for i, j in reading.matched(missing, unexpected, reading.at_one_event):
        found.append(reading.difference(i, j))
    # A call's one outcome (CORE-CALL-1) produced at another event, and changed.
    for i, j in reading.matched(missing, unexpected, reading.same_call):
        found.append(reading.difference(i, j, "at"))
    found += [reading.difference(i, None) for i in missing]
    found += [reading.difference(None, j) for j in unexpected]
    return sorted(found, key=_place)


def _place(difference: Difference) -> tuple[float, bool, int]:
    """In stream order: at one event an `end` last, as it comes (CORE-LIFE-5), and an expected
    outcome before a produced one."""
    side: Any = difference.expected if difference.expected is not None else difference.produced
    return at_key(side["at"]), side.get("kind") == "end", 0 if difference.expected is not None else 1


class _Reading:
    """The two sides of one comparison, and what matching their unequal rows costs so far."""

    def __init__(
        self, expected: Sequence[dict[str, Any]], actual: Sequence[Produced], events: Sequence[Any] | None
    ) -> None:
        self.expected = expected
        self.actual = actual
        self.events = events
        self.budget = MAX_MATCHES

    def meets(self, i: int, j: int, *, elsewhere: bool = False) -> bool:
        """The actual outcome meets the expected one (`elsewhere`: but for the event it came from)."""
        want = self.expected[i]
        got = self.actual[j]
        if elsewhere:
            if want["at"] == got.at:
                return False
            want = {**want, "at": got.at}
        return compare([want], [got], None) is None

    def at_one_event(self, i: int, j: int, *, same_kind: bool = False) -> bool:
        want = self.expected[i]
        got = self.actual[j]
        return want["at"] == got.at and (not same_kind or want["kind"] == got.outcome.get("kind"))

    def same_call(self, i: int, j: int) -> bool:
        """Two outcomes of one call's item that resolve it, from two events."""
        want = self.expected[i]
        got = self.actual[j].outcome
        return (
            want["at"] != self.actual[j].at
            and want["kind"] in _CALL_OUTCOMES
            and got.get("kind") in _CALL_OUTCOMES
            and want.get("item_id") is not None
            and want.get("item_id") == got.get("item_id")
        )

    def matched(
        self, missing: list[int], unexpected: list[int], fits: Callable[[int, int], bool]
    ) -> list[tuple[int, int]]:
        """Each expected outcome of `missing` with the first of `unexpected` it `fits`, in order;
        both lists lose those matched."""
        found: list[tuple[int, int]] = []
        for i in list(missing):
            for j in unexpected:
                if self.budget <= 0:
                    return found
                self.budget -= 1
                if fits(i, j):
                    found.append((i, j))
                    missing.remove(i)
                    unexpected.remove(j)
                    break
        return found

    def field(self, i: int, j: int) -> str | None:
        """The first field of the expected outcome that the actual one lacks or holds another value of."""
        got = self.actual[j].outcome
        differing = (n for n, v in self.expected[i].items() if n not in got or not json_equal(v, got[n]))
        return next((n for n in differing if n != "at"), None)

    def order(self, at: At, met: dict[int, int]) -> Difference:
        """At event `at`, whose outcomes both sides hold in another order: the first place where
        they part, with the outcome expected there and the one produced there."""
        here = sorted(i for i in met if self.expected[i]["at"] == at)
        produced = sorted(here, key=lambda i: met[i])
        k = next(k for k, (i, by_j) in enumerate(zip(here, produced, strict=True)) if i != by_j)
        return self.difference(here[k], met[produced[k]], "order")

    def difference(self, i: int | None, j: int | None, field: str | None = None) -> Difference:
        want = self.expected[i] if i is not None else None
        got = {**self.actual[j].outcome, "at": self.actual[j].at} if j is not None else None
        side: Any = want if want is not None else got
        at = side["at"]
        event = None if self.events is None or at == "close" else self.events[at]
        return Difference(want, got, event, field)
