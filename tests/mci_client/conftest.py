"""``mcigen.MCIClient`` tests: each gets a build cache of its own."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mcigen import build_cache


@pytest.fixture
def package_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty build cache, the one every ``MCIClient`` of the test uses."""
    cache = tmp_path / "build-cache"
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(cache))
    return cache


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
