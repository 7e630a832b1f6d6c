"""The differential mode (conformance/fuzz.py, `streamroute fuzz`, `--streamroute-fuzz`).

Against each broken router it can reach, it finds the fault, shrinks it, and
writes a vector that lint accepts, that fails the broken router and that the
reference passes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import hello, write_vector
from streamroute.conformance.cli import main
from streamroute.conformance.fuzz import fuzz
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.lint import lint
from streamroute.conformance.protocol import ProtocolImplementation
from streamroute.conformance.results import Status, run_vector
from streamroute.conformance.vectors import Vector, load_vectors

REFERENCE = "streamroute.reference.adapter:router"
ARGUMENTS_DONE = "streamroute.reference.adapter:arguments_done_router"

# Each broken router, a seed, and what the shrunk failure shows.
BROKEN = {
    "EarlyCall": (0, "tool.call expected from event"),
    "TextMix": (0, "text.delta for fc_0 part 0, which has no answer text"),
    "RaiseOnUnknown": (0, "errored: feed(event 1) raised ValueError: unknown event type"),
    "InvalidOutcome": (0, "is not valid against the outcome schema"),
    "NotAList": (0, "errored: close() raised TypeError"),
    # custom-tools: generated streams where every custom tool has the echo diff consumer
    "IgnoresCallIdFilter": (4, "expected kind tool.call, got diff.update"),
    "BuildsCallFromBuffer": (0, "field 'input': expected"),
    "FinishAfterCall": (0, "expected kind diff.finish, got tool.call"),
}


def _saved(root: Path) -> Vector:
    count, problems = lint([root], check_coverage=False)
    assert (count, problems) == (1, [])
    vectors, errors = load_vectors([root])
    assert not errors
    return vectors[0]


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_fuzzing_a_broken_router_saves_a_vector_that_fails_it_and_passes_the_reference(
    name: str, tmp_path: Path
) -> None:
    broken = PythonImplementation.load(f"broken_routers:{name}")
    seed, shown = BROKEN[name]
    result = fuzz(broken, examples=300, seed=seed, save_to=tmp_path)
    assert result.failure is not None, f"{name}: no failure in {result.examples} streams"
    assert shown in result.failure.message
    assert len(result.failure.stream.events) <= 8  # shrunk
    vector = _saved(tmp_path)
    assert vector.id.startswith("fuzz/")
    assert run_vector(broken, vector).status.is_failure
    assert run_vector(PythonImplementation.load(REFERENCE), vector).status is Status.PASSED
    assert run_vector(PythonImplementation.load(ARGUMENTS_DONE), vector).status in (
        Status.PASSED,
        Status.NOT_APPLICABLE,
    )


@pytest.mark.parametrize("adapter", [REFERENCE, ARGUMENTS_DONE])
def test_the_reference_passes_generated_streams_at_either_tool_call_point(adapter: str) -> None:
    result = fuzz(PythonImplementation.load(adapter), examples=40, seed=1)
    assert result.failure is None, result.failure and result.failure.message
    assert result.examples == 40


def test_fuzzing_over_the_protocol() -> None:
    implementation = ProtocolImplementation.start(f"{sys.executable} -m streamroute.reference.serve", 10)
    try:
        result = fuzz(implementation, examples=15, seed=2)
    finally:
        implementation.close()
    assert result.failure is None, result.failure and result.failure.message


def test_the_fuzz_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--examples", "10", "--seed", "3"]) == 0
    assert "10 generated streams, no failure" in capsys.readouterr().out
    code = main(["fuzz", "--adapter", "broken_routers:TextMix", "--seed", "3", "--save-to", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAILED a generated stream" in out
    vector = _saved(tmp_path)
    assert f"wrote {vector.path}" in out
    assert main(["run", "--adapter", "broken_routers:TextMix", "--vectors", str(tmp_path)]) == 1
    assert main(["run", "--vectors", str(tmp_path)]) == 0
    assert main(["fuzz", "--examples", "0"]) == 2


def test_the_plugin_option_adds_one_fuzz_item(pytester: pytest.Pytester) -> None:
    pytester.syspathinsert(Path(__file__).parent)
    root = write_vector(pytester.path / "mine", hello()).parent.parent
    result = pytester.runpytest(
        "--streamroute-vectors",
        str(root),
        "--streamroute-adapter",
        "broken_routers:TextMix",
        "--streamroute-fuzz",
        "50",
        "--streamroute-fuzz-seed",
        "4",
        "-k",
        "streamroute-fuzz",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*a generated stream failed*", "*text.delta for fc_0*"])
