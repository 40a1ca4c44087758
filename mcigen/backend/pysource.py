"""Small helpers that turn schema data into Python source text."""

from __future__ import annotations

from typing import Any


def docstring_text(text: str) -> str:
    """``text`` made safe between triple double quotes."""
    safe = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').rstrip()
    return f"{safe} " if safe.endswith('"') else safe


def literal(value: Any) -> str:
    """A Python expression equal to the JSON value ``value``."""
    return repr(value)
