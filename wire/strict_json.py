"""JSON text as RFC 8259 defines it: `NaN`, `Infinity` and `-Infinity`, which Python's `json`
reads by default, are not JSON. The reference reads event data (SSE-DATA-1) and the harness reads
what implementations write with this one decoder."""

from __future__ import annotations

import json
import json.scanner
from typing import Any, cast


def not_json(name: str) -> Any:
    """A strict decoder's `parse_constant`: the constants `json` would take are not JSON."""
    raise ValueError(f"{name} is not JSON")


# One decoder for every call: `json.loads` with an argument builds a new one each time.
STRICT = json.JSONDecoder(parse_constant=not_json)
# The decoder's own scanner (C when available): `scan_value(text, index)` is the value
# that starts at `index` and the index after it, without the whitespace skipping and the
# checks that `decode` wraps around it. It raises StopIteration when no value starts
# there, and ValueError or RecursionError as `decode` does. It decodes an event's payload
# in about two thirds of the time `decode` takes. The scanner reads its options from the
# decoder it is made of; typeshed declares that argument a scanner, hence the cast.
scan_value = json.scanner.make_scanner(cast(Any, STRICT))


def loads_strict(text: str) -> Any:
    """Parse JSON text as RFC 8259 defines it: `NaN` and `Infinity` are not JSON (ValueError).

    A payload that is one value and nothing else, as events are, is scanned directly;
    anything else (whitespace around the value, or not JSON at all) goes through the
    decoder, which answers the same value or says what is wrong.
    """
    try:
        value, end = scan_value(text, 0)
    except StopIteration:
        return STRICT.decode(text)
    return value if end == len(text) else STRICT.decode(text)
