"""JSON at the edge: a request whose strings hold a lone surrogate (``"\\ud800"``, which
JSON's grammar lets through but which is no Unicode text) is refused where it is
read, and an answer is always sent, whatever text it holds."""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def may_hold_surrogate(body: bytes) -> bool:
    """Whether the JSON value read from ``body`` may hold a lone surrogate: not
    when the body is ASCII without a ``\\u`` escape (which most requests are),
    and then :func:`lone_surrogate` need not walk the value."""
    return not body.isascii() or b"\\u" in body


def unicode_text(text: str) -> bool:
    """Whether ``text`` is Unicode text: it holds no lone surrogate, so UTF-8 (and
    pydantic's JSON) can write it."""
    return text.isascii() or _SURROGATE.search(text) is None


def lone_surrogate(value: object) -> str | None:
    """The first lone surrogate in a key or string of the JSON value ``value``, as
    its escape (``\\ud800``); None when there is none. A surrogate pair was read as
    one character, so every surrogate left in a string is a lone one."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return f"\\u{ord(found.group()):04x}"
    return None


def json_bytes(value: Any) -> bytes:
    """``value`` as UTF-8 JSON; a string with a lone surrogate (a tool's output, say)
    is written with ``\\u`` escapes, which is still JSON, rather than not at all."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":")).encode()
