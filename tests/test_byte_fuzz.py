"""The byte fuzzer's target and tools (tests/byte_fuzz.py) without atheris: its corpus passes and
stays small, its checks fail for a decoder that a cut changes, and a vector written from an input
reads back, lints clean and passes the reference."""

from __future__ import annotations

from pathlib import Path

import byte_fuzz
import pytest
from broken_decoders import _ForgetsCr
from streamroute.conformance.implementation import PythonImplementation
from streamroute.conformance.judge import run_vector
from streamroute.conformance.lint import lint
from streamroute.conformance.results import Status
from streamroute.conformance.vectors import load_vectors
from streamroute.wire.event_stream import Decoder

CORPUS = sorted(byte_fuzz.CORPUS.iterdir())
MAX_LEN = 1024  # libFuzzer's -max_len in tox.ini's byte-fuzz


def test_the_corpus_is_small() -> None:
    assert 0 < len(CORPUS) <= 200
    assert max(path.stat().st_size for path in CORPUS) <= 4096
    assert sum(path.stat().st_size for path in CORPUS) <= 256 * 1024


@pytest.mark.parametrize("path", CORPUS, ids=lambda path: path.name[:12])
def test_each_input_of_the_corpus_holds_every_property(path: Path) -> None:
    byte_fuzz.check(path.read_bytes())


def test_the_check_fails_for_a_decoder_that_a_cut_changes() -> None:
    """A CR and its LF read apart are two line ends to this decoder: one byte at a time, the blank
    line between the two data lines dispatches each alone."""
    with pytest.raises(byte_fuzz.FuzzFailure, match="other outcomes than whole"):
        byte_fuzz.check(b'\x00data: {"type":\r\ndata: "x"}\r\n\r\n', lambda: Decoder(receiver=_ForgetsCr))


def test_an_outcome_outside_the_schema_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    route = byte_fuzz.route
    monkeypatch.setattr(
        byte_fuzz, "route", lambda chunks, decoder: ([[{"kind": "nonsense"}]], route(chunks, decoder)[1])
    )
    with pytest.raises(byte_fuzz.FuzzFailure, match="outcome schema"):
        byte_fuzz.check(b'\x00data: {"type":"x"}\n\n')


def test_memory_past_the_bound_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(byte_fuzz, "memory_bound", lambda size: 0)
    with pytest.raises(byte_fuzz.FuzzFailure, match="held"):
        byte_fuzz.check(b'\x00data: {"type":"x"}\n\n')


def test_a_vector_of_an_input_reads_back_lints_clean_and_passes_the_reference(tmp_path: Path) -> None:
    stream = (
        b'data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1",'
        b'"status":"in_progress","output":[]}}\r\n\r\n: ping\rdata: [DONE]\n\ndata: 1\n\n'
    )
    (tmp_path / "input").write_bytes(b"\x03" + stream)
    arguments = ["vector", str(tmp_path / "input"), "--id", "sse/fuzz/one", "--spec", "SSE-DATA-4"]
    assert byte_fuzz.main([*arguments, "--vectors", str(tmp_path / "vectors")]) == 0
    vectors, errors = load_vectors([tmp_path / "vectors"])
    assert errors == []
    assert [v.id for v in vectors] == ["sse/fuzz/one"]
    assert vectors[0].stream == stream
    assert vectors[0].data["expect"]["dispatched"] == 3
    count, problems = lint([tmp_path / "vectors"], check_coverage=False)
    assert (count, problems) == (1, [])
    reference = PythonImplementation.load("streamroute.reference.adapter:router")
    assert run_vector(reference, vectors[0]).status is Status.PASSED
