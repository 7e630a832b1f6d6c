"""The differential mode: generated cases against any implementation, judged by their ground truth.

`fuzz(implementation, examples)` draws cases from every source the
implementation's declarations reach (`claimed`): `strategies.streams()` for
each profile it declares (`core` events; `custom-tools` streams whose custom
tools have catalogue consumers; `execution` streams with declared tools and
control steps; `sse` streams as bytes, cut anywhere);
`strategies.catalogue_streams()` of the catalogue call types its option
`call_types` declares (spec/core.md section 5.1); and
`strategies.sessions()` when it declares `session`. Each case
(`Generated`) becomes an in-memory vector whose expected outcomes are its
ground truth at the tool call point the implementation declares, and runs
through the same judge as the YAML vectors (`judge.run_vector`: schema
check of every outcome, the canonical tool call point, the
outcome-by-outcome comparison, every cut of an sse stream). For a planned
stream it also checks the ground-truth properties
(`strategies.check_properties`), which say in words what went wrong. At the
first failure Hypothesis shrinks the case to a minimal one; `write_vector`
saves that as a ready YAML vector file, which `streamroute lint` accepts and
the run command replays. The cases are drawn from seeded bytes and shrunk
through Hypothesis's example database (drivers.py); a database several
processes share makes a campaign (`database`, `shard`).

To measure rather than to report, `fuzz(..., shrink=False)` stops at the
first failure as it is; it is `first_failure(implementation,
draw_streams(claimed(implementation), examples, seed))`, and the cases of one
seed can be drawn once and judged against many implementations that declare
the same.
"""

from __future__ import annotations

import base64
import functools
import gc
import hashlib
import itertools
import json
import random
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.database import ExampleDatabase, InMemoryExampleDatabase

from .drivers import WHOLE, Driver, Namespaced, Shard, case_bytes
from .implementation import (
    AdapterFailure,
    AdapterSkipped,
    Implementation,
    Produced,
    Streamed,
)
from .judge import run_vector
from .lint import producer_faults
from .progress import Progress
from .render import comparison_lines
from .results import Status
from .schemas import option_defaults
from .strategies import (
    CANONICAL_POINT,
    CATALOGUE_CALL_TYPES,
    POINT_REQUIREMENTS,
    POINTS,
    PROFILES,
    CatalogueStream,
    GeneratedSession,
    GeneratedStream,
    Outcome,
    Profile,
    ToolCallPoint,
    Truths,
    Wire,
    catalogue_stream,
    check_properties,
    cited,
    session,
    spec_ids,
    stream,
)
from .strategies.choices import Choices, Decoded, Drawn, Overrun
from .vector_files import write_vector
from .vectors import Vector

FUZZ_PREFIX = "fuzz"


class _Recording:
    """An implementation that remembers the outcomes of its last run."""

    def __init__(self, implementation: Implementation) -> None:
        self.implementation = implementation
        self.last: list[Produced] | None = None

    @property
    def name(self) -> str:
        return self.implementation.name

    @property
    def profiles(self) -> frozenset[str]:
        return self.implementation.profiles

    @property
    def options(self) -> dict[str, Any]:
        return self.implementation.options

    @property
    def info(self) -> dict[str, Any]:
        return self.implementation.info

    def produce(self, vector: Vector) -> list[Produced]:
        self.last = None
        self.last = self.implementation.produce(vector)
        return self.last

    def produce_stream(self, vector: Vector, chunks: Sequence[bytes]) -> Streamed:
        self.last = None
        streamed = self.implementation.produce_stream(vector, chunks)
        self.last = streamed.produced
        return streamed

    def close(self) -> None:
        self.implementation.close()


def tool_call_point(implementation: Implementation) -> ToolCallPoint:
    """The tool call point the implementation declares; the canonical one when it declares none."""
    canonical: ToolCallPoint = option_defaults()["tool_call_point"]
    declared = implementation.options.get("tool_call_point", canonical)
    return next((point for point in POINTS if point == declared), canonical)


