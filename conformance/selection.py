"""Which vectors `streamroute run` runs: `--id ID` (repeatable) and `-k EXPR`, as pytest's `-k`.

`-k` takes pytest's keyword expressions, parsed by pytest's own parser (`_pytest.mark.expression`,
the grammar of `and`, `or`, `not` and parentheses that pytest has kept since 6.0): each word
matches a vector whose id holds it, case-insensitively, as a word of `-k` matches a test whose
node id holds it (a vector's node id in the pytest plugin is its id). `--id` names vectors
exactly; an id that matches no vector is a usage error, since a typo must not run nothing.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .vectors import Vector


class SelectionError(Exception):
    """A selection that cannot be meant: a usage error, in one line."""


def _matcher(vector_id: str) -> Callable[..., bool]:
    lowered = vector_id.lower()

    def matches(word: str, /, **arguments: object) -> bool:
        if arguments:
            raise SelectionError("-k: a keyword expression takes no call arguments")
        return word.lower() in lowered

    return matches


@dataclass(frozen=True)
class Selection:
    ids: tuple[str, ...] = ()
    keyword: str = ""

    @classmethod
    def of(cls, args: argparse.Namespace) -> Selection:
        """The selection `add_selection_arguments`'s options ask for."""
        return cls(tuple(args.ids), args.keyword)

    def select(self, vectors: Sequence[Vector]) -> list[Vector]:
        """The vectors chosen, in their order; SelectionError for an id that matches no vector or
        an expression that does not parse."""
        known = {vector.id for vector in vectors}
        for vector_id in self.ids:
            if vector_id not in known:
                close = difflib.get_close_matches(vector_id, sorted(known), n=3)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                raise SelectionError(f"--id {vector_id}: no vector has this id{hint}")
        chosen = [vector for vector in vectors if not self.ids or vector.id in self.ids]
        if not self.keyword.strip():
            return chosen
        # Imported only for -k: it brings much of pytest, which no other command needs.
        from _pytest.mark import expression

        # pytest 8.3 and later raise SyntaxError for an expression that does not parse; earlier
        # ones raise their ParseError.
        errors = (SyntaxError, getattr(expression, "ParseError", SyntaxError))
        try:
            compiled = expression.Expression.compile(self.keyword)
        except errors as exc:
            raise SelectionError(f"-k {self.keyword!r} is not a keyword expression: {_reason(exc)}") from None
        return [vector for vector in chosen if compiled.evaluate(_matcher(vector.id))]


def _reason(exc: Exception) -> str:
    """What pytest's parser says is wrong, with the column, as pytest shows it."""
    if isinstance(exc, SyntaxError):
        return f"at column {exc.offset}: {exc.msg}"
    return str(exc)


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--id",
        dest="ids",
        metavar="ID",
        action="append",
        default=[],
        help="run only the vector of this id (repeatable)",
    )
    parser.add_argument(
        "-k",
        dest="keyword",
        metavar="EXPR",
        default="",
        help="run only the vectors whose id matches the expression, as pytest's -k: words matched "
        "case-insensitively within the id, with and, or, not and parentheses",
    )
