"""JSON text -> data (``json.loads``) and positions (``json_source_map``)."""

from __future__ import annotations

import json

from json_source_map import handle, types

from .budget import over_budget
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


def _map_positions(text: str, parsed: ParsedText) -> None:
    """Fill in ``parsed`` from json_source_map's entries.

    ``json_source_map.calculate`` returns a dict keyed by pointers built from the raw,
    unescaped key text, which loses duplicate keys and mangles keys holding ``/``,
    ``~`` or escapes. Its ``handle.value`` gives the same entries as a list in
    document order, from which proper pointers are rebuilt: an entry's parent is the
    nearest earlier entry whose value encloses it.
    """
    entries = handle.value(source=text, current_location=types.Location(0, 0, 0))
    # (end of the value, raw pointer, real pointer, start of the value)
    enclosing: list[tuple[int, str, str, int]] = []
    keys_seen: dict[int, set[str]] = {}
    for raw_pointer, entry in entries:
        start = entry.value_start.position
        while enclosing and enclosing[-1][0] <= start:
            enclosing.pop()
        pointer = ""
        key_index = None
        if enclosing:
            _, parent_raw, parent, parent_start = enclosing[-1]
            if entry.key_start is None:
                segment: str = raw_pointer[len(parent_raw) + 1 :]
            else:
                key_index = entry.key_start.position
                assert entry.key_end is not None
                segment = json.loads(text[key_index : entry.key_end.position])
                seen = keys_seen.setdefault(parent_start, set())
                if segment in seen:
                    duplicate = child_pointer(parent, segment)
                    parsed.duplicate_keys.append(
                        DuplicateKey(segment, duplicate, key_index)
                    )
                seen.add(segment)
            pointer = child_pointer(parent, segment)
        parsed.nodes[pointer] = NodeSpan(start, key_index)
        if text[start] == '"':
            parsed.strings[pointer] = StringSpan(
                StringStyle.JSON, start, entry.value_end.position
            )
        enclosing.append((entry.value_end.position, raw_pointer, pointer, start))
