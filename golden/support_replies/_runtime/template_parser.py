"""Parse MCI template text into a :class:`Template`.

Placeholders follow mci-py's reading: ``{{`` opens one, the first ``}`` must be the
first half of the closing ``}}``, otherwise the braces are literal text. The content
is a ``|``-separated chain of dotted paths and quoted literals.
"""

from __future__ import annotations

import re

from .template_ast import (
    Alternative,
    Node,
    PathRef,
    Placeholder,
    StringLiteral,
    Template,
    TemplateSyntaxError,
    Text,
)

_DIRECTIVE = re.compile(r"@(foreach|for|if|elseif|else|endforeach|endfor|endif)\b")
_BAD_SEGMENT_CHARS = re.compile(r"[\s{'`\"]")
_QUOTES = ("'", "`")


def parse_template(text: str, *, directives: bool = False) -> Template:
    """Parse ``text``; with ``directives`` the ``@for``/``@if`` family is recognised."""
    if directives:
        match = _DIRECTIVE.search(text)
        if match:
            raise TemplateSyntaxError(
                f"template directive '@{match.group(1)}' is not supported by this "
                "version of mcigen yet",
                match.start(),
            )
    nodes: list[Node] = []
    literal_start = 0
    pos = text.find("{{")
    while pos != -1:
        close = text.find("}", pos + 2)
        if close == -1:
            break
        if close == pos + 2 or text[close + 1 : close + 2] != "}":
            pos = text.find("{{", pos + 1)
            continue
        if pos > literal_start:
            nodes.append(Text(text[literal_start:pos]))
        nodes.append(_parse_placeholder(text[pos + 2 : close], pos + 2))
        literal_start = close + 2
        pos = text.find("{{", literal_start)
    if literal_start < len(text):
        nodes.append(Text(text[literal_start:]))
    return Template(tuple(nodes))


def _parse_placeholder(content: str, offset: int) -> Placeholder:
    alternatives: list[Alternative] = []
    start = 0
    for piece in content.split("|"):
        stripped = piece.strip()
        piece_offset = offset + start + (len(piece) - len(piece.lstrip()))
        alternatives.append(_parse_alternative(stripped, piece_offset))
        start += len(piece) + 1
    return Placeholder(content.strip(), tuple(alternatives), offset)


def _parse_alternative(text: str, offset: int) -> Alternative:
    if not text:
        raise TemplateSyntaxError("empty alternative in placeholder", offset)
    if text[0] in _QUOTES:
        if len(text) < 2 or text[-1] != text[0]:
            raise TemplateSyntaxError(f"unterminated string literal {text}", offset)
        return StringLiteral(text[1:-1])
    parts = text.split(".")
    position = offset
    for part in parts:
        bad = _BAD_SEGMENT_CHARS.search(part)
        if not part or bad:
            column = position + (bad.start() if bad else 0)
            raise TemplateSyntaxError(f"invalid path '{text}' in placeholder", column)
        position += len(part) + 1
    return PathRef(tuple(parts), offset)
