"""black on code whose f-strings are handed to it as plain strings.

black parses every f-string into its fields, only to turn it back into one string
that it neither splits nor rewrites. That parse is most of black's time on code
made of templates: the 782 f-strings of a 50,000-placeholder template took 5.4 s of
CPU as f-strings and 0.4 s as plain strings (load ~11). A plain string with the same characters
is laid out the same way, so each f-string black would leave as it is goes in as
one (``f"a{b}"`` as ``"a{b}_"``: same length, same display width) and comes back
out as it was.

Masked: an ``f"..."`` string on one line, without backslash or inner quote (black
leaves its quotes and characters alone, and without its ``f`` it is still a valid
plain string on every Python version), that is neither the first token of its
statement (a plain string there could be a docstring, which black rewrites) nor
next to another string (implicit concatenation).

Strings are found by :mod:`tokenize`, on the way in and on the way out, never by a
text search: the n-th string of black's output is the n-th of its input, since
black does not add, drop, join or reorder strings. Then the result is checked
before it is used: the same number of strings came back, each mask unchanged; the
masked input and black's output have equal ASTs; and each mask is, to Python's own
parser, one whole string constant, the same node of both trees. So putting the
f-strings back changes both trees alike: the result's AST is the input's, without
parsing the f-strings again (two parses of the 50,000-placeholder template's
f-strings cost three times what black does on it masked). Any doubt (a mismatch, a
tokenizer error, a black error on the masked text) gives ``None``, and the caller
runs plain black: a mistake here can cost time, never change the output.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from black.parsing import InvalidInput

_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
"""Python 3.12+ cuts an f-string into tokens, from this one to ``FSTRING_END``."""
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)
_SKIPPED = frozenset({tokenize.NL, tokenize.COMMENT})
_STATEMENT_START = frozenset(
    {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
)
_UNMASKABLE = frozenset('"\\\n\r')


@dataclass(frozen=True)
class _String:
    start: int
    end: int
    """Offsets in the text: a whole string, an f-string with all its parts."""
    in_expression: bool
    """Neither the first token of a statement nor next to another string."""


def formatted(piece: str, format_str: Callable[[str], str]) -> str | None:
    """``format_str(piece)``, run on ``piece`` with its maskable f-strings masked;
    None when there is none, or when the result cannot be shown to be right."""
    if 'f"' not in piece:
        return None
    try:
        strings = _strings(piece)
    except (tokenize.TokenError, SyntaxError):
        return None
    masks = {
        index: piece[s.start : s.end]
        for index, s in enumerate(strings)
        if _maskable(piece[s.start : s.end], s)
    }
    if not masks:
        return None
    parts: list[str] = []
    kept = 0
    for index in masks:
        string = strings[index]
        parts += (piece[kept : string.start], _mask(masks[index]))
        kept = string.end
    parts.append(piece[kept:])
    sent = "".join(parts)  # each mask as long as its f-string: the same spans
    sent_spans = [(strings[index].start, strings[index].end) for index in masks]
    try:
        came = format_str(sent)
        came_spans = _mask_spans(came, len(strings), masks)
        if came_spans is None or not _same_places(sent, sent_spans, came, came_spans):
            return None
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, InvalidInput):
        return None
    return _replaced(came, came_spans, list(masks.values()))


def _mask_spans(
    came: str, count: int, masks: dict[int, str]
) -> list[tuple[int, int]] | None:
    """Where each mask is in black's output ``came``; None unless its strings are
    as many as those sent and each mask is where it was among them."""
    strings = _strings(came)
    if len(strings) != count:
        return None
    spans = [(strings[index].start, strings[index].end) for index in masks]
    texts = [came[start:end] for start, end in spans]
    return spans if texts == [_mask(m) for m in masks.values()] else None


def _same_places(
    sent: str,
    sent_spans: list[tuple[int, int]],
    came: str,
    came_spans: list[tuple[int, int]],
) -> bool:
    """Whether black's output ``came`` is the same code as ``sent`` (their ASTs
    are equal: cheap, the masks being plain strings), with each mask, to Python's
    own parser, the whole of one string constant, and the same node of the tree
    before and after. Then putting each f-string back in place of its mask makes
    the same change to both trees, and the result's AST is the input's."""
    before, before_nodes = _string_nodes(sent, sent_spans)
    after, after_nodes = _string_nodes(came, came_spans)
    return (
        None not in before_nodes
        and before_nodes == after_nodes
        and ast.dump(before) == ast.dump(after)
    )


def _string_nodes(
    text: str, spans: list[tuple[int, int]]
) -> tuple[ast.Module, list[int | None]]:
    """The AST of ``text``, and for each span the index (in :func:`ast.walk`
    order) of the string constant that is exactly that span, if one is."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    ascii_only = text.isascii()

    def position(offset: int) -> tuple[int, int]:
        """As the parser gives it: line, and column in UTF-8 bytes."""
        line = bisect.bisect_right(line_starts, offset) - 1
        before = text[line_starts[line] : offset]
        return line + 1, len(before) if ascii_only else len(before.encode("utf-8"))

    wanted = {(*position(s), *position(e)): k for k, (s, e) in enumerate(spans)}
    tree = ast.parse(text)
    found: list[int | None] = [None] * len(spans)
    for index, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            end = (node.end_lineno or 0, node.end_col_offset or 0)
            k = wanted.get((node.lineno, node.col_offset, *end))
            if k is not None:
                found[k] = index
    return tree, found


