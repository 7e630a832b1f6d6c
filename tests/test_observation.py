"""Implementations whose API shows only some outcome kinds and fields (spec/observation.md): the
table says what each requirement is observed through, a correct router passes whatever it declares,
a fault it can show still fails, and one it cannot show passes unseen and is reported not observable."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from broken_routers import EarlyCall
from conftest import hello, write_vector
from hypothesis import given, settings
from hypothesis import strategies as st
from streamroute.conformance.cli import main
from streamroute.conformance.implementation import (
    AdapterLoadError,
    PythonImplementation,
    declared_observes,
    described,
)
from streamroute.conformance.judge import run_vector
from streamroute.conformance.observation import (
    ObservationTableError,
    Observes,
    call_input_fields,
    observed_through,
    outcome_fields,
    read_table,
)
from streamroute.conformance.protocol import ProtocolImplementation
from streamroute.conformance.report import Report, report_of
from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.results import Result, Status
from streamroute.conformance.schemas import SPEC_DIR
from streamroute.conformance.suite import Suite, run_suite
from streamroute.conformance.vectors import Vector, load_vectors
from streamroute.matrix.page import render_page
from streamroute.matrix.run import Entry, Requirements, load_matrix, render
from streamroute.reference import Outcome, Router

pytest_plugins = ["pytester"]

ADAPTERS = Path(__file__).parent / "protocol_adapters"
REFERENCE = "streamroute.reference.adapter:"
# What a high-level library typically shows: the answer's text, the calls it runs, how it ended.
LIBRARY: dict[str, list[str]] = {
    "text.delta": ["delta"],
    "text.done": ["text"],
    "tool.call": ["name", "tool_type", "arguments"],
    "end": ["status"],
}


def _profile_requirements() -> set[str]:
    found, problems = read_requirements(SPEC_DIR)
    assert not problems
    return {r.id for r in found.values() if r.source.stem in ("core", "custom-tools")}


def test_every_requirement_of_core_and_custom_tools_has_one_row_and_no_row_another() -> None:
    assert set(observed_through()) == _profile_requirements()


def test_each_kind_and_field_of_a_row_is_stated_by_a_vector_citing_it_or_its_absence_is_noted(
    bundled: list[Vector],
) -> None:
    stated: dict[str, dict[str, set[str]]] = {}  # requirement -> kind -> the fields its vectors state
    for vector in bundled:
        for requirement in vector.spec:
            for outcome in vector.expected:
                stated.setdefault(requirement, {}).setdefault(outcome["kind"], set()).update(outcome)
    unstated = [
        f"{row.requirement}: {kind} {sorted(names)}"
        for row in observed_through().values()
        if row.requirement in stated and not row.note
        for kind, names in row.shown.items()
        if kind not in stated[row.requirement] or names - stated[row.requirement][kind]
    ]
    assert not unstated
    for row in observed_through().values():  # a note explains a kind no citing vector expects
        assert not row.note or set(row.shown) - set(stated.get(row.requirement, {})), row.requirement


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("| CORE-X-1 | `text.delta`: delta | |\n| CORE-X-1 | `end`: status | |", "CORE-X-1 has a second row"),
        ("| CORE-X-1 | `text.deltas`: delta | |", "'text.deltas' is not an outcome kind"),
        ("| CORE-X-1 | `text.delta`: delta; `text.delta`: item_id | |", "named twice"),
        ("| CORE-X-1 | `text.delta`: deltas | |", "text.delta names deltas: not outcome fields"),
        ("| CORE-X-1 | text.delta: delta | |", "'text.delta: delta' is not `kind` (codes): field, field"),
        ("| CORE-X-1 | `end` (router): status | |", "only `error` (by family) and `tool.error` name codes"),
        ("| CORE-X-1 | `error` (incomplete): code | |", "`error` names incomplete: not families"),
    ],
)
def test_a_bad_row_is_named_by_its_file_and_line(tmp_path: Path, row: str, problem: str) -> None:
    table = tmp_path / "observation.md"
    table.write_text(
        f"# t\n\n| requirement | observed through | note |\n|---|---|---|\n{row}\n", encoding="utf-8"
    )
    with pytest.raises(ObservationTableError, match=f"^{re.escape(str(table))}:[56]: .*{re.escape(problem)}"):
        read_table(table)


def _declaring(adapter: str, observes: Mapping[str, list[str]], **options: str) -> PythonImplementation:
    implementation = PythonImplementation.load(REFERENCE + adapter)
    return dataclasses.replace(
        implementation, options={**implementation.options, **options}, observes=dict(observes)
    )


@pytest.mark.parametrize(
    ("adapter", "options", "observes"),
    [
        ("router", {}, LIBRARY),
        pytest.param(
            "router",
            {},
            {
                "tool.arguments.delta": ["delta"],
                "tool.call": ["call_id", "name", "tool_type", "arguments", "input"],
                "tool.error": ["code"],
                "error": ["code"],
            },
            marks=pytest.mark.slow,
        ),
        # A refused text becomes the tool.error it makes before the projection drops that kind.
        pytest.param(
            "json_text_router",
            {},
            {"tool.call": ["item_id", "tool_type", "arguments"], "text.delta": ["delta"]},
            marks=pytest.mark.slow,
        ),
        # Outcomes move to the canonical point by the item they name before the projection drops item_id.
        pytest.param(
            "arguments_done_router",
            {},
            {
                "tool.call": ["call_id", "name", "tool_type", "arguments"],
                "error": ["code", "item_id", "call_id"],
            },
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "router",
            {"response_id": "rewritten"},
            {"lifecycle": ["event", "response_id"], "error": ["code"]},
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_correct_router_passes_every_vector_applicable_under_what_it_declares(
    bundled: list[Vector], adapter: str, options: dict[str, str], observes: dict[str, list[str]]
) -> None:
    implementation = _declaring(adapter, observes, **options)
    results = [run_vector(implementation, vector) for vector in bundled]
    failures = [f"{r.vector_id}: {r.message}" for r in results if r.status.is_failure]
    assert not failures, "\n".join(failures)
    assert [r for r in results if r.status is Status.PASSED]
    unseen = [r for r in results if r.status is Status.NOT_APPLICABLE and r.observed == ()]
    assert all("compares none of the kinds" in r.message for r in unseen)


ROUTER_KINDS = sorted(
    {kind for row in observed_through().values() for kind in row.shown} | {"lifecycle", "ignored"}
)


@st.composite
def declarations(draw: st.DrawFn) -> dict[str, list[str]]:
    """Any valid declaration of the kinds a router produces, each with any of the outcome fields."""
    fields = sorted(outcome_fields())
    kinds = draw(st.lists(st.sampled_from(ROUTER_KINDS), unique=True))
    declared = {kind: draw(st.lists(st.sampled_from(fields), unique=True)) for kind in kinds}
    if set(declared.get("tool.call", ())) & call_input_fields():
        declared["tool.call"] = sorted({*declared["tool.call"], "tool_type"})
    return declared


@settings(max_examples=8)
@given(observes=declarations())
def test_whatever_it_declares_a_correct_router_fails_no_vector(
    bundled: list[Vector], observes: dict[str, list[str]]
) -> None:
    implementation = _declaring("router", observes)
    results = [run_vector(implementation, vector) for vector in bundled[::5]]
    assert not [f"{r.vector_id}: {r.message}" for r in results if r.status.is_failure]


def test_a_vector_none_of_whose_outcomes_is_shown_is_not_applicable_naming_what_is_not_shown(
    tmp_path: Path,
) -> None:
    write_vector(tmp_path, hello(expect={**hello()["expect"], "compare": ["text.delta", "end"]}))
    [vector], _ = load_vectors([tmp_path])
    result = run_vector(_declaring("router", {"tool.call": ["call_id"]}), vector)
    assert result.status is Status.NOT_APPLICABLE
    assert result.observed == ()
    assert result.message.endswith("shows: CORE-TEXT-1 needs text.delta; CORE-LIFE-5 needs end")


def test_a_vector_is_judged_on_every_outcome_shown_whatever_it_cites(tmp_path: Path) -> None:
    """spec/observation.md section 2: a vector whose cited requirements are not observable is still
    judged on the outcomes the API shows, so a fault it shows fails; its passing counts toward no
    requirement."""
    wrong = hello()
    wrong["expect"]["outcomes"][1]["delta"] = "Goodbye"
    write_vector(tmp_path, wrong)
    [vector], _ = load_vectors([tmp_path])
    shows_delta_text = _declaring("router", {"text.delta": ["delta"], "lifecycle": ["event"]})
    result = run_vector(shows_delta_text, vector)
    assert (result.status, result.observed, result.charged) == (Status.FAILED, (), ("CORE-TEXT-1",))
    right = run_vector(shows_delta_text, load_vectors([_written(tmp_path / "right", hello())])[0][0])
    assert (right.status, right.observed) == (Status.PASSED, ())


def _written(root: Path, data: dict[str, Any]) -> Path:
    write_vector(root, data)
    return root


class _Changed:
    """The reference router with each outcome changed by `change` (None drops it)."""

    change: Callable[[Outcome], Outcome | None]

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.router = Router()

    def _changed(self, outcomes: list[Outcome]) -> list[Outcome]:
        return [changed for outcome in outcomes if (changed := type(self).change(outcome)) is not None]

    def feed(self, event: Any) -> list[Outcome]:
        return self._changed(self.router.feed(event))

    def close(self) -> list[Outcome]:
        return self._changed(self.router.close())


class DropsIgnored(_Changed):
    """Never says an event was ignored (CORE-EVT-3, -4, -5)."""

    @staticmethod
    def change(outcome: Outcome) -> Outcome | None:
        return None if outcome["kind"] == "ignored" else outcome


class NoOutputIndex(_Changed):
    """Text deltas without their output_index, which the schema requires (CORE-ITEM-15)."""

    @staticmethod
    def change(outcome: Outcome) -> Outcome | None:
        return (
            {k: v for k, v in outcome.items() if k != "output_index"}
            if outcome["kind"] == "text.delta"
            else outcome
        )


class ArgumentsAsText(_Changed):
    """Shows argument deltas as answer text (CORE-TEXT-3)."""

    @staticmethod
    def change(outcome: Outcome) -> Outcome | None:
        if outcome["kind"] != "tool.arguments.delta":
            return outcome
        return {
            "kind": "text.delta",
            "item_id": outcome["item_id"],
            "output_index": 0,
            "content_index": 0,
            "delta": outcome["delta"],
        }


class RefusalAsText(_Changed):
    """Shows refusal text as answer text, as an API without a refusal channel may (CORE-TEXT-3)."""

    @staticmethod
    def change(outcome: Outcome) -> Outcome | None:
        if outcome["kind"] != "refusal.delta":
            return outcome
        shown = {"item_id": outcome["item_id"], "output_index": 0, "content_index": outcome["content_index"]}
        return {"kind": "text.delta", **shown, "delta": outcome["delta"]}


@pytest.mark.parametrize(
    "observes",
    [
        None,
        {"text.delta": ["delta"]},  # no refusal channel: refusal.delta is not shown
        {"text.delta": ["item_id", "delta"], "lifecycle": ["event"], "end": ["status"]},
    ],
)
def test_a_refusal_shown_as_answer_text_fails_whatever_is_declared(
    bundled: list[Vector], observes: dict[str, list[str]] | None
) -> None:
    """spec/observation.md section 2: the vector is judged on every outcome the API shows."""
    [vector] = [v for v in bundled if v.id == "core/text/refusal-channel"]
    result = run_vector(_broken(RefusalAsText, observes), vector)
    assert result.status is Status.FAILED, result.message
    assert result.charged == ("CORE-TEXT-3",)


def _report(implementation: PythonImplementation, vectors: list[Vector]) -> Report:
    suite = Suite(implementation, vectors, [], None, 0, [])
    return report_of(suite, run_suite(suite))


def _broken(router: type, observes: dict[str, list[str]] | None) -> PythonImplementation:
    return PythonImplementation(
        router.__name__,
        router,
        frozenset({"core"}),
        PythonImplementation.load(REFERENCE + "router").options,
        observes=observes,
    )


WITHOUT_IGNORED = {
    "text.delta": ["item_id", "content_index", "delta"],
    "text.done": ["item_id", "content_index", "text"],
    "tool.arguments.delta": ["item_id", "delta"],
    "tool.call": ["item_id", "call_id", "name", "tool_type", "arguments"],
    "lifecycle": ["event", "response_id"],
    "error": ["code"],
    "end": ["status"],
}


@pytest.mark.parametrize(
    ("router", "breaks"),
    [
        pytest.param(DropsIgnored, {"CORE-EVT-3", "CORE-EVT-4", "CORE-EVT-5"}, marks=pytest.mark.slow),
        (NoOutputIndex, {"CORE-ITEM-15"}),
    ],
)
def test_a_fault_the_api_cannot_show_passes_and_its_requirements_are_not_observable(
    bundled: list[Vector], router: type, breaks: set[str]
) -> None:
    core = [v for v in bundled if v.profile == "core" and not v.options]
    shown = _report(_broken(router, WITHOUT_IGNORED), core)
    assert not [v["id"] for v in shown.vectors if Status(v["status"]).is_failure]
    requirements = Requirements.bundled()
    assert breaks <= requirements.unobservable(shown)
    assert not breaks & set(requirements.verdicts(shown))
    everything = _report(_broken(router, None), core)  # the fault is real: seen, it fails
    assert {r for r, verdict in requirements.verdicts(everything).items() if not verdict} >= breaks


class SilentAtTheEnd(_Changed):
    """Says nothing of a call still open when the response ends (CORE-CALL-6), as an API whose only
    notice of the end is the terminal event."""

    @staticmethod
    def change(outcome: Outcome) -> Outcome | None:
        return None if outcome["kind"] == "tool.error" and outcome["code"] == "incomplete" else outcome


class RunsCallsCutOff(_Changed):
    """Hands over a call still open when the response ends as a call to run, its arguments as they are."""

    @staticmethod
    def change(outcome: Outcome) -> Outcome | None:
        if outcome["kind"] != "tool.error" or outcome["code"] != "incomplete":
            return outcome
        call = {"item_id": outcome["item_id"], "call_id": outcome.get("call_id"), "name": "cut"}
        return {"kind": "tool.call", **call, "tool_type": "function", "arguments": {}}


# An API that refuses calls whose arguments do not parse, and has no notice of a call cut off.
REFUSES_TEXTS = {
    **WITHOUT_IGNORED,
    "tool.error": {"fields": ["item_id", "call_id", "code"], "codes": ["invalid_json", "invalid_arguments"]},
}


class DropsRefusals(_Changed):
    """Never refuses a call's text: the refusal of arguments that do not parse is dropped (CORE-CALL-3)."""

    @staticmethod
    def change(outcome: Outcome) -> Outcome | None:
        return None if outcome["kind"] == "tool.error" and outcome["code"] == "invalid_json" else outcome


