"""Which enums are too large to spell out in generated code.

An enum of more than :data:`LARGE_ENUM_MEMBERS` values is typed by its base type in
signatures (a 100,000-member ``Literal`` helps neither a reader nor mypy), and its
members are kept once per generated module, as data (``backend/enum_data.py``).
Smaller enums are spelled out as ``Literal[...]``.
"""

from __future__ import annotations

from typing import Any

LARGE_ENUM_MEMBERS = 256


def large_enum_kind(schema: Any) -> str | None:
    """``"string"`` or ``"integer"`` when ``schema`` is a large enum of that type's
    values, else None (a large enum mixing types is spelled out like a small one)."""
    if not isinstance(schema, dict):
        return None
    values = schema.get("enum")
    if not isinstance(values, list) or len(values) <= LARGE_ENUM_MEMBERS:
        return None
    kind = schema.get("type")
    if kind in (None, "string") and all(type(v) is str for v in values):
        return "string"
    if kind in (None, "integer") and all(type(v) is int for v in values):
        return "integer"
    return None
