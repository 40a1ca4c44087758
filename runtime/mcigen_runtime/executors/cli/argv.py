"""Pieces of an MTDF tool's command line (Ahma's tool files), as its generated
code builds it, flag by flag.

Values become argv words as Ahma writes them (``true``, ``42``, ``1.5``); an empty
value adds nothing. A path value is made absolute and canonical (every symlink
resolved) and must lie inside the call's working directory. The reserved inputs
``args``, ``working_directory`` and ``timeout_seconds`` are read here, checked
before anything runs. A shell script is built from quoted words, so a value is
always one word of it.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Mapping
from typing import Any

from ...errors import ToolInputError
from ...limits import MAX_TIMEOUT_S
from ...path_policy import PathRefused, WorkingDirectory, lies_inside, open_directory


def word(value: Any) -> str | None:
    """The argv word of a scalar value; None (nothing to add) for null and ""."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def words(value: Any) -> list[str]:
    """One word per element of an array (a scalar is one element)."""
    elements = value if isinstance(value, list) else [value]
    return [w for w in map(word, elements) if w is not None]


def inside(value: str, root: str) -> str:
    """``value`` (relative to ``root``) absolute and canonical; :class:`PathRefused`
    when it lies outside ``root``, symlinks resolved."""
    try:
        real = os.path.realpath(os.path.join(root, value))
    except (OSError, ValueError) as error:  # a NUL byte, a symlink loop
        raise PathRefused(f"Path {value!r} cannot be used: {error}") from None
    if not lies_inside(real, root):
        raise PathRefused(
            f'Path "{value}" is outside the working directory "{root}": a path '
            "argument must name something inside it"
        )
    return real


def working_root(raw: Mapping[str, Any], key: str, tool: str) -> str:
    """The call's working directory, canonical: ``raw[key]`` taken against the
    process's current directory, which is the default."""
    value = raw.get(key)
    if value is None:
        return os.path.realpath(os.getcwd())
    if not isinstance(value, str):
        raise ToolInputError(tool, [(key, "must be a string (a directory)")])
    try:
        root = os.path.realpath(value)
    except ValueError as error:
        raise PathRefused(f"Working directory {value!r}: {error}") from None
    if not os.path.isdir(root):
        raise PathRefused(f'Working directory "{value}" is not a directory')
    return root


def opened(root: str) -> WorkingDirectory:
    """The directory ``root``, opened for the command to start in."""
    try:
        return open_directory(root)
    except OSError as error:
        raise PathRefused(f'Working directory "{root}": {error.strerror}') from None


def extra_args(raw: Mapping[str, Any], key: str, tool: str) -> list[str]:
    """``raw[key]``, an array appended to argv as given: one word per element."""
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or any(isinstance(e, list | dict) for e in value):
        raise ToolInputError(
            tool, [(key, "must be an array of strings, numbers or booleans")]
        )
    return [
        element if isinstance(element, str) else str(word(element))
        for element in value
        if element is not None
    ]


def timeout_s(raw: Mapping[str, Any], key: str, default_s: float, tool: str) -> float:
    """``raw[key]`` whole seconds (at most the maximum), else ``default_s``."""
    value = raw.get(key)
    if value is None:
        return default_s
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ToolInputError(
            tool, [(key, "must be a whole number of seconds, 0 or more")]
        )
    return float(min(value, MAX_TIMEOUT_S))


def shell_script(argv: list[str], start: int, suffix: str) -> list[str]:
    """``argv`` with its items from ``start`` on as one shell script: each quoted,
    joined with spaces, ``suffix`` added."""
    if len(argv) <= start:
        return argv
    return [*argv[:start], " ".join(map(shlex.quote, argv[start:])) + suffix]


class TempFiles:
    """The temporary files of one call's file arguments (removed after the call)."""

    __slots__ = ("paths",)

    def __init__(self) -> None:
        self.paths: tuple[str, ...] = ()

    def write(self, text: str) -> str:
        """A new file holding exactly ``text`` (UTF-8); its path."""
        descriptor, path = tempfile.mkstemp(prefix="mcigen-arg-")
        self.paths += (path,)
        with os.fdopen(descriptor, "wb") as file:
            file.write(text.encode(errors="surrogatepass"))
        return path

    def remove(self) -> None:
        remove_files(self.paths)


def remove_files(paths: tuple[str, ...]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
