"""Ahma's progressive disclosure, served (issue 30, item 5): the tools of a tool
file named as one of Ahma's bundles (``git``) are not listed until the client
reveals the bundle with ``activate_tools``, which then sends
``notifications/tools/list_changed``; they stay callable meanwhile. With the SDK's
client over stdio and Streamable HTTP against ``python -m pkg serve``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from ..conftest import run_mcigen
from ..mcp_servers import free_port
from ..test_mcp_server import http_server, http_session, run, stdio_session

OPERATION_TOOLS = ("status", "await", "cancel")
EVERY_TOOL = ["sandboxed_shell", "git_status", "git_log", "notes", *OPERATION_TOOLS]
"""What a client lists with no bundle hidden: Ahma's built-in sandboxed_shell, the
tools of both files, and, sandboxed_shell being a background tool, the operation
tools."""
LIST_HEADING = (
    "Available tool bundles (use `activate_tools reveal <bundle>` to activate):\n"
)


@pytest.fixture(scope="module")
def git_pkg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A package of a ``git`` tool file (``git_status``, ``git_log``: they echo)
    and a ``notes`` one, which is no bundle of Ahma's."""
    directory = tmp_path_factory.mktemp("disclosure")
    tools = directory / "tools"
    tools.mkdir()
    leaves = [
        {"name": name, "description": f"git {name}", "synchronous": True}
        for name in ("status", "log")
    ]
    documents = {
        "git": {
            "name": "git",
            "description": "Git",
            "command": "echo git",
            "subcommand": leaves,
        },
        "notes": {
            "name": "notes",
            "description": "Notes",
            "command": "echo notes",
            "synchronous": True,
        },
    }
    for name, document in documents.items():
        (tools / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    result = run_mcigen("build", tools, "-o", directory / "pkg")
    assert result.returncode == 0, result.stderr
    return directory


def serve_http(port: int, *options: str) -> list[str]:
    """``python -m pkg serve --http 127.0.0.1:PORT OPTIONS``."""
    return [
        sys.executable,
        "-m",
        "pkg",
        "serve",
        "--http",
        f"127.0.0.1:{port}",
        *options,
    ]


def names(listed: types.ListToolsResult) -> list[str]:
    return [tool.name for tool in listed.tools]


def test_a_bundles_tools_are_listed_once_revealed(git_pkg: Path) -> None:
    changes: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changes.append(message)

    async def scenario() -> None:
        async with stdio_session(git_pkg, message_handler=on_message) as client:
            # Ahma's built-in sandboxed_shell, a background tool: the operation tools
            assert names(await client.list_tools()) == [
                "sandboxed_shell",
                "notes",
                *OPERATION_TOOLS,
                "activate_tools",
            ]
            hidden = await client.call_tool("git_status", {})
            assert hidden.content[0].text == "git status\n"

            listed = await client.call_tool("activate_tools", {"action": "list"})
            heading, entries = listed.content[0].text.split("\n", 1)
            assert heading + "\n" == LIST_HEADING
            assert [
                {k: v for k, v in entry.items() if k != "description"}
                for entry in json.loads(entries)
            ] == [{"bundle": "git", "revealed": False, "tools": 2}]

            revealed = await client.call_tool(
                "activate_tools", {"action": "reveal", "bundle": "git, rust,nope"}
            )
            assert revealed.content[0].text == (
                "Revealed: git\n"
                "Not available: rust (not in this package), nope (unknown bundle)"
            )
            assert len(changes) == 1
            assert names(await client.list_tools()) == [*EVERY_TOOL, "activate_tools"]
            again = await client.call_tool(
                "activate_tools", {"action": "reveal", "bundle": "git"}
            )
            assert again.content[0].text == "Already revealed: git"
            assert len(changes) == 1

            with pytest.raises(MCPError, match="^Unknown action 'show'") as bad:
                await client.call_tool("activate_tools", {"action": "show"})
            assert bad.value.code == types.INVALID_PARAMS
            with pytest.raises(MCPError, match="'bundle' parameter is required"):
                await client.call_tool("activate_tools", {"action": "reveal"})

    run(scenario)


def test_the_activate_tools_definition_and_the_capability(git_pkg: Path) -> None:
    async def scenario() -> tuple[types.Tool, Any]:
        async with stdio_session(git_pkg) as client:
            [tool] = [
                t
                for t in (await client.list_tools()).tools
                if t.name == "activate_tools"
            ]
            return tool, client.server_capabilities

    tool, capabilities = run(scenario)
    assert tool.title == "activate_tools"
    assert tool.input_schema["required"] == ["action"]
    assert tool.input_schema["properties"]["action"]["enum"] == ["list", "reveal"]
    assert "'git'" in (tool.description or "")
    assert capabilities.tools.list_changed is True


def test_disclosure_turned_off_lists_every_tool(git_pkg: Path) -> None:
    async def scenario() -> list[str]:
        async with stdio_session(
            git_pkg, MCIGEN_PROGRESSIVE_DISCLOSURE_OFF="1"
        ) as client:
            return names(await client.list_tools())

    assert run(scenario) == EVERY_TOOL


def test_over_http_each_session_reveals_for_itself(git_pkg: Path) -> None:
    port = free_port()
    with http_server(git_pkg, serve_http(port), port) as url:

        async def scenario() -> None:
            async with http_session(url, None) as alice, http_session(url, None) as bob:
                await alice.call_tool(
                    "activate_tools", {"action": "reveal", "bundle": "git"}
                )
                assert "git_log" in names(await alice.list_tools())
                assert "git_log" not in names(await bob.list_tools())

        run(scenario)


@pytest.mark.parametrize("server", ["serve", "uvicorn"])
def test_several_workers_list_every_tool(git_pkg: Path, server: str) -> None:
    """A reveal would be known to the worker that took it only, and the client's
    next ``tools/list`` may reach another: several workers list every tool."""
    port = free_port()
    if server == "serve":
        argv = serve_http(port, "--workers", "2")
    else:
        argv = [sys.executable, "-m", "uvicorn", "pkg.server:app", "--workers", "2"]
        argv += ["--port", str(port)]
    with http_server(git_pkg, argv, port) as url:

        async def scenario() -> list[str]:
            async with http_session(url, None) as client:
                return names(await client.list_tools())

        assert run(scenario) == EVERY_TOOL
