"""`streamroute probe` against producers of the tests' own: the fake upstream served directly (a
correct relaying producer), the fault-injecting proxy in front of it, and servers that are down,
slow or answer something else."""

from __future__ import annotations

import json
import socket
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from fault_proxy import FAULTS, FaultProxy
from streamroute.conformance.cli import main
from streamroute.conformance.implementation import Implementation
from streamroute.conformance.schemas import first_error
from streamroute.conformance.suite import load_implementation
from streamroute.producer.exchange import ServerDown
from streamroute.producer.probe import Probe, ScenarioResult, Target
from streamroute.producer.probe_report import PROBE_REPORT, read_report
from streamroute.producer.scenarios import BUNDLED_SCENARIOS, Scenario, lint_scenarios, load_scenarios
from streamroute.producer.upstream import FakeUpstream

SCENARIOS = {s.id: s for s in load_scenarios([BUNDLED_SCENARIOS])[0]}
# The fake upstream relays a relaying scenario's stream as it is: correct, but for the one whose
# upstream breaks off, which a correct gateway ends itself.
CORRECT = sorted(i for i, s in SCENARIOS.items() if s.api == "responses" and i != "relay/disconnect")
MODELS = {"chat-completions": "m", "responses": "m"}


@pytest.fixture(scope="module")
def router() -> Iterator[Implementation]:
    implementation = load_implementation(None, None, 30)
    yield implementation
    implementation.close()


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream() as server:
        yield server


def _probe(base_url: str, router: Implementation, upstream: FakeUpstream | None, tmp: Path) -> Probe:
    return Probe(Target(base_url, MODELS, {}, 5), router, upstream, tmp)


def _checks(result: ScenarioResult) -> set[str]:
    return {finding.check for finding in result.findings}


@pytest.mark.parametrize("scenario", CORRECT)
def test_a_correct_producer_passes_and_its_capture_is_a_vector_the_router_passes(
    scenario: str, router: Implementation, upstream: FakeUpstream, tmp_path: Path
) -> None:
    result = _probe(upstream.base_url, router, upstream, tmp_path).run(SCENARIOS[scenario])
    assert result.status.value == "passed", result.findings
    assert result.upstream == ["/v1/responses"]
    assert [v["status"] for v in result.vectors] == ["passed"]
    assert (tmp_path / result.vectors[0]["path"]).is_file()


@pytest.mark.parametrize("scenario", ["relay/text", "relay/tool-call"])
def test_the_websocket_mode_of_a_correct_producer_passes_and_its_capture_is_json_lines(
    scenario: str, router: Implementation, upstream: FakeUpstream, tmp_path: Path
) -> None:
    target = Target(upstream.base_url, MODELS, {}, 5, "websocket")
    result = Probe(target, router, upstream, tmp_path).run(SCENARIOS[scenario])
    assert result.status.value == "passed", result.findings
    assert result.capture == f"captures/{scenario}.jsonl"
    lines = (tmp_path / result.capture).read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["type"] == "response.completed"
    assert [v["status"] for v in result.vectors] == ["passed"]


