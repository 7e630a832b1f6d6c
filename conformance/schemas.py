"""The JSON Schemas of spec/: the one source of truth for every format.

Schemas are addressed by their `$id` (plus a fragment for a part of one), so a
validator can be had for any of them, or for any `$defs` entry.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource

from .limits import MAX_MESSAGE_CHARS, clip

# In the repository and in an installed wheel alike, spec/ and vectors/ sit
# beside this package's folder.
SPEC_DIR = Path(__file__).resolve().parent.parent / "spec"
BUNDLED_VECTORS = Path(__file__).resolve().parent.parent / "vectors"

OUTCOME = "urn:streamroute:schema:outcome"
VECTOR = "urn:streamroute:schema:vector"
OPTIONS = VECTOR + "#/$defs/options"
PROTOCOL_START = "urn:streamroute:schema:protocol-start"
PROTOCOL_START_REPLY = "urn:streamroute:schema:protocol-start-reply"
PROTOCOL_RUN = "urn:streamroute:schema:protocol-run"
PROTOCOL_RUN_REPLY = "urn:streamroute:schema:protocol-run-reply"
PROTOCOL_STOP = "urn:streamroute:schema:protocol-stop"
REPORT = "urn:streamroute:schema:report"
EVENT = "urn:streamroute:schema:event"


@cache
def _registry() -> Registry[Any]:
    resources = []
    for path in sorted(SPEC_DIR.glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@cache
def validator(ref: str) -> Draft202012Validator:
    """A validator for the schema (or schema part) at `ref`, its references resolved once."""
    return Draft202012Validator(_inlined({"$ref": ref}, ""), registry=_registry())


def schema(ref: str) -> Any:
    """The schema (or schema part) at `ref`, as loaded."""
    return _registry().resolver().lookup(ref).contents


def protocol_version() -> int:
    """The adapter protocol version the harness speaks, as protocol-start.schema.json fixes it."""
    version: int = schema(PROTOCOL_START + "#/$defs/version")["const"]
    return version


def option_defaults() -> dict[str, Any]:
    """The canonical value of every option, as the vector schema defines it."""
    return {name: option["default"] for name, option in schema(OPTIONS)["properties"].items()}


def json_pointer(path: Any) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def first_error(ref: str, instance: Any) -> str | None:
    """The most relevant schema error of `instance` as 'message (at /pointer)', or None; the
    message and the pointer are clipped, so that a huge value is never repeated whole."""
    try:
        text = json.dumps(instance, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):  # not JSON at all: validate the object as it is
        return _first_error(ref, instance)
    # Runs validate the same outcomes and vectors again and again; each is checked once. The
    # cache keeps a digest of each text, never the text: its size is bounded by its length.
    key = (ref, hashlib.blake2b(text.encode("ascii"), digest_size=16).digest())
    if key not in _checked:
        if len(_checked) >= _CHECKED_MAX:
            _checked.clear()
        _checked[key] = _first_error(ref, json.loads(text))
    return _checked[key]


_checked: dict[tuple[str, bytes], str | None] = {}
_CHECKED_MAX = 1 << 16


@cache
def _outcome_kinds() -> frozenset[str]:
    return frozenset(schema(OUTCOME + "#/$defs/of_kind"))


def _inlined(node: Any, base: str, seen: tuple[str, ...] = ()) -> Any:
    """`node`, found in the schema `base`, with every `$ref` replaced by the schema it names.

    The same schema, checked without a reference lookup at every keyword of every instance.
    The spec's schemas use plain `$ref`s only, none of them recursive; a recursive one stays
    a `$ref`, which the validator's registry resolves.
    """
    if isinstance(node, list):
        return [_inlined(value, base, seen) for value in node]
    if not isinstance(node, dict):
        return node
    inlined = {
        key: _inlined(value, base, seen)
        for key, value in node.items()
        if key not in ("$ref", "$id", "$schema", "$defs")  # `$defs` is reached through its references
    }
    ref = node.get("$ref")
    if ref is None:
        return inlined
    uri = base + ref if ref.startswith("#") else ref
    if uri in seen:
        inlined["$ref"] = uri
        return inlined
    target = _inlined(schema(uri), uri.partition("#")[0], (*seen, uri))
    if not inlined:
        return target
    return {**inlined, "allOf": [*inlined.get("allOf", []), target]}


@cache
def _outcome_validator(kind: str) -> Draft202012Validator:
    """The outcome schema for an outcome of `kind`: `fields`, `of_kind/<kind>` and `message`.

    The outcome schema is built so that this is the same as the whole of it for such an
    outcome (see its `$defs/stated`), and it skips the rules of every other kind. Its
    references are resolved here, once, not at every outcome.
    """
    parts = ("fields", "of_kind/" + kind.replace("~", "~0").replace("/", "~1"), "message")
    return Draft202012Validator(
        {"allOf": [_inlined({"$ref": f"{OUTCOME}#/$defs/{part}"}, OUTCOME) for part in parts]},
        registry=_registry(),
    )


def _validator_for(ref: str, instance: Any) -> Draft202012Validator:
    if ref == OUTCOME and isinstance(instance, dict):
        kind = instance.get("kind")
        if isinstance(kind, str) and kind in _outcome_kinds():
            return _outcome_validator(kind)
    return validator(ref)


def _first_error(ref: str, instance: Any) -> str | None:
    error = best_match(_validator_for(ref, instance).iter_errors(instance))
    if error is None:
        return None
    where = json_pointer(error.absolute_path) or "/"
    return f"{clip(error.message, MAX_MESSAGE_CHARS // 2)} (at {clip(where, MAX_MESSAGE_CHARS // 4)})"
