"""What an implementation declares of itself, checked, and what is wrong with it said in words.

An adapter declares its `profiles`, `options`, `classes` and `observes` (an in-process adapter
as attributes, an adapter command in its start reply). Each declaration is checked against its
JSON Schema in spec/, the one source of what is allowed; when it is not valid, the problem names
what was declared, what is allowed (described from the same schema) and where the declaration is
documented, never a validator's wording: `declares option call_types ['function', 'pipes']; allowed:
a list of distinct values, each one of function, custom, apply_patch, ...; see spec/README.md#options`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .schemas import OPTIONS, PROTOCOL_START_REPLY, first_error, schema


@dataclass(frozen=True)
class Declaration:
    name: str  # the attribute, and the start reply's member
    one: str  # one of what it lists or names: `profile`, `option`
    ref: str  # its schema
    documented: str  # where the spec says what it means


_IMPLEMENTATION = PROTOCOL_START_REPLY + "#/$defs/implementation/properties"
PROFILES = Declaration("profiles", "profile", _IMPLEMENTATION + "/profiles", "spec/README.md#the-router")
OPTIONS_DECLARED = Declaration("options", "option", OPTIONS, "spec/README.md#options")
CLASSES = Declaration("classes", "class", _IMPLEMENTATION + "/classes", "spec/README.md#conformance-classes")
OBSERVES = Declaration("observes", "kind", PROTOCOL_START_REPLY + "#/$defs/observes", "spec/observation.md")
DECLARATIONS = (PROFILES, OPTIONS_DECLARED, CLASSES, OBSERVES)


def _shown(value: Any) -> str:
    """A declared value as Python shows it (an adapter writes it in Python or in JSON alike)."""
    text = repr(value)
    return text if len(text) <= 200 else text[:199] + "…"


def _base(ref: str) -> str:
    return ref.partition("#")[0]


def described(node: Any, base: str) -> str:
    """What a schema (part) allows, in words; `base`: the schema it is part of, for its `$ref`s."""
    if not isinstance(node, dict):
        return "anything" if node is True else "nothing"
    if "$ref" in node:
        ref = node["$ref"] if not node["$ref"].startswith("#") else base + node["$ref"]
        return described(schema(ref), _base(ref))
    if "enum" in node:
        return "one of " + ", ".join(
            value if isinstance(value, str) else json.dumps(value) for value in node["enum"]
        )
    if "const" in node:
        return json.dumps(node["const"])
    for combined in ("anyOf", "oneOf"):
        if combined in node:
            parts = [described(part, base) for part in node[combined]]
            if all(part.startswith("one of ") for part in parts):  # enums side by side: one list
                return "one of " + ", ".join(part.removeprefix("one of ") for part in parts)
            return "either " + "; or ".join(parts)
    kind = node.get("type")
    if kind == "array":
        least = node.get("minItems", 0)
        size = "a non-empty list" if least == 1 else f"a list of at least {least}" if least > 1 else "a list"
        distinct = " distinct" if node.get("uniqueItems") else ""
        return f"{size} of{distinct} values, each {described(node.get('items', True), base)}"
    if kind == "object":
        if "properties" in node:
            return "an object of " + ", ".join(node["properties"])
        names = described(node.get("propertyNames", True), base)
        each = described(node.get("additionalProperties", True), base)
        return f"an object whose names are {names}, each {each}"
    if kind == "string":
        excluded = node.get("not", {})
        return "a text" + (f" other than {json.dumps(excluded['const'])}" if "const" in excluded else "")
    return str(kind or "what its schema says")


def problem(declaration: Declaration, declared: object) -> str | None:
    """What is wrong with `declared`, in words; None when it is valid against its schema."""
    ref = declaration.ref
    if first_error(ref, declared) is None:
        return None
    node, base = schema(ref), _base(ref)
    see = f"see {declaration.documented}"
    if isinstance(declared, list) and isinstance(node.get("items"), dict):  # profiles, classes
        for value in declared:
            if first_error(ref + "/items", value) is not None:
                allowed = described(node["items"], base)
                return f"declares {declaration.one} {_shown(value)}; allowed: {allowed}; {see}"
    if isinstance(declared, Mapping) and "properties" in node:  # options: each has its own values
        unknown = [name for name in declared if name not in node["properties"]]
        if unknown:
            return (
                f"declares {declaration.one} {', '.join(map(_shown, unknown))}, which the spec does not "
                f"define; allowed: {', '.join(node['properties'])}; {see}"
            )
        for name, value in declared.items():
            if first_error(f"{ref}/properties/{name}", value) is not None:
                allowed = described(node["properties"][name], base)
                return f"declares {declaration.one} {name} {_shown(value)}; allowed: {allowed}; {see}"
    if isinstance(declared, Mapping) and isinstance(node.get("additionalProperties"), dict):  # observes
        for name, value in declared.items():
            if first_error(ref + "/propertyNames", name) is not None:
                allowed = described(node["propertyNames"], base)
                return f"declares {declaration.one} {_shown(name)}; allowed: {allowed}; {see}"
            if first_error(ref + "/additionalProperties", value) is not None:
                allowed = described(node["additionalProperties"], base)
                return f"declares {declaration.one} {name} {_shown(value)}; allowed: {allowed}; {see}"
    return f"declares {declaration.name} {_shown(declared)}; allowed: {described(node, base)}; {see}"
