"""The order the code-mutant suite (code_mutants_suite.py) runs its vectors in: the conftest.py of
the directory mutmut works in (tests/mutants/code_mutants.py copies it there).

mutmut runs the vectors that reach a mutant's function, in no order of its own, and stops at the
first that fails. Run the likely killers first: the more events a vector streams (for an sse vector,
the SSE events it dispatches) and outcomes it states, the more of the code it drives and holds to
what it expects. Counted, not measured in bytes: a stream of 64 MiB in one event drives little
code, and runs last. The verdict is the same in any order; only the cost of a kill changes.
"""

from __future__ import annotations

import pytest


def _size(item: pytest.Item) -> int:
    callspec = getattr(item, "callspec", None)
    vector = callspec.params.get("vector") if callspec else None
    if vector is None:
        return 0
    streamed = vector.dispatched if vector.stream is not None else len(vector.events)
    return (streamed or 0) + len(vector.expected)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_size, reverse=True)
