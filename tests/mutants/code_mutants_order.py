"""The order the code-mutant suite (code_mutants_suite.py) runs its vectors in: the conftest.py of
the directory mutmut works in (tests/mutants/code_mutants.py copies it there).

mutmut runs the vectors that reach a mutant's function, in no order of its own, and stops at the
first that fails. Run the likely killers first: the larger a vector (the events it streams and the
outcome it states), the more of the code it drives and holds to what it expects. The verdict is the
same in any order; only the cost of a kill changes.
"""

from __future__ import annotations

import json

import pytest


def _size(item: pytest.Item) -> int:
    callspec = getattr(item, "callspec", None)
    vector = callspec.params.get("vector") if callspec else None
    return len(json.dumps(vector.data, default=str)) if vector is not None else 0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_size, reverse=True)
