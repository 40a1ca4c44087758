"""Fixtures of the MTDF tests: a package built from Ahma's own tool files (once per
module), and a workspace with stub programs first on PATH."""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import run_mcigen
from .support import AHMA, EXAMPLES, write_stubs

STUBS: tuple[str, ...] = ("git", "cargo", "find", "grep", "head", "touch", "ls")
STUBS += ("cat", "python", "ahma-mcp", "gh", "echo-args")


def build_folder(folder: Path, out_dir: Path) -> Iterator[str]:
    """Build the MTDF files in ``folder`` into ``out_dir`` and import the package;
    forgotten afterwards."""
    result = run_mcigen("build", folder, "-o", out_dir)
    assert result.returncode == 0, result.stderr
    sys.path.insert(0, str(out_dir.parent))
    try:
        importlib.import_module(out_dir.name)
        yield out_dir.name
    finally:
        sys.path.remove(str(out_dir.parent))
        for module in [m for m in sys.modules if m.split(".")[0] == out_dir.name]:
            del sys.modules[module]


@pytest.fixture(scope="module")
def ahma(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The package built from Ahma's own tool files: its import name."""
    yield from build_folder(AHMA, tmp_path_factory.mktemp("built") / "ahma")


@pytest.fixture(scope="module")
def ahma_raw(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The package built from Ahma's own tool files, each given
    ``"allow_raw_args": true``: a call's ``args`` appended as Ahma appends them."""
    folder = tmp_path_factory.mktemp("raw")
    for file in AHMA.glob("*.json"):
        document = json.loads(file.read_text(encoding="utf-8"))
        document["allow_raw_args"] = True
        (folder / file.name).write_text(json.dumps(document), encoding="utf-8")
    yield from build_folder(folder, tmp_path_factory.mktemp("built") / "ahma_raw")


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The package built from the project's ``examples/ahma``: its import name."""
    yield from build_folder(EXAMPLES, tmp_path_factory.mktemp("built") / "examples")


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current directory (every call's default working directory), with the
    stub programs first on PATH."""
    stubs = tmp_path / "bin"
    write_stubs(stubs, *STUBS)
    monkeypatch.setenv("PATH", f"{stubs}{os.pathsep}{os.environ['PATH']}")
    workspace = (tmp_path / "ws").resolve()
    workspace.mkdir()
    monkeypatch.chdir(workspace)
    return workspace
