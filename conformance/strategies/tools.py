"""The tools of each profile's streams, and the names their items state.

core and sse streams are routed with `TOOLS` (core reads no tool list);
custom-tools streams with a registry whose custom tools have catalogue
consumers (CUSTOM-CAT-1); execution streams with declared tools and their
behaviours (spec/execution.md section 11). Items state names from the profile's
`Catalogue`: mostly registered ones, some the registry lacks or has in another
namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

from ..schemas import json_pointer
from .choices import Choices
from .patches import PATHS
from .plans import Behaviour, ConsumerKey, ExecutionTool
from .texts import Objects, any_object, json_value, text
from .vocabulary import SCHEMAS, ConsumerKind, Profile

CONSUMERS: tuple[ConsumerKind, ...] = get_args(ConsumerKind)


@dataclass(frozen=True)
class Catalogue:
    """The names items may state, and how each call's texts are drawn, for one profile."""

    functions: tuple[ConsumerKey, ...]  # (namespace, name)
    customs: tuple[ConsumerKey, ...]
    objects: Callable[[str], Objects]  # by tool name
    patches: frozenset[str] = frozenset()  # custom tools whose input is a patch


def _schema_object(name: str) -> Objects:
    """Arguments for a tool of SCHEMAS: valid, or with exactly one fault, and its JSON Pointer
    (EXEC-CHECK-2)."""

    def draw(c: Choices) -> tuple[Any, str | None]:
        city = text(c, 6)
        fault = c.pick([None] * 5 + ["type", "missing", "extra", "nested"])
        if name == "get_weather":
            value: dict[str, Any] = {"city": city}
            if c.coin():
                value["days"] = c.integer(1, 9)
            if fault == "type":
                return {**value, "city": 5}, "/city"
            if fault == "missing":
                return {k: v for k, v in value.items() if k != "city"}, "/city"
            if fault in ("extra", "nested"):
                extra = c.pick(["unit", "a/b", "m~n"])
                return {**value, extra: 1}, json_pointer([extra])
            return value, None
        files: list[dict[str, Any]] = [{"path": c.pick(PATHS)} for _ in range(c.integer(1, 3))]
        if fault == "type":
            return {"files": "all"}, "/files"
        if fault == "missing":
            return {}, "/files"
        if fault in ("extra", "nested"):
            where = c.below(len(files))
            files[where] = {"path": 5} if fault == "nested" else {"name": "x"}
            return {"files": files}, f"/files/{where}/path"
        return {"files": files}, None

    return draw


def catalogue(profile: Profile, patches: frozenset[str]) -> Catalogue:
    """What the items of a profile's streams call; `patches`: the custom tools whose input is a patch."""
    functions: tuple[ConsumerKey, ...]
    customs: tuple[ConsumerKey, ...]
    if profile == "execution":
        functions = (
            (None, "get_weather"),
            (None, "edit_files"),
            (None, "search_docs"),
            ("ops", "deploy"),
        ) * 2
        functions += (
            (None, "deploy"),
            ("other", "get_weather"),
        )  # the allow-list's names elsewhere (EXEC-CHECK-1)
        customs = ((None, "run_sql"), (None, "get_weather"), (None, "unlisted"))

        def objects(name: str) -> Objects:
            return _schema_object(name) if name in SCHEMAS else any_object

        return Catalogue((*functions, (None, "unlisted")), customs, objects)
    functions = ((None, "get_weather"), (None, "search_docs"), ("mcp__docs", "lookup"))
    customs = ((None, "run_sql"), (None, "apply_patch"))
    if profile == "custom-tools":  # mostly tools with a consumer, some more than once
        customs += ((None, "run_sql"), (None, "apply_patch"), ("files", "write"), ("files", "write"))
        customs += ((None, "note"), (None, "unlisted"))
        customs += ((None, "write"), ("other", "run_sql"))  # a consumer's tool name in another namespace
    return Catalogue(functions, customs, lambda name: any_object, patches | {"apply_patch"})


def custom_tools(
    c: Choices,
) -> tuple[tuple[dict[str, Any], ...], tuple[tuple[ConsumerKey, ConsumerKind], ...]]:
    """A registry of custom-tools: consumers drawn from the catalogue (CUSTOM-CAT-1)."""
    patch_consumers: tuple[ConsumerKind, ...] = ("patch", "patch", "patch", "echo", "raise")
    consumers: dict[ConsumerKey, ConsumerKind] = {
        (None, "run_sql"): c.pick(CONSUMERS),
        (None, "apply_patch"): c.pick(patch_consumers),
        ("files", "write"): c.pick(CONSUMERS),
    }
    tools: list[dict[str, Any]] = [
        {"name": "get_weather", "type": "function", "consumer": "echo"},  # never used (CUSTOM-SLOT-3)
        {"name": "search_docs", "type": "function"},
        {"name": "note", "type": "custom"},  # no consumer
    ]
    for (namespace, name), consumer in consumers.items():
        tool = {"name": name, "type": "custom", "consumer": consumer}
        tools.append({"namespace": namespace, **tool} if namespace else tool)
    return tuple(tools), tuple(consumers.items())


_EXECUTION_TOOLS = (
    (None, "get_weather", "function"),
    (None, "edit_files", "function"),
    (None, "search_docs", "function"),
    ("ops", "deploy", "function"),
    (None, "run_sql", "custom"),
)
_BEHAVIOURS: tuple[Behaviour, ...] = (
    "result",
    "result",
    "result",
    "fails",
    "pending",
    "pending",
    "returns_input",
)


def execution_tools(c: Choices) -> tuple[ExecutionTool, ...]:
    """The application's tools with drawn behaviours (spec/execution.md section 11)."""
    found = []
    for namespace, name, tool_type in _EXECUTION_TOOLS:
        behaviour = c.pick(_BEHAVIOURS)
        found.append(
            ExecutionTool(
                name,
                "function" if tool_type == "function" else "custom",
                namespace,
                SCHEMAS.get(name),
                allow=not c.chance(6),
                permitted=not c.chance(6),
                requires_approval=c.chance(3),
                behaviour=behaviour,
                result=json_value(c) if behaviour == "result" else None,
            )
        )
    return tuple(found)
