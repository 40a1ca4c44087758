"""Emitted code put in the shape black would give it, where that is cheap to guess,
before black formats it.

black formats a text and, when that changed it, formats its output again
(``black.format_str``): a text already in black's shape costs one pass instead of
two. Generated pieces are mostly in black's shape but for a few things, which
:func:`preshaped` does as black would:

- the empty lines around a piece (cut from its module with them) go;
- a plain string in single quotes with no quote or backslash in it (as
  datamodel-code-generator writes ``Literal['a', 'b']``) is put in double quotes:
  black's string normalization makes the same token of either;
- a line too long for black's width is split at a bracket, black's way (a
  definition at its first bracket, another line at the bracket that closes it), when
  what the brackets hold fits on one line; a long ``if`` whose condition joins three
  or more operands with ``and``/``or`` gets black's parentheses around it, one
  operand a line.

None of them changes black's output: black drops the empty lines around a text,
and rebuilds every line from its tokens, so line breaks inside brackets are not
read (no comma is added: a trailing comma would make black split that bracket),
the parentheses around a condition are ones it makes invisible, and the quotes are
normalized before any line is measured. Whatever changes the text's syntax tree is
not used. A guess black does not agree with costs the second pass it saves
otherwise. ``tests/test_preshape.py`` holds black's output for the preshaped text
equal to its output for the text, for generated pieces and hostile strings.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left

from .shapes import LINE_LENGTH, TOKEN

_DEFINITION = re.compile(r"(?:async )?def |class ")
_CONDITION = re.compile(r"(?:if|elif|while) ")
_LOGIC = re.compile(r" (?=(?:and|or) )")
_NOT_LOGIC_ONLY = re.compile(r",| if | else |lambda|:=| for |^\(")
"""What black would split a condition at before its ``and``/``or`` (a comma, a
conditional expression, a comprehension), or reads apart (a lambda's or walrus's
colon; parentheses it starts with)."""
_OPENING = {"(": ")", "[": "]", "{": "}"}
_CLOSING = frozenset(_OPENING.values())
_INDENT = "    "


def preshaped(text: str) -> str:
    """``text`` without the empty lines around it, its single-quoted plain strings
    in double quotes and its long lines split at a bracket, as black would. Only the
    empty lines go when it holds a character black measures or reads otherwise
    (tab, non-ASCII, a line continuation), all of it stays when it holds a
    carriage return (black takes the newline of its output from the first line),
    and so does the rest when the result does not parse to the same tree."""
    if "\r" in text:
        return text
    text = text.strip("\n") + "\n"
    if not text.isascii() or "\t" in text or "\\\n" in text:
        return text
    shaped = _double_quoted(text) if "'" in text else text
    if any(len(line) > LINE_LENGTH for line in shaped.split("\n")):
        shaped = _long_lines_split(shaped)
    if shaped == text or not _same_tree(text, shaped):
        return text
    return shaped


def _same_tree(text: str, shaped: str) -> bool:
    try:
        return ast.dump(ast.parse(text)) == ast.dump(ast.parse(shaped))
    except SyntaxError:
        return False


def _double_quoted(text: str) -> str:
    parts = []
    kept = 0
    for match in TOKEN.finditer(text):
        string = match["string"]
        if (
            string is None
            or match.start() != match.start("string")  # a prefix
            or not string.startswith("'")
            or string.startswith("'''")
            or any(c in string[1:-1] for c in "'\"\\")
        ):
            continue
        parts.append(text[kept : match.start()])
        parts.append(f'"{string[1:-1]}"')
        kept = match.end()
    parts.append(text[kept:])
    return "".join(parts)


def _long_lines_split(text: str) -> str:
    """Each line longer than black's width that no string or comment runs into or
    out of, split at a bracket when :func:`_split_line` knows how."""
    spans = [
        match.span()
        for match in TOKEN.finditer(text)
        if match.lastgroup in ("string", "comment")
    ]
    starts = [start for start, _ in spans]
    out = []
    offset = 0
    for line in text.split("\n"):
        end = offset + len(line)
        first, last = bisect_left(starts, offset), bisect_left(starts, end)
        if (
            len(line) > LINE_LENGTH
            and not (first and spans[first - 1][1] > offset)  # runs into it
            and not (last > first and spans[last - 1][1] > end)  # runs out of it
        ):
            inside = [(a - offset, b - offset) for a, b in spans[first:last]]
            out.append(_split_line(line, inside))
        else:
            out.append(line)
        offset = end + 1
    return "\n".join(out)


def _split_line(line: str, strings: list[tuple[int, int]]) -> str:
    """``line`` split as black splits it when the brackets it splits at hold a
    content that fits on one line: a definition at its first bracket (``def f(`` /
    the parameters / ``) -> R:``), another line at the bracket closing it (``x =
    f(`` / the arguments / ``)``); else ``line``."""
    pairs = _bracket_pairs(line, strings)
    if not pairs:
        return line
    indent = line[: len(line) - len(line.lstrip(" "))]
    if _CONDITION.match(line, len(indent)):
        return _condition_split(line, indent, pairs, strings)
    if _DEFINITION.match(line, len(indent)):
        opening, closing = min(pairs)
    else:
        if line[-1] not in _CLOSING:
            return line
        opening, closing = next(p for p in pairs if p[1] == len(line) - 1)
    body = line[opening + 1 : closing].strip()
    head, tail = line[: opening + 1], indent + line[closing:]
    if (
        not body
        or body.endswith(",")
        or len(indent + _INDENT + body) > LINE_LENGTH
        or len(head) > LINE_LENGTH
        or len(tail) > LINE_LENGTH
    ):
        return line
    return f"{head}\n{indent}{_INDENT}{body}\n{tail}"


def _condition_split(
    line: str,
    indent: str,
    pairs: list[tuple[int, int]],
    strings: list[tuple[int, int]],
) -> str:
    """An ``if``/``elif``/``while`` line whose condition joins three or more operands
    with ``and``/``or`` (black then keeps the parentheses it adds around it), as
    black splits it: ``if (``, the condition on one line, or else one operand a line
    (each but the first starting with its ``and`` or ``or``), ``):``; else
    ``line``."""
    keyword = _CONDITION.match(line, len(indent))
    assert keyword is not None
    if not line.endswith(":"):
        return line
    top = list(line)  # the condition's top level: strings and brackets blanked out
    for start, end in [*strings, *((a + 1, b) for a, b in pairs)]:
        top[start:end] = "x" * (end - start)
    condition = "".join(top[keyword.end() : -1])
    cuts = [cut.start() for cut in _LOGIC.finditer(condition)]
    if len(cuts) < 2 or _NOT_LOGIC_ONLY.search(condition):
        return line
    text = line[keyword.end() : -1]
    operands = [
        text[start:end].strip()
        for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True)
    ]
    inner = indent + _INDENT
    body = [text] if len(inner + text) <= LINE_LENGTH else operands
    if any(len(inner + part) > LINE_LENGTH for part in body):
        return line
    lines = "\n".join(inner + part for part in body)
    return f"{line[: keyword.end()]}(\n{lines}\n{indent}):"


def _bracket_pairs(line: str, strings: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Where each bracket of ``line`` outside its strings opens and closes; [] when
    they do not pair up within the line, or the line holds a comment."""
    if any(line[start] == "#" for start, _ in strings):
        return []
    pairs = []
    stack: list[int] = []
    position = 0
    for start, end in [*strings, (len(line), len(line))]:
        for index in range(position, start):
            char = line[index]
            if char in _OPENING:
                stack.append(index)
            elif char in _CLOSING:
                if not stack or _OPENING[line[stack[-1]]] != char:
                    return []
                pairs.append((stack.pop(), index))
        position = end
    return pairs if not stack else []
