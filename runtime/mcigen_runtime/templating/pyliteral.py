"""The one way a value from input becomes Python source: a literal.

Strings are written between double quotes with every character that is not
printable escaped the way ``repr`` escapes it (NUL, ``\\r``, form feed, U+2028,
U+0085, lone surrogates...), so that the source holds input only as the value of
a literal, on one physical line, encodable as UTF-8, whatever the input was.
"""

from __future__ import annotations

import math
import re


def literal(value: object) -> str:
    """A Python expression equal to ``value``: a JSON value, or a tuple of them."""
    if isinstance(value, str):
        return f'"{string_body(value)}"'
    if value is None or isinstance(value, bool | int):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'float("{value}")'
    if isinstance(value, list):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, tuple):
        items = [literal(item) for item in value]
        return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, dict):
        pairs = (f"{literal(k)}: {literal(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    raise TypeError(f"no literal for a value of type {type(value).__name__}")


def string_body(text: str, keep: str = "") -> str:
    """``text`` escaped to stand between double quotes; ``keep``: characters left
    as they are (a docstring keeps its newlines and quotes)."""
    special = "".join(c for c in '"\\' if c not in keep)
    if _plain(text, special):
        return text
    # a docstring is not printable only by the newlines it keeps: its lines are
    # taken whole, and only a line that needs it goes character by character
    parts = re.split(f"([{re.escape(keep)}])", text) if keep else [text]
    return "".join(
        part if _plain(part, special) else "".join(_escaped(c, keep) for c in part)
        for part in parts
    )


def _plain(text: str, special: str) -> bool:
    return text.isprintable() and not any(c in text for c in special)


def _escaped(char: str, keep: str) -> str:
    if char in keep:
        return char
    if char == '"' or char == "\\":
        return "\\" + char
    return char if char.isprintable() else repr(char)[1:-1]
