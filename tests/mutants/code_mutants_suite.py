"""The test suite mutmut runs on each code mutant: each bundled vector, one test, under each adapter
named by STREAMROUTE_CODE_MUTANTS_ADAPTERS (comma-separated `module:callable`), in this process.

tests/mutants/code_mutants.py copies this file into the directory where mutmut works, beside the
mutated copy of the code, which is what the adapters then import, and code_mutants_order.py beside
it as the suite's conftest.py. A vector's test fails at the first adapter it fails or errors under
(a mutant that hangs errors at the harness's deadline), or, for an sse vector when wire/ is mutated,
when the producer checker, whose decoder wire/ is too, finds other producer faults in its bytes than
it declares; an adapter that does not declare the vector finds it not applicable and passes, as it
does for the code unchanged. mutmut runs only the tests of the vectors that reach the mutated
function, and stops at the first that fails: a kill.
"""

from __future__ import annotations

import importlib
import os

import pytest
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.lint import producer_faults
from streamroute.conformance.schemas import BUNDLED_VECTORS
from streamroute.conformance.vectors import Vector, load_vectors

ADAPTERS = os.environ["STREAMROUTE_CODE_MUTANTS_ADAPTERS"].split(",")
CHECKER = os.environ.get("STREAMROUTE_CODE_MUTANTS_CHECKER") == "1"  # wire/ is mutated
for _adapter in ADAPTERS:  # imported here, not under the harness's deadline: a mutated module is long
    importlib.import_module(_adapter.partition(":")[0])
VECTORS, ERRORS = load_vectors([BUNDLED_VECTORS])
assert not ERRORS, "\n".join(map(str, ERRORS))
# A deadline only a mutant that hangs misses, on a loaded machine too: a call of the vectors' largest
# (an event of 64 MiB) takes a second of CPU, and a missed deadline counts as a kill.
DEADLINE = 60.0


def first_failure(vector: Vector) -> str | None:
    """What the vector finds wrong first: its result under the first adapter it fails under, or
    the producer faults the checker finds in its bytes; None: nothing."""
    for adapter in ADAPTERS:
        result = run_vector(PythonImplementation.load(adapter, DEADLINE), vector)
        if result.status.is_failure:
            return f"{result.status.value}: {result.message}"
    return producer_class_differs(vector)


def producer_class_differs(vector: Vector) -> str | None:
    """An sse vector's bytes are also read by the producer checker, whose decoder is wire/ too
    (`streamroute lint` holds each vector's `producer_faults` to what the checker finds)."""
    if not CHECKER or vector.stream is None:
        return None
    found = producer_faults(vector)
    declared = sorted(vector.producer_faults)
    return (
        None if found == declared else f"the producer checker finds {found}, the vector declares {declared}"
    )


@pytest.mark.parametrize("vector", VECTORS, ids=lambda vector: vector.id)
def test_the_vector_passes(vector: Vector) -> None:
    failure = first_failure(vector)
    assert failure is None, failure


def killed_alone(pairs: list[str]) -> dict[str, str]:
    """For each `mutant=vector id`: whether that vector, under some adapter, kills the mutant."""
    by_id = {vector.id: vector for vector in VECTORS}
    verdicts: dict[str, str] = {}
    for pair in pairs:
        mutant, _, vector_id = pair.partition("=")
        os.environ["MUTANT_UNDER_TEST"] = mutant  # mutmut's trampolines read it at each call
        try:
            survived = first_failure(by_id[vector_id]) is None
        except Exception:  # a mutated wire module is the harness's decoder too: a crash is no pass
            survived = False
        verdicts[mutant] = "survived" if survived else "killed"
    return verdicts


if __name__ == "__main__":  # tests/mutants/code_mutants.py: `python test_vectors.py MUTANT=VECTOR ...`
    import json
    import sys

    print(json.dumps(killed_alone(sys.argv[1:])))
