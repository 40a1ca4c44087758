"""Reading an input file (a schema, a toolset, an MCP cache) without trusting
what stands at its path: only a regular file is read, and no more of it than a
bound. A FIFO opened to read would block until a writer came, and a link to
``/dev/zero`` would never end; both are refused at once, as is a file that grows
past the bound while it is read."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)
_CHUNK = 1 << 16


class InputRefused(OSError):
    """A path that is not a regular file, or holds more than the bound; its
    ``strerror`` says why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(errno.EINVAL, reason, str(path))


def not_regular(path: Path) -> str | None:
    """Why ``path`` (a symbolic link followed) is not a regular file to read;
    None when it is one, or cannot be looked at (reading it will say why)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else _not_regular(mode)


def _not_regular(mode: int) -> str:
    kind = next((name for test, name in _KINDS if test(mode)), "no file")
    return f"it is {kind}, not a regular file"


def read_input(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (a symbolic link is followed),
    at most ``limit`` of them. Raises OSError: InputRefused for anything but a
    regular file or a larger one, the system's own error otherwise."""
    # O_NONBLOCK: opening a FIFO that no one writes returns at once (to be refused)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise InputRefused(path, _not_regular(status.st_mode))
        os.set_blocking(descriptor, True)
        chunks: list[bytes] = []
        size = 0
        # first the size it has, in one read: 64 KB chunks joined touched twice
        # the memory of a 754 KB schema; then on to the end, as it may have grown
        wanted = min(status.st_size, limit) + 1
        while chunk := os.read(descriptor, wanted):
            size += len(chunk)
            if size > limit:
                raise InputRefused(path, f"it holds more than {limit} bytes")
            chunks.append(chunk)
            wanted = _CHUNK
        return b"".join(chunks)
    finally:
        os.close(descriptor)
