"""A generated package named like a module it runs with (its runtime, the runtime's
dependencies at any depth, mcigen's own, the standard library's) would be imported
in that module's place: ``build`` and ``check`` refuse the name."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mcigen.cli import main
from mcigen.planner.dependency_names import dependency_modules

from ..conftest import run_mcigen, schema_of, text_tool

SHADOWING = [
    ("pydantic", "from pydantic"),
    ("httpx", "from httpx"),
    ("mcp", "from mcp"),
    ("mcigen_runtime", "from mcigen-runtime"),
    ("yaml", "from PyYAML"),
    ("jinja2", "from Jinja2"),
    ("anyio", "from anyio"),
    ("typing_extensions", "from typing_extensions"),
    ("annotated_types", "from annotated-types"),  # pydantic's, not the runtime's
    ("h11", "from h11"),  # httpx's
    ("json", "Python's own 'json'"),
    ("os", "Python's own 'os'"),
    ("typing", "Python's own 'typing'"),
]


def _schema(directory: Path) -> Path:
    schema = directory / "tools.mci.json"
    schema.write_text(json.dumps(schema_of(text_tool("a", "x"))), encoding="utf-8")
    return schema


@pytest.mark.parametrize(("name", "source"), SHADOWING)
@pytest.mark.parametrize("command", ["build", "check"])
def test_a_package_named_like_a_module_it_runs_with_is_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    source: str,
    command: str,
) -> None:
    schema = str(_schema(tmp_path))
    for naming in (
        ["-o", str(tmp_path / "out"), "--name", name],
        ["-o", f"build/{name}"],
    ):
        assert main([command, schema, *naming]) == 2
        refusal = capsys.readouterr().err
        assert f"mcigen: error: '{name}' would shadow" in refusal
        assert source in refusal and "pass another --name" in refusal
    assert not (tmp_path / "out").exists() and not Path("build", name).exists()


def test_a_name_nothing_installed_has_is_built(tmp_path: Path) -> None:
    schema = _schema(tmp_path)
    result = run_mcigen("build", schema, "-o", tmp_path / "build" / "greetings_pkg")
    assert result.returncode == 0, result.stderr


def test_a_rebuild_is_not_taken_for_an_installed_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild finds the package it replaces on the path (the current directory):
    that is no installed module, so the closure of what packages run with (~0.1 s of
    a one-tool rebuild of 1000 tools) is not looked through."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    schema = str(_schema(tmp_path))
    assert main(["build", schema, "-o", "greetings_pkg"]) == 0
    dependency_modules.cache_clear()
    assert main(["build", schema, "-o", "greetings_pkg"]) == 0
    assert dependency_modules.cache_info().misses == 0


def test_a_directory_beside_does_not_hide_an_installed_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = next(m for m in sorted(dependency_modules()) if m not in sys.modules)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("", "utf-8")
    assert main(["build", str(_schema(tmp_path)), "-o", name]) == 2
    assert f"'{name}' would shadow" in capsys.readouterr().err
