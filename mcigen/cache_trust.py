"""Whether the build cache may be trusted: what it holds is code this process
imports (``MCIClient``'s packages) or writes into the packages it builds (formatted
code, models), so another local user able to write any of it could run code as
this one.

As ssh's StrictModes and pip's cache check: the cache directory and everything in
it must be owned by this user and writable by no one else, and every directory
above it owned by this user or root and writable by no one else, unless sticky
(``/tmp``): there no one may rename away what is not theirs. Where the system has
no owners (Windows), everything is trusted.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def owned_problem(path: Path | str, status: os.stat_result) -> str | None:
    """Why ``path`` (with ``status``, from lstat) may not be part of the cache:
    another owner, write access for others, or a link; None when it may."""
    user = _user()
    if user is None:
        return None
    if status.st_uid != user:
        return f"{path} is owned by uid {status.st_uid}, not by you (uid {user})"
    if status.st_mode & _OTHERS_WRITE:
        mode = stat.S_IMODE(status.st_mode)
        return f"{path} is writable by group or others (mode {mode:04o})"
    if not (stat.S_ISDIR(status.st_mode) or stat.S_ISREG(status.st_mode)):
        return f"{path} is neither a directory nor a regular file"
    return None


def directory_problem(directory: Path) -> str | None:
    """Why the cache at ``directory`` (an existing, resolved path) may not be
    trusted, or None."""
    problem = owned_problem(directory, directory.lstat())
    if problem is not None or _user() is None:
        return problem
    for parent in directory.parents:
        status = parent.stat()
        if status.st_uid not in (_user(), 0):
            return f"{parent} above it is owned by uid {status.st_uid}"
        if status.st_mode & _OTHERS_WRITE and not status.st_mode & stat.S_ISVTX:
            mode = stat.S_IMODE(status.st_mode)
            return (
                f"{parent} above it is writable by group or others without the "
                f"sticky bit (mode {mode:04o})"
            )
    return None


def _user() -> int | None:
    return os.geteuid() if hasattr(os, "geteuid") else None
