"""Placeholder resolution at call time, with mci-py's error messages.

Generated code calls :func:`first` for a placeholder whose value is not known to be
present; a path is a tuple of keys, a fallback literal is a plain string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class PlaceholderError(Exception):
    """A placeholder none of whose alternatives resolved."""


class _PathError(Exception):
    pass


def resolve_path(context: Mapping[str, Any], parts: tuple[str, ...]) -> Any:
    """The value at ``parts`` in ``context``; ``context["env"]`` may be any mapping."""
    current: Any = context
    for index, part in enumerate(parts):
        if not isinstance(current, dict) and not (
            index == 1 and parts[0] == "env" and isinstance(current, Mapping)
        ):
            where = ".".join(parts[:index])
            raise _PathError(f"Cannot access '{part}' on non-dict value at '{where}'")
        if part not in current:
            path = ".".join(parts)
            raise _PathError(f"Path '{path}' not found in context (missing '{part}')")
        current = current[part]
    return current


def first(
    context: Mapping[str, Any],
    source: str,
    alternatives: tuple[tuple[str, ...] | str, ...],
) -> Any:
    """The first alternative that resolves; a ``str`` alternative is a literal."""
    errors: list[str] = []
    for alternative in alternatives:
        if isinstance(alternative, str):
            return alternative
        try:
            return resolve_path(context, alternative)
        except _PathError as error:
            errors.append(f"{'.'.join(alternative)}: {error}")
    tried = ", ".join(
        alt if isinstance(alt, str) else ".".join(alt) for alt in alternatives
    )
    raise PlaceholderError(
        f"Failed to resolve placeholder '{{{{{source}}}}}': Could not resolve any "
        f"alternative. Tried: {tried}. Errors: {'; '.join(errors)}"
    )
