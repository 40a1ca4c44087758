"""The build cache changes how long a build takes, never what it writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcigen.backend import models
from mcigen.pipeline import CompileOptions, compile_schema
from mcigen.planner import McpAccess, McpMode

from .conftest import ROOT

EXAMPLE = ROOT / "examples" / "incident_digest.mci.yaml"


def _build(tmp_path: Path) -> dict[str, bytes]:
    files, diagnostics = compile_schema(
        EXAMPLE, tmp_path / "pkg", "pkg", CompileOptions(mcp=McpAccess(McpMode.OFFLINE))
    )
    assert files is not None, diagnostics.render()
    return files


def test_a_cached_build_writes_the_same_bytes_as_an_uncached_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    uncached = _build(tmp_path)
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(tmp_path / "cache"))
    assert _build(tmp_path) == uncached  # fills the cache
    assert _build(tmp_path) == uncached  # reads it


def test_a_rebuild_with_unchanged_input_schemas_generates_no_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(tmp_path / "cache"))
    first = _build(tmp_path)

    def refuse(document: object) -> str:
        raise AssertionError("the models should have come from the cache")

    monkeypatch.setattr(models, "_run_codegen", refuse)
    assert _build(tmp_path) == first


def test_an_unusable_cache_directory_only_costs_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(blocked))
    assert _build(tmp_path)["models.py"]


def test_a_cache_directory_others_may_write_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(cache))
    clean = _build(tmp_path)
    for entry in cache.glob("black-*/*"):  # another user's code in formatted code
        entry.write_text(entry.read_text() + "\nPLANTED = True\n")
    cache.chmod(0o777)
    assert _build(tmp_path) == clean


@pytest.mark.parametrize("kind", ["black", "models"])
def test_a_damaged_entry_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(cache))
    clean = _build(tmp_path)
    for entry in cache.glob(f"{kind}-*/*"):
        entry.write_text(entry.read_text()[:-10])
    assert _build(tmp_path) == clean
    assert _build(tmp_path) == clean  # from the entries made again