def observable_by(observes: Mapping[str, Any]) -> tuple[str, ...]:
    """The requirements of the observation table that a declaration makes observable."""
    return Observes.of(observes).observable(observed_through())


def test_a_code_of_tool_error_the_api_cannot_show_is_not_charged_but_a_call_it_runs_is(
    bundled: list[Vector],
) -> None:
    """spec/observation.md section 1: a `tool.error` of a code not shown is dropped on both sides, so
    the requirement observed through it is not observable; a `tool.call` made instead fails, and a
    refusal of a code shown is judged."""
    vectors = {v.id: v for v in bundled}
    cut = vectors["core/lifecycle/failed-during-function-call"]
    silent = run_vector(_broken(SilentAtTheEnd, REFUSES_TEXTS), cut)
    assert silent.status is Status.PASSED, silent.message
    assert "CORE-CALL-6" not in silent.observed
    assert run_vector(_broken(SilentAtTheEnd, None), cut).charged == ("CORE-CALL-6",)
    runs = run_vector(_broken(RunsCallsCutOff, REFUSES_TEXTS), cut)
    assert runs.status is Status.FAILED, runs.message
    shown = _broken(DropsRefusals, REFUSES_TEXTS)
    assert run_vector(shown, vectors["core/calls/invalid-json"]).status is Status.FAILED
    assert {"CORE-CALL-3", "CORE-CALL-15"} <= set(observable_by(REFUSES_TEXTS))
    assert not {"CORE-CALL-6", "CORE-CALL-1", "CORE-CALL-7"} & set(observable_by(REFUSES_TEXTS))


