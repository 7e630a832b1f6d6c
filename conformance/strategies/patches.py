"""apply_patch texts of the grammar's safe core, with the preview after each line
(spec/custom-tools.md section 9: CUSTOM-PATCH-2, -3, -6), and at most one fault."""

from __future__ import annotations

import pickle
from enum import Enum
from typing import Any

from .choices import Choices
from .plans import PatchText

PATHS = ("a.txt", "src/main.py", "docs/read me.md", "é.txt")
# What a hunk line says after its prefix: text, or a marker, which in an update is only text.
_MARKERS = ("*** Add File: b.txt", "*** End Patch", "@@ x")


class PatchFault(Enum):
    """The one mistake a drawn patch may hold (CUSTOM-PATCH-6)."""

    NO_BEGIN = "no_begin"
    BAD_ADD = "bad_add"
    BAD_UPDATE = "bad_update"
    EMPTY_UPDATE = "empty_update"  # an update without a hunk: refused where it closes
    NO_END = "no_end"
    AFTER_END = "after_end"


_FAULTS: tuple[PatchFault | None, ...] = (None,) * 7 + (
    PatchFault.NO_BEGIN,
    PatchFault.BAD_ADD,
    PatchFault.BAD_UPDATE,
    PatchFault.EMPTY_UPDATE,
    PatchFault.NO_END,
    PatchFault.NO_END,
    PatchFault.AFTER_END,
    PatchFault.AFTER_END,
)


def _line(c: Choices) -> str:
    return "".join(c.pick("ab xé{") for _ in range(c.integer(1, 6)))


class _PatchWriter:
    """A patch being written line by line, with the preview after each line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.changes: list[bool] = []
        self.files: list[dict[str, Any]] = []
        self.previews: list[Any] = [[]]
        self.error_line: int | None = None

    def line(self, text: str, changed: bool = True) -> None:
        self.lines.append(text)
        self.changes.append(changed)
        self.previews.append(pickle.loads(pickle.dumps(self.files)))  # a copy: deepcopy's, faster

    def fault(self, text: str) -> None:
        """A line the grammar does not allow: the parser stops there."""
        self.error_line = self.error_line or len(self.lines) + 1
        self.line(text, changed=False)


def patch(c: Choices) -> PatchText:
    """A patch of the grammar's safe core, its preview after each line, and at most one fault."""
    fault = c.pick(_FAULTS)
    writer = _PatchWriter()
    if fault is PatchFault.NO_BEGIN:
        writer.fault("hello")
    else:
        writer.line("*** Begin Patch", changed=False)
    if c.chance(6):
        writer.line("*** Environment ID: dev", changed=False)
    for number in range(c.integer(1, 3)):
        op = c.pick(["add", "update", "update", "delete"])
        first = number == 0
        if first and fault is PatchFault.BAD_ADD:
            op = "add"
        elif first and fault is PatchFault.BAD_UPDATE:
            op = "update"
        path = c.pick(PATHS)
        if fault is PatchFault.EMPTY_UPDATE and first:
            writer.files.append({"op": "update", "path": path, "move_to": None, "hunks": []})
            writer.line(f"*** Update File: {path}")
            writer.error_line = len(writer.lines) + 1
        elif op == "delete":
            writer.files.append({"op": "delete", "path": path})
            writer.line(f"*** Delete File: {path}")
        elif op == "add":
            writer.files.append({"op": "add", "path": path, "content": ""})
            writer.line(f"*** Add File: {path}")
            for _ in range(c.integer(1, 3)):
                added = _line(c)
                writer.files[-1]["content"] += added + "\n"
                writer.line("+" + added)
            if fault is PatchFault.BAD_ADD and first:
                writer.fault("oops")
        else:
            _update(c, writer, path, fault is PatchFault.BAD_UPDATE and first)
    if fault is not PatchFault.NO_END:
        writer.line("*** End Patch", changed=False)
    if fault is PatchFault.AFTER_END:
        writer.fault("trailing")
    elif fault is not PatchFault.NO_END and c.chance(6):
        writer.line("", changed=False)  # a blank line after the end is nothing
    ending = c.pick(["\n", "\r\n"])
    # A patch without its end ends its last line: unended, a last line that is the end marker
    # trimmed (a context line " *** End Patch") would end the patch after all (CUSTOM-PATCH-2).
    ended = fault is PatchFault.NO_END or c.coin()
    written = ending.join(writer.lines) + (ending if ended else "")
    return PatchText(written, tuple(writer.previews), tuple(writer.changes), writer.error_line, fault is None)


def _update(c: Choices, writer: _PatchWriter, path: str, bad: bool) -> None:
    entry: dict[str, Any] = {"op": "update", "path": path, "move_to": None, "hunks": []}
    writer.files.append(entry)
    writer.line(f"*** Update File: {path}")
    if c.coin():
        entry["move_to"] = "moved/" + path
        writer.line(f"*** Move to: moved/{path}")
    for number in range(c.integer(1, 2)):
        context = c.pick([None, "def f():", "class A"])
        entry["hunks"].append({"context": context, "lines": [], "end_of_file": False})
        if number > 0 or context is not None or c.coin():
            writer.line("@@" if context is None else f"@@ {context}")
        for _ in range(c.integer(1, 3)):
            prefix = c.pick(" +-")
            said = c.pick(_MARKERS) if c.chance(4) else _line(c)
            empty = prefix == " " and c.chance(6)  # an empty line is the context line " "
            entry["hunks"][-1]["lines"].append(" " if empty else prefix + said)
            writer.line("" if empty else prefix + said)
        if bad:
            writer.fault("xyz")
    if c.chance(4):
        entry["hunks"][-1]["end_of_file"] = True
        writer.line("*** End of File")
        if c.coin():
            writer.line("", changed=False)  # a blank line after it is nothing
