"""Map an offset inside a decoded string value back to its character in the source.

Template errors carry an offset into the decoded string; a diagnostic must point at
the character the user typed. Escapes (JSON ``\\n``, ``\\uXXXX``; YAML ``''`` and
double-quoted escapes) and YAML indentation make the two differ.

Exact for JSON strings, single-line YAML flow scalars and YAML literal blocks. Folded
blocks and multi-line flow scalars only fold whitespace, so they are matched by
counting non-space characters: exact for plain and folded text, close otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from .lines import LineIndex


class StringStyle(Enum):
    JSON = "json"
    PLAIN = "plain"
    SINGLE_QUOTED = "'"
    DOUBLE_QUOTED = '"'
    LITERAL = "|"
    FOLDED = ">"


@dataclass(frozen=True)
class StringSpan:
    """Where a string scalar sits in the source: ``start`` is its first character
    (the opening quote, or the ``|``/``>`` indicator of a block), ``end`` is one past
    its last."""

    style: StringStyle
    start: int
    end: int


EscapeLength = Callable[[str, int], int]


def source_index(
    text: str, lines: LineIndex, span: StringSpan, value: str, offset: int
) -> int:
    """Index in ``text`` of character ``offset`` of ``value``, the decoded form of ``span``."""
    offset = max(0, min(offset, len(value)))
    if span.style is StringStyle.JSON:
        return _unescape_walk(text, span.start + 1, offset, "\\", _json_escape_length)
    if span.style is StringStyle.LITERAL:
        return _literal_index(lines, span, value, offset)
    if span.style is StringStyle.FOLDED:
        content_start = lines.line_start(lines.line_of(span.start) + 1)
        return _align_non_space(text, content_start, span.end, value, offset)
    if lines.line_of(span.start) != lines.line_of(max(span.start, span.end - 1)):
        quote = 0 if span.style is StringStyle.PLAIN else 1
        return _align_non_space(text, span.start + quote, span.end, value, offset)
    if span.style is StringStyle.SINGLE_QUOTED:
        return _unescape_walk(text, span.start + 1, offset, "'", _quote_pair_length)
    if span.style is StringStyle.DOUBLE_QUOTED:
        return _unescape_walk(text, span.start + 1, offset, "\\", _yaml_escape_length)
    return span.start + offset


def _unescape_walk(
    text: str, index: int, offset: int, escape: str, escape_length: EscapeLength
) -> int:
    """Step over ``offset`` decoded characters, each one raw character or one escape."""
    for _ in range(offset):
        if index >= len(text):
            break
        index += escape_length(text, index) if text[index] == escape else 1
    return index


def _json_escape_length(text: str, index: int) -> int:
    if text[index + 1 : index + 2] != "u":
        return 2
    # json decodes an escaped UTF-16 surrogate pair into one character.
    if (
        _is_hex_in(text, index + 2, 0xD800, 0xDC00)
        and text[index + 6 : index + 8] == "\\u"
    ):
        if _is_hex_in(text, index + 8, 0xDC00, 0xE000):
            return 12
    return 6


def _is_hex_in(text: str, index: int, low: int, high: int) -> bool:
    digits = text[index : index + 4]
    try:
        return len(digits) == 4 and low <= int(digits, 16) < high
    except ValueError:
        return False


_YAML_ESCAPE_LENGTHS = {"x": 4, "u": 6, "U": 10}


def _yaml_escape_length(text: str, index: int) -> int:
    return _YAML_ESCAPE_LENGTHS.get(text[index + 1 : index + 2], 2)


def _quote_pair_length(text: str, index: int) -> int:
    return 2


def _literal_index(lines: LineIndex, span: StringSpan, value: str, offset: int) -> int:
    """A literal block keeps every line verbatim after its indentation."""
    before = value[:offset]
    block_line = before.count("\n")
    column = offset - (before.rfind("\n") + 1)
    source_line = lines.line_of(span.start) + 1 + block_line
    decoded_line = value.split("\n")[block_line]
    raw_line = lines.line_text(source_line)
    if decoded_line and raw_line.endswith(decoded_line):
        indent = len(raw_line) - len(decoded_line)
    else:
        indent = len(raw_line) - len(raw_line.lstrip(" "))
    return lines.line_start(source_line) + indent + column


def _align_non_space(text: str, start: int, end: int, value: str, offset: int) -> int:
    """Match ``value[offset]`` by counting non-space characters, which folding keeps.

    A target that is whitespace (or the end) is placed after the nearest non-space
    character before it, which folding leaves on the same line.
    """
    anchor = offset
    while anchor > 0 and (anchor == len(value) or value[anchor].isspace()):
        anchor -= 1
    if anchor == len(value) or value[anchor].isspace():
        return start
    wanted = sum(1 for char in value[:anchor] if not char.isspace())
    seen = 0
    for index in range(start, min(end, len(text))):
        if not text[index].isspace():
            if seen == wanted:
                return index + (offset - anchor)
            seen += 1
    return end
