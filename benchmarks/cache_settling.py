"""Waiting until a build cache's files are old enough for a hit to trust their
statuses, as those of a schema cached before today are (the client row; the
cached client's tests)."""

from __future__ import annotations

import time
from pathlib import Path

from mcigen import build_cache


def wait_until_settled(directory: Path) -> None:
    """Return once the times of everything under ``directory`` lie further back than
    a clock tick could hide a write (``build_cache.settled``): a cache hit then
    trusts the statuses it takes of them (the first such hit records them)."""
    newest = max(
        max(status.st_mtime_ns, status.st_ctime_ns)
        for status in (path.stat() for path in directory.rglob("*"))
    )
    while not build_cache.settled([0, 0, newest, newest], time.time_ns()):
        time.sleep(0.05)