@dataclass(frozen=True)
class Sources:
    """What generated cases are drawn from for an implementation, by what it declares: the same
    for implementations that declare the same."""

    profiles: tuple[Profile, ...]  # `strategies.streams` of each profile
    call_types: tuple[str, ...]  # catalogue calls of these types (`strategies.catalogue_streams`)
    session: bool  # generated sessions (`strategies.sessions`)

    def generators(self, max_items: int = 5) -> list[tuple[str, Generator]]:
        """Each source's name and generator, in turn."""
        found: list[tuple[str, Generator]] = [
            (profile, functools.partial(_of_stream, profile=profile, max_items=max_items))
            for profile in self.profiles
        ]
        if self.call_types:
            calls = functools.partial(_of_catalogue, max_calls=max(max_items, 1), call_types=self.call_types)
            found.append(("catalogue", calls))
        if self.session:
            found.append(("session", _of_session))
        return found

    def strategies(self, max_items: int = 5) -> list[tuple[str, st.SearchStrategy[Generated]]]:
        """Each source's name and its generator as a Hypothesis strategy, in turn."""
        return [(name, _strategy(generate)) for name, generate in self.generators(max_items)]


Generator = Callable[[Choices], "Generated | None"]  # a case of one source; None: its decisions draw none


def _strategy(generate: Generator) -> st.SearchStrategy[Generated]:
    """The cases of `generate` as Hypothesis draws them: the decisions one case takes, drawn one by
    one (strategies/choices.py)."""

    @st.composite
    def drawn(draw: st.DrawFn) -> Generated:
        case = generate(Drawn(draw))
        if case is None:  # decisions that draw no case: Hypothesis draws others
            reject()
        return case

    return drawn()


def _of_stream(c: Choices, profile: Profile, max_items: int) -> Generated:
    return Generated.of_stream(stream(c, profile, max_items))


def _of_catalogue(c: Choices, max_calls: int, call_types: tuple[str, ...]) -> Generated:
    return Generated.of_catalogue(catalogue_stream(c, max_calls, call_types))


_SESSION_TRIES = 3  # how many sessions a case draws, for one whose truth holds at both points


def _of_session(c: Choices) -> Generated | None:
    for _ in range(_SESSION_TRIES):
        drawn = session(c)
        if _known_at_either_point(drawn):
            return Generated.of_session(drawn)
    return None


def claimed(implementation: Implementation) -> Sources:
    """What generated cases are drawn from: streams of each profile the implementation declares,
    catalogue calls of the catalogue call types it declares (a vector needing another is not
    applicable to it), and sessions when it declares `session`."""
    profiles = tuple(profile for profile in PROFILES if profile in implementation.profiles)
    declared = implementation.options.get("call_types") or ()
    call_types = tuple(t for t in CATALOGUE_CALL_TYPES if t in declared) if "core" in profiles else ()
    sources = Sources(profiles, call_types, "session" in implementation.profiles)
    if not (profiles or sources.session):
        raise ValueError(f"{implementation.name} declares none of the profiles generated streams cover")
    return sources


def _known_at_either_point(session: GeneratedSession) -> bool:
    """Whether the session's ground truth holds at both tool call points: it states none for a call
    fired at its arguments `.done` whose done item never arrives (CORE-CALL-8)."""
    confirmed: set[str] = set()
    for entry in reversed(session.entries):
        kind = entry.get("type") if isinstance(entry, dict) else None
        if kind == "response.output_item.done":
            confirmed.add(entry["item"]["id"])
        if kind == "response.function_call_arguments.done" and entry["item_id"] not in confirmed:
            return False
    return True


DrawnCase = GeneratedStream | CatalogueStream | GeneratedSession


