"""Tools for recorded streams, beside the harness: the producer checker (spec/producer.md and the
session checker of spec/session.md section 10), generated captures with planted faults that check
it, `vectorize`, which turns a capture into a vector, and `probe`, which drives a running producer
through scenarios behind a fake upstream (probe.py) and judges what it streams with all of these.

These read SSE with the decoder the reference routes through (streamroute.wire.event_stream),
which passes every `sse` vector under every cut; neither they nor the harness that tests
implementations import the reference.
"""