# An API that tells a call was refused, not why, and has no notice of a call cut off (pydantic-ai).
REFUSES_WITHOUT_CODES = {
    **WITHOUT_IGNORED,
    "tool.error": {"fields": ["item_id", "call_id"], "codes": ["invalid_json", "too_deep"]},
}


class Codeless(_Changed):
    """Refuses as the reference does, but hands each refusal over without its code."""

    @staticmethod
    def change(outcome: Outcome) -> Outcome | None:
        if outcome["kind"] != "tool.error":
            return outcome
        return None if outcome["code"] == "incomplete" else {k: v for k, v in outcome.items() if k != "code"}


class CodelessRefusesEveryCall(Codeless):
    """Hands over every call as a refusal without a code: refusals where the vector expects calls."""

    @staticmethod
    def change(outcome: Outcome) -> Outcome | None:
        if outcome["kind"] == "tool.call":
            return {"kind": "tool.error", "item_id": outcome["item_id"], "call_id": outcome["call_id"]}
        return Codeless.change(outcome)


def test_refusals_shown_without_their_codes_are_judged_and_a_cut_off_call_is_not(
    bundled: list[Vector],
) -> None:
    """spec/observation.md section 1: an API whose refusals carry no code names the codes they can
    be; an expected `tool.error` of such a code is compared with the code-less one produced, one of
    another code is not shown, and a refusal where a call is expected fails."""
    vectors = {v.id: v for v in bundled}
    refused = run_vector(_broken(Codeless, REFUSES_WITHOUT_CODES), vectors["core/calls/invalid-json"])
    assert refused.status is Status.PASSED, refused.message
    cut = run_vector(
        _broken(Codeless, REFUSES_WITHOUT_CODES), vectors["core/lifecycle/failed-during-function-call"]
    )
    assert cut.status is Status.PASSED, cut.message
    assert "CORE-CALL-6" not in cut.observed
    assert run_vector(_broken(Codeless, None), vectors["core/calls/invalid-json"]).status is Status.FAILED
    dropped = run_vector(_broken(DropsRefusals, REFUSES_WITHOUT_CODES), vectors["core/calls/invalid-json"])
    assert dropped.status is Status.FAILED, dropped.message
    refuses = run_vector(
        _broken(CodelessRefusesEveryCall, REFUSES_WITHOUT_CODES), vectors["core/text/plain-answer"]
    )
    assert refuses.status is Status.PASSED  # no call in it: nothing to refuse
    calls = run_vector(
        _broken(CodelessRefusesEveryCall, REFUSES_WITHOUT_CODES), vectors["core/args/parallel-interleaved"]
    )
    assert calls.status is Status.FAILED, calls.message
    assert not {"CORE-CALL-3", "CORE-CALL-6"} & set(observable_by(REFUSES_WITHOUT_CODES))