@dataclass(frozen=True, eq=False)
class Generated:
    """A generated case as the fuzzer runs it, whichever strategy drew it: what an implementation
    is fed, and the outcomes it must produce at each tool call point, from the ground truth."""

    drawn: DrawnCase
    profile: str
    title: str
    tools: list[dict[str, Any]]
    events: tuple[Any, ...]
    truths: Mapping[ToolCallPoint, list[Outcome]]  # a planned stream's worked out when asked for
    wire: Wire | None = None
    # Canonical option values its ground truth assumes that its events do not show (`_assumed_options`).
    assumed: dict[str, str] = field(default_factory=dict)

    @cached_property
    def digest(self) -> str:
        """A short name of the case, from what an implementation is given: its tools and events or
        bytes (made once: a stream past the 1 MiB limit takes a while to write)."""
        fed = self.wire.data if self.wire is not None else json.dumps(self.events, sort_keys=True).encode()
        return hashlib.sha256(json.dumps(self.tools, sort_keys=True).encode() + fed).hexdigest()[:12]

    @classmethod
    def of_stream(cls, stream: GeneratedStream) -> Generated:
        counts: dict[str, int] = {}
        for item in stream.plan.items:
            counts[_KINDS[item.kind]] = counts.get(_KINDS[item.kind], 0) + 1
        items = ", ".join(f"{count} {kind}" for kind, count in counts.items()) or "no items"
        title = f"Generated {stream.profile} stream ({items}), {stream.plan.status}"
        truths = Truths(stream)
        tools = list(stream.plan.tools)  # the harness copies what it hands an implementation
        # Arguments a platform's JSON parser reads otherwise than the canonical strict rules.
        parser = "arguments_parser"
        assumed = {parser: option_defaults()[parser]} if stream.plan.parser_decides else {}
        return cls(stream, stream.profile, title, tools, stream.events, truths, stream.wire, assumed)

    @classmethod
    def of_catalogue(cls, stream: CatalogueStream) -> Generated:
        # Catalogue calls have no arguments `.done`: only `response_done` routes them otherwise.
        outcomes = _with_at(stream.expected)
        truths = _at_points(outcomes, _with_at(stream.handed_over))
        calls = ", ".join(tool["type"] for tool in stream.tools)
        ended = outcomes[-1]["status"]
        title = f"Generated core stream of catalogue calls ({calls}), {ended}"
        return cls(stream, "core", title, stream.tools, stream.events, truths)

    @classmethod
    def of_session(cls, session: GeneratedSession) -> Generated:
        outcomes = _with_at(session.expected)
        truths = _at_points(outcomes, _with_at(session.handed_over))
        lanes = {
            entry.get("stream_id") for entry in session.entries if isinstance(entry, dict) and "type" in entry
        }
        turns = sum(outcome["kind"] == "end" for outcome in outcomes)
        ended = ", then ".join(session.ends)
        title = f"Generated session ({len(lanes)} lanes, {turns} turns), {ended}"
        events = tuple(session.entries)
        return cls(session, "session", title, session.tools, events, truths, assumed=session.options)

    def cited(
        self, outcomes: Sequence[Outcome], differing: Collection[ToolCallPoint]
    ) -> tuple[list[str], str]:
        """The requirements the case checks, and their strongest level; `differing`: the tool call
        points whose ground truth differs from the canonical one's."""
        if isinstance(self.drawn, GeneratedStream):
            return spec_ids(self.drawn, outcomes, differing)
        table = _CITED[self.profile]
        ids = [*table[""], *(i for point in differing for i in POINT_REQUIREMENTS[point])]
        for outcome in outcomes:
            detail = next((outcome[k] for k in ("code", "event", "status", "tool_type") if k in outcome), "")
            ids += [*table.get(outcome["kind"], ()), *table.get(f"{outcome['kind']} {detail}", ())]
        return cited(ids)

    def properties(self, outcomes: Sequence[Any], point: ToolCallPoint) -> list[str]:
        """How outcomes part from the ground truth, in words, where the strategy says it."""
        if isinstance(self.drawn, GeneratedStream):
            return check_properties(self.drawn, outcomes, point)
        return []


def _with_at(expected: Sequence[tuple[int | str, Outcome]]) -> list[Outcome]:
    return [{"at": at, **outcome} for at, outcome in expected]


def _at_points(outcomes: list[Outcome], handed_over: list[Outcome]) -> dict[ToolCallPoint, list[Outcome]]:
    """The ground truth at each tool call point of a case with no arguments `.done` (catalogue
    calls, sessions): only `response_done` routes it otherwise, handing the calls over at the end."""
    return {point: handed_over if point == "response_done" else outcomes for point in POINTS}


