"""The glob filter: pyMCPBroker's ``tool_filter`` rules, and the same filter in an
MCI schema as ``filter: glob`` (an mcigen extension)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mcigen.planner.filters import glob_allows

from ..conftest import run_mcigen, text_tool, write_schema
from ..mcp_servers import TOY_SERVER
from ..oracle import run_oracle
from ..security.support import package_command

TOOLS = ["get_file", "get_secret_key", "list_files", "delete_file"]


@pytest.mark.parametrize(
    ("patterns", "allowed"),
    [
        ([], TOOLS),
        (["!delete_*"], ["get_file", "get_secret_key", "list_files"]),
        (["get_*", "list_*"], ["get_file", "get_secret_key", "list_files"]),
        (["get_*", "!get_secret_*"], ["get_file"]),
        (["!get_secret_*", "get_*"], ["get_file"]),
    ],
)
def test_the_specs_examples(patterns: list[str], allowed: list[str]) -> None:
    assert [name for name in TOOLS if glob_allows(name, patterns)] == allowed


def glob_schema(tmp_path: Path, value: str) -> Path:
    server = {
        "command": sys.executable,
        "args": [str(TOY_SERVER), "stdio"],
        "config": {"filter": "glob", "filterValue": value},
    }
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"toy": server}}
    return write_schema(tmp_path, document)


def test_row_101_filter_glob_in_an_mci_schema_which_mci_py_refuses(
    tmp_path: Path,
) -> None:
    schema = glob_schema(tmp_path, "e*, a*, p*, !pixel")
    result = run_mcigen("list", schema)
    assert result.returncode == 0, result.stderr
    names = [line.split()[0] for line in result.stdout.splitlines()[1:]]
    assert names == ["echo", "add", "pid"]
    (theirs,) = run_oracle(
        schema, [{"tool": "echo", "props": {"text": "x"}, "env": {}}]
    )
    assert "glob" in theirs["exception"]


def test_filter_glob_on_a_toolset_keeps_the_matching_tools_but_the_denied(
    tmp_path: Path,
) -> None:
    library = tmp_path / "mci"
    library.mkdir()
    toolset = {
        "schemaVersion": "1.0",
        "tools": [text_tool(name, f"{name} ran") for name in TOOLS + ["get_user"]],
    }
    (library / "files.mci.json").write_text(json.dumps(toolset), encoding="utf-8")
    reference = {
        "name": "files",
        "filter": "glob",
        "filterValue": "get_*, !get_secret_*",
    }
    schema = write_schema(
        tmp_path, {"schemaVersion": "1.0", "tools": [], "toolsets": [reference]}
    )
    kept = ["get_file", "get_user"]

    listed = run_mcigen("list", schema)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()[1:]] == kept

    built = run_mcigen("build", schema, "-o", tmp_path / "pkg")
    assert built.returncode == 0, built.stderr
    in_package = package_command(tmp_path, "list")
    assert [line.split()[0] for line in in_package.stdout.splitlines()[1:]] == kept
    called = package_command(tmp_path, "call", "get_user")
    assert called.stdout == "get_user ran\n"
    denied = package_command(tmp_path, "call", "get_secret_key")
    assert "Tool not found: get_secret_key" in denied.stdout + denied.stderr
