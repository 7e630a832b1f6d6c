"""The compiled schema predicates (conformance/schema_check.py) give jsonschema's verdict, always."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema._utils import equal  # the equality jsonschema applies to const, enum, uniqueItems
from streamroute.conformance.schema_check import compiled, schema_equal
from streamroute.conformance.schemas import EVENT, OUTCOME, SPEC_DIR, VECTOR, schema, validator
from streamroute.conformance.suite import Suite
from streamroute.conformance.vectors import Vector

SCHEMAS = sorted(
    json.loads(path.read_text(encoding="utf-8"))["$id"] for path in SPEC_DIR.glob("*.schema.json")
)
ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    2**64,
    "",
    "x",
    "response.completed",
    [],
    {},
    [1, 1],
    {"a": 1},
]


@pytest.mark.parametrize("ref", SCHEMAS)
def test_every_schema_of_the_spec_compiles(ref: str) -> None:
    assert compiled({"$ref": ref}, schema) is not None


def _broken(value: Any, rng: random.Random) -> Any:
    """`value` with one member, somewhere inside it, removed, replaced or added."""
    broken = copy.deepcopy(value)
    containers = list(_containers(broken))
    if not containers:
        return rng.choice(ODD_VALUES)
    container = rng.choice(containers)
    if isinstance(container, dict):
        key = rng.choice([*container, "kind", "type", "id", "message", "extra"])
        if key in container and rng.random() < 0.4:
            del container[key]
        else:
            container[key] = rng.choice(ODD_VALUES)
    elif container and rng.random() < 0.5:
        container[rng.randrange(len(container))] = rng.choice(ODD_VALUES)
    else:
        container.append(rng.choice(ODD_VALUES))
    return broken


def _containers(value: Any) -> Iterator[Any]:
    if isinstance(value, (dict, list)):
        yield value
        for member in value.values() if isinstance(value, dict) else value:
            yield from _containers(member)


def _instances(vectors: list[Vector]) -> dict[str, list[Any]]:
    """The vectors, their events, their expected outcomes and those the reference produces."""
    suite = Suite.prepare()
    produced = [
        entry.outcome
        for vector in vectors
        if vector.stream is None
        for entry in suite.implementation.produce(vector)
    ]
    return {
        VECTOR: [vector.data for vector in vectors],
        EVENT: [event for vector in vectors if vector.stream is None for event in vector.events],
        OUTCOME: [outcome for vector in vectors for outcome in vector.expected] + produced,
    }


def _agree(ref: str, values: list[Any]) -> tuple[int, int]:
    check = compiled({"$ref": ref}, schema)
    assert check is not None
    whole = validator(ref)
    valid = 0
    for value in values:
        verdict = whole.is_valid(value)
        assert check(value) == verdict, (ref, value)
        valid += verdict
    return valid, len(values) - valid


@pytest.mark.parametrize("size", [pytest.param(None, marks=pytest.mark.slow), 25])
def test_the_compiled_checks_agree_with_jsonschema_on_bundled_and_broken_instances(
    bundled: list[Vector], size: int | None
) -> None:
    """Every bundled instance and a broken copy of each, or so many small vectors and three broken
    copies of each of their instances."""
    rng = random.Random(11)
    small = [vector for vector in bundled if vector.path.stat().st_size < 16_000]
    for ref, sample in _instances(bundled if size is None else rng.sample(small, size)).items():
        broken = [_broken(value, rng) for value in sample for _ in range(1 if size is None else 3)]
        valid, invalid = _agree(ref, sample + broken)
        assert valid >= len(sample), (ref, valid)  # every bundled instance, and then some broken ones
        assert invalid > len(sample) // 4, (ref, invalid)  # many broken ones: both verdicts exercised


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["kind", "type", "id", "a"]), inner)
    ),
    max_leaves=12,
)


@given(st.sampled_from(SCHEMAS), _json)
def test_the_compiled_checks_agree_with_jsonschema_on_any_json(ref: str, value: Any) -> None:
    _agree(ref, [value])


@given(_json, _json)
def test_json_equality_is_json_schemas(one: Any, other: Any) -> None:
    assert schema_equal(one, other) == equal(one, other)
    assert schema_equal(one, copy.deepcopy(one))