def test_the_matrix_shows_a_requirement_no_vector_could_show_as_not_observable(
    bundled: list[Vector], tmp_path: Path
) -> None:
    vectors = [v for v in bundled if v.id == "core/events/unknown-event-type"]
    assert "CORE-EVT-3" in vectors[0].spec
    reports = [
        (Entry("declared", "x", "c", "e"), _report(_broken(DropsIgnored, WITHOUT_IGNORED), vectors)),
        (
            Entry("reference", "x", "c", "e"),
            _report(PythonImplementation.load(REFERENCE + "router"), vectors),
        ),
    ]
    (tmp_path / "matrix.yaml").write_text("implementations: []\n", encoding="utf-8")
    matrix = load_matrix(tmp_path / "matrix.yaml")
    text = render(matrix, reports, "r", {}, Requirements.bundled())
    assert "| CORE-EVT-3 | MUST | not observable | pass |" in text
    assert "| CORE-TEXT-3 | MUST | pass | pass |" in text
    page = render_page(matrix, reports, "r", Requirements.bundled())
    assert (
        'data-implementation="declared" data-requirement="CORE-EVT-3" data-verdict="not observable"' in page
    )
    assert 'data-implementation="reference" data-requirement="CORE-EVT-3" data-verdict="pass"' in page


