"""An incremental parser of the apply_patch format, for streaming previews.

spec/custom-tools.md section 9 defines the grammar (CUSTOM-PATCH-2) and the
preview (CUSTOM-PATCH-3); the `patch` consumer in consumers.py adds the
throttle and `finish` on top of this parser. The grammar is that of Codex's
streaming parser (codex-rs/apply-patch/src/streaming_parser.rs), rule for
rule: in an update, lines are trimmed at their end only, so an indented
marker there is a context line; everywhere else on both sides.

The parser takes text in pieces cut anywhere and parses each complete line
exactly once, when its `\\n` arrives; the partial last line is kept as a list
of pieces and joined only when it completes. The preview is kept as mutable
per-file records (an added file's lines in a list, never a growing string)
and turned into JSON only when `files()` is asked for. So feeding a text of
n characters costs O(n) in total, however it is cut, one character at a time
included. An entry the parser has moved past never changes again, so its
JSON is built once, when the next header closes it, and every later preview
shares it: `files()` costs the number of files plus the size of the one entry
still open, not the size of the whole preview, and a throttled preview of a
long patch stays linear in its length.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
ENVIRONMENT = "*** Environment ID:"

# Unicode White_Space, what Rust's `str::trim` removes; `str.strip()` would also remove U+001C-U+001F.
WHITESPACE = (
    "\t\n\v\f\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)

# Parser states (CUSTOM-PATCH-2).
START, FILES, ADDING, DELETING, UPDATING, ENDED = "start", "files", "add", "delete", "update", "end"


class PatchError(Exception):
    """A line the grammar does not allow: `str()` is `line N: explanation`."""

    def __init__(self, line: int, explanation: str) -> None:
        super().__init__(f"line {line}: {explanation}")
        self.line = line
        self.explanation = explanation


@dataclass(slots=True)
class _Hunk:
    context: str | None
    lines: list[str] = field(default_factory=list)
    end_of_file: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"context": self.context, "lines": list(self.lines), "end_of_file": self.end_of_file}


@dataclass(slots=True)
class _File:
    op: str
    path: str
    header_line: int
    added: list[str] = field(default_factory=list)  # op add: the content's lines
    move_to: str | None = None
    hunks: list[_Hunk] = field(default_factory=list)  # op update

    def to_json(self) -> dict[str, Any]:
        if self.op == "add":
            return {"op": "add", "path": self.path, "content": "".join(line + "\n" for line in self.added)}
        if self.op == "delete":
            return {"op": "delete", "path": self.path}
        hunks = [hunk.to_json() for hunk in self.hunks]
        return {"op": "update", "path": self.path, "move_to": self.move_to, "hunks": hunks}


def _path_after(marker: str, prefix: str) -> str | None:
    """The path of a header line `prefix + path`, as written, or None if `marker` is not one.

    `marker` is trimmed at its end and `prefix` ends with a space, so a path is never empty.
    """
    return marker[len(prefix) :] if marker.startswith(prefix) else None


def _is_hunk_header(marker: str) -> bool:
    return marker == "@@" or marker.startswith("@@ ")


class PatchParser:
    """Parses apply_patch text fed in pieces; see the module docstring.

    `feed(text)` returns whether the preview changed. After a parse error the
    parser stops: `error` holds it and further text is ignored. `finish()`
    parses the partial last line and requires `*** End Patch`.
    """

    def __init__(self) -> None:
        self._partial: list[str] = []  # pieces of the line being received
        self._line = 0  # the number of the last line parsed
        self._state = START
        self._files: list[_File] = []
        self._closed: list[dict[str, Any]] = []  # the JSON of the entries before the open one
        self._environment_seen = False  # `*** Environment ID:` comes at most once
        self.error: PatchError | None = None

    @property
    def ended(self) -> bool:
        return self._state == ENDED

    def files(self) -> list[dict[str, Any]]:
        """The preview: the entries parsed so far, as JSON (CUSTOM-PATCH-3).

        The entries of closed files are the same objects in every preview; treat them as read-only.
        """
        if len(self._closed) == len(self._files):
            return list(self._closed)
        return [*self._closed, self._files[-1].to_json()]  # only the last entry is ever open

    def feed(self, text: str) -> bool:
        """Take more text; parse the lines it completes (CUSTOM-PATCH-1)."""
        if self.error is not None:
            return False
        if "\n" not in text:  # most pieces of a stream: no line ends here
            if text:
                self._partial.append(text)
            return False
        pieces = text.split("\n")
        changed = False
        self._partial.append(pieces[0])
        pieces[0] = "".join(self._partial)
        self._partial = []
        try:
            for line in itertools.islice(pieces, len(pieces) - 1):
                changed = self._parse_line(line) or changed
        except PatchError as error:
            self.error = error
            return False
        if pieces[-1]:
            self._partial.append(pieces[-1])
        return changed

    def finish(self) -> None:
        """The text is complete: parse its last line, require `*** End Patch` (CUSTOM-PATCH-5).

        Raises the first `PatchError` of the text, if any.
        """
        if self.error is None and self._partial:
            last = "".join(self._partial)
            self._partial = []
            try:
                self._parse_last_line(last)
            except PatchError as error:
                self.error = error
        if self.error is not None:
            raise self.error
        if self._state != ENDED:
            self.error = PatchError(max(self._line, 1), f"the patch does not end with {END!r}")
            raise self.error

    # -- one complete line ---------------------------------------------------

    def _parse_last_line(self, raw: str) -> None:
        """The line after the last `\\n`: `*** End Patch` trimmed on both sides, whatever the state
        after the first line (as Codex's `finish`), else a line like any other."""
        if self._state != START and raw.strip(WHITESPACE) == END:
            self._line += 1
            self._close_entry()
            self._state = ENDED
        else:
            self._parse_line(raw)

    def _parse_line(self, raw: str) -> bool:
        """Parse one line (CUSTOM-PATCH-2); True when it changed the preview."""
        self._line += 1
        line = raw[:-1] if raw.endswith("\r") else raw
        state = self._state
        first = line[:1]
        if first == "+" and state == ADDING:  # most lines: content, which no marker starts like
            self._files[-1].added.append(line[1:])
            return True
        if state == UPDATING:
            if first == "+" or first == "-":
                return self._hunk_line(line)
            return self._update_line(line, line.rstrip(WHITESPACE))
        marker = line.strip(WHITESPACE)
        if state == ENDED:
            if marker:
                raise PatchError(self._line, f"content after {END!r}: {line!r}")
            return False
        if state == START:
            if marker != BEGIN:
                raise PatchError(self._line, f"the first line of a patch must be {BEGIN!r}, got {line!r}")
            self._state = FILES
            return False
        if state == FILES and marker.startswith(ENVIRONMENT):
            self._set_environment(marker[len(ENVIRONMENT) :].strip(WHITESPACE))
            return False
        if marker.startswith("***") and self._header(marker):
            return self._state != ENDED
        if state == ADDING:
            raise PatchError(self._line, f"every line of an added file starts with '+', got {line!r}")
        raise PatchError(self._line, f"expected a file header or {END!r}, got {line!r}")

    def _set_environment(self, environment: str) -> None:
        """`*** Environment ID: E` before the first file: once, E not blank; not part of the preview."""
        if not environment:
            raise PatchError(self._line, "the environment id is empty")
        if self._environment_seen:
            raise PatchError(self._line, "a second environment id")
        self._environment_seen = True

    def _header(self, marker: str) -> bool:
        """A file header or `*** End Patch`: close the current entry, start the next."""
        if marker == END:
            self._close_entry()
            self._state = ENDED
            return True
        for prefix, op, state in (
            (ADD, "add", ADDING),
            (DELETE, "delete", DELETING),
            (UPDATE, "update", UPDATING),
        ):
            path = _path_after(marker, prefix)
            if path is not None:
                self._close_entry()
                self._files.append(_File(op, path, self._line))
                self._state = state
                return True
        return False

    def _close_entry(self) -> None:
        if self._state == UPDATING:
            entry = self._files[-1]
            if not entry.hunks:
                raise PatchError(entry.header_line, f"the update of {entry.path!r} has no hunk")
            if not entry.hunks[-1].lines:
                raise PatchError(self._line, f"the last hunk of the update of {entry.path!r} has no line")
        if len(self._closed) < len(self._files):  # its JSON, once and for all
            self._closed.append(self._files[-1].to_json())

    def _update_line(self, line: str, marker: str) -> bool:
        """A line of an update that is not `+` or `-`; `marker` is the line trimmed at its end only."""
        if marker.startswith("***") and self._header(marker):
            return self._state != ENDED
        entry = self._files[-1]
        hunks = entry.hunks
        if hunks and hunks[-1].end_of_file:
            if not marker:
                return False  # a blank line after `*** End of File`: nothing
            if not _is_hunk_header(marker):
                raise PatchError(self._line, f"after {END_OF_FILE!r} a hunk starts with '@@', got {line!r}")
        if not hunks and entry.move_to is None:
            move_to = _path_after(marker, MOVE)
            if move_to is not None:
                entry.move_to = move_to
                return True
        if _is_hunk_header(marker) or marker == END_OF_FILE:
            if hunks and not hunks[-1].lines:
                raise PatchError(self._line, f"a hunk without a line before {line!r}")
            if marker == END_OF_FILE:
                if not hunks:
                    return False  # before the first hunk it ends nothing (as Codex)
                hunks[-1].end_of_file = True
            else:
                hunks.append(_Hunk(marker[3:] if marker != "@@" else None))
            return True
        if line == "" or line[0] == " ":
            return self._hunk_line(line)
        raise PatchError(
            self._line,
            f"every line of an update starts with ' ', '+' or '-', or is a header; got {line!r}",
        )

    def _hunk_line(self, line: str) -> bool:
        hunks = self._files[-1].hunks
        if not hunks:
            hunks.append(_Hunk(None))  # the first hunk may omit its @@
        elif hunks[-1].end_of_file:
            raise PatchError(self._line, f"a hunk line after {END_OF_FILE!r}: {line!r}")
        hunks[-1].lines.append(line or " ")
        return True


def parse(text: str) -> list[dict[str, Any]]:
    """Parse a complete patch at once: its preview, or raises `PatchError`."""
    parser = PatchParser()
    parser.feed(text)
    parser.finish()
    return parser.files()
