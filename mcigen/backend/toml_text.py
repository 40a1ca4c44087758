"""TOML text built from schema data, and the type that marks it as such.

The TOML templates (``templates/project/``) write only :class:`Toml`; a string from
input becomes TOML only through :func:`toml_string`, so no template can splice raw
input into a ``pyproject.toml``.
"""

from __future__ import annotations

import re


class Toml(str):
    """TOML text made from input only by the functions of this module."""

    __slots__ = ()


def toml(text: str) -> Toml:
    """TOML written by the backend itself (keys, fixed values): marked as it is."""
    return Toml(text)


_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_MUST_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f]')
"""What a TOML basic string cannot hold as it is: the quote, the backslash, and the
control characters (TOML 1.0 lets a tab through; escaping it too keeps lines
readable)."""


def toml_string(value: str) -> Toml:
    """``value`` as a TOML basic string (``"..."``) that parses back to ``value``."""
    return Toml('"' + _MUST_ESCAPE.sub(_escape, value) + '"')


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04X}"
