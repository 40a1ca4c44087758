"""Toolset and MCP server names become paths: each must stay in its folder, and a
name that would not is an error at the name, before anything outside is touched."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ..conftest import run_mcigen, schema_of, text_tool, write_schema
from ..frontend.support import position
from ..mcp_servers import TOY_SERVER


def _at(schema: Path, needle: str) -> str:
    text = schema.read_text()
    return f"{schema}:{position(text, text.index(needle))}"


def _outside_toolset(tmp_path: Path) -> Path:
    """A valid toolset file outside the library, whose tool must never show up."""
    outside = tmp_path / "x" / "stolen.mci.json"
    outside.parent.mkdir()
    write_schema(outside.parent, schema_of(text_tool("stolen", "secret")), outside.name)
    return outside


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "a" / "b"
    (project / "mci").mkdir(parents=True)
    return project


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../../../x/stolen", "'../../../x/stolen' leads outside '{library}'"),
        ("{outside}", "'{outside}' is an absolute path"),
        ("a\0b", "a name must not contain a NUL character"),
        ("n" * 300, "'{name}' is not a usable path: File name too long"),
    ],
    ids=["dot-dot", "absolute", "nul", "too-long"],
)
def test_a_toolset_name_leaving_the_library_is_refused_at_the_name(
    tmp_path: Path, name: str, reason: str
) -> None:
    outside = _outside_toolset(tmp_path)
    project = _project(tmp_path)
    name = name.format(outside=outside)
    ref = {"name": name, "filter": "only", "filterValue": "stolen"}
    schema = write_schema(project, {"schemaVersion": "1.0", "toolsets": [ref]})
    result = run_mcigen("list", schema)
    where = _at(schema, json.dumps(name))
    expected = reason.format(library=project / "mci", outside=outside, name=name)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[0] == (
        f"{where}: error: toolset name refused: {expected}"
    )
    assert "stolen" not in result.stdout


def test_a_toolset_file_linked_from_outside_is_refused(tmp_path: Path) -> None:
    outside = _outside_toolset(tmp_path)
    project = _project(tmp_path)
    (project / "mci" / "linked.mci.json").symlink_to(outside)
    schema = write_schema(project, {"schemaVersion": "1.0", "toolsets": ["linked"]})
    result = run_mcigen("list", schema)
    assert result.returncode == 1
    where = _at(schema, '"linked"')
    assert result.stderr.splitlines()[0] == (
        f"{where}: error: toolset name refused: "
        f"'linked.mci.json' leads outside '{project / 'mci'}'"
    )


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../../../escaped_cache", "'../../../escaped_cache' leads outside '{mcp}'"),
        ("", "an empty name is not a path inside its folder"),
    ],
    ids=["dot-dot", "empty"],
)
def test_an_mcp_server_name_leaving_the_cache_folder_is_refused_at_the_name(
    tmp_path: Path, name: str, reason: str
) -> None:
    project = _project(tmp_path)
    stdio = {"command": sys.executable, "args": [str(TOY_SERVER), "stdio"]}
    schema = write_schema(
        project, {"schemaVersion": "1.0", "mcp_servers": {name: stdio}}
    )
    result = run_mcigen("build", schema, "-o", tmp_path / "out")
    where = _at(schema, f"{json.dumps(name)}:")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[0] == (
        f"{where}: error: MCP server name refused: "
        + reason.format(mcp=project / "mci" / "mcp")
    )
    written = {p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()}
    assert written == {Path("a/b/tools.mci.json")}


def test_an_mcp_cache_linked_from_outside_is_refused(tmp_path: Path) -> None:
    project = _project(tmp_path)
    outside = tmp_path / "elsewhere.mci.json"
    outside.write_text("{}")
    (project / "mci" / "mcp").mkdir()
    (project / "mci" / "mcp" / "toy.mci.json").symlink_to(outside)
    stdio = {"command": sys.executable, "args": [str(TOY_SERVER), "stdio"]}
    schema = write_schema(
        project, {"schemaVersion": "1.0", "mcp_servers": {"toy": stdio}}
    )
    result = run_mcigen("build", schema, "-o", tmp_path / "out", "--refresh")
    where = _at(schema, '"toy":')
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        f"{where}: error: MCP server name refused: "
        f"'toy.mci.json' leads outside '{project / 'mci' / 'mcp'}'"
    )
    assert outside.read_text() == "{}"
