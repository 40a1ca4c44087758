"""The build cache keeps what builds use: an entry no build has used for a month
is removed, so that the cache does not grow with every schema and every version
of mcigen ever built.

An entry's modification time is its last use: a read refreshes it (at most once
a day, so that a build's thousands of hits cost no writes), and so does a hit on
a compiled package (``package_cache``). Once a day, the first build to open the
cache walks it: under each kind of entry (``black-…``, ``models-…``,
``packages-…``), an entry (a file, or a folder whose newest part is old) unused
for a month goes, and so does a kind's folder left empty (another version of
mcigen's). Anything that cannot be removed is left for the next day.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

DAY = 86_400.0
UNUSED_FOR = 30 * DAY
"""How long an entry stays without being used."""
_STAMP = ".pruned"
"""Beside the kinds: its modification time is that of the last walk."""


def mark_used(path: Path | int, modified: float | None = None) -> None:
    """Record a use of the entry at ``path`` (or open as that descriptor), last
    modified at ``modified`` (looked up if None), unless it was within the day."""
    now = time.time()
    try:
        if modified is None:
            modified = os.stat(path).st_mtime
        if now - modified >= DAY:
            os.utime(path, (now, now))
    except OSError:  # not ours to touch: it stays until it is removed
        return


def prune_now_and_then(base: Path) -> None:
    """Remove the entries under ``base`` unused for a month, if no walk did so
    within the day."""
    stamp = base / _STAMP
    now = time.time()
    try:
        if now - stamp.stat().st_mtime < DAY:
            return
        stamp.touch(mode=0o600)
    except FileNotFoundError:
        stamp.touch(mode=0o600)
    except OSError:
        return
    prune(base, now - UNUSED_FOR)


def prune(base: Path, before: float) -> None:
    """Remove every entry under ``base`` last used before ``before``."""
    for kind in _folders(base):
        unchanged = _last_use(kind) < before  # before removing what it holds
        for entry in _children(kind):
            _prune_entry(entry, before)
        if unchanged:
            _remove_if_empty(kind)


def _prune_entry(entry: Path, before: float) -> None:
    """A file, or a folder of entries (a package slot holds one per digest)."""
    import shutil  # here: only the day's walk removes anything

    if entry.is_symlink() or not entry.is_dir():
        if _last_use(entry) < before:
            _remove(entry)
        return
    if _newest(entry) < before:
        shutil.rmtree(entry, ignore_errors=True)
        return
    for part in _children(entry):
        if _newest(part) < before:
            _remove(part)


def _newest(path: Path) -> float:
    """The latest use of ``path`` or anything directly in it."""
    times = [_last_use(path), *(_last_use(child) for child in _children(path))]
    return max(times)


def _last_use(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return time.time()  # gone or unreadable: nothing to remove now


def _folders(base: Path) -> list[Path]:
    return [
        child
        for child in _children(base)
        if not child.name.startswith(".") and child.is_dir() and not child.is_symlink()
    ]


def _children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir()) if folder.is_dir() else []
    except OSError:
        return []


def _remove(path: Path) -> None:
    import shutil  # here: only the day's walk removes anything

    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError:
        return


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # not empty: in use
        return
