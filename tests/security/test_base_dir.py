"""A package copied away from its schema's directory (issue 14, group 3): file and
cli tools refuse relative paths with an error naming ``Client(base_dir=...)`` and
``MCIGEN_BASE_DIR`` instead of reading from whatever directory the old way leads to
(``/`` at worst); either setting, relative to the working directory, puts it right."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from ..conftest import run_mcigen, write_schema
from .path_tools import cli_tool, file_tool
from .support import every_module_imported, importable_from

TOOLS = [
    file_tool("readDoc", "docs/{{props.name}}"),
    file_tool("readAny", "{{props.name}}", enableAnyPaths=True),
    cli_tool("catIn", ["cat", "doc.txt"], "{{props.name}}"),
]
MISSING = (
    "The schema's directory ({}) does not exist where the package runs, so its "
    "relative paths cannot be resolved; name the directory with Client(base_dir=...) "
    "or the environment variable MCIGEN_BASE_DIR"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "doc.txt").write_text("the doc", "utf-8")
    (tmp_path / "secret.txt").write_text("secret", "utf-8")
    write_schema(project, {"schemaVersion": "1.0", "tools": TOOLS})
    return project


def moved(project: Path, out: Path, to: Path) -> Path:
    """The package built into ``out``, copied to ``to``/pkg; returns ``to``."""
    result = run_mcigen("build", project / "tools.mci.json", "-o", out)
    assert result.returncode == 0, result.stderr
    shutil.copytree(out, to / "pkg")
    return to


@pytest.fixture
def copied(project: Path, tmp_path: Path) -> Iterator[ModuleType]:
    """The package, copied to where its way to the schema's directory finds none."""
    elsewhere = moved(project, project / "pkg", tmp_path / "a" / "b")
    with importable_from(elsewhere), every_module_imported("pkg") as package:
        yield package


def test_a_moved_package_refuses_relative_paths(
    copied: ModuleType, tmp_path: Path
) -> None:
    missing = MISSING.format(tmp_path.resolve() / "a" / "project")
    assert copied.read_doc(name="doc.txt").text == missing
    assert copied.cat_in(name="docs").text == missing
    assert copied.read_any(name="doc.txt").text == missing
    absolute = str(tmp_path / "project" / "docs" / "doc.txt")
    assert copied.read_any(name=absolute).text == "the doc"


def test_a_way_above_the_root_is_refused_not_taken_for_the_root(
    project: Path, tmp_path: Path
) -> None:
    """Built deeper below the schema than the copy lies below ``/``, the way climbs
    past the root, where ``..`` stays at ``/``: the package must not read from there."""
    deep = project.joinpath(*["d"] * len(tmp_path.parts), "pkg")
    elsewhere = moved(project, deep, tmp_path / "c")
    with importable_from(elsewhere), every_module_imported("pkg") as package:
        result = package.read_doc(name="../../etc/hostname")
    assert result.text == MISSING.format("above the file system's root")


def test_mcigen_base_dir_and_client_base_dir_name_the_directory(
    copied: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCIGEN_BASE_DIR", "project")  # relative: to the working dir
    assert copied.read_doc(name="doc.txt").text == "the doc"
    assert copied.cat_in(name="docs").text == "the doc"
    assert copied.read_doc(name="../../secret.txt").isError
    monkeypatch.setenv("MCIGEN_BASE_DIR", str(tmp_path / "nowhere"))
    client = copied.Client(base_dir="project")  # wins over the variable
    assert client.execute("readDoc", {"name": "doc.txt"}).result.text == "the doc"
    refused = client.execute("readDoc", {"name": "../../secret.txt"}).result
    assert refused.text == (
        "File path access outside context directory and allow-list is not allowed "
        "unless enableAnyPaths is true. Path: docs/../../secret.txt"
    )
