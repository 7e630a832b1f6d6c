"""Writing a vector file that reads back as the vector it was written from.

YAML cannot state a lone surrogate, which events may hold (CORE-TEXT-8): an
event holding one is written as `!json` JSON text (conformance/vectors.py),
and a lone surrogate of an expected outcome as the U+FFFD it is compared as.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .compare import well_formed
from .vectors import Vector, VectorFileError, load_file


@dataclass(frozen=True)
class _JsonText:
    """An event written as `!json` JSON text (conformance/vectors.py): YAML states no lone surrogate."""

    text: str


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    pass


_Dumper.add_representer(
    _JsonText, lambda dumper, value: dumper.represent_scalar("!json", value.text, style="'")
)


def _has_surrogate(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _well_formed(value: Any) -> Any:
    """The value with each lone surrogate of its strings as U+FFFD, as the harness compares outcomes."""
    if isinstance(value, str):
        return well_formed(value)
    if isinstance(value, list):
        return [_well_formed(item) for item in value]
    if isinstance(value, dict):
        return {key: _well_formed(item) for key, item in value.items()}
    return value


def _savable(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The vector as YAML can state it, and as it reads back: an event holding a lone surrogate as
    `!json` text, a lone surrogate of an expected outcome as the U+FFFD it is compared as."""
    if not _has_surrogate(data):
        return data, data
    read = {**data, "expect": {**data["expect"], "outcomes": _well_formed(data["expect"]["outcomes"])}}
    written = dict(read)
    if "events" in data:
        written["events"] = [_JsonText(json.dumps(e)) if _has_surrogate(e) else e for e in data["events"]]
    return written, read


def write_vector(data: dict[str, Any], root: Path) -> Path:
    """Write a vector under `root` at its id's path; it must read back as it was (a lone surrogate
    of an expected outcome aside, which reads back as the U+FFFD it is compared as). ValueError
    says why not: what the harness finds wrong with the file written, such as a limit it passes."""
    path = root / f"{data['id']}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    written, read = _savable(data)
    problem = "the vector does not read back as it was written"
    for allow_unicode in (True, False):
        text = yaml.dump(
            written,
            Dumper=_Dumper,
            sort_keys=False,
            allow_unicode=allow_unicode,
            width=120,
            default_flow_style=None,
        )
        path.write_text(text, encoding="utf-8")
        loaded = load_file(path, root)
        if isinstance(loaded, Vector) and loaded.data == read:
            return path
        if isinstance(loaded, VectorFileError):  # what a run would say of it: too large, say
            problem = f"the vector does not read back: {loaded.message}"
    raise ValueError(f"{path}: {problem}")
