"""The differential mode (conformance/fuzz.py, `streamroute fuzz`, `--streamroute-fuzz`).

Against each broken implementation it can reach (a router, an SSE decoder, a diff consumer, an
executor, a router of catalogue calls, a session router), it finds the fault, shrinks it, and writes
a vector that lint accepts, that fails the broken implementation and that the reference passes.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from pathlib import Path

import pytest
from conftest import hello, write_vector
from hypothesis import Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants
from streamroute.conformance.cli import main
from streamroute.conformance.drivers import Driver, Shard, case_bytes, without_local_constants
from streamroute.conformance.fuzz import (
    Generated,
    Sources,
    claimed,
    draw_streams,
    first_failure,
    fuzz,
    vector_data,
)
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.lint import lint
from streamroute.conformance.protocol import ProtocolImplementation
from streamroute.conformance.results import Status
from streamroute.conformance.strategies import (
    CANONICAL_POINT,
    CATALOGUE_CALL_TYPES,
    PROFILES,
    CatalogueStream,
    GeneratedStream,
    Outcome,
    ToolCallPoint,
    expected_outcomes,
    truth,
)
from streamroute.conformance.strategies.choices import Decoded, Overrun, Seeded
from streamroute.conformance.vector_files import write_vector as save_vector
from streamroute.conformance.vectors import Vector, load_vectors

# Hundreds of generated streams and several shrinking runs: once, in `tox -e slow`.
pytestmark = pytest.mark.slow

REFERENCE = "streamroute.reference.adapter:router"
ARGUMENTS_DONE = "streamroute.reference.adapter:arguments_done_router"

# Each broken implementation, and what its shrunk failure shows with seed 0.
BROKEN = {
    "broken_routers:EarlyCall": "got tool.call get_weather",
    "broken_routers:TextMix": "text.delta for fc_0 part 0, which has no answer text",
    "broken_routers:RaiseOnUnknown": "raised ValueError: unknown event type",
    "broken_routers:InvalidOutcome": "is not valid against the outcome schema",
    "broken_routers:NotAList": "errored: close() answered not an iterable of outcomes",
    # custom-tools: custom tools with the catalogue's consumers
    "broken_routers:IgnoresCallIdFilter": "got diff.update",
    "broken_routers:BuildsCallFromBuffer": "expected tool.call run_sql",
    "broken_routers:FinishAfterCall": "expected kind diff.finish, got tool.call",
    # sse: the stream as bytes, cut anywhere
    "broken_decoders:IgnoresCr": "expected one end 'completed', last; got ['truncated']",
    "broken_decoders:DoesNotKnowDone": "expected kind end, got error",
    # execution: declared tools and control steps
    "broken_executors:NoApproval": "field 'requires_approval': expected true, got false",
    # catalogue calls, for an implementation that declares their call types
    "mutants.core:catalogue_status_ignored": "expected kind tool.error, got tool.call",
    # sessions
    "mutants.session:OneLane": "field 'stream_id'",
}
# The most events a failure shrinks to: a session that tells lanes apart has two lanes of a turn
# each, and its shrinking, with more to remove, stops at the same budget; so does a stream of two
# custom calls, one naming the other's call id, each with its parts.
SHRUNK_TO = {"mutants.session:OneLane": 32, "broken_routers:IgnoresCallIdFilter": 20}


def _saved(root: Path) -> Vector:
    count, problems = lint([root], check_coverage=False)
    assert (count, problems) == (1, [])
    vectors, errors = load_vectors([root])
    assert not errors
    return vectors[0]


@pytest.mark.parametrize("target", sorted(BROKEN))
def test_fuzzing_a_broken_implementation_saves_a_vector_that_fails_it_and_passes_the_reference(
    target: str, tmp_path: Path
) -> None:
    broken = PythonImplementation.load(target)
    result = fuzz(broken, examples=300, seed=0, save_to=tmp_path)
    assert result.failure is not None, f"{target}: no failure in {result.examples} streams"
    assert BROKEN[target] in result.failure.message
    assert len(result.failure.stream.events) <= SHRUNK_TO.get(target, 15)
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


def test_without_shrinking_the_fuzzer_stops_at_the_first_drawn_stream_that_fails() -> None:
    broken = PythonImplementation.load("broken_routers:TextMix")
    result = fuzz(broken, examples=200, seed=3, shrink=False)
    drawn = draw_streams(claimed(broken), 200, seed=3)
    found = first_failure(broken, drawn)
    assert result.failure is not None
    assert found is not None
    assert result.examples == found[0] + 1
    assert result.failure.vector == vector_data(
        drawn[found[0]].generated, description=result.failure.vector["description"]
    )


def test_catalogue_calls_are_drawn_of_the_call_types_an_implementation_declares() -> None:
    reference = PythonImplementation.load(REFERENCE)
    assert claimed(reference).call_types == CATALOGUE_CALL_TYPES
    assert claimed(reference).session
    options = {**reference.options, "call_types": ["function", "custom", "shell", "mcp_approval"]}
    some = dataclasses.replace(reference, options=options)
    assert claimed(some).call_types == ("shell", "mcp_approval")
    drawn = draw_streams(claimed(some), 60, seed=5)
    catalogue = [case.generated for case in drawn if isinstance(case.generated.drawn, CatalogueStream)]
    assert catalogue
    assert {tool["type"] for case in catalogue for tool in case.tools} <= {"shell", "mcp_approval"}
    function_only = dataclasses.replace(
        reference, options={**reference.options, "call_types": ["function", "custom"]}
    )
    assert claimed(function_only).call_types == ()


SOURCES = [
    *(Sources((profile,), (), False) for profile in PROFILES),
    Sources((), CATALOGUE_CALL_TYPES, False),
    Sources((), (), True),
]


@pytest.mark.parametrize("sources", SOURCES, ids=[*PROFILES, "catalogue", "session"])
def test_a_generated_case_of_every_source_saves_as_a_vector_lint_accepts(
    sources: Sources, tmp_path: Path
) -> None:
    for case in draw_streams(sources, 4, seed=7):
        for point in ("output_item_done", "arguments_done"):
            data = vector_data(case.generated, point)
            root = tmp_path / point / data["id"].replace("/", "_")
            vector = Vector(save_vector(data, root), data)
            assert lint([root], check_coverage=False) == (1, [])
            reference = PythonImplementation.load(ARGUMENTS_DONE if point == "arguments_done" else REFERENCE)
            assert run_vector(reference, vector).status is Status.PASSED


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
    result.stdout.fnmatch_lines(["*a generated stream failed*", "*text.delta for fc_*"])


def test_a_campaign_over_two_workers_replays_on_each_a_fault_only_one_of_them_draws(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault in one stream that only shard 0 of seed 5 draws: alone, that shard fails and the
    other passes; over two workers sharing a database, the other worker replays it and fails too."""
    core = Sources(("core",), (), False)
    planted = next(
        case.generated
        for case in draw_streams(core, 20, seed=5, shard=Shard(0, 2))
        if len(case.generated.events) >= 8
        and case.generated.truths["output_item_done"][-1]["status"] == "completed"
    )
    assert planted.digest not in {
        case.generated.digest for case in draw_streams(core, 1500, seed=5, shard=Shard(1, 2))
    }
    monkeypatch.setenv("STREAMROUTE_PLANTED", planted.digest)
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))
    campaign = [
        "-p",
        "xdist",
        "-k",
        "streamroute-fuzz",
        "--streamroute-adapter",
        "broken_routers:OneStreamWrong",
    ]
    campaign += [
        "--streamroute-fuzz",
        "3000",
        "--streamroute-fuzz-shards",
        "2",
        "--streamroute-fuzz-seed",
        "5",
    ]
    alone = pytester.runpytest_subprocess(*campaign, "-n", "0")
    alone.assert_outcomes(failed=1, passed=1)
    database = tmp_path / "database"
    together = pytester.runpytest_subprocess(
        *campaign, "-n", "2", "--streamroute-fuzz-database", str(database)
    )
    together.assert_outcomes(failed=2)
    together.stdout.fnmatch_lines(["*replayed from the database*", "*expected one end 'completed'*"])


