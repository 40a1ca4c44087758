"""Pieces of code that black formats alike: one black run serves all of them.

Generated tools differ mostly in names and in the words of their strings
(``tool_00001`` against ``tool_00002``, one description against another of the
same length). black does not look at those: it decides on token kinds, on
keywords, on lengths and on the quotes, backslashes and whitespace inside
strings, never on which letters a name or a word is made of. So a piece is
split into its *units* (every name that is not a keyword, soft keyword or dunder,
and every run of ASCII letters and digits in the body of a plain string without
backslashes) and its *skeleton* (everything else). Two pieces with the same
skeleton, unit lengths and pattern of equal units have the same :func:`shape`,
and black formats both the same way up to their units: the formatted text of one
is turned into the other's by putting the other's units in.

:func:`transplant` checks what that relies on, that black kept the units of the
piece it formatted, in order; when it did not, the caller runs black itself.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""
    (?<!\w)(?i:rb|br|fr|rf|tr|rt|b|r|u|f|t)?
    (?P<string>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
              |'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
    |(?P<comment>\#[^\n]*)
    |(?P<number>\d[\w.]*)
    |(?P<name>[^\W\d]\w*)
    """,
    re.VERBOSE | re.DOTALL,
)
_WORD = re.compile(r"[A-Za-z0-9]+")
_KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)

Shape = tuple[str, tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class Split:
    """``text`` is ``skeleton[0] + units[0] + skeleton[1] + ... + skeleton[-1]``."""

    skeleton: tuple[str, ...]
    units: tuple[str, ...]

    def shape(self) -> Shape:
        """What black's output depends on: the skeleton, how long each unit is and
        which units are equal to which."""
        first: dict[str, int] = {}
        equal = tuple(first.setdefault(unit, len(first)) for unit in self.units)
        return "\0".join(self.skeleton), tuple(map(len, self.units)), equal


def split(text: str) -> Split:
    skeleton: list[str] = []
    units: list[str] = []
    kept = 0
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "name":
            if not _masked_name(match.group()):
                continue
            spans = [match.span()]
        elif kind == "string" and _masked_string(match["string"]):
            body = match.start("string")
            spans = [
                (body + word.start(), body + word.end())
                for word in _WORD.finditer(match["string"])
            ]
        else:
            continue
        for start, end in spans:
            skeleton.append(text[kept:start])
            units.append(text[start:end])
            kept = end
    skeleton.append(text[kept:])
    return Split(tuple(skeleton), tuple(units))


def transplant(formatted: Split, formatted_from: Split, onto: Split) -> str | None:
    """black's output for ``onto``, from its output ``formatted`` (split) for a piece
    of the same shape; None when black did not keep that piece's units as they were."""
    if formatted.units != formatted_from.units:
        return None
    parts = [formatted.skeleton[0]]
    for unit, between in zip(onto.units, formatted.skeleton[1:], strict=True):
        parts.append(unit)
        parts.append(between)
    return "".join(parts)


def _masked_name(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__")
    return name.isascii() and not dunder and name not in _KEPT_NAMES


def _masked_string(string: str) -> bool:
    """No backslash: black rewrites escapes, and leaves alone the quotes of an
    f-string whose fields hold one."""
    return "\\" not in string