# ArgumentsAsText shows argument deltas as answer text: what it breaks is CORE-TEXT-3, seen all the
# same by a library that shows no argument deltas, and each failure charges it (spec/attribution.md).
@pytest.mark.parametrize(("router", "fails"), [(EarlyCall, "CORE-CALL-2"), (ArgumentsAsText, "CORE-TEXT-3")])
def test_a_fault_the_api_shows_still_fails(bundled: list[Vector], router: type, fails: str) -> None:
    core = [v for v in bundled if v.profile == "core" and not v.options]
    report = _report(_broken(router, LIBRARY), core)
    assert Requirements.bundled().verdicts(report)[fails] is False
    failed = [v for v in report.vectors if v["status"] == "failed"]
    assert "core/args/parallel-interleaved" in {v["id"] for v in failed}
    assert all(fails in v["charged"] for v in failed)


def test_what_is_shown_is_checked_against_the_schema_as_always(tmp_path: Path) -> None:
    write_vector(tmp_path, hello())
    [vector], _ = load_vectors([tmp_path])

    class Missing(_Changed):
        change = staticmethod(lambda o: {"kind": o["kind"]} if o["kind"] == "text.delta" else o)

    class Mistyped(_Changed):
        change = staticmethod(lambda o: {**o, "output_index": "0"} if o["kind"] == "text.delta" else o)

    observes = {"text.delta": ["item_id", "delta"]}
    missing = run_vector(_broken(Missing, observes), vector)
    assert missing.status is Status.FAILED
    assert "'item_id' is a required property" in missing.message
    mistyped = run_vector(_broken(Mistyped, observes), vector)  # a field not shown, but given wrong
    assert mistyped.status is Status.FAILED
    assert "'0' is not of type 'integer'" in mistyped.message


