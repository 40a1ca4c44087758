"""What a format reader produces: plain data plus where each node was written.

Positions are character indexes into the text, keyed by JSON pointer; lines and
columns are computed from them on demand, so JSON and YAML share one shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .string_offsets import StringSpan


@dataclass(frozen=True)
class NodeSpan:
    """Where a value starts and, for an object member, where its key starts."""

    value: int
    key: int | None = None


@dataclass(frozen=True)
class DuplicateKey:
    """A key that repeats an earlier key of the same mapping."""

    name: str
    pointer: str
    key: int


@dataclass
class ParsedText:
    data: object
    nodes: dict[str, NodeSpan] = field(default_factory=dict)
    strings: dict[str, StringSpan] = field(default_factory=dict)
    duplicate_keys: list[DuplicateKey] = field(default_factory=list)


class SourceSyntaxError(Exception):
    """The text is not well-formed; ``index`` is where the reader gave up."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.message = message
        self.index = index
