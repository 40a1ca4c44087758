from __future__ import annotations

from pathlib import Path

import pytest

from .background_package import build_background_package


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding the built package ``pkg`` (cwd for the servers)."""
    directory = tmp_path_factory.mktemp("operations")
    build_background_package(directory)
    return directory
