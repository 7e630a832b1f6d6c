"""The shapes the reference's modules hand each other, named once, and the one `error` outcome.

Each is a plain `dict`, as `json.loads` makes it and as the outcome schemas
(spec/outcome.schema.json) describe it: the reference never wraps decoded
JSON in classes of its own, so what a test or an adapter sees is the JSON.
"""

from __future__ import annotations

from typing import Any

JSONObject = dict[str, Any]
"""One decoded JSON object: an event, an item, a field of either."""

Outcome = dict[str, Any]
"""One outcome, as spec/outcome.schema.json describes it: its `kind` and its fields."""

Payload = dict[str, Any]
"""A diff consumer's fields for one `diff.update` or `diff.finish` (spec/custom-tools.md)."""


def error_outcome(code: str | None, message: str) -> Outcome:
    """The `error` outcome a router reports a refusal or a producer's error with (spec/README.md)."""
    return {"kind": "error", "code": code, "message": message}
