"""Parse MCI template text into a :class:`Template`.

Placeholders follow mci-py's reading: ``{{`` opens one, the first ``}`` must be the
first half of the closing ``}}``, otherwise the braces are literal text. The content
is a ``|``-separated chain of dotted paths and quoted literals.

With ``directives`` the block language is recognised too: ``@for``, ``@foreach`` and
``@if``/``@elseif``/``@else`` with their ``@end...`` closers, nested to any depth.
An opener needs its parenthesised header (``@if`` without ``(`` is text), and a
closer or ``@else`` outside a block it could close is text, as in mci-py.

Whitespace: in ``compat`` mode every character stays where mci-py 1.2 keeps it
(branch bodies are marked for stripping by its rules); in ``trim`` mode a line
holding only a directive disappears with its newline and nothing is stripped.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from .syntax import (
    Alternative,
    Branch,
    Condition,
    For,
    Foreach,
    If,
    Node,
    NumberLiteral,
    Operand,
    PathRef,
    Placeholder,
    StringLiteral,
    Template,
    TemplateSyntaxError,
    Text,
)

WHITESPACE_MODES = ("compat", "trim")

# Closers need no word boundary ("@endifY" closes, as in mci-py); "@else" does, so
# that an address such as "someone@elsewhere.org" stays text.
_DIRECTIVE = re.compile(r"@(foreach|for|if|elseif|endforeach|endfor|endif|else(?!\w))")
_OPENERS = frozenset({"for", "foreach", "if", "elseif"})
_CLOSER_OF = {"for": "endfor", "foreach": "endforeach", "if": "endif"}
_FOR_HEADER = re.compile(
    r"\s*(\w+)\s+in\s+range\s*\(\s*([^,()\s]+)\s*,\s*([^,()\s]+)\s*\)\s*$"
)
_FOREACH_HEADER = re.compile(r"\s*(\w+)\s+in\s+(\S+)\s*$")
_NUMBER = re.compile(r"-?(\d+\.\d*|\d*\.\d+|\d+)$")
_OPERATORS = ("==", "!=", ">=", "<=", ">", "<")
MAX_NUMBER_DIGITS = 640
"""The most digits a number in a template may have: what every Python converts from
text and accepts in source, whatever its ``sys.set_int_max_str_digits`` (which may
not go below 640), so a compiled template imports and a file template parses in any
process."""
MAX_NESTING = 200
"""How deeply blocks may nest: deeper templates are refused where the block opens."""
_BAD_SEGMENT_CHARS = re.compile(r"[\s{}()'`\"]")
_QUOTES = ("'", "`")


def parse_template(
    text: str,
    *,
    directives: bool = False,
    whitespace: str = "compat",
    errors: list[TemplateSyntaxError] | None = None,
) -> Template:
    """Parse ``text``; with ``directives`` the ``@for``/``@if`` family is recognised.
    Given ``errors``, a placeholder that cannot be parsed is appended to it and
    parsing goes on (a compiler reports them all); what is returned then holds it
    as text, and is no template to use unless ``errors`` stayed empty. A directive
    that cannot be parsed raises either way."""
    if whitespace not in WHITESPACE_MODES:
        raise ValueError(f"unknown whitespace mode {whitespace!r}")
    return Template(_Parser(text, directives, whitespace == "trim", errors).parse())


def parse_native(text: str) -> Placeholder | None:
    """The placeholder of a JSON-native value ``{!! path !!}``, when ``text`` is exactly one."""
    stripped = text.strip()
    if text != stripped or not (text.startswith("{!!") and text.endswith("!!}")):
        return None
    content = text[3:-3]
    if not content.strip() or "}" in content:
        return None
    return _parse_placeholder(content, 3)


@dataclass
class _Block:
    """An open block while its body is being parsed."""

    keyword: str
    offset: int
    header: tuple[Any, ...]
    nodes: list[Node] = field(default_factory=list)
    branches: list[tuple[Condition | None, list[Node]]] = field(default_factory=list)


class _Parser:
    def __init__(
        self,
        text: str,
        directives: bool,
        trim: bool,
        errors: list[TemplateSyntaxError] | None,
    ) -> None:
        self.text = text
        self.directives = directives
        self.trim = trim
        self.errors = errors
        self.root: list[Node] = []
        self.stack: list[_Block] = []
        # (searched from, found): nothing searched yet, so "from" is past the end.
        self._directive_at: tuple[int, re.Match[str] | None] = (len(text) + 1, None)
        self._placeholder_at: tuple[int, tuple[int, int, Placeholder] | None] = (
            len(text) + 1,
            None,
        )

    @property
    def nodes(self) -> list[Node]:
        return self.stack[-1].nodes if self.stack else self.root

    def parse(self) -> tuple[Node, ...]:
        text, pos, literal_start = self.text, 0, 0
        while pos < len(text):
            token = self._next_token(pos)
            if token is None:
                break
            start, end, node_or_directive = token
            if isinstance(node_or_directive, Placeholder):
                self._text(literal_start, start)
                self.nodes.append(node_or_directive)
                pos = literal_start = end
                continue
            keyword, header, header_end = node_or_directive
            if not self._applies(keyword):
                pos = start + 1
                continue
            start, header_end = self._trimmed(start, header_end)
            self._text(literal_start, start)
            self._directive(keyword, header, start)
            pos = literal_start = header_end
        self._text(literal_start, len(text))
        if self.stack:
            block = self.stack[-1]
            closer = _CLOSER_OF[block.keyword]
            raise TemplateSyntaxError(
                f"'@{block.keyword}' is never closed with '@{closer}'", block.offset
            )
        return tuple(self.root)

    def _next_token(
        self, pos: int
    ) -> tuple[int, int, Placeholder | tuple[str, str | None, int]] | None:
        """The next placeholder or directive at or after ``pos``."""
        placeholder = self._next_placeholder(pos)
        search_from = pos
        while self.directives:
            directive = self._search_directive(search_from)
            if directive is None or (
                placeholder and placeholder[0] < directive.start()
            ):
                break
            keyword = directive.group(1)
            if keyword not in _OPENERS:
                return (
                    directive.start(),
                    directive.end(),
                    (keyword, None, directive.end()),
                )
            header = self._header(directive.end())
            if header is not None:
                content, header_end = header
                return directive.start(), header_end, (keyword, content, header_end)
            search_from = directive.start() + 1  # no "(": plain text, as in mci-py
        return placeholder

    def _search_directive(self, pos: int) -> re.Match[str] | None:
        """The next directive keyword at or after ``pos``; remembers the last search so
        that scanning placeholder by placeholder does not rescan the rest of the text.
        """
        searched_from, found = self._directive_at
        if searched_from <= pos and (found is None or found.start() >= pos):
            return found
        found = _DIRECTIVE.search(self.text, pos)
        self._directive_at = (pos, found)
        return found

    def _next_placeholder(self, pos: int) -> tuple[int, int, Placeholder] | None:
        """The next placeholder at or after ``pos``; remembers the last search, as
        :meth:`_search_directive` does, for text full of directives."""
        searched_from, found = self._placeholder_at
        if searched_from <= pos and (found is None or found[0] >= pos):
            return found
        found = self._find_placeholder(pos)
        self._placeholder_at = (pos, found)
        return found

    def _find_placeholder(self, pos: int) -> tuple[int, int, Placeholder] | None:
        text = self.text
        start = text.find("{{", pos)
        while start != -1:
            close = text.find("}", start + 2)
            if close == -1:
                return None
            if close != start + 2 and text[close + 1 : close + 2] == "}":
                try:
                    node = _parse_placeholder(text[start + 2 : close], start + 2)
                except TemplateSyntaxError as error:
                    if self.errors is None:
                        raise
                    self.errors.append(error)
                    start = text.find("{{", close + 2)
                    continue
                return start, close + 2, node
            # Every "{{" before this "}" meets the same "}" first, and fails too.
            start = text.find("{{", close + 1)
        return None

    def _header(self, pos: int) -> tuple[str, int] | None:
        """The text between the parentheses after an opener, and the position after them."""
        text = self.text
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if pos >= len(text) or text[pos] != "(":
            return None
        depth, quote, index = 0, "", pos
        while index < len(text):
            char = text[index]
            if quote:
                quote = "" if char == quote else quote
            elif char in "\"'":
                quote = char
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return text[pos + 1 : index], index + 1
            index += 1
        raise TemplateSyntaxError("directive header is missing its closing ')'", pos)

    def _applies(self, keyword: str) -> bool:
        """Closers and ``@else`` count only inside a block they belong to."""
        if keyword in ("for", "foreach", "if"):
            return True
        expected = {"endfor": "for", "endforeach": "foreach"}.get(keyword, "if")
        return bool(self.stack) and self.stack[-1].keyword == expected

    def _trimmed(self, start: int, end: int) -> tuple[int, int]:
        """In trim mode, widen a directive alone on its line to the whole line."""
        if not self.trim:
            return start, end
        text = self.text
        line_start = start
        while line_start > 0 and text[line_start - 1] in " \t":
            line_start -= 1
        if line_start > 0 and text[line_start - 1] != "\n":
            return start, end
        after = end
        while after < len(text) and text[after] in " \t\r":
            after += 1
        if after < len(text) and text[after] != "\n":
            return start, end
        return line_start, min(after + 1, len(text))

    def _text(self, start: int, end: int) -> None:
        if end > start:
            self.nodes.append(Text(self.text[start:end]))

    def _directive(self, keyword: str, header: str | None, offset: int) -> None:
        header_offset = self.text.find("(", offset) + 1
        if keyword in _CLOSER_OF and len(self.stack) == MAX_NESTING:
            raise TemplateSyntaxError(
                f"'@{keyword}' nests blocks {MAX_NESTING + 1} deep; "
                f"templates may nest at most {MAX_NESTING}",
                offset,
            )
        if keyword == "for":
            self.stack.append(
                _Block("for", offset, _for_header(header or "", header_offset))
            )
        elif keyword == "foreach":
            parsed = _foreach_header(header or "", header_offset)
            self.stack.append(_Block("foreach", offset, parsed))
        elif keyword == "if":
            block = _Block("if", offset, ())
            block.branches.append(
                (_condition(header or "", header_offset), block.nodes)
            )
            self.stack.append(block)
        elif keyword in ("elseif", "else"):
            self._new_branch(keyword, header, header_offset, offset)
        else:
            self._close()

    def _new_branch(
        self, keyword: str, header: str | None, header_offset: int, offset: int
    ) -> None:
        block = self.stack[-1]
        if block.branches[-1][0] is None:
            raise TemplateSyntaxError(f"'@{keyword}' after '@else'", offset)
        condition = (
            _condition(header or "", header_offset) if keyword == "elseif" else None
        )
        block.nodes = []
        block.branches.append((condition, block.nodes))

    def _close(self) -> None:
        block = self.stack.pop()
        node: Node
        if block.keyword == "for":
            var, start, end = block.header
            node = For(var, start, end, tuple(block.nodes), block.offset)
        elif block.keyword == "foreach":
            var, path = block.header
            node = Foreach(var, path, tuple(block.nodes), block.offset)
        else:
            node = If(self._branches(block.branches), block.offset)
        self.nodes.append(node)

    def _branches(
        self, arms: list[tuple[Condition | None, list[Node]]]
    ) -> tuple[Branch, ...]:
        """mci-py 1.2's whitespace: with ``@elseif`` every body is stripped; otherwise
        a lone ``@if`` body is stripped, and with ``@else`` only the else body is."""
        has_elseif = len(arms) > 2 or (len(arms) == 2 and arms[1][0] is not None)
        return tuple(
            Branch(
                condition,
                tuple(body),
                not self.trim and (has_elseif or condition is None or len(arms) == 1),
            )
            for condition, body in arms
        )


def _for_header(
    header: str, offset: int
) -> tuple[str, NumberLiteral | PathRef, NumberLiteral | PathRef]:
    match = _FOR_HEADER.match(header)
    if not match:
        raise TemplateSyntaxError(
            "malformed '@for': expected '@for(name in range(start, end))'", offset
        )
    bounds = []
    for group in (2, 3):
        operand = _operand(match.group(group), offset + match.start(group))
        if isinstance(operand, StringLiteral) or (
            isinstance(operand, NumberLiteral) and not isinstance(operand.value, int)
        ):
            raise TemplateSyntaxError(
                "'@for' range bounds must be integers or paths",
                offset + match.start(group),
            )
        bounds.append(operand)
    return match.group(1), bounds[0], bounds[1]


def _foreach_header(header: str, offset: int) -> tuple[str, PathRef]:
    match = _FOREACH_HEADER.match(header)
    if not match:
        raise TemplateSyntaxError(
            "malformed '@foreach': expected '@foreach(name in path)'", offset
        )
    path = _parse_alternative(match.group(2), offset + match.start(2))
    if not isinstance(path, PathRef):
        raise TemplateSyntaxError("'@foreach' needs a path to a list or object", offset)
    return match.group(1), path


def _condition(header: str, offset: int) -> Condition:
    position = _operator_position(header)
    if position is None:
        left = _operand(header.strip(), offset + _indent(header))
        if not isinstance(left, PathRef):
            raise TemplateSyntaxError(
                "a condition without an operator must be a path", offset
            )
        return Condition(left)
    index, operator = position
    left_text, right_text = header[:index], header[index + len(operator) :]
    left = _operand(left_text.strip(), offset + _indent(left_text))
    right_offset = offset + index + len(operator) + _indent(right_text)
    return Condition(left, operator, _operand(right_text.strip(), right_offset))


def _operator_position(header: str) -> tuple[int, str] | None:
    quote = ""
    for index, char in enumerate(header):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        else:
            for operator in _OPERATORS:
                if header.startswith(operator, index):
                    return index, operator
    return None


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _operand(text: str, offset: int) -> Operand:
    if not text:
        raise TemplateSyntaxError("missing operand in condition", offset)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return StringLiteral(text[1:-1])
    if _NUMBER.match(text):
        return _number(text, offset)
    path = _parse_alternative(text, offset)
    if not isinstance(path, PathRef):
        raise TemplateSyntaxError(f"invalid operand {text}", offset)
    return path


def _number(text: str, offset: int) -> NumberLiteral:
    digits = len(text) - text.startswith("-") - ("." in text)
    if digits > MAX_NUMBER_DIGITS:
        raise TemplateSyntaxError(
            f"number with {digits} digits; a number in a template may have "
            f"at most {MAX_NUMBER_DIGITS}",
            offset,
        )
    if "." not in text:
        return NumberLiteral(int(text))
    value = float(text)
    if math.isinf(value):
        raise TemplateSyntaxError("number too large for a float", offset)
    return NumberLiteral(value)


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
