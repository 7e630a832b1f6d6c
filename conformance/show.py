"""`streamroute show ID`: where a vector's file is, and what it says, to read or copy one vector."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path

from .limits import printable
from .schemas import VECTOR, schema
from .selection import SelectionError


def vector_file(roots: Sequence[Path], vector_id: str) -> Path:
    """The absolute path of the file of vector `vector_id` under the first root that has it (a
    vector's id is its path under its root, less `.yaml`); SelectionError when none has it."""
    pattern = schema(VECTOR + "#/properties/id")["pattern"]
    if not re.fullmatch(pattern, vector_id):
        raise SelectionError(f"{vector_id!r} is not a vector id ({pattern})")
    for root in roots:
        path = root / f"{vector_id}.yaml"
        if path.is_file():
            return path.absolute()
    known = sorted(
        path.relative_to(root).with_suffix("").as_posix() for root in roots for path in root.rglob("*.yaml")
    )
    close = difflib.get_close_matches(vector_id, known, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    where = ", ".join(str(root) for root in roots)
    raise SelectionError(f"no vector {vector_id} under {where}{hint}")


def shown(path: Path) -> str:
    """The file's path, then its text as the file holds it (what would act on a terminal escaped)."""
    text = path.read_bytes().decode("utf-8", "replace")
    return f"# {path}\n{printable(text)}" + ("" if text.endswith("\n") else "\n")
