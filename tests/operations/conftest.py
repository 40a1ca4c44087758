from __future__ import annotations

import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..mcp_servers import free_port, listening
from .background_package import build_background_package


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding the built package ``pkg`` (cwd for the servers)."""
    directory = tmp_path_factory.mktemp("operations")
    build_background_package(directory)
    return directory


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A ``redis-server`` of its own on a free port (no persistence)."""
    program = shutil.which("redis-server")
    if program is None:
        pytest.skip(
            "redis-server is not installed (apt-get install redis-server; "
            ".ci/run installs it)"
        )
    port = free_port()
    argv = [program, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    with listening(argv, port, stop=signal.SIGKILL, cwd=tmp_path):
        yield f"redis://127.0.0.1:{port}/0"
