"""Upstream MCP tools that declare ``execution.taskSupport`` (MCP 2025-11-25 Tasks):
the cache keeps it (mci-py still reads the cache, COMPATIBILITY.md row 157), and a
generated function calls a ``required`` tool as a task, within its bounds, its
task cancelled when the call is. The server is tests/mcp_servers/tasks_server.py,
written with the official SDK."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .conftest import built_package, run_mcigen
from .mcp_servers import TASKS_SERVER, http_server
from .oracle import run_oracle
from .security.support import built_and_imported
from .test_mcp_bounds import cancellations
from .test_mcp_server import run, stdio_session


def tasks_schema(log_dir: Path, *args: str, **config: Any) -> dict[str, Any]:
    server = {
        "command": sys.executable,
        "args": [str(TASKS_SERVER), "stdio", str(log_dir), *args],
        "config": config,
    }
    return {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"tasks": server}}


@pytest.fixture(scope="module")
def tasks(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, ModuleType]]:
    """The package ``pkg`` of the tasks server's tools (a call may wait 2 s), and
    its directory, which is also the server's log directory."""
    directory = tmp_path_factory.mktemp("tasks")
    with built_and_imported(
        directory, tasks_schema(directory, timeout_ms=2000)
    ) as package:
        yield directory, package


def _cached(directory: Path) -> dict[str, dict[str, Any]]:
    cache = json.loads((directory / "mci" / "mcp" / "tasks.mci.json").read_text())
    return {tool["name"]: tool for tool in cache["tools"]}


def test_the_cache_keeps_the_task_support_of_each_tool(
    tasks: tuple[Path, ModuleType],
) -> None:
    executions = {name: t["execution"] for name, t in _cached(tasks[0]).items()}
    mcp = {"type": "mcp", "serverName": "tasks"}
    assert executions == {
        "render": {**mcp, "toolName": "render", "taskSupport": "required"},
        "maybe": {**mcp, "toolName": "maybe", "taskSupport": "optional"},
        "bogus": {**mcp, "toolName": "bogus", "taskSupport": "required"},
        "plain": {**mcp, "toolName": "plain"},
    }


def test_a_required_tool_is_called_as_a_task(tasks: tuple[Path, ModuleType]) -> None:
    package = tasks[1]
    result = package.render(text="hello", seconds=0.2)
    assert (result.isError, result.text) == (False, "rendered hello")
    assert result.metadata == {"mcp_server": "tasks", "mcp_tool": "render"}
    failed = asyncio.run(package.render_async(text="fail"))
    assert (failed.isError, failed.text) == (True, "render failed")
    # the others plainly, as before
    assert package.maybe().text == "plain"
    assert package.plain().text == "plain"


def test_a_task_call_that_times_out_cancels_its_task(
    tasks: tuple[Path, ModuleType],
) -> None:
    log_dir, package = tasks
    before = cancellations(log_dir, 0)
    result = package.render(text="slow", seconds=30, _timeout=0.5)
    assert result.isError
    assert result.text == (
        "MCP tool 'render' did not answer within 0.5 s; the call was cancelled"
    )
    assert cancellations(log_dir, before + 1) == before + 1  # told before it answered
    # the server asks for a poll every 20 ms: the client waits 50 ms at least
    polls = (log_dir / "polls.log").read_text().splitlines()
    assert len([task for task in polls if task == polls[-1]]) <= 10
    assert package.render(text="next").text == "rendered next"


def test_an_answer_that_is_no_task_is_an_error_result(
    tasks: tuple[Path, ModuleType],
) -> None:
    result = tasks[1].bogus()
    assert result.isError
    assert result.text == (
        "Failed to execute MCP tool 'bogus': the server's answer is not a task "
        "(task.taskId: Input should be a valid string)"
    )


def test_a_task_call_whose_caller_cancels_it_cancels_its_task(
    tasks: tuple[Path, ModuleType],
) -> None:
    log_dir, package = tasks
    before = cancellations(log_dir, 0)

    async def scenario() -> None:
        call = asyncio.ensure_future(package.render_async(text="slow", seconds=30))
        await asyncio.sleep(0)  # let it start before cancelling it
        await asyncio.wait({call}, timeout=0.3)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(scenario())
    assert cancellations(log_dir, before + 1) == before + 1


def test_a_task_call_over_streamable_http(tmp_path: Path) -> None:
    with http_server(TASKS_SERVER, "http", str(tmp_path)) as url:
        server = {"type": "http", "url": url, "config": {"timeout_ms": 2000}}
        document = {
            "schemaVersion": "1.0",
            "tools": [],
            "mcp_servers": {"tasks": server},
        }
        schema = tmp_path / "tools.mci.json"
        schema.write_text(json.dumps(document), encoding="utf-8")
        with built_package(schema, tmp_path / "httptasks") as package:
            assert package.render(text="over http").text == "rendered over http"
            slow = package.render(text="slow", seconds=30, _timeout=0.5)
            assert slow.isError and "did not answer within 0.5 s" in slow.text
            assert cancellations(tmp_path, 1) == 1


