"""A schema ``MCIClient`` cannot load: mci-py's words first, as the real mci-py
gives them, then mcigen's diagnostics with file:line:column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcigen import MCIClient, MCIClientError

from ..conftest import text_tool
from ..mcp_servers import free_port
from ..oracle import oracle_session

TEXT = {"type": "text", "text": "hi"}

# name -> (file name, document or raw text); each is refused by both
REFUSED: dict[str, tuple[str, Any]] = {
    "a list": ("s.json", [1]),
    "no schemaVersion": ("s.json", {"tools": []}),
    "neither tools nor toolsets": ("s.json", {"schemaVersion": "1.0"}),
    "a version that is a number": ("s.json", {"schemaVersion": 1, "tools": []}),
    "an unsupported version": ("s.json", {"schemaVersion": "2.0", "tools": []}),
    "tools not a list": ("s.json", {"schemaVersion": "1.0", "tools": {}}),
    "a tool not an object": ("s.json", {"schemaVersion": "1.0", "tools": ["x"]}),
    "a tool without a name": (
        "s.json",
        {"schemaVersion": "1.0", "tools": [{"execution": TEXT}]},
    ),
    "a tool without execution": (
        "s.json",
        {"schemaVersion": "1.0", "tools": [{"name": "a"}]},
    ),
    "execution not an object": (
        "s.json",
        {"schemaVersion": "1.0", "tools": [{"name": "a", "execution": "text"}]},
    ),
    "execution without a type": (
        "s.json",
        {"schemaVersion": "1.0", "tools": [{"name": "a", "execution": {}}]},
    ),
    "a type that is a number": (
        "s.json",
        {"schemaVersion": "1.0", "tools": [{"name": "a", "execution": {"type": 3}}]},
    ),
    "an invalid execution type": (
        "s.json",
        {
            "schemaVersion": "1.0",
            "tools": [
                text_tool("ok", "x"),
                {"name": "a", "execution": {"type": "grpc"}},
            ],
        },
    ),
    "a missing toolset": (
        "s.json",
        {"schemaVersion": "1.0", "tools": [], "toolsets": ["nowhere"]},
    ),
    "a missing library directory": (
        "s.json",
        {"schemaVersion": "1.0", "libraryDir": "./lib", "toolsets": ["x"]},
    ),
    "invalid JSON": ("s.json", '{"schemaVersion": "1.0",\n  "tools": [}'),
    "invalid YAML": ("s.yaml", 'schemaVersion: "1.0"\ntools: [\n  - {name: a\n'),
    "an unsupported extension": ("s.txt", {"schemaVersion": "1.0", "tools": []}),
}


def _write(directory: Path, name: str, content: Any) -> Path:
    path = directory / name
    text = content if isinstance(content, str) else json.dumps(content, indent=2)
    path.write_text(text, encoding="utf-8")
    if "toolsets" in text and "libraryDir" not in text:
        (directory / "mci").mkdir()
    return path


def _ours(path: Path) -> str:
    with pytest.raises(MCIClientError) as refused:
        MCIClient(schema_file_path=str(path))
    return str(refused.value)


def _theirs(path: Path) -> str:
    answer = oracle_session().call(path, "a", {}, {})
    prefix = "MCIClientError: "
    assert answer["exception"].startswith(prefix)
    return str(answer["exception"]).removeprefix(prefix)


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_schema_opens_with_mci_pys_message(
    case: str, tmp_path: Path, package_cache: Path
) -> None:
    name, content = REFUSED[case]
    path = _write(tmp_path, name, content)
    ours, theirs = _ours(path), _theirs(path)
    assert ours.startswith(theirs + "\n"), (ours, theirs)
    diagnostics = ours.removeprefix(theirs + "\n")
    assert f"{path}:" in diagnostics and ": error: " in diagnostics


def test_a_missing_file_is_mci_pys_message_alone(
    tmp_path: Path, package_cache: Path
) -> None:
    path = tmp_path / "absent.mci.json"
    assert _ours(path) == _theirs(path)


def test_a_folder_is_mci_pys_message_alone(tmp_path: Path, package_cache: Path) -> None:
    """The build cache reads MTDF folders for mcigen serve; MCIClient reads files."""
    folder = tmp_path / "tools"
    folder.mkdir()
    assert _ours(folder) == _theirs(folder)


def test_an_execution_config_pydantic_refuses_gets_mci_pys_heading_and_our_words(
    tmp_path: Path, package_cache: Path
) -> None:
    document = {
        "schemaVersion": "1.0",
        "tools": [{"name": "get", "execution": {"type": "http", "method": "GET"}}],
    }
    path = _write(tmp_path, "s.json", document)
    heading = (
        f"Failed to load schema from {path}: Tool 'get' has invalid execution "
        "config: Invalid http execution config: "
    )
    assert _theirs(path).startswith(heading)
    ours = _ours(path)
    assert ours.startswith(heading)
    assert f"{path}:6:20: error: " in ours  # the execution object


def test_every_diagnostic_follows_not_only_the_first(
    tmp_path: Path, package_cache: Path
) -> None:
    document = {
        "schemaVersion": "1.0",
        "tools": [
            {"name": "a", "execution": {"type": "cli"}},
            {"name": "b", "execution": {"type": "file"}},
        ],
    }
    path = _write(tmp_path, "s.json", document)
    lines = _ours(path).splitlines()
    assert lines[0].startswith(f"Failed to load schema from {path}: ")
    assert [line.split(": ")[0] for line in lines[1:-1]] == [
        f"{path}:6:20",
        f"{path}:12:20",
    ]
    assert lines[-1] == "2 errors, 0 warnings"


def test_the_schemas_own_error_comes_first_before_its_toolsets(
    tmp_path: Path, package_cache: Path
) -> None:
    document = {
        "schemaVersion": "1.0",
        "toolsets": ["aaa"],
        "tools": [{"name": "t", "execution": {"type": "cli"}}],
    }
    path = _write(tmp_path, "s.json", document)
    toolset = tmp_path / "mci" / "aaa.mci.json"
    bogus = [{"name": "b", "execution": {"type": "x"}}]
    toolset.write_text(json.dumps({"schemaVersion": "1.0", "tools": bogus}))
    heading = (
        f"Failed to load schema from {path}: Tool 't' has invalid execution "
        "config: Invalid cli execution config: "
    )
    assert _theirs(path).startswith(heading)
    ours = _ours(path)
    assert ours.startswith(heading)
    assert f"{toolset}:1:" in ours  # the toolset's error is said too


T_OK = text_tool("a", "hi")
# name -> (the schema's toolsets, the toolset files in mci/); each refused by both
REFUSED_TOOLSETS: dict[str, tuple[list[Any], dict[str, Any]]] = {
    "a filter without filterValue": (
        [{"name": "t", "filter": "only"}],
        {"t.mci.json": {"schemaVersion": "1.0", "tools": [T_OK]}},
    ),
    "a filterValue naming nothing": (
        [{"name": "t", "filter": "tags", "filterValue": " , "}],
        {"t.mci.json": {"schemaVersion": "1.0", "tools": [T_OK]}},
    ),
    "an unknown filter": (
        [{"name": "t", "filter": "some", "filterValue": "a"}],
        {"t.mci.json": {"schemaVersion": "1.0", "tools": [T_OK]}},
    ),
    "a toolset of an unsupported version": (
        ["ok", "t"],
        {
            "ok.mci.json": {"schemaVersion": "1.0", "tools": [T_OK]},
            "t.mci.json": {"schemaVersion": "2.0", "tools": []},
        },
    ),
    "a toolset whose version is a number": (
        ["t"],
        {"t.mci.json": {"schemaVersion": 1.0, "tools": []}},
    ),
    "a toolset without a version": (["t"], {"t.mci.json": {"tools": []}}),
    "a toolset without tools": (["t"], {"t.mci.json": {"schemaVersion": "1.0"}}),
    "a toolset that is a list": (["t"], {"t.mci.json": []}),
    "a toolset whose tools are not a list": (
        ["t"],
        {"t.mci.json": {"schemaVersion": "1.0", "tools": {}}},
    ),
    "a toolset tool without a name": (
        ["t"],
        {"t.mci.json": {"schemaVersion": "1.0", "tools": [{"execution": TEXT}]}},
    ),
    "a toolset of invalid JSON": (["t"], {"t.mci.json": '{"schemaVersion": '}),
    "a toolset missing after one with a filter": (
        [{"name": "ok", "filter": "only", "filterValue": "a"}, "gone"],
        {"ok.mci.json": {"schemaVersion": "1.0", "tools": [T_OK]}},
    ),
}


@pytest.mark.parametrize("case", REFUSED_TOOLSETS)
def test_a_refused_toolset_opens_with_mci_pys_message(
    case: str, tmp_path: Path, package_cache: Path
) -> None:
    toolsets, files = REFUSED_TOOLSETS[case]
    path = _write(tmp_path, "s.json", {"schemaVersion": "1.0", "toolsets": toolsets})
    for name, content in files.items():
        text = content if isinstance(content, str) else json.dumps(content)
        (tmp_path / "mci" / name).write_text(text, encoding="utf-8")
    ours, theirs = _ours(path), _theirs(path)
    assert ours.startswith(theirs + "\n"), (ours, theirs)


def test_an_unreachable_mcp_server_opens_with_mci_pys_words(
    tmp_path: Path, package_cache: Path
) -> None:
    """mci-py ends with the SDK's words (``unhandled errors in a TaskGroup``),
    mcigen with its own, which say what failed."""
    url = f"http://127.0.0.1:{free_port()}/mcp"
    document = {
        "schemaVersion": "1.0",
        "tools": [],
        "mcp_servers": {"web": {"url": url}},
    }
    path = _write(tmp_path, "s.json", document)
    heading = (
        f"Failed to load schema from {path}: Failed to fetch tools from MCP server "
        "'web': Failed to fetch from MCP server 'web': Failed to connect to MCP "
        "server 'web': "
    )
    assert _theirs(path).startswith(heading)
    ours = _ours(path)
    assert ours.startswith(heading)
    assert "ConnectError" in ours.splitlines()[0]