SHOWN = 'either a list of distinct values, each a text other than "kind"; or an object of fields, codes'


@pytest.mark.parametrize(
    ("observes", "problem"),
    [
        (
            ["text.delta"],
            "declares observes ['text.delta']; allowed: an object whose names are one of text.delta",
        ),
        ({"text.deltas": ["delta"]}, "declares kind 'text.deltas'; allowed: one of text.delta, text.done, "),
        (
            {"text.delta": ["kind"]},
            f"declares kind text.delta ['kind']; allowed: {SHOWN}; see spec/observation.md",
        ),
        (
            {"text.delta": ["delta", "delta"]},
            "declares kind text.delta ['delta', 'delta']; allowed: either a list",
        ),
        (
            {"text.delta": ["deltas"]},
            "declares an invalid `observes`: kind text.delta names deltas, which are not outcome fields; "
            "see spec/observation.md",
        ),
        ({"tool.call": ["arguments"]}, "declares an invalid `observes`: kind tool.call shows a call's input"),
        (
            {"error": {"fields": ["code"], "codes": ["incomplete"]}},
            "declares an invalid `observes`: kind error names incomplete: not families of codes",
        ),
        (
            {"error": {"fields": ["message"], "codes": ["producer"]}},
            "declares an invalid `observes`: kind error names the codes it shows, which only error (by "
            "family, with code among its fields) and tool.error do",
        ),
        (
            {"end": {"fields": ["status"], "codes": ["router"]}},
            "declares an invalid `observes`: kind end names the codes it shows",
        ),
    ],
)
def test_a_bad_declaration_is_a_usage_error_naming_the_adapter(observes: Any, problem: str) -> None:
    with pytest.raises(AdapterLoadError, match=f"^adapter 'x' {re.escape(problem)}"):
        declared_observes(observes, "adapter 'x'")


def _adapter_module(tmp_path: Path, name: str, observes: Any) -> None:
    (tmp_path / f"{name}.py").write_text(
        f"from streamroute.reference.adapter import router as _reference\n\n\n"
        f"class Adapter:\n    observes = {observes!r}\n\n"
        "    def __init__(self, tools):\n        self.router = _reference(tools)\n\n"
        "    def feed(self, event):\n        return self.router.feed(event)\n\n"
        "    def close(self):\n        return self.router.close()\n",
        encoding="utf-8",
    )


