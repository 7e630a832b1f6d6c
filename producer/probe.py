"""`streamroute probe`: drive a producer through scenarios and judge what it streams (spec/producer.md
section 8).

For each scenario the fake upstream (upstream.py) is set to answer as the
scenario says, the scenario's request goes to the producer's
`/v1/responses`, and the bytes that come back are judged four ways:

1. as a producer must emit them: the producer checker (checker.py), each
   violation a finding named by its PROD-* requirement;
2. as a transport: a body cut inside, or a producer that falls silent and
   keeps the connection open, is a finding of its own (`stream.cut`,
   `stream.silent`);
3. by what a client routing them ends with against the scenario's ground
   truth (`truth.status`, `truth.text`, `truth.refusal`, `truth.reasoning`,
   `truth.calls`). The client is an implementation reached through the
   harness's one interface (conformance/implementation.py), by default the
   reference router as its adapter string names it (conformance/suite.py
   DEFAULT_ADAPTER), so the probe needs no import of it;
4. as a regression vector: `vectorize` turns the capture into client vectors
   and the same router must pass each (`vector`); a capture that states no
   final response is not made one, and the result says why.

With `live` (no fake upstream: a real model behind `--base-url`), only the
scenarios marked `live` run, and the ground truth is read without the
model's words: the end status, some text when text is expected, and calls
by name with a JSON object of arguments.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamroute.conformance.implementation import AdapterFailure, AdapterSkipped, Implementation, Produced
from streamroute.conformance.limits import MAX_VECTOR_FILE_BYTES, loads
from streamroute.conformance.progress import Progress
from streamroute.conformance.requirements import read_requirements
from streamroute.conformance.results import Status, run_vector
from streamroute.conformance.schemas import SPEC_DIR
from streamroute.conformance.vector_files import write_vector
from streamroute.conformance.vectors import Vector

from .checker import Violation, check_capture, read_jsonl
from .exchange import Exchange, ProbeFailure, post
from .scenarios import Scenario
from .session_checker import check_session_capture
from .upstream import FakeUpstream
from .vectorize import VectorizeError, vectorize
from .websocket import websocket_exchange

SHOWN = 60  # characters of a text shown on each side of where two texts part


@dataclass(frozen=True)
class Finding:
    check: str  # a PROD-* requirement, stream.*, truth.* or vector
    message: str
    at: int | None = None  # the index of the event it names, if one

    def record(self) -> dict[str, Any]:
        return {"check": self.check, "at": self.at, "message": self.message}


@dataclass
class ScenarioResult:
    id: str
    title: str
    api: str
    status: Status
    message: str = ""
    findings: list[Finding] = field(default_factory=list)
    capture: str | None = None  # its path under the output folder
    vectors: list[dict[str, Any]] = field(default_factory=list)
    upstream: list[str] = field(default_factory=list)  # the paths the producer asked the upstream for
    seconds: float = 0.0


@dataclass(frozen=True)
class Target:
    """The producer under probe and how to ask it."""

    base_url: str
    models: dict[str, str]  # the model name to ask for, by the upstream API a scenario scripts
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 30.0  # the longest silence, in seconds
    transport: str = "sse"  # or websocket: the Responses API's WebSocket mode


def _parted(got: str, wanted: str) -> str:
    """Where two texts part, shown around that place."""
    at = next(
        (i for i, (a, b) in enumerate(zip(got, wanted, strict=False)) if a != b), min(len(got), len(wanted))
    )
    start = max(0, at - SHOWN // 2)
    return (
        f"{len(got)} characters, not {len(wanted)}; they part at character {at}: "
        f"{got[start : at + SHOWN // 2]!r}, not {wanted[start : at + SHOWN // 2]!r}"
    )


def _shown(value: Any) -> str:
    text = repr(value)
    return (
        text if len(text) <= 2 * SHOWN else f"{text[:SHOWN]}...{text[-SHOWN // 2 :]} ({len(text)} characters)"
    )


@dataclass
class Seen:
    """What a client routing the stream ends with, from its outcomes."""

    status: str | None = None
    parts: dict[tuple[Any, Any], list[str]] = field(default_factory=dict)  # deltas, by item and part
    done: dict[tuple[Any, Any], str] = field(default_factory=dict)  # text.done, by item and part
    refusal: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    refused_calls: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, produced: Sequence[Produced]) -> Seen:
        seen = cls()
        for entry in produced:
            outcome = entry.outcome if isinstance(entry.outcome, dict) else {}
            kind = outcome.get("kind")
            key = (outcome.get("item_id"), outcome.get("content_index", 0))
            if kind == "text.delta":
                seen.parts.setdefault(key, []).append(str(outcome.get("delta", "")))
            elif kind == "text.done":
                seen.parts.setdefault(key, [])
                seen.done[key] = str(outcome.get("text", ""))
            elif kind == "refusal.delta":
                seen.refusal.append(str(outcome.get("delta", "")))
            elif kind == "reasoning.delta":
                seen.reasoning.append(str(outcome.get("delta", "")))
            elif kind == "tool.call":
                seen.calls.append({"name": outcome.get("name"), "arguments": outcome.get("arguments")})
            elif kind == "tool.error":
                seen.refused_calls.append(outcome)
            elif kind == "end":
                seen.status = outcome.get("status")
        return seen

    @property
    def shown(self) -> str:
        """The text shown as it streams: each part's deltas, or its `.done` for a part without any."""
        return "".join("".join(d) if d else self.done.get(key, "") for key, d in self.parts.items())

    @property
    def text(self) -> str:
        """The final text: each part's authoritative `.done` where it came, else its deltas."""
        return "".join(self.done.get(key, "".join(deltas)) for key, deltas in self.parts.items())