def _replaced(text: str, spans: list[tuple[int, int]], originals: list[str]) -> str:
    parts: list[str] = []
    kept = 0
    for (start, end), original in zip(spans, originals, strict=True):
        parts += (text[kept:start], original)
        kept = end
    parts.append(text[kept:])
    return "".join(parts)


def _mask(fstring: str) -> str:
    """``f"body"`` as ``"body_"``."""
    return f'{fstring[1:-1]}_"'


def _maskable(value: str, string: _String) -> bool:
    return (
        string.in_expression
        and value.startswith('f"')
        and value.endswith('"')
        and len(value) >= 3
        and not _UNMASKABLE.intersection(value[2:-1])
    )


class _Token(NamedTuple):
    start: int
    end: int
    kind: int
    """A tokenize type; STRING for an f-string cut into parts as well."""


def _strings(text: str) -> list[_String]:
    """Every string of ``text``, in order, found by the tokenizer."""
    tokens = _tokens(text)
    found = []
    for index, token in enumerate(tokens):
        if token.kind != tokenize.STRING:
            continue
        before = tokens[index - 1].kind if index else tokenize.ENCODING
        after = tokens[index + 1].kind if index + 1 < len(tokens) else None
        in_expression = (
            before not in _STATEMENT_START
            and before != tokenize.STRING
            and after != tokenize.STRING
        )
        found.append(_String(token.start, token.end, in_expression))
    return found


def _tokens(text: str) -> list[_Token]:
    """The tokens of ``text`` but for comments and non-logical newlines, with
    their offsets in ``text``."""
    line_starts = [0]
    for line in io.StringIO(text):  # the lines the tokenizer reads
        line_starts.append(line_starts[-1] + len(line))

    def offset(position: tuple[int, int]) -> int:
        return line_starts[position[0] - 1] + position[1]

    tokens = []
    depth = 0  # of f-strings cut into parts (Python 3.12+)
    begun = 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == _FSTRING_START:
            depth += 1
            begun = offset(token.start) if depth == 1 else begun
        elif token.type == _FSTRING_END:
            depth -= 1
            if not depth:
                tokens.append(_Token(begun, offset(token.end), tokenize.STRING))
        elif not depth and token.type not in _SKIPPED:
            tokens.append(_Token(offset(token.start), offset(token.end), token.type))
    return tokens
