"""The test suite mutmut runs on each code mutant: every bundled vector under each adapter named by
STREAMROUTE_CODE_MUTANTS_ADAPTERS (comma-separated `module:callable`), in this process.

tests/mutants/code_mutants.py copies this file into the directory where mutmut works, beside the
mutated copy of the code, which is what the adapters then import. A test fails when the vector
fails or errors (a mutant that hangs errors at the harness's deadline); a vector the adapter does
not declare is not applicable and passes, as it does for the code unchanged.
"""

from __future__ import annotations

import importlib
import os

import pytest
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.results import run_vector
from streamroute.conformance.schemas import BUNDLED_VECTORS
from streamroute.conformance.vectors import Vector, load_vectors

ADAPTERS = os.environ["STREAMROUTE_CODE_MUTANTS_ADAPTERS"].split(",")
for _adapter in ADAPTERS:  # imported here, not under the harness's deadline: a mutated module is long
    importlib.import_module(_adapter.partition(":")[0])
VECTORS, ERRORS = load_vectors([BUNDLED_VECTORS])
assert not ERRORS, "\n".join(map(str, ERRORS))


@pytest.mark.parametrize("vector", VECTORS, ids=lambda vector: vector.id)
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_vector_passes(adapter: str, vector: Vector) -> None:
    result = run_vector(PythonImplementation.load(adapter), vector)
    assert not result.status.is_failure, f"{result.status.value}: {result.message}"


def killed_alone(pairs: list[str]) -> dict[str, str]:
    """For each `mutant=vector id`: whether that vector, under some adapter, kills the mutant."""
    by_id = {vector.id: vector for vector in VECTORS}
    verdicts: dict[str, str] = {}
    for pair in pairs:
        mutant, _, vector_id = pair.partition("=")
        os.environ["MUTANT_UNDER_TEST"] = mutant  # mutmut's trampolines read it at each call
        results = [run_vector(PythonImplementation.load(adapter), by_id[vector_id]) for adapter in ADAPTERS]
        verdicts[mutant] = "killed" if any(r.status.is_failure for r in results) else "survived"
    return verdicts


if __name__ == "__main__":  # tests/mutants/code_mutants.py: `python test_vectors.py MUTANT=VECTOR ...`
    import json
    import sys

    print(json.dumps(killed_alone(sys.argv[1:])))