def test_an_error_ends_a_websocket_turn_as_the_session_profile_says(
    router: Implementation, upstream: FakeUpstream, tmp_path: Path
) -> None:
    target = Target(upstream.base_url, MODELS, {}, 5, "websocket")
    result = Probe(target, router, upstream, tmp_path).run(SCENARIOS["relay/error-event"])
    assert result.status.value == "passed", result.findings  # no terminal event follows it (SESSION-ERR-1)
    lines = (tmp_path / "captures" / "relay" / "error-event.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["type"] == "error"


def test_a_websocket_that_breaks_before_the_terminal_event_is_caught(
    router: Implementation, upstream: FakeUpstream, tmp_path: Path
) -> None:
    target = Target(upstream.base_url, MODELS, {}, 5, "websocket")
    result = Probe(target, router, upstream, tmp_path).run(SCENARIOS["relay/disconnect"])
    assert {"PROD-LIFE-2", "stream.cut", "truth.status"} <= _checks(result)


def test_a_server_that_refuses_the_websocket_upgrade_is_named(
    router: Implementation, upstream: FakeUpstream, tmp_path: Path
) -> None:
    with _listener() as server:
        _serve_once(server, b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        url = f"http://127.0.0.1:{server.getsockname()[1]}/v1"
        result = Probe(Target(url, MODELS, {}, 5, "websocket"), router, upstream, tmp_path).run(
            SCENARIOS["relay/text"]
        )
    assert result.status.value == "errored"
    assert result.message == "HTTP 404 to the WebSocket upgrade, not 101: HTTP/1.1 404 Not Found"


# Each fault of the proxy, a scenario it shows in, and what the probe must name.
CAUGHT = {
    "drop-content-part-added": ("relay/text", {"PROD-PART-2"}),
    "reemit-call": ("relay/tool-call", {"PROD-LIFE-5"}),
    "rotate-item-ids": ("relay/text", {"PROD-ITEM-1", "truth.text"}),
    "replay-after-reconnect": ("relay/text", {"PROD-SEQ-1", "PROD-ITEM-1", "truth.text"}),
    "cut-mid-event": ("relay/text", {"PROD-SSE-2", "PROD-LIFE-2", "stream.cut", "truth.status"}),
}


def test_every_fault_of_the_proxy_has_a_case() -> None:
    assert set(CAUGHT) == set(FAULTS) - {"none"}


@pytest.mark.parametrize("fault", sorted(CAUGHT))
def test_each_injected_fault_is_caught_and_named(
    fault: str, router: Implementation, upstream: FakeUpstream, tmp_path: Path
) -> None:
    scenario, named = CAUGHT[fault]
    proxy = FaultProxy(upstream.base_url, fault)
    try:
        result = _probe(proxy.base_url, router, upstream, tmp_path).run(SCENARIOS[scenario])
    finally:
        proxy.close()
    assert result.status.value == "failed"
    assert named <= _checks(result), result.findings


def test_a_call_executed_twice_is_named_by_the_ground_truth(
    router: Implementation, upstream: FakeUpstream, tmp_path: Path
) -> None:
    proxy = FaultProxy(upstream.base_url, "replay-after-reconnect")
    try:
        result = _probe(proxy.base_url, router, upstream, tmp_path).run(SCENARIOS["relay/tool-call"])
    finally:
        proxy.close()
    assert "truth.calls" in _checks(result) or "PROD-ITEM-1" in _checks(result)
    assert result.upstream == ["/v1/responses", "/v1/responses"]  # the reconnect asked again


def test_a_bridge_scenario_is_not_applicable_to_a_producer_that_asks_for_responses(
    router: Implementation, upstream: FakeUpstream, tmp_path: Path
) -> None:
    result = _probe(upstream.base_url, router, upstream, tmp_path).run(SCENARIOS["bridge/text"])
    assert result.status.value == "not applicable"
    assert (
        result.message
        == "the producer asks its upstream for responses; the scenario scripts chat-completions"
    )


def test_a_broken_upstream_passed_on_as_it_is_is_caught(
    router: Implementation, upstream: FakeUpstream, tmp_path: Path
) -> None:
    result = _probe(upstream.base_url, router, upstream, tmp_path).run(SCENARIOS["relay/disconnect"])
    assert {"PROD-LIFE-2", "stream.cut", "truth.status"} <= _checks(result)
    assert result.vectors[0]["status"] == "not made"  # no terminal event: no ground truth


def _listener() -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    return server


def _free_port() -> int:
    with _listener() as server:
        return int(server.getsockname()[1])


def _serve_once(server: socket.socket, answer: bytes | None, hold: bool = False) -> None:
    """Accept one connection; write `answer` (None: say nothing) and close it, or with `hold`, keep
    it open until the client gives up."""

    def run() -> None:
        connection, _ = server.accept()
        with connection:
            connection.recv(65536)
            if answer is not None:
                connection.sendall(answer)
            if answer is None or hold:
                while connection.recv(65536):  # until the client gives up
                    pass

    threading.Thread(target=run, daemon=True).start()


def _cli(tmp_path: Path, base_url: str, *more: str) -> int:
    return main(
        ["probe", "--base-url", base_url, "--output", str(tmp_path / "out"), "--only", "relay/text", *more]
    )


def test_a_producer_that_is_down_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_port()
    assert _cli(tmp_path, f"http://127.0.0.1:{port}/v1", "--upstream-port", str(_free_port())) == 2
    error = capsys.readouterr().err
    assert (
        error == f"streamroute: cannot connect to http://127.0.0.1:{port}: connection refused; "
        "is the producer running?\n"
    )


def test_a_slow_producer_is_an_errored_scenario(
    tmp_path: Path, router: Implementation, upstream: FakeUpstream
) -> None:
    with _listener() as server:
        _serve_once(server, None)
        url = f"http://127.0.0.1:{server.getsockname()[1]}/v1"
        result = Probe(Target(url, MODELS, {}, 0.5), router, upstream, tmp_path).run(SCENARIOS["relay/text"])
    assert result.status.value == "errored"
    assert result.message == f"{url.removesuffix('/v1')} did not answer POST /v1/responses within 0.5 s"


def test_a_producer_that_falls_silent_mid_stream_is_a_finding(
    tmp_path: Path, router: Implementation, upstream: FakeUpstream
) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
    created = b'data: {"type": "response.created", "sequence_number": 0, "response": {"id": "r"}}\n\n'
    with _listener() as server:
        _serve_once(server, head + created, hold=True)
        url = f"http://127.0.0.1:{server.getsockname()[1]}/v1"
        result = Probe(Target(url, MODELS, {}, 0.5), router, upstream, tmp_path).run(SCENARIOS["relay/text"])
    assert result.status.value == "failed"
    assert "stream.silent" in _checks(result)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 21\r\n\r\n"
            b"<h1>Not Found</h1>\n\n",
            "HTTP 404 (text/html), not an SSE stream: <h1>Not Found</h1>",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n"
            b'{"id": "resp"}\n',
            'HTTP 200 (application/json), not an SSE stream: {"id": "resp"}',
        ),
        (b"SSH-2.0-OpenSSH_9.6\r\n", "answered POST /v1/responses with something that is not HTTP"),
    ],
    ids=["html-404", "json", "not-http"],
)
def test_a_server_that_answers_something_else_is_named(
    answer: bytes, message: str, tmp_path: Path, router: Implementation, upstream: FakeUpstream
) -> None:
    with _listener() as server:
        _serve_once(server, answer)
        url = f"http://127.0.0.1:{server.getsockname()[1]}/v1"
        result = _probe(url, router, upstream, tmp_path).run(SCENARIOS["relay/text"])
    assert result.status.value == "errored"
    assert message in result.message


