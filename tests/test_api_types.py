"""The spec decides every event and item type of the OpenAI SDK (issue 27): each event type the SDK's
Responses unions hold is a row of the routing table (spec/core.md section 9) or an event of the session
(spec/session.md section 9), each client event a session step, and each output item type a row of
spec/core.md section 5.2. The SDK's names are a snapshot in tests/api-types/ (tests/api-types/snapshot.py
writes it), so this runs offline; a new SDK version is a new snapshot, and what it adds fails here until
the spec decides it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamroute.conformance.schemas import SPEC_DIR
from streamroute.reference.router import EVENT_TYPES

SNAPSHOT = Path(__file__).parent / "api-types" / "openai-python-3.57.0.json"


def _names(kind: str) -> set[str]:
    unions = json.loads(SNAPSHOT.read_text(encoding="utf-8"))[kind]
    return {name for names in unions.values() for name in names}


def _first_column(document: str, heading: str) -> set[str]:
    """The backticked names of the first column of the table under `heading`."""
    text = (SPEC_DIR / document).read_text(encoding="utf-8")
    section = text.split(heading + "\n", 1)[1].split("\n#", 1)[0]
    rows = [row.split("|")[1] for row in section.splitlines() if row.startswith("| `")]
    return {name for cell in rows for name in re.findall(r"`([^`]+)`", cell)}


def test_every_event_type_of_the_sdk_is_routed_or_an_event_of_the_session() -> None:
    session = _first_column("session.md", "### 9.1 Events of the connection")
    assert _names("events") - set(EVENT_TYPES) - session == set()


def test_every_client_event_of_the_sdk_is_a_session_step() -> None:
    assert _names("client_events") - _first_column("session.md", "### 9.1 Events of the connection") == set()


def test_every_output_item_type_of_the_sdk_is_decided() -> None:
    assert _names("output_items") - _first_column("core.md", "### 5.2 Every output item") == set()


def test_the_snapshot_is_of_the_sdk_it_names() -> None:
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert snapshot["source"].startswith("openai-python 3.57.0")
    assert all(snapshot[kind] for kind in ("events", "client_events", "output_items"))
