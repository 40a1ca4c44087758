"""Generated tools for MCP servers nobody here wrote: the reference servers
``server-everything`` and ``server-filesystem`` from the npm registry (pinned versions,
installed into .cache by tests/npm_servers.py)."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .conftest import ROOT, built_package, write_schema
from .npm_servers import everything_server_command, filesystem_server_command


def stdio(command: list[str]) -> dict[str, Any]:
    return {"command": command[0], "args": command[1:]}


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("everything")
    schema = write_schema(
        directory,
        {
            "schemaVersion": "1.0",
            "mcp_servers": {"everything": stdio(everything_server_command())},
        },
    )
    with built_package(schema, directory / "everything_pkg") as package:
        yield package


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("files")
    root = directory / "root"
    root.mkdir()
    (root / "notes.txt").write_text("line one\nline two\n")
    schema = write_schema(
        directory,
        {
            "schemaVersion": "1.0",
            "mcp_servers": {"files": stdio(filesystem_server_command(root))},
        },
    )
    with built_package(schema, directory / "files_pkg") as package:
        package.__dict__["ROOT"] = root
        yield package


def test_hyphenated_tool_names_become_functions_with_typed_parameters(
    everything: ModuleType,
) -> None:
    assert everything.get_sum(a=2, b=3.5).text == "The sum of 2 and 3.5 is 5.5."
    parameters = inspect.signature(everything.get_annotated_message).parameters
    assert str(parameters["messageType"].annotation) == (
        "Literal['error', 'success', 'debug']"
    )
    assert parameters["includeImage"].default is False


def test_enums_are_checked_before_the_server_is_asked(everything: ModuleType) -> None:
    with pytest.raises(everything.ToolInputError) as refused:
        everything.get_structured_content(location="Paris")
    assert "location" in str(refused.value)


def test_structured_content_is_kept_in_metadata_and_typed(
    everything: ModuleType,
) -> None:
    result = everything.get_structured_content(location="Chicago")
    structured = result.metadata["structuredContent"]
    assert set(structured) == {"temperature", "conditions", "humidity"}
    assert json.loads(result.text) == structured
    typed = result.structured
    assert type(typed).__name__ == "GetStructuredContentOutput"
    assert (typed.temperature, typed.conditions) == (36, "Light rain / drizzle")


def test_images_between_text_items(everything: ModuleType) -> None:
    result = everything.get_tiny_image()
    assert [c.type for c in result.content] == ["text", "image", "text"]
    assert result.content[1].mimeType == "image/png"


def test_embedded_resources_and_links_arrive_as_sent(
    everything: ModuleType,
) -> None:
    embedded = everything.get_resource_reference(resourceType="Text", resourceId=2)
    resource = embedded.content[1]
    assert resource.type == "resource"
    assert resource.resource.text.startswith("Resource 2:")
    links = everything.get_resource_links(count=2)
    linked = links.content[1:]
    assert [link.type for link in linked] == ["resource_link", "resource_link"]
    assert all(link.uri.startswith("demo://resource/") for link in linked)


def test_annotations_become_mci_py_tags(everything: ModuleType) -> None:
    manifest = json.loads((Path(everything.__path__[0]) / "manifest.json").read_text())
    tags = {tool["name"]: tool["tags"] for tool in manifest["tools"]}
    assert tags["echo"] == ["IsReadOnly", "IsIdempotent"]
    assert tags["gzip-file-as-resource"] == ["IsIdempotent", "IsOpenWorld"]


def test_a_wrongly_typed_argument_is_refused_with_its_name(
    everything: ModuleType,
) -> None:
    with pytest.raises(everything.ToolInputError) as refused:
        everything.echo(message=5)
    assert "message" in str(refused.value)


def test_filesystem_tools_read_write_and_list(workspace: ModuleType) -> None:
    root = workspace.ROOT
    target = str(root / "plan.md")
    written = workspace.write_file(path=target, content="# Plan\nship it\n")
    assert written.isError is False
    assert workspace.read_text_file(path=target, head=1).text == "# Plan"
    listing = workspace.list_directory(path=str(root)).text
    assert sorted(listing.splitlines()) == ["[FILE] notes.txt", "[FILE] plan.md"]


def test_nested_object_arguments_reach_the_server(workspace: ModuleType) -> None:
    target = str(workspace.ROOT / "notes.txt")
    edit = {"oldText": "line two", "newText": "line 2"}
    preview = workspace.edit_file(path=target, edits=[edit], dryRun=True)
    assert "-line two" in preview.text and "+line 2" in preview.text
    assert (workspace.ROOT / "notes.txt").read_text() == "line one\nline two\n"


def test_a_refused_path_is_an_error_result(workspace: ModuleType) -> None:
    result = workspace.read_text_file(path="/etc/hostname")
    assert result.isError is True
    assert "Access denied" in result.text
    assert result.metadata == {"mcp_server": "files", "mcp_tool": "read_text_file"}


def test_the_golden_workspace_package_runs_its_server_with_npx(
    tmp_path: Path,
) -> None:
    (tmp_path / "todo.txt").write_text("water the plants\n")
    code = (
        "import sys, workspace; "
        "print(workspace.read_text_file(path=sys.argv[1]).structured.content); "
        "print(workspace.headline(text='hi').text)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "todo.txt")],
        cwd=ROOT / "golden",
        env={**os.environ, "WORKSPACE_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["water the plants", "", "== hi =="]
