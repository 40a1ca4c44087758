"""Listing an MCP server's tools to build a package starts the server and stops it
again once listed: an in-process build (``build --watch``, the tests' own) left it
running for the life of the process. A first ``MCIClient`` calls its tools on the
server its build started (it started it twice), and stops it when it will not call
it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.executors.mcp.calls import (
    McpServerParams,
    call_mcp_tool,
    list_mcp_tools,
    stop_listed_session,
)

from mcigen import MCIClient, MCIClientError

from .conftest import run_mcigen, write_schema
from .mcp_servers import LISTED_SERVER


def running_with(word: str) -> list[int]:
    """The processes alive (not zombies) with ``word`` in their command line."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if word.encode() in cmdline.read().split(b"\0"):
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def test_a_build_stops_the_server_it_listed(tmp_path: Path) -> None:
    tools = tmp_path / "listed.json"
    act = {"name": "act", "inputSchema": {"type": "object", "properties": {}}}
    tools.write_text(json.dumps([act]), encoding="utf-8")
    server = {"command": sys.executable, "args": [str(LISTED_SERVER), str(tools)]}
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"listed": server}}
    schema = write_schema(tmp_path, document, "main.mci.json")
    built = run_mcigen("build", schema, "-o", tmp_path / "pkg")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "pkg" / "manifest.json").is_file()
    assert running_with(str(tools)) == []


def listed_schema(
    tmp_path: Path,
    config: dict[str, Any] | None = None,
    starts_arg: str | None = None,
    **document: Any,
) -> tuple[Path, Path, Path]:
    """A schema of the listed server serving ``act``, its tools' file (in its
    command line) and the file it appends its pid to at each start (its last
    argument: ``starts_arg`` if given)."""
    tools, starts = tmp_path / "listed.json", tmp_path / "starts"
    act = {"name": "act", "inputSchema": {"type": "object", "properties": {}}}
    tools.write_text(json.dumps([act]), encoding="utf-8")
    args = [str(LISTED_SERVER), str(tools), starts_arg or str(starts)]
    server: dict[str, Any] = {"command": sys.executable, "args": args}
    if config is not None:
        server["config"] = config
    schema = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"listed": server}}
    schema.update(document)
    return write_schema(tmp_path, schema, "main.mci.json"), tools, starts


def starts_of(starts: Path) -> list[str]:
    return starts.read_text(encoding="utf-8").split() if starts.exists() else []


def test_a_first_client_calls_the_server_its_build_started(tmp_path: Path) -> None:
    # a setting read from env_vars, as at build time so at call time
    schema, _tools, starts = listed_schema(tmp_path, starts_arg="{{env.STARTS}}")
    client = MCIClient(schema_file_path=str(schema), env_vars={"STARTS": str(starts)})
    answer = client.execute("act", {})
    assert not answer.result.isError, answer.result
    assert json.loads(answer.result.content[0].text)["tool"] == "act"
    assert len(starts_of(starts)) == 1


def test_a_server_a_client_never_calls_ends_with_the_process(tmp_path: Path) -> None:
    schema, tools, starts = listed_schema(tmp_path)
    script = "import sys; from mcigen import MCIClient; MCIClient(sys.argv[1])"
    made = subprocess.run(
        [sys.executable, "-c", script, str(schema)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    assert len(starts_of(starts)) == 1
    assert running_with(str(tools)) == []


def test_a_server_whose_tools_are_all_filtered_out_is_stopped(tmp_path: Path) -> None:
    config = {"filter": "except", "filterValue": "act"}
    schema, tools, starts = listed_schema(tmp_path, config)
    client = MCIClient(schema_file_path=str(schema))
    assert client.list_tools() == []
    assert len(starts_of(starts)) == 1
    assert running_with(str(tools)) == []


def test_a_client_leaves_running_a_server_it_did_not_start(tmp_path: Path) -> None:
    config = {"filter": "except", "filterValue": "act"}
    schema, tools, starts = listed_schema(tmp_path, config)
    args = (str(LISTED_SERVER), str(tools), str(starts))
    elsewhere = McpServerParams("listed", command=sys.executable, args=args)
    assert not call_mcp_tool(elsewhere, "act", {}).isError
    assert MCIClient(schema_file_path=str(schema)).list_tools() == []
    assert len(running_with(str(tools))) == 1
    assert not call_mcp_tool(elsewhere, "act", {}).isError
    assert len(starts_of(starts)) == 1


def test_a_failed_build_stops_the_server_it_listed(tmp_path: Path) -> None:
    broken = {"name": "broken", "execution": {"type": "text"}}
    schema, tools, starts = listed_schema(tmp_path, tools=[broken])
    with pytest.raises(MCIClientError):
        MCIClient(schema_file_path=str(schema))
    assert len(starts_of(starts)) == 1
    assert running_with(str(tools)) == []


def test_a_call_whose_settings_differ_from_the_listings_starts_its_own_server(
    tmp_path: Path,
) -> None:
    """A session a listing kept (``MCIClient``'s build) serves only calls with
    the same settings: one whose settings differ (here its environment and an
    argument, the file the server counts its starts in) starts a server of its
    own, and stopping the listed one leaves the caller's running. (A client's
    build and its calls render the settings from the same ``env_vars``: no
    client is known to differ; the sessions are kept by every setting.)"""
    _schema, tools, starts = listed_schema(tmp_path)
    listed = McpServerParams(
        "listed",
        command=sys.executable,
        args=(str(LISTED_SERVER), str(tools), str(starts)),
        env=(("MODE", "built"),),
    )
    assert [tool["name"] for tool in list_mcp_tools(listed, keep=True)] == ["act"]
    own = tmp_path / "own starts"
    calling = McpServerParams(
        "listed",
        command=sys.executable,
        args=(str(LISTED_SERVER), str(tools), str(own)),
        env=(("MODE", "called"),),
    )
    assert not call_mcp_tool(calling, "act", {}).isError
    assert len(starts_of(starts)) == 1 and len(starts_of(own)) == 1
    stop_listed_session(listed)
    assert [int(pid) for pid in starts_of(own)] == running_with(str(tools))
    assert not call_mcp_tool(calling, "act", {}).isError
    assert len(starts_of(own)) == 1