# The requirements a catalogue stream's or a session's outcomes show ("": every one's), by kind and
# by kind and code, event, status or tool type.
_CITED: dict[str, dict[str, tuple[str, ...]]] = {
    "core": {
        "": ("CORE-EVT-1", "CORE-OUT-1", "CORE-OUT-2", "CORE-LIFE-1", "CORE-LIFE-5", "CORE-CALLTYPE-1"),
        "tool.call": ("CORE-CALLTYPE-2",),
        "tool.call mcp_approval": ("CORE-CALLTYPE-5",),
        "tool.arguments.delta": ("CORE-CALLTYPE-6", "CORE-CALLTYPE-11"),
        "tool.error incomplete": ("CORE-CALLTYPE-3", "CORE-CALLTYPE-10", "CORE-CALL-6"),
        "tool.error invalid_arguments": ("CORE-CALLTYPE-7",),
        "tool.error invalid_json": ("CORE-CALLTYPE-5", "CORE-CALLTYPE-7"),
        "error late_delta": ("CORE-CALLTYPE-8",),
        "error duplicate_event": ("CORE-ITEM-5", "CORE-ITEM-14", "CORE-CALLTYPE-9"),
    },
    "session": {
        "": (
            "SESSION-STEP-1",
            "SESSION-LANE-1",
            "SESSION-TURN-1",
            "SESSION-TURN-2",
            "SESSION-TURN-4",
            "SESSION-TURN-6",
        ),
        "connection.closed": ("SESSION-CONN-3",),
        "lifecycle completed": ("SESSION-TURN-3",),
        "lifecycle incomplete": ("SESSION-TURN-3",),
        "lifecycle failed": ("SESSION-TURN-3",),
        "end truncated": ("SESSION-CONN-1",),
        "error server_error": ("SESSION-ERR-1",),
        "text.delta": ("CORE-TEXT-1",),
        "tool.arguments.delta": ("CORE-ARGS-1",),
        "tool.call": ("CORE-CALL-1", "CORE-CALL-2"),
        "tool.error incomplete": ("SESSION-CONN-1", "SESSION-ERR-1"),
        "steer.requested": ("SESSION-STEER-1",),
        "steer.accepted": ("SESSION-STEER-2",),
        "steer.committed": ("SESSION-STEER-3",),
        "steer.unknown": ("SESSION-STEER-6",),
    },
}
_KINDS = {"message": "message", "function": "function call", "custom": "custom call"}
_KINDS.update(reasoning="reasoning", hosted="hosted tool item")


def digest(case: Generated) -> str:
    """A short name of the case, from what an implementation is given: its tools and events or bytes."""
    return case.digest


def vector_data(
    case: Generated,
    point: ToolCallPoint | None = None,
    vector_id: str | None = None,
    description: str = "",
) -> dict[str, Any]:
    """The case as a complete vector (spec/vector.schema.json), its outcomes from the ground truth
    at `point` (None: the canonical one), declaring the producer rules its stream breaks (a fault is
    often what the stream was drawn for), so that it passes `streamroute lint`."""
    point = point or CANONICAL_POINT
    data = _vector_data(case, point, vector_id, description)
    spec, level = _cited(case, point)
    data = {**data, "spec": spec, "level": level}  # where a vector file states them
    data = dict(json.loads(json.dumps(data)))  # plain JSON containers, none shared, as a loaded vector holds
    faults = producer_faults(Vector(Path(data["id"]), data))
    if faults:
        data["producer_faults"] = faults
    return data


