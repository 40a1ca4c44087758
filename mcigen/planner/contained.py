"""Paths made from names in a schema (toolsets, MCP servers) stay in their folder.

A name may come from an adversary: it must not be empty, hold a NUL, be absolute,
lead out of its folder through ``..`` or a symbolic link, or be a path the system
refuses (a component too long).
"""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import quoted


class UnusableName(ValueError):
    """A name that does not denote a usable path inside its folder; the message
    says why."""


def path_inside(folder: Path, name: str) -> Path:
    """``folder / name``, once it is certain to be a usable path inside ``folder``."""
    if not name:
        raise UnusableName("an empty name is not a path inside its folder")
    if "\0" in name:
        raise UnusableName("a name must not contain a NUL character")
    if Path(name).is_absolute():
        raise UnusableName(f"{quoted(name)} is an absolute path")
    path = folder / name
    try:
        path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as error:
        raise UnusableName(
            f"{quoted(name)} is not a usable path: {error.strerror}"
        ) from None
    try:
        inside = path.resolve().is_relative_to(folder.resolve())
    except RuntimeError:  # Python 3.11 and 3.12's word for a loop of symbolic links
        raise UnusableName(
            f"{quoted(name)} is not a usable path: a loop of symbolic links"
        ) from None
    if not inside:
        raise UnusableName(f"{quoted(name)} leads outside {quoted(folder)}")
    return path
