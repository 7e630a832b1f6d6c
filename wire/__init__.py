"""What is on the wire, read the one way every part of streamroute reads it.

The leaf that the harness (conformance/, producer/) and the reference both import,
so that neither imports the other: JSON text as RFC 8259 defines it
(strict_json), and the client steps and connection events of a session
(session). It imports nothing of the project and
needs only the standard library, as the reference does (tests/test_rooms.py).
"""
