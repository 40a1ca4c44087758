"""The syntax tree of MCI templates, which the parser builds and the compiler turns
into Python (at build time for a schema's templates, at call time for a file's)."""

from __future__ import annotations

from collections.abc import Iterator
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
    """A quoted value: ``'text'`` or ```text``` in placeholders, ``"text"`` too in conditions."""

    value: str


@dataclass(frozen=True, slots=True)
class NumberLiteral:
    value: int | float


Alternative = PathRef | StringLiteral
Operand = PathRef | StringLiteral | NumberLiteral


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


@dataclass(frozen=True, slots=True)
class Condition:
    """``left`` alone is a truthiness test; otherwise ``left op right``."""

    left: Operand
    op: str | None = None
    right: Operand | None = None


@dataclass(frozen=True, slots=True)
class Branch:
    """One arm of an ``@if``; ``condition`` is None for ``@else``.

    ``strip``: the arm's text is stripped of surrounding whitespace before it is
    used (mci-py's whitespace rules, in ``compat`` mode); values are never stripped.
    """

    condition: Condition | None
    body: tuple[Node, ...]
    strip: bool


@dataclass(frozen=True, slots=True)
class If:
    branches: tuple[Branch, ...]
    offset: int


@dataclass(frozen=True, slots=True)
class For:
    """``@for(var in range(start, end))``; bounds are integers or paths to integers."""

    var: str
    start: NumberLiteral | PathRef
    end: NumberLiteral | PathRef
    body: tuple[Node, ...]
    offset: int


@dataclass(frozen=True, slots=True)
class Foreach:
    """``@foreach(var in path)`` over a list (items) or a dict (values, ``var.key`` the key)."""

    var: str
    path: PathRef
    body: tuple[Node, ...]
    offset: int


Node = Text | Placeholder | If | For | Foreach


@dataclass(frozen=True, slots=True)
class Template:
    nodes: tuple[Node, ...]

    @property
    def has_directives(self) -> bool:
        return any(isinstance(n, If | For | Foreach) for n in self.nodes)


@dataclass(frozen=True, slots=True)
class Reference:
    """A path a template reads, with the loop variables bound where it stands."""

    path: PathRef
    bound: frozenset[str]
    label: str
    """How messages name the construct: ``{{a | b}}``, ``@foreach(x in a)``, ``@if(a)``."""


def references(
    nodes: tuple[Node, ...], bound: frozenset[str] = frozenset()
) -> Iterator[Reference]:
    """Every path the nodes read, in template order."""
    for node in nodes:
        if isinstance(node, Placeholder):
            label = "{{" + _shortened(node.source) + "}}"
            for alternative in node.alternatives:
                if isinstance(alternative, PathRef):
                    yield Reference(alternative, bound, label)
        elif isinstance(node, For):
            for bound_value in (node.start, node.end):
                if isinstance(bound_value, PathRef):
                    yield Reference(
                        bound_value, bound, f"@for({node.var} in range(...))"
                    )
            yield from references(node.body, bound | {node.var})
        elif isinstance(node, Foreach):
            yield Reference(node.path, bound, f"@foreach({node.var} in {node.path})")
            yield from references(node.body, bound | {node.var})
        elif isinstance(node, If):
            for branch in node.branches:
                condition = branch.condition
                if condition is not None:
                    for operand in (condition.left, condition.right):
                        if isinstance(operand, PathRef):
                            yield Reference(operand, bound, "@if condition")
                yield from references(branch.body, bound)


_LABEL_LENGTH = 80


def _shortened(source: str) -> str:
    """A placeholder's text as messages quote it: a long one is cut, so that a chain
    of thousands of alternatives does not fill every message about one of them."""
    if len(source) <= _LABEL_LENGTH:
        return source
    return source[: _LABEL_LENGTH - 1] + "…"


class TemplateSyntaxError(ValueError):
    """A template that cannot be parsed; ``offset`` indexes into the template text."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
