"""Loading vector files: YAML (safe subset, no duplicate keys), then the vector schema.

A file that cannot be used is never skipped: it becomes a `VectorFileError`
naming the file and, where it applies, the line or the JSON pointer of the
fault, and every runner reports it as a failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from .schemas import VECTOR, first_error

At = int | Literal["close"]


class _UniqueKeyLoader(yaml.SafeLoader):
    """yaml.SafeLoader that refuses duplicate mapping keys instead of keeping the last."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


@dataclass(frozen=True)
class VectorFileError:
    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class Vector:
    path: Path
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def title(self) -> str:
        return str(self.data["title"])

    @property
    def profile(self) -> str:
        return str(self.data["profile"])

    @property
    def spec(self) -> list[str]:
        return list(self.data["spec"])

    @property
    def level(self) -> str:
        return str(self.data["level"])

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.data.get("options", {}))

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list(self.data["tools"])

    @property
    def events(self) -> list[Any]:
        return list(self.data["events"])

    @property
    def expected(self) -> list[dict[str, Any]]:
        return list(self.data["expect"]["outcomes"])

    @property
    def compare(self) -> frozenset[str] | None:
        kinds = self.data["expect"].get("compare")
        return None if kinds is None else frozenset(kinds)


def _vector_files(root: Path) -> Iterable[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def load_file(path: Path, root: Path) -> Vector | VectorFileError:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except (OSError, UnicodeDecodeError) as exc:
        return VectorFileError(path, f"cannot read: {exc}")
    except yaml.YAMLError as exc:
        return VectorFileError(path, f"not valid YAML: {exc}")
    problem = first_error(VECTOR, data)
    if problem is not None:
        return VectorFileError(path, f"does not match the vector schema: {problem}")
    expected_id = path.relative_to(root).with_suffix("").as_posix()
    if data["id"] != expected_id:
        return VectorFileError(
            path, f"id {data['id']!r} must be its path under the vectors root, {expected_id!r}"
        )
    return Vector(path, data)


def load_vectors(roots: Sequence[Path]) -> tuple[list[Vector], list[VectorFileError]]:
    """Every vector under `roots`, in id order, and every file that could not be used."""
    vectors: dict[str, Vector] = {}
    errors: list[VectorFileError] = []
    for root in roots:
        if not root.is_dir():
            errors.append(VectorFileError(root, "is not a directory of vectors"))
            continue
        for path in _vector_files(root):
            loaded = load_file(path, root)
            if isinstance(loaded, VectorFileError):
                errors.append(loaded)
            elif loaded.id in vectors:
                errors.append(
                    VectorFileError(path, f"duplicate id {loaded.id!r}, also in {vectors[loaded.id].path}")
                )
            else:
                vectors[loaded.id] = loaded
    return [vectors[key] for key in sorted(vectors)], errors