def _vector_data(
    case: Generated,
    point: ToolCallPoint,
    vector_id: str | None,
    description: str,
    points: Collection[ToolCallPoint] = POINTS,
) -> dict[str, Any]:
    """The case as a vector at `point`, as the harness runs it (`producer_faults` tells a run
    nothing), without its citations (`_cited`), naming in its options the tool call points of
    `points` whose ground truth differs (a run at `point` reads neither, so it needs `point`'s and
    the canonical one's alone)."""
    data: dict[str, Any] = {
        "format": 1,
        "id": vector_id or f"{FUZZ_PREFIX}/{digest(case)}",
        "title": case.title,
    }
    if description:
        data["description"] = description
    truths = {other: case.truths[other] for other in POINTS if other in points}
    outcomes = case.truths[point]
    data["profile"] = case.profile
    options: dict[str, str | list[str]] = {}
    agreeing: list[str] = [other for other, truth in truths.items() if truth == outcomes]
    if len(agreeing) < len(truths):  # the points differ: it applies to those that agree
        options["tool_call_point"] = agreeing[0] if len(agreeing) == 1 else agreeing
    options.update(_assumed_options(case.events, case.profile))
    options.update(case.assumed)
    if options:
        data["options"] = options
    data["tools"] = case.tools
    wire = case.wire
    if wire is None:
        data.update(events=list(case.events), expect={"outcomes": outcomes})
        return data
    try:
        data["stream"] = wire.data.decode("utf-8")
    except UnicodeDecodeError:  # bytes that are not UTF-8 (SSE-LINE-1)
        data["stream_base64"] = base64.b64encode(wire.data).decode("ascii")
    data.update(cuts=[cut if isinstance(cut, str) else list(cut) for cut in wire.cuts])
    data["expect"] = {"dispatched": len(wire.dispatched()), "outcomes": outcomes}
    return data


def _cited(case: Generated, point: ToolCallPoint) -> tuple[list[str], str]:
    """The requirements the case's vector at `point` cites, and their strongest level: those its
    outcomes there check, and those of every tool call point whose ground truth differs."""
    canonical = case.truths[CANONICAL_POINT]
    differing = [other for other in POINTS if case.truths[other] != canonical]
    return case.cited(case.truths[point], differing)


def _assumed_options(events: Sequence[Any], profile: str) -> dict[str, str]:
    """The canonical option values the ground truth assumes where the stream holds what an option
    changes: an `error` event (`error_event`), an item id never announced (`item_correlation`), a
    first event that is not `response.created` (`stream_start`, core.md section 12.3). An
    implementation that declares another value finds the case not applicable."""

    def items(event: Any) -> Any:
        return event.get("item") if isinstance(event, dict) else None

    announced = {item.get("id") for item in map(items, events) if isinstance(item, dict)}
    assumed = {}
    first = events[0] if events else None
    if profile != "session" and not (isinstance(first, dict) and first.get("type") == "response.created"):
        assumed["stream_start"] = option_defaults()["stream_start"]
    if any(isinstance(event, dict) and event.get("type") == "error" for event in events):
        assumed["error_event"] = option_defaults()["error_event"]
    if any(
        isinstance(event, dict) and "item_id" in event and event["item_id"] not in announced
        for event in events
    ):
        assumed["item_correlation"] = option_defaults()["item_correlation"]
    return assumed


@dataclass
class Case:
    """A generated case, and its vector at each tool call point, made once however often it runs;
    `vector_id` names the vector (None: the case's digest, which costs a pass over its events)."""

    generated: Generated
    vector_id: str | None = None
    vectors: dict[ToolCallPoint, Vector] = field(default_factory=dict)

    def vector(self, point: ToolCallPoint) -> Vector:
        if point not in self.vectors:
            data = _vector_data(self.generated, point, self.vector_id, "", (CANONICAL_POINT, point))
            self.vectors[point] = _JudgedVector(
                Path("<generated>"), data, functools.partial(_cited, self.generated, point)
            )
        return self.vectors[point]


@dataclass(frozen=True)
class _JudgedVector(Vector):
    """A generated case's vector as a run judges it: what it cites is worked out when first asked,
    by a failure's charges or an implementation's observation, as a passing case never asks."""

    citing: Callable[[], tuple[list[str], str]]

    @cached_property
    def _citations(self) -> tuple[list[str], str]:
        return self.citing()

    @property
    def spec(self) -> list[str]:
        return list(self._citations[0])

    @property
    def level(self) -> str:
        return self._citations[1]