def test_a_bad_declaration_is_a_usage_error_through_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _adapter_module(tmp_path, "observes_badly", {"text.delta": ["deltas"]})
    assert main(["run", "--adapter", "observes_badly:Adapter"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert (
        "adapter 'observes_badly:Adapter' declares an invalid `observes`: kind text.delta names deltas" in err
    )


def _declares(observes: Any) -> str:
    return shlex.join([sys.executable, str(ADAPTERS / "declares_observes.py"), json.dumps(observes)])


def test_a_bad_declaration_is_a_usage_error_over_the_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(
        AdapterLoadError, match=r"declares an invalid `observes`: kind tool\.call shows a call's"
    ):
        ProtocolImplementation.start(_declares({"tool.call": ["input"]}), 5.0)
    assert main(["run", "--adapter-command", _declares({"end": ["kind"]})]) == 2
    assert "the adapter's start reply declares kind end ['kind']; allowed: " in capsys.readouterr().err


def test_a_declaration_over_the_protocol_is_shown_and_honoured(tmp_path: Path) -> None:
    write_vector(tmp_path, hello())
    vectors, _ = load_vectors([tmp_path])
    implementation = ProtocolImplementation.start(_declares({"lifecycle": []}), 5.0)
    try:
        assert implementation.info["observes"] == {"lifecycle": []}
        [result] = [run_vector(implementation, vector) for vector in vectors]
    finally:
        implementation.close()
    assert (result.status, result.observed) == (Status.PASSED, ())  # judged on its lifecycle outcomes


def test_the_report_shows_the_declaration_and_each_vectors_observed_requirements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _adapter_module(tmp_path, "observes_text", {"text.delta": ["item_id", "delta"]})
    write_vector(tmp_path / "mine", hello())
    report_path = tmp_path / "report.jsonl"
    arguments = [
        "run",
        "--adapter",
        "observes_text:Adapter",
        "--vectors",
        "mine",
        "--report",
        str(report_path),
    ]
    assert main(arguments) == 1  # CORE-LIFE-5 is not observable: the claim is partial
    out = capsys.readouterr().out
    assert "observes: text.delta (item_id delta)" in out
    assert "robustness: core partial (1 of 2 MUST requirements observed and passed)" in out
    assert main([*arguments, "--allow-partial", "core"]) == 0
    report = Report.load(report_path)  # valid against spec/report.schema.json
    assert report.header["implementation"]["observes"] == {"text.delta": ["item_id", "delta"]}
    [line] = report.vectors
    assert (line["status"], line["observed_requirements"]) == ("passed", ["CORE-TEXT-1"])
    [claim] = report.claims
    assert (claim["verdict"], claim["requirements"]) == ("partial", {"passed": 1, "not observable": 1})


def test_a_run_without_a_declaration_reports_no_observed_requirements(tmp_path: Path) -> None:
    write_vector(tmp_path, hello())
    [vector], _ = load_vectors([tmp_path])
    result: Result = run_vector(PythonImplementation.load(REFERENCE + "router"), vector)
    assert (result.status, result.observed) == (Status.PASSED, None)
    assert "observes" not in PythonImplementation.load(REFERENCE + "router").info


def test_the_pytest_plugin_honours_the_declaration(pytester: pytest.Pytester) -> None:
    _adapter_module(pytester.path, "observes_lifecycle", {"lifecycle": ["event", "response_id"]})
    root = pytester.path / "mine"
    write_vector(root, hello())
    judged = hello(id="core/judged", spec=["CORE-LIFE-1"])
    judged["expect"]["outcomes"][1]["delta"] = "a text the API does not show"
    write_vector(root, judged)
    options = ["--streamroute-adapter", "observes_lifecycle:Adapter", "--streamroute-vectors", str(root)]
    result = pytester.runpytest(*options, "-rs")
    result.assert_outcomes(passed=2)  # both judged on their lifecycle outcomes alone
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # and the claim is partial
    result.stdout.fnmatch_lines(["streamroute: core (robustness) is partial: *"])
    assert pytester.runpytest(*options, "--streamroute-allow-partial", "core").ret == pytest.ExitCode.OK


def test_the_run_header_names_the_codes_a_declaration_shows() -> None:
    info = {
        "name": "x",
        "language": "python",
        "version": "1",
        "profiles": ["core"],
        "observes": {
            "end": ["status"],
            "tool.error": {"fields": ["call_id"], "codes": ["invalid_json", "too_deep"]},
        },
    }
    assert "observes: end (status), tool.error (call_id; codes invalid_json too_deep)" in described(info)