def judge_truth(scenario: Scenario, seen: Seen, live: bool) -> list[Finding]:
    """The scenario's ground truth against what the client ended with; `live`: without exact words."""
    expect = scenario.expect
    findings = []
    if seen.status not in scenario.statuses:
        wanted = " or ".join(scenario.statuses)
        findings.append(
            Finding("truth.status", f"the client ends {seen.status or 'without an end'}, not {wanted}")
        )
    channels = {
        "text": [("final text", seen.text), ("text shown as it streams", seen.shown)],
        "refusal": [("refusal", "".join(seen.refusal))],
        "reasoning": [("reasoning", "".join(seen.reasoning))],
    }
    for channel, texts in channels.items():
        wanted = str(expect.get(channel, ""))
        if channel not in expect:
            continue
        if live and channel == "text":
            if wanted and not seen.text:
                findings.append(Finding("truth.text", "the client shows no answer text"))
            continue
        parted = next(((what, got) for what, got in texts if got != wanted), None)
        if not live and parted is not None:
            findings.append(
                Finding(f"truth.{channel}", f"the client's {parted[0]}: {_parted(parted[1], wanted)}")
            )
    wanted_calls = expect.get("calls", [])
    refused = "".join(
        f"; {r.get('code')} for item {r.get('item_id')!r}: {r.get('message', '')}" for r in seen.refused_calls
    )
    names = [call["name"] for call in seen.calls]
    if live:
        if names != [call["name"] for call in wanted_calls]:
            wanted_names = [call["name"] for call in wanted_calls]
            findings.append(
                Finding("truth.calls", f"the client may execute {names}, not {wanted_names}{refused}")
            )
        findings += [
            Finding(
                "truth.calls",
                f"call {n} ({call['name']}) has arguments {_shown(call['arguments'])}, no object",
            )
            for n, call in enumerate(seen.calls)
            if not isinstance(call["arguments"], dict)
        ]
    elif seen.calls != wanted_calls:
        if len(seen.calls) != len(wanted_calls):
            findings.append(
                Finding(
                    "truth.calls",
                    f"the client may execute {len(seen.calls)} calls {names}, "
                    f"not {len(wanted_calls)}{refused}",
                )
            )
        else:
            findings += [
                Finding("truth.calls", f"call {n}: {_shown(got)}, not {_shown(want)}")
                for n, (got, want) in enumerate(zip(seen.calls, wanted_calls, strict=True))
                if got != want
            ]
    return findings


