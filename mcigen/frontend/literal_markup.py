"""Template markup the parser kept as text: a ``{{`` that opens no placeholder
(``{{props.id`` with no ``}}``) and a directive closer or ``@else`` outside a block
it could close. mci-py keeps both as text too, so a template holding them still
works, but it sends or shows the markup as written: each is a warning, at the
first such spot of a string."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcigen_runtime.templating.syntax import For, Foreach, If, Node, Template, Text

from ..diagnostics import quoted

_OPEN = "{{"
_STRAY_DIRECTIVE = re.compile(r"@(endforeach|endfor|endif|elseif|else(?!\w))")


def literal_markup(
    template: Template, text: str, directives: bool
) -> Iterator[tuple[int, str]]:
    """``(offset in text, message)`` for the first unopened ``{{`` and, with
    ``directives``, the first stray directive of ``template`` parsed from ``text``."""
    braces = closers = 0
    brace_at = closer_at = 0
    closer = ""
    for value, offset in _texts(template.nodes, text):
        found = value.find(_OPEN)
        while found != -1:
            if braces == 0:
                brace_at = offset + found
            braces += 1
            found = value.find(_OPEN, found + len(_OPEN))
        for match in _STRAY_DIRECTIVE.finditer(value) if directives else ():
            if closers == 0:
                closer_at, closer = offset + match.start(), match.group(0)
            closers += 1
    if braces:
        yield brace_at, (
            "'{{' opens no placeholder (no '}}' closes it before the next '}'), "
            f"so it is kept as text and used as written{_more(braces)}"
        )
    if closers:
        yield closer_at, (
            f"{quoted(closer)} is outside any block it could close, so it is kept as "
            f"text and shown as written{_more(closers)}"
        )


def _more(count: int) -> str:
    return f" ({count - 1} more in this string)" if count > 1 else ""


def _texts(nodes: tuple[Node, ...], text: str) -> Iterator[tuple[str, int]]:
    """Every text node with its offset in ``text``: the parser keeps text nodes as
    slices of it, in order, so each is found after the one before."""
    cursor = 0
    for value in _text_values(nodes):
        found = text.find(value, cursor)
        if found == -1:  # not a slice after all: locate at the string's start
            found = 0
        else:
            cursor = found + len(value)
        yield value, found


def _text_values(nodes: tuple[Node, ...]) -> Iterator[str]:
    for node in nodes:
        if isinstance(node, Text):
            yield node.value
        elif isinstance(node, For | Foreach):
            yield from _text_values(node.body)
        elif isinstance(node, If):
            for branch in node.branches:
                yield from _text_values(branch.body)