def judge(
    implementation: Implementation, case: Case, declined: Callable[[str], object] | None = None
) -> str | None:
    """None when the implementation routes the case as its ground truth says, or declines it (then
    `declined` hears why); else what went wrong."""
    point = tool_call_point(implementation)
    recording = _Recording(implementation)
    try:
        result = run_vector(recording, case.vector(point))
    except (AdapterFailure, AdapterSkipped) as exc:  # run_vector reports these; never expected here
        return f"{type(exc).__name__}: {exc}"
    if result.status in (Status.PASSED, Status.NOT_APPLICABLE):  # its options exclude this case
        return None
    if result.status is Status.SKIPPED and declined is not None:
        declined(result.message)
        return None
    lines = []
    if recording.last is not None and result.status is Status.FAILED:
        lines += case.generated.properties([entry.outcome for entry in recording.last], point)
    lines.append(f"{result.status.value}: {result.message}")
    if result.details:
        lines.append(result.details)
    lines += comparison_lines(result.comparisons)
    return "\n".join(lines)


@dataclass
class FuzzFailure:
    stream: Generated
    message: str
    vector: dict[str, Any]
    path: Path | None = None


@dataclass
class FuzzResult:
    examples: int  # cases run, shrinking included
    failure: FuzzFailure | None = None
    notes: list[str] = field(default_factory=list)
    declined: list[str] = field(default_factory=list)  # why the implementation declined cases


def _base(seed: int | None) -> int:
    return seed if seed is not None else random.getrandbits(64)


def draw_streams(
    sources: Sources, examples: int, seed: int | None, max_items: int = 5, shard: Shard = WHOLE
) -> list[Case]:
    """`examples` distinct cases, the sources in turn, without running anything: the same for the
    same seed, whatever the install (drivers.py). Case i of the seed is what source `i` modulo
    their number draws from `case_bytes(seed, i)`, as Hypothesis would draw it from them, and its
    vector is `fuzz/seed-S-case-i`; a case of decisions drawn before (the same source, the same bytes read)
    is the same case, and left out. `shard`: only the cases of that shard of the seed."""
    base = _base(seed)
    generators = [generate for _, generate in sources.generators(max_items)]
    drawn: dict[tuple[int, bytes], Case] = {}
    with _collection_paused():
        for index in itertools.islice(shard.indexes(), examples * _TRIES):
            if len(drawn) == examples:
                break
            source = index % len(generators)
            decisions = Decoded(case_bytes(base, index))
            case = _decoded(generators[source], decisions)
            if case is not None:
                key = (source, decisions.data[: decisions.index])
                drawn.setdefault(key, Case(case, f"{FUZZ_PREFIX}/seed-{base}-case-{index}"))
    return list(drawn.values())