def test_the_drawn_streams_do_not_depend_on_the_constants_hypothesis_collects_from_local_modules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hypothesis's own provider draws constants from the source of the modules it deems local
    (this tree's in an editable install, none of it in an installed copy): with other local
    constants it draws other values, but a seed's generated streams, drawn from bytes, are the
    same, so an editable install and an installed copy draw the same streams for one seed."""
    sources = Sources(PROFILES, CATALOGUE_CALL_TYPES, True)
    planted = Constants(integers=set(range(-3, 3000)))

    def values() -> list[int]:
        drawn: list[int] = []

        @settings(max_examples=60, database=None, phases=[Phase.generate])
        @given(st.integers(0, 5000))
        def collect(value: int) -> None:
            drawn.append(value)

        hypothesis_seed(3)(collect)()
        return drawn

    before = values(), [case.generated.digest for case in draw_streams(sources, 60, seed=3)]
    monkeypatch.setattr(providers, "_get_local_constants", lambda: planted)
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        after = values(), [case.generated.digest for case in draw_streams(sources, 60, seed=3)]
        with without_local_constants():
            assert not providers._get_local_constants()  # replaying and shrinking set them aside too
    finally:
        providers.CONSTANTS_CACHE.cache.clear()
    assert after[0] != before[0]  # Hypothesis's provider draws them
    assert after[1] == before[1]  # the streams do not


def _drawn(cases: list[Generated], case: Generated) -> bool:
    cases.append(case)
    return False  # it passes: nothing is kept


def test_the_bytes_of_a_case_draw_it_the_same_without_hypothesis_as_through_it() -> None:
    """The fuzzer draws each case from its bytes as Hypothesis's `fuzz_one_input` would, without
    Hypothesis; it hands those bytes to Hypothesis only to keep and shrink a failing case."""
    sources = Sources(PROFILES, CATALOGUE_CALL_TYPES, True)
    for (name, generate), (_, strategy) in zip(sources.generators(), sources.strategies(), strict=True):
        through: list[Generated] = []
        driver = Driver(strategy, functools.partial(_drawn, through), InMemoryExampleDatabase())
        drawn = 0
        for index in range(40):
            data = case_bytes(11, index)
            through.clear()
            try:
                without = generate(Decoded(data))
            except Overrun:
                without = None
            assert not driver.keep(data)
            assert len(through) == (without is not None), f"{name}: case {index}"
            if without is not None:
                drawn += 1
                assert through[0].digest == without.digest, f"{name}: case {index}"
        assert drawn >= 30, name


def test_a_seeded_source_takes_each_decision_as_its_integers_decide_it() -> None:
    """Seeded writes `pick`, `integer`, `chance` and `coin` out for speed: each decides what the
    general one built on `below` decides, so a seed draws what it drew before."""
    for seed in range(300):
        fast, plain = Seeded(seed), Seeded(seed)
        for n in (1, 2, 3, 7, 1000, 1 << 32):
            assert fast.pick(range(n)) == range(n)[plain.below(n)]
            assert fast.integer(-3, n) == -3 + plain.below(n + 4)
            assert fast.chance(n) == (plain.below(n) == n - 1)
            assert fast.coin() == (plain.below(2) == 1)


@pytest.mark.parametrize(
    ("adapter", "point"), [(REFERENCE, CANONICAL_POINT), (ARGUMENTS_DONE, "arguments_done")]
)
def test_a_run_works_out_the_ground_truth_at_its_own_point_and_the_canonical_one_alone(
    adapter: str, point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The outcome model runs for the tool call point a run judges at (and the canonical one, which
    its vector compares with), never for the others: a count of the model's runs, point by point."""
    worked_out: list[str] = []

    def counted(stream: GeneratedStream, tool_call_point: ToolCallPoint = CANONICAL_POINT) -> list[Outcome]:
        worked_out.append(tool_call_point)
        return expected_outcomes(stream, tool_call_point)

    monkeypatch.setattr(truth, "expected_outcomes", counted)
    drawn = draw_streams(Sources(("core",), (), False), 40, seed=2)
    assert first_failure(PythonImplementation.load(adapter), drawn) is None
    assert set(worked_out) == {CANONICAL_POINT, point}
    assert worked_out.count(CANONICAL_POINT) == len(drawn)
