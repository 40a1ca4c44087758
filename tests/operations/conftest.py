from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .background_package import build_background_package
from .redis_server import redis_server


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding the built package ``pkg`` (cwd for the servers)."""
    directory = tmp_path_factory.mktemp("operations")
    build_background_package(directory)
    return directory


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A ``redis-server`` of its own on a free port (no persistence)."""
    with redis_server(tmp_path) as (url, _):
        yield url
