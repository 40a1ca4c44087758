"""The syntax tree of MCI templates, shared by the build-time compiler and the runtime renderer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PathRef:
    """A dotted lookup such as ``props.user.name``; ``offset`` is where it starts in the template."""

    parts: tuple[str, ...]
    offset: int

    @property
    def root(self) -> str:
        return self.parts[0]

    def __str__(self) -> str:
        return ".".join(self.parts)


@dataclass(frozen=True, slots=True)
class StringLiteral:
    """A quoted fallback, ``'text'`` or ```text```."""

    value: str


Alternative = PathRef | StringLiteral


@dataclass(frozen=True, slots=True)
class Placeholder:
    """``{{ a | b | 'c' }}``: the first alternative that resolves gives the value.

    ``source`` is the text between the braces, stripped, as error messages quote it.
    """

    source: str
    alternatives: tuple[Alternative, ...]
    offset: int


@dataclass(frozen=True, slots=True)
class Text:
    value: str


Node = Text | Placeholder


@dataclass(frozen=True, slots=True)
class Template:
    nodes: tuple[Node, ...]

    @property
    def placeholders(self) -> tuple[Placeholder, ...]:
        return tuple(n for n in self.nodes if isinstance(n, Placeholder))


class TemplateSyntaxError(ValueError):
    """A template that cannot be parsed; ``offset`` indexes into the template text."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