@contextmanager
def _collection_paused() -> Iterator[None]:
    """The cyclic garbage collector off while it lasts: drawn cases are kept, and each collection
    it would make while they pile up walks every one drawn so far (about a tenth of the drawing)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _decoded(generate: Generator, decisions: Decoded) -> Generated | None:
    """The case the decisions draw, decoded as Hypothesis decodes them (strategies/choices.py), or
    None when they run out."""
    try:
        return generate(decisions)
    except Overrun:
        return None


_TRIES = 20  # how many draws per case draw_streams makes at most, before it settles for fewer cases


def first_failure(implementation: Implementation, drawn: Sequence[Case]) -> tuple[int, str] | None:
    """The first case the implementation fails, by its index, and what went wrong."""
    for index, case in enumerate(drawn):
        verdict = judge(implementation, case)
        if verdict is not None:
            return index, verdict
    return None


class _Search:
    """Cases checked against one implementation, each judged once: its verdict kept by digest."""

    def __init__(
        self, implementation: Implementation, result: FuzzResult, progress: Progress | None, examples: int
    ) -> None:
        self.implementation = implementation
        self.result = result
        self.progress = progress
        self.examples = examples
        self.verdicts: dict[str, str | None] = {}

    def verdict(self, case: Generated) -> str | None:
        if case.digest not in self.verdicts:
            if self.progress is not None:
                self.progress.step(f"stream {len(self.verdicts) + 1} of {self.examples}")
            verdict = judge(self.implementation, Case(case), self.result.declined.append)
            if self.progress is not None:
                self.progress.finished(verdict is not None)
            self.verdicts[case.digest] = verdict
        return self.verdicts[case.digest]

    def fails(self, case: Generated) -> bool:
        return self.verdict(case) is not None


REPLAY_EVERY = 256  # a campaign's process looks for failures found elsewhere after so many cases


def fuzz(
    implementation: Implementation,
    examples: int = 200,
    seed: int | None = None,
    save_to: Path | None = None,
    max_items: int = 5,
    shrink: bool = True,
    database: ExampleDatabase | None = None,
    shard: Shard = WHOLE,
    progress: Progress | None = None,
) -> FuzzResult:
    """Run up to `examples` generated cases; shrink the first failure and save it as a vector.

    The cases are those `draw_streams` draws, judged one by one; a failing one is kept in an
    example database and Hypothesis shrinks it (drivers.py). `database`: where failures are kept,
    shared by a campaign's processes: what it already holds for this implementation is shrunk and
    reported first, and is looked for again every REPLAY_EVERY cases, so a failure any process
    finds stops every other one. `shard`: which of the seed's cases this process draws. The
    result's notes say when the failure came from the database rather than from this run.
    `shrink=False`: stop at the first failing case as it is, `first_failure` of `draw_streams`.
    `progress` hears of each case as it runs."""
    sources = claimed(implementation)
    if not shrink:
        drawn = draw_streams(sources, examples, seed, max_items, shard)
        found = first_failure(implementation, drawn)
        if found is None:
            return FuzzResult(len(drawn))
        index, message = found
        return _failed(FuzzResult(index + 1), implementation, drawn[index].generated, message, save_to)
    result = FuzzResult(0)
    search = _Search(implementation, result, progress, examples)
    kept = database if database is not None else InMemoryExampleDatabase()
    generators = sources.generators(max_items)
    drivers = [
        Driver(
            _strategy(generate),
            search.fails,
            Namespaced(kept, f"streamroute fuzz {implementation.name} {name}"),
        )
        for name, generate in generators
    ]
    base = _base(seed)
    failed = None
    for tried, index in enumerate(itertools.islice(shard.indexes(), examples * _TRIES)):
        if database is not None and tried % REPLAY_EVERY == 0:
            failed = _kept_elsewhere(drivers, result)
            if failed is not None:
                break
        if len(search.verdicts) == examples:
            break
        data = case_bytes(base, index)
        failed = _decoded(generators[index % len(generators)][1], Decoded(data))
        if failed is None or search.verdict(failed) is None:
            failed = None
            continue
        driver = drivers[index % len(drivers)]
        if driver.keep(data):  # Hypothesis draws it again from its bytes, and keeps it
            failed = driver.shrunk() or failed
        else:
            result.notes.append("Hypothesis did not draw the failing case again: it is shown as drawn")
        break
    result.examples = len(search.verdicts)
    if failed is None:
        return result
    return _failed(result, implementation, failed, search.verdicts[failed.digest] or "", save_to)


def _kept_elsewhere(drivers: Sequence[Driver[Generated]], result: FuzzResult) -> Generated | None:
    """A failure the database holds (found by another process of a campaign, or an earlier run),
    shrunk; None when it holds none that fails."""
    for driver in drivers:
        shrunk = driver.shrunk()
        if shrunk is not None:
            result.notes.append("replayed from the database: a failure found by another process or run")
            return shrunk
    return None


def _failed(
    result: FuzzResult,
    implementation: Implementation,
    case: Generated,
    message: str,
    save_to: Path | None,
) -> FuzzResult:
    strategies = type(case.drawn).__module__.rsplit(".", 1)[-1]
    description = (
        f"Found by `streamroute fuzz` against {implementation.name}; its outcomes come from the"
        f" ground truth of conformance/strategies/{strategies}.py. What failed:\n" + message.splitlines()[0]
    )
    data = vector_data(case, tool_call_point(implementation), description=description)
    result.failure = FuzzFailure(case, message, data)
    if save_to is not None:
        result.failure.path = write_vector(data, save_to)
    return result
