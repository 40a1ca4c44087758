"""JSON text -> data (``json.loads``) and positions (one pass over its tokens)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from . import budget
from .budget import over_budget, too_many_nodes
from .long_numbers import is_too_long, too_long_number
from .parsed import DuplicateKey, NodeSpan, ParsedText, SourceSyntaxError
from .pointers import child_pointer
from .string_offsets import StringSpan, StringStyle


def read_json(text: str, max_chars: int) -> ParsedText:
    if len(text) > max_chars:
        raise SourceSyntaxError(over_budget(max_chars), max_chars)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SourceSyntaxError(f"invalid JSON: {error.msg}", error.pos) from None
    except ValueError as error:
        if not is_too_long(error):
            raise
        raise too_long_number(text) from None
    parsed = ParsedText(data)
    _map_positions(text, parsed)
    return parsed


_TOKEN = re.compile(
    r"""[ \t\n\r]*(?:
    (?P<string>"[^"\\]*(?:\\.[^"\\]*)*")
    |(?P<mark>[][{},:])
    |(?P<scalar>[^ \t\n\r\][{},:"]+)
    )""",
    re.VERBOSE | re.DOTALL,
)
"""One token of JSON text json.loads has read: its strings, marks and scalars
(numbers, true, false, null), after any whitespace."""


@dataclass
class _Container:
    pointer: str
    is_object: bool
    items: int = 0
    """Elements so far, of an array."""
    key: tuple[str, int] | None = None
    """The member's name and where its key starts, once read, of an object."""
    expects_key: bool = True
    names: set[str] = field(default_factory=set)


def _map_positions(text: str, parsed: ParsedText) -> None:
    """Fill in ``parsed``: where each value (and member key) starts, where each
    string ends, and every duplicate key, from one pass over ``text``'s tokens
    (``text`` is JSON that json.loads has read, so well formed)."""
    stack: list[_Container] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        assert kind is not None  # every token is one of the three groups
        start = match.start(kind)
        mark = match["mark"]
        if mark is not None and mark in "]},:":
            if mark in "]}":
                stack.pop()
            elif mark == ",":
                stack[-1].expects_key = stack[-1].is_object
            else:
                stack[-1].expects_key = False
            continue
        parent = stack[-1] if stack else None
        if parent is not None and parent.is_object and parent.expects_key:
            raw = match["string"]
            name = json.loads(raw) if "\\" in raw else raw[1:-1]
            if name in parent.names:
                parsed.duplicate_keys.append(
                    DuplicateKey(name, child_pointer(parent.pointer, name), start)
                )
            parent.names.add(name)
            parent.key = (name, start)
            continue
        key_index = None
        if parent is None:
            pointer = ""
        elif parent.is_object:
            assert parent.key is not None
            name, key_index = parent.key
            pointer = child_pointer(parent.pointer, name)
        else:
            pointer = child_pointer(parent.pointer, str(parent.items))
            parent.items += 1
        if len(parsed.nodes) == budget.MAX_NODES:
            raise SourceSyntaxError(too_many_nodes(budget.MAX_NODES), start)
        parsed.nodes[pointer] = NodeSpan(start, key_index)
        if kind == "string":
            parsed.strings[pointer] = StringSpan(StringStyle.JSON, start, match.end())
        elif mark is not None:
            stack.append(_Container(pointer, mark == "{"))