def test_served_again_the_tool_claims_no_task_support(
    tasks: tuple[Path, ModuleType],
) -> None:
    """The package's own server answers a call of ``render`` when its task has
    ended: it is an ordinary tool there, whose call may still be one (it blocks)."""
    log_dir = tasks[0]

    async def scenario() -> tuple[dict[str, Any], str]:
        async with stdio_session(log_dir) as session:
            listed = await session.list_tools()
            called = await session.call_tool("render", {"text": "served"})
            tools = {
                tool.name: tool.model_dump(by_alias=True, exclude_none=True)
                for tool in listed.tools
            }
            return tools, called.content[0].text

    tools, text = run(scenario)
    assert text == "rendered served"
    assert [tools[name].get("execution") for name in sorted(tools)] == [None] * 4


def test_a_server_that_declares_no_task_calls_is_called_plainly(
    tmp_path: Path,
) -> None:
    """The spec forbids asking such a server for a task, whatever its tools
    say: the call is made plainly, and the server's refusal is its result."""
    schema = tmp_path / "tools.mci.json"
    document = tasks_schema(tmp_path, "--no-tasks", timeout_ms=2000)
    schema.write_text(json.dumps(document), encoding="utf-8")
    with built_package(schema, tmp_path / "notasks") as package:
        result = package.render(text="hello")
    assert result.isError
    assert result.text == (
        "Failed to execute MCP tool 'render': tool 'render' must be called as a task"
    )


def test_a_broker_configs_source_calls_its_required_tool_as_a_task(
    tmp_path: Path,
) -> None:
    """A pyMCPBroker config's tool, renamed and given a timeout of its own,
    keeps its server's taskSupport."""
    command = f"{sys.executable} {TASKS_SERVER} stdio {tmp_path}"
    source = {
        "command": command,
        "tool_filter": ["render"],
        "path_aliases": {"render": "draw"},
        "tool_overrides": {"render": {"timeout": 2.5}},
    }
    config = tmp_path / "broker.json"
    document = {"tree": [{"path": "/tasks", "source": source}]}
    config.write_text(json.dumps(document), encoding="utf-8")
    built = run_mcigen("build", config, "-o", tmp_path / "pkg")
    assert built.returncode == 0, built.stderr
    done = subprocess.run(
        [sys.executable, "-m", "pkg", "call", "tasks.draw", "--json", '{"text": "hi"}'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "rendered hi"), done.stderr


def test_row_157_mci_py_reads_a_cache_that_keeps_task_support(
    tasks: tuple[Path, ModuleType],
) -> None:
    """mci-py ignores ``taskSupport`` in a cached tool's ``execution``: it loads the
    cache mcigen wrote (not fetching the tools again, which would rewrite it
    without the field) and calls every tool plainly, which the server refuses
    for ``render``."""
    directory = tasks[0]
    cache = directory / "mci" / "mcp" / "tasks.mci.json"
    written = cache.read_bytes()
    assert b'"taskSupport": "required"' in written
    calls = [
        {"tool": "maybe", "props": {}, "env": {}},
        {"tool": "render", "props": {"text": "hello"}, "env": {}},
    ]
    maybe, render = run_oracle(directory / "tools.mci.json", calls)
    assert maybe["result"]["content"] == [{"type": "text", "text": "plain"}]
    assert cache.read_bytes() == written
    assert render["result"]["isError"]
    assert render["result"]["content"][0]["text"] == (
        "Failed to execute MCP tool 'render': unhandled errors in a TaskGroup "
        "(1 sub-exception)"
    )


def test_task_support_is_checked_in_a_schemas_own_mcp_tool(tmp_path: Path) -> None:
    tool = {
        "name": "render",
        "execution": {
            "type": "mcp",
            "serverName": "tasks",
            "toolName": "render",
            "taskSupport": "always",
        },
    }
    document = {
        "schemaVersion": "1.0",
        "tools": [tool],
        "mcp_servers": {"tasks": {"command": "true"}},
    }
    schema = tmp_path / "tools.mci.json"
    schema.write_text(json.dumps(document, indent=2), encoding="utf-8")
    checked = run_mcigen("check", schema, "--no-connect")
    assert checked.returncode == 1
    assert checked.stderr.splitlines()[0] == (
        f"{schema}:10:24: error: 'taskSupport' must be one of 'forbidden', "
        "'optional', 'required', got 'always'"
    )
