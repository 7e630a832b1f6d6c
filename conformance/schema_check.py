"""The spec's JSON Schemas compiled to plain predicates: is an instance valid, yes or no.

jsonschema stays the definition and names the error; this answers only the
question a harness asks of every outcome (is it valid?) at a fraction of the
cost, so that a run costs little more than reading its vectors. It compiles the
keywords the spec's schemas use (`KEYWORDS`), with the meanings of JSON Schema
2020-12 as jsonschema applies them; a schema with any other keyword compiles
to None, and the caller asks jsonschema instead. tests/test_schema_check.py
holds both to the same verdict on every bundled vector, event and outcome and
on broken copies of them.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Sequence
from typing import Any

Check = Callable[[Any], bool]
_READ_BESIDE = frozenset(
    {"then", "else", "prefixItems", "additionalProperties"}
)  # with if, items, properties
Lookup = Callable[[str], Any]  # an absolute schema URI (with its fragment) -> the schema there

# Keywords that assert nothing about an instance (annotations and structure).
ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$defs",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "format",
        "contentEncoding",
        "contentMediaType",
    }
)


def _is_integer(value: Any) -> bool:
    if type(value) is int:  # the common case, answered before the general one
        return True
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    if type(value) in (int, float):  # the common case: no abstract base class to ask
        return True
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


_TYPES: dict[str, Check] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "integer": _is_integer,
    "number": _is_number,
}


def schema_equal(one: Any, other: Any) -> bool:
    """Equality as JSON Schema has it for `const`, `enum` and `uniqueItems`: a boolean is no number,
    1 equals 1.0, and containers compare member by member."""
    if one is other:
        return True
    if isinstance(one, str) or isinstance(other, str):
        return bool(one == other)
    if isinstance(one, bool) or isinstance(other, bool):
        return isinstance(one, bool) and isinstance(other, bool) and one == other
    if isinstance(one, list) and isinstance(other, list):
        return len(one) == len(other) and all(map(schema_equal, one, other))
    if isinstance(one, dict) and isinstance(other, dict):
        return one.keys() == other.keys() and all(schema_equal(one[key], other[key]) for key in one)
    if _is_number(one) and _is_number(other):
        return bool(one == other)
    return bool(one == other) if type(one) is type(other) else False


def _unique(items: Sequence[Any]) -> bool:
    return all(not schema_equal(items[i], items[j]) for i in range(len(items)) for j in range(i))


class _Compiler:
    """Compiles one schema and every schema it references, each once (so a recursive reference works)."""

    def __init__(self, lookup: Lookup) -> None:
        self._lookup = lookup
        self._by_uri: dict[str, Check] = {}

    def reference(self, uri: str) -> Check:
        known = self._by_uri.get(uri)
        if known is not None:
            return known
        target: list[Check] = []
        self._by_uri[uri] = lambda value: target[0](value)  # stands in until compiled
        target.append(self.compile(self._lookup(uri), uri.partition("#")[0]))
        self._by_uri[uri] = target[0]
        return target[0]

    def strings(self, node: Any, base: str) -> frozenset[str] | None:
        """The strings `node` allows when it allows only strings it lists (an `enum` or `const` of
        strings, or a `$ref` to one, annotations aside); else None."""
        if not isinstance(node, dict):
            return None
        asserting = {keyword: argument for keyword, argument in node.items() if keyword not in ANNOTATIONS}
        if asserting.keys() == {"$ref"}:
            uri = _uri(base, asserting["$ref"])
            return self.strings(self._lookup(uri), uri.partition("#")[0])
        if asserting.keys() == {"const"}:
            asserting = {"enum": [asserting["const"]]}
        if asserting.keys() == {"enum"} and all(type(member) is str for member in asserting["enum"]):
            return frozenset(asserting["enum"])
        return None

    def compile(self, node: Any, base: str) -> Check:
        if node is True:
            return lambda value: True
        if node is False:
            return lambda value: False
        if not isinstance(node, dict):
            raise _Unsupported(f"a schema that is {type(node).__name__}")
        checks: list[Check] = []
        for keyword, argument in node.items():
            if keyword in ANNOTATIONS or keyword.startswith("x-") or keyword in _READ_BESIDE:
                continue  # annotations; and keywords read beside the one they belong to
            build = _KEYWORDS.get(keyword)
            if build is None:
                raise _Unsupported(f"keyword {keyword!r}")
            checks.append(build(self, argument, node, base))
        if "additionalProperties" in node and "properties" not in node:
            checks.append(_properties(self, {}, node, base))
        if "prefixItems" in node and "items" not in node:
            checks.append(_items(self, True, node, base))
        return _conjunction(checks)


def _conjunction(checks: Sequence[Check]) -> Check:
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)

    def every(value: Any) -> bool:  # a loop: a generator costs more than the checks it runs
        for test in checks:  # noqa: SIM110
            if not test(value):
                return False
        return True

    return every


class _Unsupported(Exception):
    pass


def _type(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    names = [argument] if isinstance(argument, str) else list(argument)
    tests = [_TYPES[name] for name in names]
    if len(tests) == 1:
        return tests[0]
    return lambda value: any(test(value) for test in tests)


def _enum(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    members = list(argument)
    if all(type(member) is str for member in members):  # a string equals only a string: look it up
        strings = frozenset(members)
        return lambda value: isinstance(value, str) and value in strings
    return lambda value: any(schema_equal(value, member) for member in members)


def _const(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    if type(argument) is str:
        return lambda value: isinstance(value, str) and value == argument
    return lambda value: schema_equal(value, argument)


def _required(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    names = frozenset(argument)
    return lambda value: not isinstance(value, dict) or names <= value.keys()


def _properties(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    named = {name: compiler.compile(schema, base) for name, schema in argument.items()}
    extra = node.get("additionalProperties")
    other = None if extra is None else compiler.compile(extra, base)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name, member in value.items():
            test = named.get(name, other)
            if test is not None and not test(member):
                return False
        return True

    return check


def _items(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    prefix = [compiler.compile(schema, base) for schema in node.get("prefixItems", [])]
    rest = compiler.compile(argument, base)

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        for index, item in enumerate(value):
            test = prefix[index] if index < len(prefix) else rest
            if not test(item):
                return False
        return True

    return check


def _property_names(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    test = compiler.compile(argument, base)
    return lambda value: not isinstance(value, dict) or all(test(name) for name in value)


def _contains(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    test = compiler.compile(argument, base)
    return lambda value: not isinstance(value, list) or any(test(item) for item in value)


def _min_items(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    return lambda value: not isinstance(value, list) or len(value) >= argument


def _unique_items(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    if not argument:
        return lambda value: True
    return lambda value: not isinstance(value, list) or _unique(value)


def _max_items(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    return lambda value: not isinstance(value, list) or len(value) <= argument


def _max_length(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    return lambda value: not isinstance(value, str) or len(value) <= argument


def _maximum(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    return lambda value: not _is_number(value) or not value > argument


def _min_length(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    return lambda value: not isinstance(value, str) or len(value) >= argument


def _minimum(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    return lambda value: not _is_number(value) or not value < argument  # NaN is not below: valid


def _pattern(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    search = re.compile(argument).search
    return lambda value: not isinstance(value, str) or search(value) is not None


def _all_of(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    return _conjunction([compiler.compile(schema, base) for schema in argument])


def _any_of(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    strings = [compiler.strings(schema, base) for schema in argument]
    if all(member is not None for member in strings):  # enums of strings: one set to look up
        merged = frozenset().union(*(member for member in strings if member is not None))
        return lambda value: isinstance(value, str) and value in merged
    tests = [compiler.compile(schema, base) for schema in argument]
    return lambda value: any(test(value) for test in tests)


def _one_of(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    tests = [compiler.compile(schema, base) for schema in argument]
    return lambda value: sum(1 for test in tests if test(value)) == 1


def _not(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    test = compiler.compile(argument, base)
    return lambda value: not test(value)


def _if(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    condition = compiler.compile(argument, base)
    then = compiler.compile(node.get("then", True), base)
    otherwise = compiler.compile(node.get("else", True), base)
    return lambda value: then(value) if condition(value) else otherwise(value)


def _uri(base: str, reference: str) -> str:
    """The absolute URI, with its fragment, of a `$ref` found at `base`."""
    uri = base + reference if reference.startswith("#") else reference
    return uri if "#" in uri else uri + "#"


def _ref(compiler: _Compiler, argument: Any, node: dict[str, Any], base: str) -> Check:
    return compiler.reference(_uri(base, argument))


_KEYWORDS: dict[str, Callable[[_Compiler, Any, dict[str, Any], str], Check]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "required": _required,
    "properties": _properties,
    "propertyNames": _property_names,
    "items": _items,
    "contains": _contains,
    "minItems": _min_items,
    "uniqueItems": _unique_items,
    "maxItems": _max_items,
    "minLength": _min_length,
    "maxLength": _max_length,
    "minimum": _minimum,
    "maximum": _maximum,
    "pattern": _pattern,
    "allOf": _all_of,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
    "if": _if,
    "$ref": _ref,
}
KEYWORDS = frozenset(_KEYWORDS) | _READ_BESIDE


def compiled(schema: Any, lookup: Lookup, base: str = "") -> Check | None:
    """`schema` (found at `base`; `{"$ref": uri}` for a schema of the registry) as a predicate; None
    when it uses a keyword outside `KEYWORDS`, or a value of one that this module does not read."""
    try:
        return _Compiler(lookup).compile(schema, base)
    except (_Unsupported, KeyError, TypeError, re.error):
        return None
