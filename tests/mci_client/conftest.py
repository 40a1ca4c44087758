"""``mcigen.MCIClient`` tests: each gets a build cache of its own."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def package_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty build cache, the one every ``MCIClient`` of the test uses."""
    cache = tmp_path / "build-cache"
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(cache))
    return cache
