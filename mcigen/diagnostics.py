"""Diagnostics: the errors, warnings and notes every stage collects and the CLI
prints once."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from mcigen_runtime.printable import printable as printable
from mcigen_runtime.printable import quoted as quoted


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    """Not a problem of the input: what was not checked, or checked against what."""


@dataclass(frozen=True, order=True)
class Location:
    """A place in a schema file: 1-based line and column, and the JSON pointer of the node."""

    file: str
    line: int
    column: int
    pointer: str = ""

    def __str__(self) -> str:
        return f"{printable(self.file)}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    level: Level
    location: Location
    message: str

    def __post_init__(self) -> None:
        # One line, whatever the input it quotes holds: a character that is not
        # printable (a newline, a terminal escape) is kept as its escape sequence.
        object.__setattr__(self, "message", printable(self.message))

    def __str__(self) -> str:
        return f"{self.location}: {self.level.value}: {self.message}"


@dataclass
class Diagnostics:
    """An ordered collection that every stage appends to; the build fails if any is an error."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, location: Location, message: str) -> None:
        self.add(Level.ERROR, location, message)

    def warning(self, location: Location, message: str) -> None:
        self.add(Level.WARNING, location, message)

    def add(self, level: Level, location: Location, message: str) -> None:
        self.items.append(Diagnostic(level, location, message))

    def extend(self, other: Iterable[Diagnostic]) -> None:
        self.items.extend(other)

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.level is Level.WARNING]

    @property
    def has_errors(self) -> bool:
        return any(d.level is Level.ERROR for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        """Diagnostics in file order, so output reads top to bottom like the schema."""
        return sorted(
            self.items,
            key=lambda d: (d.location.file, d.location.line, d.location.column),
        )

    def render(self) -> str:
        lines = [str(d) for d in self.sorted()]
        errors = self._count(Level.ERROR)
        warnings = self._count(Level.WARNING)
        if self.items:
            lines.append(f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}")
        return "\n".join(lines)

    def _count(self, level: Level) -> int:
        return sum(1 for d in self.items if d.level is level)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """A ' (did you mean 'x'?)' suffix when a candidate is close to word, else ''."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {quoted(close[0])}?)" if close else ""
