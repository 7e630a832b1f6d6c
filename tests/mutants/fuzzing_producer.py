"""Whether generated captures alone tell a checker mutant from the producer checker.

`finds(mutant, examples, seed)` runs the mutant on `examples` generated
captures (producer/generated.py), each in SSE and in JSON Lines, and
compares what it reports with the violations planted in them. A capture on
which the real checker itself does not report exactly those is held against no
mutant (tests/test_producer_faults.py fails on it instead). The captures, and
the real checker's verdicts, are computed once per process for every mutant.
"""

from __future__ import annotations

from functools import cache

from streamroute.producer.checker import check_capture
from streamroute.producer.generated import Format, GeneratedCapture, difference, sample

from . import Mutant, _load, _verdict

FORMATS: tuple[Format, ...] = ("sse", "jsonl")


def _wrong(
    capture: GeneratedCapture, form: Format, verdict: list[tuple[int | None, str]] | str
) -> str | None:
    """How a checker's verdict on the capture differs from the planted faults, or None."""
    return verdict if isinstance(verdict, str) else difference(capture.expected(form), verdict)


@cache
def _judged(examples: int, seed: int) -> tuple[tuple[GeneratedCapture, Format], ...]:
    """The captures in each format on which the real checker is right, the smallest first: the
    first one a mutant gets wrong is the shortest to read."""
    judged = [
        (capture, form)
        for capture in sample(examples, seed)
        for form in FORMATS
        if _wrong(capture, form, _verdict(check_capture, capture.data(form))) is None
    ]
    return tuple(sorted(judged, key=lambda pair: len(pair[0].data(pair[1]))))


def _reason(capture: GeneratedCapture, form: Format, problem: str) -> str:
    """The first difference, and the fault planted for its requirement, if any: one short line."""
    first = problem.split("; ")[0]
    named = [fault for fault in capture.planted if fault.partition(":")[0] in first]
    planted = named[0] if named else "no fault of it planted" if capture.planted else "well-formed"
    return f"{form} capture ({planted}): {first}"


def finds(mutant: Mutant, examples: int, seed: int) -> str | None:
    """Why generated captures tell the checker mutant from the real checker; None when
    `examples` of them do not."""
    if mutant.kind != "checker":
        raise ValueError(f"{mutant.name} is not a checker mutant")
    check = _load(mutant.target)
    for capture, form in _judged(examples, seed):
        problem = _wrong(capture, form, _verdict(check, capture.data(form)))
        if problem is not None:
            return _reason(capture, form, problem)
    return None
