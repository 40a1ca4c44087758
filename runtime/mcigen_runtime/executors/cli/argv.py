"""Pieces of an MTDF tool's command line (Ahma's tool files), as its generated
code builds it, flag by flag.

Values become argv words as Ahma writes them (``true``, ``42``, ``1.5``); an empty
value adds nothing. The working directory must lie inside the sandbox root, and
a path value inside the working directory, symlinks resolved; both are opened
and checked on their descriptors, and the command is given the descriptors
(``/proc/self/fd/N``), so nothing renamed meanwhile redirects it. The reserved
inputs ``args``, ``working_directory`` and ``timeout_seconds`` are read here,
checked before anything runs. A shell script is built from quoted words, so a value is
always one word of it, unless the value is the script itself (a shell tool's
script operand).
"""

from __future__ import annotations

import errno
import functools
import os
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from ...errors import ToolInputError
from ...limits import MAX_TIMEOUT_S
from ...path_policy import (
    OutsideScopes,
    PathRefused,
    WorkingDirectory,
    call_sandbox,
    confined_directory,
    current_directory,
    opens_current_directory,
)


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


def working_root(raw: Mapping[str, Any], key: str, tool: str) -> WorkingDirectory:
    """The call's working directory, opened: ``raw[key]`` taken against the first
    sandbox scope (see :func:`call_sandbox`), which is the default, and refused
    (:class:`ToolInputError` naming ``key``) outside every scope unless the
    sandbox is off. In strict mode it says where the command may write."""
    value = raw.get(key)
    if value is None:
        value = os.curdir
    if not isinstance(value, str):
        raise ToolInputError(tool, [(key, "must be a string (a directory)")])
    try:
        sandbox = (
            None if value == os.curdir and opens_current_directory() else call_sandbox()
        )
    except FileNotFoundError:  # getcwd: the current directory was removed ("." opens)
        raise PathRefused(
            f'Working directory "{value}": the current directory, the sandbox root, '
            "no longer exists"
        ) from None
    try:
        if sandbox is None:
            return current_directory()
        if not sandbox.checked:  # any directory lies beneath the file system's root
            return confined_directory(value, (sandbox.scopes[0], os.sep))
        root = confined_directory(value, sandbox.scopes)
        if sandbox.confined:
            root.confined_to = sandbox.scopes
        return root
    except OutsideScopes as error:
        raise ToolInputError(tool, [(key, str(error))]) from None
    except ValueError as error:  # a NUL byte
        raise PathRefused(f"Working directory {value!r}: {error}") from None
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            raise PathRefused(
                f'Working directory "{value}" is not a directory'
            ) from None
        raise PathRefused(f'Working directory "{value}": {error.strerror}') from None


def extra_args(raw: Mapping[str, Any], key: str, tool: str, allowed: bool) -> list[str]:
    """``raw[key]``, an array appended to argv as given: one word per element.
    Unless the tool ``allowed`` them, there may be none (:class:`ToolInputError`):
    no check sees such words, so an option (``--checkpoint-action=exec=…``) or a
    path outside the working directory would reach the command unchecked."""
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or any(isinstance(e, list | dict) for e in value):
        raise ToolInputError(
            tool, [(key, "must be an array of strings, numbers or booleans")]
        )
    if value and not allowed:
        raise ToolInputError(tool, [(key, _NO_EXTRA_ARGS)])
    return [
        element if isinstance(element, str) else str(word(element))
        for element in value
        if element is not None
    ]


def plain_operands(raw: Mapping[str, Any], keys: tuple[str, ...], tool: str) -> None:
    """:class:`ToolInputError` naming the first of ``keys`` (operands: no flag
    before them) whose value, or an element of it, is a string starting with
    ``-``, which the command would read as an option (``--output=…``)."""
    for key in keys:
        value = raw.get(key)
        for element in value if isinstance(value, list) else [value]:
            if isinstance(element, str) and element.startswith("-"):
                raise ToolInputError(tool, [(key, _option_like(element))])


def _option_like(value: str) -> str:
    shown = value if len(value) <= 80 else value[:80] + "…"
    return (
        f"{shown!r} starts with '-': the command would read it as an option, not "
        'as a value (its tool file allows that with "allow_raw_args": true)'
    )


_NO_EXTRA_ARGS = (
    "this tool takes no extra command-line words: nothing checks them, so they "
    "could be options or paths outside the working directory (its tool file "
    'enables them with "allow_raw_args": true)'
)


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


def shell_script(
    argv: list[str], start: int, suffix: str, given: bool = False
) -> list[str]:
    """``argv`` with its items from ``start`` on as one shell script: each quoted,
    joined with spaces, ``suffix`` added. When the script was ``given`` (the
    value of a shell tool's script operand), ``argv[start]`` is the script as it
    stands and the items after it stay words of their own."""
    if len(argv) <= start:
        return argv
    if given:
        return [*argv[:start], _ended(argv[start], suffix), *argv[start + 1 :]]
    return [*argv[:start], _ended(" ".join(map(shlex.quote, argv[start:])), suffix)]


def _ended(script: str, suffix: str) -> str:
    """``script`` with ``suffix`` (`` 2>&1``) at its end, as Ahma adds it: not
    again when it ends so already, without its space after trailing whitespace."""
    ending = suffix.strip()
    if not ending or script.rstrip().endswith(ending):
        return script
    return script + ending if script[-1:].isspace() else script + suffix


class TempFiles:
    """The temporary files of one call's file arguments (removed after the call)."""

    __slots__ = ("paths",)

    def __init__(self) -> None:
        self.paths: tuple[str, ...] = ()

    def write(self, text: str) -> str:
        """A new file holding exactly ``text`` (UTF-8); its path."""
        descriptor, path = _mkstemp()(prefix="mcigen-arg-")
        self.paths += (path,)
        with os.fdopen(descriptor, "wb") as file:
            file.write(text.encode(errors="surrogatepass"))
        return path

    def remove(self) -> None:
        remove_files(self.paths)


@functools.cache
def _mkstemp() -> Callable[..., tuple[int, str]]:
    """``tempfile.mkstemp``, imported by the first file argument written: tempfile
    loads shutil, bz2, lzma and random, which a package's other calls never use."""
    from tempfile import mkstemp

    return mkstemp


def remove_files(paths: tuple[str, ...]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
