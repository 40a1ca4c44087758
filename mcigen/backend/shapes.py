"""Pieces of code that black formats alike: one black run serves all of them.

Generated tools differ mostly in names and in the words of their strings
(``tool_00001`` against ``tool_00002``, one description against another of the
same length). black does not look at those: it decides on token kinds, on
keywords, on lengths and on the quotes, backslashes and whitespace inside
strings, never on which letters a name or a word is made of. So a piece is
split into its *units* (every name that is not a keyword, soft keyword or dunder,
and every run of ASCII letters and digits, single spaces between them, in the
body of a plain string without backslashes) and its *skeleton* (everything
else). Two pieces with the same skeleton, unit lengths and pattern of equal
units have the same :func:`shape`,
and black formats both the same way up to their units: the formatted text of one
is turned into the other's by putting the other's units in.

:func:`transplant` checks what that relies on, that black kept the units of the
piece it formatted, in order; when it did not, the caller runs black itself.

A docstring black leaves as it is (:func:`_settled`: indented as black indents it,
no trailing blanks, no escapes) is one unit whose length is not part of the shape:
black never splits, joins or re-wraps one, so tools with the same code and other
descriptions share a run.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

from black.strings import fix_multiline_docstring

# Each string body is a run of plain characters between escapes and quotes
# ("unrolled"): the regex engine keeps state per escape or quote, not per character,
# so an 8 MB docstring costs no more than its own size.
TOKEN = re.compile(
    r"""
    (?<!\w)(?i:rb|br|fr|rf|tr|rt|b|r|u|f|t)?
    (?P<string>'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''
              |\"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"
              |'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")
    |(?P<comment>\#[^\n]*)
    |(?P<number>\d[\w.]*)
    |(?P<name>[^\W\d]\w*)
    """,
    re.VERBOSE | re.DOTALL,
)
_WORDS = re.compile(r"[A-Za-z0-9]+(?: [A-Za-z0-9]+)*")
"""Words with the single spaces between them, which black keeps as they are: one
unit for a line of prose rather than one per word."""
_KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)

Shape = tuple[str, tuple[int, ...], tuple[int, ...]]
LINE_LENGTH = 88
"""black's line length, which mcigen formats with."""


@dataclass(frozen=True)
class Split:
    """``text`` is ``skeleton[0] + units[0] + skeleton[1] + ... + skeleton[-1]``."""

    skeleton: tuple[str, ...]
    units: tuple[str, ...]
    lengths: tuple[int, ...]
    """How long each unit is, as far as black cares: 0 for a whole docstring."""
    whole_docstrings: bool
    """Whether each docstring is one unit (else its words are)."""

    def shape(self) -> Shape:
        """What black's output depends on: the skeleton, how long each unit is and
        which units are equal to which."""
        first: dict[str, int] = {}
        equal = tuple(first.setdefault(unit, len(first)) for unit in self.units)
        skeleton = "\0".join((str(self.whole_docstrings), *self.skeleton))
        return skeleton, self.lengths, equal


def split(text: str, whole_docstrings: bool | None = None) -> Split:
    """``text`` cut into skeleton and units. Its docstrings are whole units when
    black leaves every one of them as it is, unless ``whole_docstrings`` says
    otherwise (black's output is cut as its input was: :func:`split_output`)."""
    matches = list(TOKEN.finditer(text))
    docstrings = {m for m in matches if _docstring(text, m) is not None}
    if whole_docstrings is None:
        whole_docstrings = all(_settled(text, m) for m in docstrings)
    skeleton: list[str] = []
    units: list[str] = []
    lengths: list[int] = []
    kept = 0
    for match in matches:
        kind = match.lastgroup
        if kind == "name":
            if not _masked_name(match.group()):
                continue
            spans = [match.span()]
        elif whole_docstrings and match in docstrings:
            spans = [(match.start("string") + 3, match.end("string") - 3)]
        elif kind == "string" and _masked_string(match["string"]):
            body = match.start("string")
            spans = [
                (body + word.start(), body + word.end())
                for word in _WORDS.finditer(match["string"])
            ]
        else:
            continue
        whole = whole_docstrings and match in docstrings
        for start, end in spans:
            skeleton.append(text[kept:start])
            units.append(text[start:end])
            lengths.append(0 if whole else end - start)
            kept = end
    skeleton.append(text[kept:])
    return Split(tuple(skeleton), tuple(units), tuple(lengths), whole_docstrings)


def stand_in(piece: Split) -> tuple[str, Split]:
    """A piece of the same shape as ``piece`` (text and split) whose whole
    docstrings are a few letters each: black formats it as it formats ``piece``,
    but never reads a long description."""
    if not piece.whole_docstrings:
        return join(piece), piece
    numbers: dict[str, int] = {}
    units = tuple(
        f"doc {numbers.setdefault(unit, len(numbers))}" if length == 0 else unit
        for unit, length in zip(piece.units, piece.lengths, strict=True)
    )
    standing = Split(piece.skeleton, units, piece.lengths, True)
    return join(standing), standing


def join(piece: Split) -> str:
    """The text that ``piece`` is split from."""
    parts = [piece.skeleton[0]]
    for unit, between in zip(piece.units, piece.skeleton[1:], strict=True):
        parts.append(unit)
        parts.append(between)
    return "".join(parts)


def split_output(formatted: str, source: Split) -> Split:
    """black's output for the piece split as ``source``, cut as that piece was."""
    return split(formatted, source.whole_docstrings)


def transplant(formatted: Split, formatted_from: Split, onto: Split) -> str | None:
    """black's output for ``onto``, from its output ``formatted`` (split) for a piece
    of the same shape; None when black did not keep that piece's units as they were."""
    if formatted.units != formatted_from.units:
        return None
    return join(Split(formatted.skeleton, onto.units, onto.lengths, True))


def _docstring(text: str, match: re.Match[str]) -> str | None:
    """The indentation of the string of ``match`` if it is a docstring: a plain
    ``\"\"\"`` string alone at the start of its line, after a line ending in ``:``
    (or first in the piece)."""
    if match.lastgroup != "string" or match.start() != match.start("string"):
        return None
    line_start = text.rfind("\n", 0, match.start()) + 1
    indent = text[line_start : match.start()]
    code_end = line_start  # where the code before the string ends
    while code_end > 0 and text[code_end - 1].isspace():
        code_end -= 1
    if indent.strip() or not (code_end == 0 or text[code_end - 1] == ":"):
        return None
    return indent if match["string"].startswith('"""') else None


def _settled(text: str, match: re.Match[str]) -> bool:
    """Whether a docstring is one black leaves as it is: its text does not change
    by black's docstring rules, and its closing quotes stay where they are."""
    indent = _docstring(text, match)
    assert indent is not None
    body = match["string"][3:-3]
    if not body or "\\" in body or body[0] == '"' or body[-1] == '"':
        return False
    if "\n" not in body:
        return body.strip() == body
    last = "" if body.endswith("\n") else body.splitlines()[-1]
    return (
        fix_multiline_docstring(body, indent) == body and len(last) + 3 <= LINE_LENGTH
    )


def _masked_name(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__")
    return name.isascii() and not dunder and name not in _KEPT_NAMES


def _masked_string(string: str) -> bool:
    """No backslash: black rewrites escapes, and leaves alone the quotes of an
    f-string whose fields hold one."""
    return "\\" not in string
