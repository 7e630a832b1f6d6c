"""The JSON Schemas of spec/: the one source of truth for every format.

Schemas are addressed by their `$id` (plus a fragment for a part of one), so a
validator can be had for any of them, or for any `$defs` entry. `first_error`
asks the predicates compiled from them (schema_check.py) whether an instance
is valid, and jsonschema only what is wrong with one that is not.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource

from .limits import MAX_MESSAGE_CHARS, clip
from .schema_check import Check, compiled

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
    """The jsonschema validator of the schema (or schema part) at `ref`: the definition, and what
    names an error."""
    return Draft202012Validator({"$ref": ref}, registry=_registry())


@cache  # the registry is immutable: a lookup finds the same object every time
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


def json_pointer(path: Iterable[object]) -> str:
    """The JSON pointer (RFC 6901) to the value at `path`, a sequence of keys and indexes."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def first_error(ref: str, instance: Any) -> str | None:
    """The most relevant schema error of `instance` as 'message (at /pointer)', or None; the
    message and the pointer are clipped, so that a huge value is never repeated whole."""
    check, _ = _validator_for(ref, instance)
    if check is not None and check(instance):  # valid: the common case, answered at once
        return None
    try:
        text = json.dumps(instance, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):  # not JSON at all: validate the object as it is
        return _named_error(ref, instance)
    # What is wrong with an invalid instance is named once per content, however often it comes.
    # The cache keeps a digest of each text, never the text: its size is bounded by its length.
    key = (ref, hashlib.blake2b(text.encode("ascii"), digest_size=16).digest())
    if key not in _checked:
        if len(_checked) >= _CHECKED_MAX:
            _checked.clear()
        _checked[key] = _named_error(ref, json.loads(text))
    return _checked[key]


_checked: dict[tuple[str, bytes], str | None] = {}
_CHECKED_MAX = 1 << 16


@cache
def outcome_kinds() -> frozenset[str]:
    """Every outcome kind the outcome schema has the rules of (`$defs/of_kind`)."""
    return frozenset(schema(OUTCOME + "#/$defs/of_kind"))


def _outcome_parts(kind: str) -> dict[str, Any]:
    """The outcome schema for an outcome of `kind`: `fields`, `of_kind/<kind>` and `message`.

    The outcome schema is built so that this is the same as the whole of it for such an
    outcome (see its `$defs/stated`), and it skips the rules of every other kind.
    """
    parts = ("fields", "of_kind" + json_pointer([kind]), "message")
    return {"allOf": [{"$ref": f"{OUTCOME}#/$defs/{part}"} for part in parts]}


@cache
def _outcome_validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(_outcome_parts(kind), registry=_registry())


@cache
def _outcome_check(kind: str) -> Check | None:
    return compiled(_outcome_parts(kind), schema)


@cache
def _check(ref: str) -> Check | None:
    return compiled({"$ref": ref}, schema)


def _validator_for(ref: str, instance: Any) -> tuple[Check | None, Draft202012Validator]:
    """The predicate that answers whether `instance` is valid (None: ask jsonschema), and the
    validator that names its error."""
    if ref == OUTCOME and isinstance(instance, dict):
        kind = instance.get("kind")
        if isinstance(kind, str) and kind in outcome_kinds():
            return _outcome_check(kind), _outcome_validator(kind)
    return _check(ref), validator(ref)


def _named_error(ref: str, instance: Any) -> str | None:
    """What jsonschema finds wrong with `instance`, which the compiled check did not pass."""
    error = best_match(_validator_for(ref, instance)[1].iter_errors(instance))
    if error is None:
        return None
    where = json_pointer(error.absolute_path) or "/"
    return f"{clip(error.message, MAX_MESSAGE_CHARS // 2)} (at {clip(where, MAX_MESSAGE_CHARS // 4)})"


def pointer_tokens(pointer: str) -> tuple[str, ...]:
    """The reference tokens of a JSON pointer (RFC 6901): `json_pointer` undone."""
    if pointer and not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return tuple(token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:])
