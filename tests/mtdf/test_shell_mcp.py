"""Ahma's built-in ``sandboxed_shell`` served over MCP by a package built from MTDF
files, with the SDK's client and real processes: listed with Ahma's input schema,
a pipeline runs, and a failing command's stdout reaches the model whether the
call answers at once or from the background (``await``)."""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as types
import pytest

from ..conftest import run_mcigen
from ..test_mcp_server import run, stdio_session

WINDOW = "0.5"
"""The background window (s): a call still running after it answers an id."""


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding the package ``pkg`` built from one tool file."""
    tools = tmp_path_factory.mktemp("tools")
    tool = {"name": "hello", "description": "Say hello", "command": "echo hello"}
    (tools / "hello.json").write_text(json.dumps(tool), encoding="utf-8")
    directory = tmp_path_factory.mktemp("served")
    result = run_mcigen("build", tools, "-o", directory / "pkg")
    assert result.returncode == 0, result.stderr
    return directory


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def test_sandboxed_shell_is_listed_and_runs_a_pipeline(pkg_dir: Path) -> None:
    async def scenario() -> None:
        async with stdio_session(pkg_dir) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            shell = listed["sandboxed_shell"]
            assert shell.input_schema["required"] == ["command"]
            assert set(shell.input_schema["properties"]) == {
                "command",
                "working_directory",
            }
            called = await client.call_tool(
                "sandboxed_shell", {"command": "echo hi | tr a-z A-Z"}
            )
            assert (called.is_error, text(called)) == (False, "HI\n")

    run(scenario)


def test_a_failing_commands_stdout_reaches_the_model(pkg_dir: Path) -> None:
    failing = {"command": "echo out; echo err >&2; sleep 1; exit 3"}
    expected = "Command failed with exit code 3: stderr: err\n, stdout: out\n"

    async def scenario() -> None:
        async with stdio_session(pkg_dir, MCIGEN_BACKGROUND_AFTER=WINDOW) as client:
            now = await client.call_tool(
                "sandboxed_shell", failing | {"execution_mode": "Synchronous"}
            )
            assert (now.is_error, text(now)) == (True, expected)
            started = await client.call_tool("sandboxed_shell", failing)
            assert text(started).startswith("AHMA ID: op_")
            op_id = text(started).split()[2]
            awaited = await client.call_tool("await", {"id": op_id})
            [done] = [
                json.loads(b.text)
                for b in awaited.content[1:]
                if isinstance(b, types.TextContent)
            ]
            assert done["result"] == {
                "exit_code": 3,
                "stderr": "err\n",
                "stdout": "out\n",
            }

    run(scenario)
