"""The `error` codes a router reports, as spec/outcome.schema.json lists them: their one source.

The reference reads the schema with the standard library alone, as serve.py reads the
protocol's version: spec/ sits beside this package's folder in the repository and in an
installed wheel alike.
"""

from __future__ import annotations

import json
from pathlib import Path

_OUTCOME_SCHEMA = Path(__file__).resolve().parent.parent / "spec" / "outcome.schema.json"
_DEFINITIONS = json.loads(_OUTCOME_SCHEMA.read_text(encoding="utf-8"))["$defs"]

# The codes a router produces itself (`$defs/router_error_code`): a refusal's among them.
ROUTER_ERROR_CODES: frozenset[str] = frozenset(_DEFINITIONS["router_error_code"]["enum"])
# The codes that report a fault of the producer (`$defs/fault_code`, spec/producer.md).
FAULT_CODES: frozenset[str] = frozenset(_DEFINITIONS["fault_code"]["enum"])