_CREATE = {"control": "send", "message": {"type": "response.create"}}  # the session's client step


def _violations(exchange: Exchange) -> list[Violation]:
    """What the producer checker finds: in SSE bytes, or in a WebSocket's messages, which are a
    session and checked as one (spec/session.md section 10: an `error` may end a turn)."""
    if exchange.format == "sse":
        return check_capture(exchange.body, "sse").violations
    return check_session_capture(read_jsonl(exchange.body)[0])


def _only_errors(events: list[Any]) -> bool:
    """A WebSocket's answer that began no response: `error` events only, as an HTTP error is."""
    return bool(events) and all(isinstance(e, dict) and e.get("type") == "error" for e in events)


def _events(exchange: Exchange) -> list[Any]:
    """A WebSocket's messages as events; one that is not JSON is the checker's to report."""
    events = []
    for line in exchange.chunks:
        try:
            events.append(loads(line.decode("utf-8", "replace")))
        except ValueError:
            continue
    return events


class Probe:
    """Runs scenarios against one producer; `upstream` None: a live service, no fake upstream.
    `output`: where captures and the vectors made of them are written."""

    def __init__(
        self, target: Target, router: Implementation, upstream: FakeUpstream | None, output: Path
    ) -> None:
        self.target = target
        self.router = router
        self.upstream = upstream
        self.output = output
        self.levels = {r.id: r.level for r in read_requirements(SPEC_DIR)[0].values()}

    @property
    def live(self) -> bool:
        return self.upstream is None

    def run(self, scenario: Scenario) -> ScenarioResult:
        """One scenario's result; ServerDown when the producer cannot be reached at all."""
        started = time.monotonic()
        result = self._run(scenario)
        result.seconds = round(time.monotonic() - started, 3)
        return result

    def _run(self, scenario: Scenario) -> ScenarioResult:
        result = ScenarioResult(scenario.id, scenario.title, scenario.api, Status.PASSED)
        if self.upstream is not None:
            self.upstream.serve(scenario)
        model = self.target.models.get(scenario.api)
        if model is None:
            result.status = Status.NOT_APPLICABLE
            result.message = f"no model is named for a {scenario.api} upstream (--model {scenario.api}=NAME)"
            return result
        body = {**scenario.request, "model": model, "stream": True}
        ask = websocket_exchange if self.target.transport == "websocket" else post
        try:
            exchange = ask(self.target.base_url, body, self.target.headers, self.target.timeout)
        except ProbeFailure as failure:
            if type(failure) is not ProbeFailure:  # ServerDown: no scenario can run
                raise
            result.status, result.message = Status.ERRORED, str(failure)
            return result
        finally:
            asked = [] if self.upstream is None else self.upstream.requests
            result.upstream = [request.path for request in asked]
            if self.upstream is not None:
                self.upstream.serve(None)
        other = sorted({r.api or r.path for r in asked if r.api != scenario.api})
        if other and not any(r.api == scenario.api for r in asked):
            result.status = Status.NOT_APPLICABLE
            result.message = (
                f"the producer asks its upstream for {', '.join(other)}; the scenario scripts {scenario.api}"
            )
            return result
        if not exchange.is_stream:
            passed_on = "status" in scenario.upstream and exchange.status >= 400
            result.status = Status.PASSED if passed_on else Status.ERRORED
            result.message = (
                f"the upstream's HTTP {scenario.upstream['status']} answered as HTTP {exchange.status}"
                if passed_on
                else exchange.described()
            )
            return result
        self._judge(scenario, exchange, result)
        return result

    def _judge(self, scenario: Scenario, exchange: Exchange, result: ScenarioResult) -> None:
        capture = self.output / "captures" / f"{scenario.id}.{exchange.format}"
        capture.parent.mkdir(parents=True, exist_ok=True)
        capture.write_bytes(exchange.body)
        result.capture = capture.relative_to(self.output).as_posix()
        findings = [Finding(v.requirement, v.message, v.at) for v in _violations(exchange)]
        if exchange.ended == "cut":
            findings.append(Finding("stream.cut", "the connection broke before the stream ended"))
        elif exchange.ended == "silent":
            findings.append(
                Finding(
                    "stream.silent",
                    f"the producer sent nothing for {self.target.timeout:g} s, the stream open",
                )
            )
        elif exchange.ended != "end":
            findings.append(
                Finding("stream.cut", f"the probe stopped reading: the stream is {exchange.ended}")
            )
        if self.upstream is not None and not result.upstream and "steps" in scenario.upstream:
            findings.append(Finding("stream.upstream", "the producer answered without asking its upstream"))
        # A WebSocket's turn is routed as the session it is (spec/session.md): the client's
        # `response.create`, then the server's messages.
        events = [_CREATE, *_events(exchange)] if exchange.format == "jsonl" else []
        stream = Vector(capture, {"id": f"probe/{scenario.id}", "tools": scenario.tools, "events": events})
        try:
            produced = (
                self.router.produce(stream)
                if exchange.format == "jsonl"
                else self.router.produce_stream(stream, exchange.chunks).produced
            )
            seen = Seen.of(produced)
        except (AdapterFailure, AdapterSkipped) as failure:
            result.status = Status.ERRORED
            result.message = f"the router {self.router.name} failed on the capture: {failure}"
            result.findings = findings
            return
        if seen.status is None and "status" in scenario.upstream and _only_errors(events[1:]):
            result.message = f"the upstream's HTTP {scenario.upstream['status']} answered as an error event"
        else:
            findings += judge_truth(scenario, seen, self.live)
        findings += self._vectors(scenario, capture, exchange, result)
        result.findings = findings
        if findings:
            result.status = Status.FAILED
            count = len(findings)
            result.message = f"{count} finding{'s' * (count != 1)}: " + ", ".join(
                sorted({f.check for f in findings})
            )

    def _vectors(
        self, scenario: Scenario, capture: Path, exchange: Exchange, result: ScenarioResult
    ) -> list[Finding]:
        """The capture as client vectors, each run against the router: it must pass them all."""
        source = capture.relative_to(self.output).as_posix()
        try:
            made = vectorize(exchange.body, source, f"probe/{scenario.id}", exchange.format)
        except VectorizeError as exc:
            result.vectors.append({"id": f"probe/{scenario.id}", "status": "not made", "message": str(exc)})
            return []
        findings = []
        for data in made:
            path = self.output / "vectors" / f"{data['id']}.yaml"
            outcome = run_vector(self.router, Vector(path, data))
            record = {"id": data["id"], "status": outcome.status.value, "message": outcome.message}
            try:
                record["path"] = (
                    write_vector(data, self.output / "vectors").relative_to(self.output).as_posix()
                )
            except ValueError as exc:  # too large for a vector file, or a value YAML cannot state
                size = path.stat().st_size if path.exists() else 0
                path.unlink(missing_ok=True)
                too_large = (
                    f"its vector file would be {size} bytes, more than one holds ({MAX_VECTOR_FILE_BYTES})"
                )
                record["message"] = "not written: " + (
                    too_large if size > MAX_VECTOR_FILE_BYTES else str(exc)
                )
            result.vectors.append(record)
            if outcome.status is not Status.PASSED:
                findings.append(
                    Finding(
                        "vector", f"{self.router.name} {outcome.status.value} {data['id']}: {outcome.message}"
                    )
                )
        return findings

    def level(self, check: str) -> str | None:
        """A finding's level: its requirement's, for a PROD-* one."""
        return self.levels.get(check)


def probe_all(
    probe: Probe,
    scenarios: Sequence[Scenario],
    show: Callable[[ScenarioResult], None] = lambda _: None,
    progress: Progress | None = None,
) -> list[ScenarioResult]:
    """Every scenario that applies (in live mode, those marked live), in order; `progress` hears
    of each as it starts and ends."""
    results = []
    for scenario in scenarios:
        if probe.live and not scenario.live:
            continue
        if progress is not None:
            progress.step(scenario.id)
        results.append(probe.run(scenario))
        if progress is not None:
            progress.finished(results[-1].status.is_failure)
        show(results[-1])
    return results
