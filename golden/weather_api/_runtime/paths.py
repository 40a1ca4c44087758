"""The path policy of file tools (and cli working directories), checked right before use.

A relative path is taken against the base directory (the schema's directory), both
to check it and to use it. Unless the tool enables any path, the path, with every
symlink resolved, must lie inside the base directory or a directory of the allow
list (relative entries are taken against the base directory too).
"""

from __future__ import annotations

import os
from contextvars import ContextVar

BASE_DIR_OVERRIDE: ContextVar[str | None] = ContextVar("base_dir", default=None)
"""A base directory that replaces the schema's for the calls made in this context:
what ``Client(base_dir=...)`` sets around each call."""


class PathRefused(Exception):
    """A path outside what the tool may touch; the message names it."""


def checked_path(
    path: str, base_dir: str, enable_any_paths: bool, allow_list: tuple[str, ...]
) -> str:
    """The absolute path ``path`` designates, or :class:`PathRefused` when it is not allowed."""
    base_dir = BASE_DIR_OVERRIDE.get() or base_dir
    target = os.path.join(base_dir, path)
    if enable_any_paths:
        return target
    real = os.path.realpath(target)
    for root in (base_dir, *allow_list):
        allowed = os.path.realpath(os.path.join(base_dir, root))
        if real == allowed or real.startswith(allowed.rstrip(os.sep) + os.sep):
            return real
    raise PathRefused(
        "File path access outside context directory and allow-list is not allowed "
        f"unless enableAnyPaths is true. Path: {path}"
    )
