"""The modes of what mcigen writes for others to read (packages, MCP tool caches):
what the user's umask gives a new file or directory, as ``open`` and ``mkdir``
would. ``tempfile`` makes its directories 0700 and its files 0600 whatever the
umask, so what is made with it is given these modes before anyone else sees it."""

from __future__ import annotations

import os
import threading
from pathlib import Path

_PROC_STATUS = Path("/proc/self/status")
_swapping = threading.Lock()


def directory_mode() -> int:
    """The mode ``mkdir`` gives a new directory under the current umask."""
    return 0o777 & ~_umask()


def file_mode() -> int:
    """The mode ``open`` gives a new file under the current umask."""
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where the system says it
    (Linux): setting it to read it back would race with threads creating files."""
    try:
        for line in _PROC_STATUS.read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _swapping:
        mask = os.umask(0o077)
        os.umask(mask)
    return mask
