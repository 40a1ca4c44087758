"""A tool's metadata as an answer carries it: plain JSON data, never nested so
deep that the client cannot read the answer.

An MCP client's JSON parser stops at 200 levels (pydantic's); an answer of the
package's MCP server or broker puts a tool's metadata a few levels down in its
envelope, and an MCP tool's metadata holds its server's ``structuredContent``,
which may come close to 200 levels by itself. Deeper than :data:`MAX_DEPTH` a value
is carried as its JSON text.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64
"""Levels of objects and arrays kept as structure."""


def plain_json(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data (a value JSON has no type for as its ``str()``), with
    each object or array deeper than :data:`MAX_DEPTH` levels as its JSON text."""
    if isinstance(value, dict | list | tuple) and depth >= MAX_DEPTH:
        return _text(value)
    if isinstance(value, dict):
        return {_key(key): plain_json(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(item, depth + 1) for item in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)


def _key(key: Any) -> str:
    """A key as ``json.dumps`` writes it (``str()`` of one it refuses)."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, int | float):
        return json.dumps(key)
    return str(key)


def _text(value: Any) -> str:
    try:
        return json.dumps(value, default=str, ensure_ascii=False)
    except (RecursionError, ValueError):  # nested past Python's stack, or circular
        return "(nested too deep to show)"