def test_the_command_writes_a_report_junit_a_summary_and_captures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    code = main(
        [
            "probe",
            "--base-url",
            f"http://127.0.0.1:{port}/v1",  # the fake upstream itself: a correct relaying producer
            "--upstream-port",
            str(port),
            "--output",
            str(tmp_path / "out"),
            *[f"--only={scenario}" for scenario in CORRECT],
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    records = read_report(tmp_path / "out" / "report.jsonl")
    assert all(first_error(PROBE_REPORT, record) is None for record in records)
    assert [r["id"] for r in records[1:-1]] == CORRECT
    assert records[-1]["counts"] == {"passed": len(CORRECT)}
    suite = ET.parse(tmp_path / "out" / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == (str(len(CORRECT)), "0")
    assert "| `relay/text` | passed | - |" in (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    capture = tmp_path / "out" / "captures" / "relay" / "text.sse"
    assert main(["vectorize", str(capture), "--output", str(tmp_path / "v"), "--id", "probe/text"]) == 0
    assert main(["run", "--vectors", str(tmp_path / "v")]) == 0


def test_the_command_drives_the_websocket_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_port()
    base = [
        "--base-url",
        f"http://127.0.0.1:{port}/v1",
        "--upstream-port",
        str(port),
        "--transport",
        "websocket",
    ]
    assert main(["probe", *base, "--output", str(tmp_path), "--only", "relay/tool-call"]) == 0
    assert "PASSED relay/tool-call" in capsys.readouterr().out
    assert (tmp_path / "captures" / "relay" / "tool-call.jsonl").is_file()


def test_a_failing_producer_fails_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = _free_port()
    proxy = FaultProxy(f"http://127.0.0.1:{port}/v1", "drop-content-part-added")  # to the probe's upstream
    try:
        code = _cli(tmp_path, proxy.base_url, "--upstream-port", str(port))
    finally:
        proxy.close()
    assert code == 1
    assert "FAILED relay/text: 6 findings: PROD-PART-1, PROD-PART-2, PROD-SEQ-2\n" in capsys.readouterr().out
    line = json.loads((tmp_path / "out" / "report.jsonl").read_text(encoding="utf-8").splitlines()[1])
    assert {(f["check"], f["level"]) for f in line["findings"]} == {
        ("PROD-PART-1", "MUST"),
        ("PROD-PART-2", "MUST"),
        ("PROD-SEQ-2", "SHOULD"),
    }


def _live_variant(text: str) -> Scenario:
    """relay/text as a live service would answer it: in other words."""
    scenario = SCENARIOS["relay/text"]
    steps = json.loads(json.dumps(scenario.upstream["steps"]).replace("Hello, world.", text))
    steps = [s for s in steps if s["event"]["type"] != "response.output_text.delta"]
    return Scenario(scenario.path, {**scenario.data, "upstream": {"api": "responses", "steps": steps}})


def test_live_checks_do_not_assume_the_words(tmp_path: Path, router: Implementation) -> None:
    with FakeUpstream() as service:  # a stand-in for a live model: no upstream behind it
        service.serve(_live_variant("Hi there, everyone!"))
        live = _probe(service.base_url, router, None, tmp_path).run(SCENARIOS["relay/text"])
        service.serve(_live_variant(""))
        empty = _probe(service.base_url, router, None, tmp_path).run(SCENARIOS["relay/text"])
    assert live.status.value == "passed", live.findings
    assert _checks(empty) == {"truth.text"}


def test_live_runs_only_the_live_scenarios(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeUpstream() as service:
        service.serve(SCENARIOS["relay/text"])
        assert main(["probe", "--base-url", service.base_url, "--live", "--output", str(tmp_path)]) == 1
    records = read_report(tmp_path / "report.jsonl")
    ran = {r["id"] for r in records[1:-1]}
    assert ran == {i for i, s in SCENARIOS.items() if s.live}
    assert records[0]["producer"]["upstream"] == "live"
    capsys.readouterr()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--base-url", "ftp://x"], "--base-url 'ftp://x' is not an http:// or https:// URL"),
        (
            ["--base-url", "http://127.0.0.1:1/v1", "--live", "--upstream-port", "1"],
            "--live probes a service",
        ),
        (["--base-url", "http://127.0.0.1:1/v1", "--only", "relay/nothing"], "no scenario relay/nothing"),
        (["--base-url", "http://127.0.0.1:1/v1", "--model", "chat=x"], "--model 'chat=x': give NAME"),
    ],
)
def test_bad_options_are_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["probe", *argv, "--output", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert message in error
    assert error.count("\n") == 1


def test_server_down_is_raised_by_the_probe(tmp_path: Path, router: Implementation) -> None:
    with pytest.raises(ServerDown):
        _probe(f"http://127.0.0.1:{_free_port()}/v1", router, None, tmp_path).run(SCENARIOS["relay/text"])


def test_the_bundled_scenarios_lint_clean() -> None:
    count, problems = lint_scenarios([BUNDLED_SCENARIOS])
    assert problems == []
    assert count == len(SCENARIOS) > 0


def test_a_bad_scenario_is_one_line_naming_its_file(tmp_path: Path) -> None:
    root = tmp_path / "scenarios"
    (root / "relay").mkdir(parents=True)
    text = SCENARIOS["relay/text"].path.read_text(encoding="utf-8")
    (root / "relay" / "text.yaml").write_text(text.replace("PROD-SEQ-1]", "PROD-SEQ-9]"), encoding="utf-8")
    (root / "relay" / "moved.yaml").write_text(text, encoding="utf-8")
    broken = text.replace('delta: ", world"', 'delta: ", wor"')
    (root / "relay" / "broken.yaml").write_text(broken.replace("id: relay/text", "id: relay/broken"), "utf-8")
    _, problems = lint_scenarios([root])
    assert problems == [
        f"{root / 'relay' / 'moved.yaml'}: id 'relay/text' must be its path under the scenarios root, "
        "'relay/moved'",
        f"{root / 'relay' / 'broken.yaml'}: relay/broken: its upstream stream breaks PROD-TEXT-2 at event 7: "
        "response.output_text.done states 'Hello, world.', the deltas 'Hello, wor.'",
        f"{root / 'relay' / 'text.yaml'}: relay/text: expect.keeps names PROD-SEQ-9, which spec/producer.md "
        "does not define",
    ]


def test_lint_reports_the_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint"]) == 0
    assert f"{len(SCENARIOS)} scenarios, 0 problems" in capsys.readouterr().out
