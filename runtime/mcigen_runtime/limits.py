"""How much one call may produce or read: the bounds every executor enforces.

A package carries its own limits (``mcigen build --limit NAME=SIZE``, 10 MiB each
by default); a caller narrows or widens them for the calls made inside
``with limited(...)`` or through ``Client(limits=...)``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace

MIB = 1 << 20

MAX_TIMEOUT_S = 86_400
"""The longest a call may take, a day, whatever its timeout says: a build refuses a
longer timeout, and a call's own is cut to this (far from what ``poll`` and the
clocks can hold)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds of one call, by kind (a docstring of its own: without one,
    ``dataclass`` writes the signature as it, ~1 M instructions at import)."""

    text_output: int = 10 * MIB
    """Characters a text or file template may render."""
    cli_output: int = 10 * MIB
    """Bytes kept of a command's stdout, and of its stderr."""
    file_size: int = 10 * MIB
    """Bytes of a file a file tool may read."""
    http_body: int = 10 * MIB
    """Bytes of an HTTP response body."""
    mcp_result: int = 10 * MIB
    """Bytes of one message an MCP server answers a tool call with."""


DEFAULT = Limits()
NAMES = tuple(field.name for field in fields(Limits))

_for_calls: ContextVar[Mapping[str, int] | None] = ContextVar(
    "mcigen_limits", default=None
)


def check_sizes(sizes: Mapping[str, object]) -> None:
    """Raise unless ``sizes`` maps names of limits to non-negative ints."""
    unknown = sorted(set(sizes) - set(NAMES))
    if unknown:
        raise TypeError(f"unknown limit {unknown[0]!r}; limits are {', '.join(NAMES)}")
    for name, size in sizes.items():
        if type(size) is not int or size < 0:
            raise ValueError(f"limit {name!r} must be a non-negative int, not {size!r}")


def active(package: Limits) -> Limits:
    """The limits of a call now: the package's, with the caller's changes applied."""
    changes = _for_calls.get()
    return package if changes is None else replace(package, **changes)


@contextmanager
def limited(**sizes: int) -> Iterator[None]:
    """Calls made inside use these limits instead of their package's (no sizes:
    the limits stay as they are, and :func:`active` copies nothing)."""
    check_sizes(sizes)
    if not sizes:
        yield
        return
    token = _for_calls.set({**(_for_calls.get() or {}), **sizes})
    try:
        yield
    finally:
        _for_calls.reset(token)
