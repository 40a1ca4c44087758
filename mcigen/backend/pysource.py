"""Python source built from schema data, and the type that marks it as such.

Every value the jinja templates write must be :class:`Code` (``jinja.py`` refuses
anything else): text from input becomes code only through :func:`literal`,
:func:`docstring` and :func:`ident`, so no template can splice raw input.
"""

from __future__ import annotations

import keyword
import unicodedata

from mcigen_runtime.templating import pyliteral


class Code(str):
    """Python source text made from input only by the functions of this module."""

    __slots__ = ()


def code(source: str) -> Code:
    """Source assembled by the backend or the template compiler out of code made
    here (names, literals) and fixed text: marked as code as it is."""
    return Code(source)


def literal(value: object) -> Code:
    """A Python expression equal to the JSON value ``value``."""
    return Code(pyliteral.literal(value))


def docstring(text: str) -> Code:
    """``text`` as the body of a triple-double-quoted docstring: backslashes,
    quotes and every character that is not printable escaped but newlines, so that
    ``__doc__`` gives ``text`` back, but for the spaces that end its lines (black
    drops them; without them black leaves a long docstring as it is, fast)."""
    lines = "\n".join(line.rstrip(" ") for line in text.rstrip().split("\n"))
    safe = pyliteral.string_body(lines, keep='\n"').replace('"""', '""\\"')
    return Code(f"{safe} " if safe.endswith('"') else safe)


def ident(identifier: str) -> Code:
    """An identifier made by ``planner.names``, checked once more where it is written."""
    if (
        not identifier.isidentifier()
        or keyword.iskeyword(identifier)
        or unicodedata.normalize("NFKC", identifier) != identifier
    ):
        raise ValueError(f"not a usable Python identifier: {identifier!r}")
    return Code(identifier)
