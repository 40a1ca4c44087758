"""The MCP runtime against a real MCP server (tests/mcp_servers/toy_server.py),
over stdio and Streamable HTTP: results and metadata, long-lived sessions shared
by sync, async and threaded callers, restart after a crash, and clean shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcigen_runtime.executors.mcp import calls as mcp_exec
from mcigen_runtime.executors.mcp.calls import (
    McpConnectionError,
    McpServerParams,
    call_mcp_tool,
    call_mcp_tool_async,
    close_mcp_sessions,
    list_mcp_tools,
)
from mcigen_runtime.results import Annotations, ImageContent, TextContent

from .mcp_servers import TOY_SERVER, free_port, toy_http_server

ROOT = Path(__file__).resolve().parent.parent
TOY = str(TOY_SERVER)
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

# Runs the toy server after noting each start in a log file, so a test can
# count how many server processes a call started.
LAUNCHER = (
    "import runpy, sys; open(sys.argv[1], 'a').write('start\\n'); "
    "sys.argv = [sys.argv[2], 'stdio']; runpy.run_path(sys.argv[0], run_name='__main__')"
)

STDIO = McpServerParams(name="toy", command=sys.executable, args=(TOY, "stdio"))


def counted_server(log: Path, **fields: Any) -> McpServerParams:
    return McpServerParams(
        name="toy",
        command=sys.executable,
        args=("-c", LAUNCHER, str(log), TOY),
        **fields,
    )


def starts(log: Path) -> int:
    return log.read_text().count("start") if log.exists() else 0


def pid_of(server: McpServerParams) -> int:
    result = call_mcp_tool(server, "pid", {})
    assert not result.isError, result.text
    return int(result.text)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with toy_http_server() as url:
        yield url


# --------------------------------------------------------------------------- results


def test_echo_and_add_with_metadata() -> None:
    echo = call_mcp_tool(STDIO, "echo", {"text": "héllo, wörld"})
    assert not echo.isError
    assert echo.content == [TextContent(text="héllo, wörld")]
    assert echo.metadata == {
        "mcp_server": "toy",
        "mcp_tool": "echo",
        "structuredContent": {"result": "héllo, wörld"},
    }
    add = call_mcp_tool(STDIO, "add", {"a": 40, "b": 2})
    assert add.text == "42"
    assert add.metadata is not None and add.metadata["structuredContent"] == {
        "result": 42
    }


def test_every_json_argument_type_arrives_unchanged() -> None:
    arguments = {
        "text": 'quotes " and \\ and ünïcode ✓',
        "count": -7,
        "ratio": 0.25,
        "flag": True,
        "items": ["a", "", "c"],
        "options": {"nested": {"list": [1, 2.5, None, False]}, "empty": {}},
        "mode": "slow",
        "note": None,
    }
    result = call_mcp_tool(STDIO, "inspect_args", arguments)
    assert not result.isError, result.text
    assert json.loads(result.text) == arguments


def test_image_content() -> None:
    result = call_mcp_tool(STDIO, "pixel", {})
    assert not result.isError
    assert result.content == [ImageContent(data=PIXEL, mimeType="image/png")]
    assert result.metadata == {"mcp_server": "toy", "mcp_tool": "pixel"}


def test_tool_error_is_an_error_result_with_the_servers_message() -> None:
    result = call_mcp_tool(STDIO, "fail", {"message": "boom"})
    assert result.isError
    assert result.text == "Error executing tool fail: boom"
    assert result.metadata == {"mcp_server": "toy", "mcp_tool": "fail"}


def test_unknown_tool_and_invalid_arguments_are_error_results() -> None:
    unknown = call_mcp_tool(STDIO, "no-such-tool", {})
    assert unknown.isError
    assert "no-such-tool" in unknown.text
    bad = call_mcp_tool(STDIO, "add", {"a": "not a number"})
    assert bad.isError
    # The session survives both.
    assert call_mcp_tool(STDIO, "add", {"a": 1, "b": 1}).text == "2"


def test_result_mapping_of_resources_and_structured_content() -> None:
    """Every kind of content item arrives as the server sent it (annotations
    too): embedded resources, text or blob, stay resources; links stay links."""
    user_only = mcp_types.Annotations(audience=["user"], priority=0.5)
    result = mcp_types.CallToolResult(
        content=[
            mcp_types.EmbeddedResource(
                type="resource",
                resource=mcp_types.TextResourceContents(
                    uri="file:///a.txt", text="inside"
                ),
            ),
            mcp_types.EmbeddedResource(
                type="resource",
                resource=mcp_types.BlobResourceContents(
                    uri="file:///b.bin",
                    blob="AAE=",
                    mime_type="application/octet-stream",
                ),
                annotations=user_only,
            ),
            mcp_types.ResourceLink(
                type="resource_link", name="doc", uri="https://e.x/döc", size=3
            ),
            mcp_types.AudioContent(
                type="audio", data="UklGRg==", mime_type="audio/wav"
            ),
            mcp_types.TextContent(type="text", text="for you", annotations=user_only),
        ],
        structured_content={"ok": True},
    )
    mapped = mcp_exec._tool_result(result, {"mcp_server": "s", "mcp_tool": "t"})
    wire = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert [item.model_dump() for item in mapped.content] == wire["content"]
    assert [item.type for item in mapped.content] == [
        "resource",
        "resource",
        "resource_link",
        "audio",
        "text",
    ]
    assert mapped.content[1].annotations == Annotations(audience=["user"], priority=0.5)
    assert mapped.text == "for you"
    assert mapped.metadata == {
        "mcp_server": "s",
        "mcp_tool": "t",
        "structuredContent": {"ok": True},
    }
    assert not mapped.isError

    only_structured = mcp_types.CallToolResult(
        content=[], structured_content={"n": 1, "s": "ü"}, is_error=True
    )
    mapped = mcp_exec._tool_result(
        only_structured, {"mcp_server": "s", "mcp_tool": "t"}
    )
    assert mapped.isError
    assert mapped.content == [TextContent(text='{"n": 1, "s": "ü"}')]


# --------------------------------------------------------------------------- sessions


def test_session_stays_open_for_sync_async_and_threads() -> None:
    pid = pid_of(STDIO)
    assert pid_of(STDIO) == pid

    async def from_async() -> set[int]:
        results = await asyncio.gather(
            *(call_mcp_tool_async(STDIO, "pid", {}) for _ in range(10))
        )
        return {int(r.text) for r in results}

    assert asyncio.run(from_async()) == {pid}
    # A second, separate event loop shares the same session too.
    assert asyncio.run(from_async()) == {pid}

    with ThreadPoolExecutor(max_workers=16) as pool:
        pids = set(pool.map(lambda _: pid_of(STDIO), range(64)))
    assert pids == {pid}


def test_sync_call_inside_a_running_event_loop() -> None:
    async def main() -> str:
        return call_mcp_tool(STDIO, "echo", {"text": "from a loop"}).text

    assert asyncio.run(main()) == "from a loop"


def test_concurrent_first_calls_start_one_server(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    server = counted_server(log, env=(("WHICH", "concurrent"),))
    with ThreadPoolExecutor(max_workers=8) as pool:
        pids = set(pool.map(lambda _: pid_of(server), range(8)))
    assert len(pids) == 1
    assert starts(log) == 1


def test_env_reaches_the_stdio_server() -> None:
    os.environ["MCIGEN_TEST_INHERITED"] = "from parent"
    try:
        server = McpServerParams(
            name="toy",
            command=sys.executable,
            args=(TOY, "stdio"),
            env=(("MCIGEN_TEST_TOKEN", "s3cr3t value"),),
        )
        assert (
            call_mcp_tool(server, "get-env", {"name": "MCIGEN_TEST_TOKEN"}).text
            == "s3cr3t value"
        )
        # Added to the minimal base (PATH, HOME, locale, ...), not to all of ours.
        assert (
            call_mcp_tool(server, "get-env", {"name": "MCIGEN_TEST_INHERITED"}).text
            == "<unset>"
        )
        assert (
            call_mcp_tool(server, "get-env", {"name": "PATH"}).text
            == os.environ["PATH"]
        )
        assert (
            call_mcp_tool(STDIO, "get-env", {"name": "MCIGEN_TEST_TOKEN"}).text
            == "<unset>"
        )
    finally:
        del os.environ["MCIGEN_TEST_INHERITED"]


def test_crash_mid_call_is_an_error_and_the_next_call_restarts(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    server = counted_server(log, env=(("WHICH", "crash"),))
    first = pid_of(server)
    assert starts(log) == 1

    crashed = call_mcp_tool(server, "crash", {})
    # Not retried: the tool is not annotated read-only or idempotent.
    assert starts(log) == 1
    assert crashed.isError
    assert crashed.text.startswith(
        "MCP server 'toy' died during the call to 'crash' (Connection closed); "
        "it was not retried"
    )
    assert "\n" not in crashed.text
    assert crashed.metadata == {"mcp_server": "toy", "mcp_tool": "crash"}
    assert wait_gone(first)

    second = pid_of(server)
    assert second != first
    assert starts(log) == 2
    assert pid_of(server) == second


def test_server_killed_between_calls_is_replaced_transparently(tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    server = counted_server(log, env=(("WHICH", "killed"),))
    first = pid_of(server)
    os.kill(first, signal.SIGKILL)
    assert wait_gone(first)
    result = call_mcp_tool(server, "echo", {"text": "still here"})
    assert not result.isError, result.text
    assert result.text == "still here"
    assert pid_of(server) != first
    assert starts(log) == 2


def test_server_that_cannot_start_gives_an_error_result() -> None:
    server = McpServerParams(name="missing", command=str(ROOT / "no-such-server"))
    result = call_mcp_tool(server, "echo", {"text": "x"})
    assert result.isError
    assert result.text.startswith(
        "Failed to execute MCP tool 'echo': could not start MCP server 'missing'"
    )
    assert "\n" not in result.text
    assert result.metadata == {"mcp_server": "missing", "mcp_tool": "echo"}


def test_startup_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    # A process that never answers initialize (it only waits for stdin to close).
    silent = McpServerParams(
        name="silent",
        command=sys.executable,
        args=("-c", "import sys; sys.stdin.read()"),
    )
    monkeypatch.setattr(mcp_exec, "STARTUP_TIMEOUT", 0.5)
    started = time.monotonic()
    result = call_mcp_tool(silent, "echo", {"text": "x"})
    assert time.monotonic() - started < 10
    assert result.isError
    assert "did not finish initializing within 0.5 s" in result.text


def test_close_terminates_the_stdio_server(tmp_path: Path) -> None:
    server = McpServerParams(
        name="toy",
        command=sys.executable,
        args=(TOY, "stdio"),
        env=(("WHICH", "close"),),
    )
    pid = pid_of(server)
    assert alive(pid)
    close_mcp_sessions()
    assert wait_gone(pid)
    # Later calls start a new session.
    again = pid_of(server)
    assert again != pid
    assert alive(again)


def test_stdio_servers_are_stopped_at_interpreter_exit(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from mcigen_runtime.executors.mcp.calls import McpServerParams, call_mcp_tool
        server = McpServerParams(name="toy", command=sys.executable, args=({TOY!r}, "stdio"))
        print(call_mcp_tool(server, "pid", {{}}).text, flush=True)
        """)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    pid = int(done.stdout.strip())
    # The script has exited; its server must be gone with it (not merely orphaned).
    assert wait_gone(pid, timeout=5)


# --------------------------------------------------------------------------- listing


def test_list_tools_gives_camel_case_wire_dicts() -> None:
    tools = {tool["name"]: tool for tool in list_mcp_tools(STDIO)}
    assert set(tools) >= {
        "echo",
        "add",
        "inspect_args",
        "get-env",
        "pid",
        "pixel",
        "fail",
        "crash",
    }
    echo = tools["echo"]
    assert echo["description"] == "Return the text unchanged."
    assert echo["inputSchema"]["properties"]["text"]["type"] == "string"
    assert echo["inputSchema"]["required"] == ["text"]
    assert echo["annotations"] == {"title": "Echo", "readOnlyHint": True}
    assert tools["add"]["annotations"] == {"readOnlyHint": True, "idempotentHint": True}
    assert tools["get-env"]["annotations"] == {"openWorldHint": False}
    assert "input_schema" not in echo
    json.dumps(tools)  # plain JSON values only


def test_list_tools_failure_is_one_line_without_secrets() -> None:
    server = McpServerParams(
        name="nowhere",
        url=f"http://127.0.0.1:{free_port()}/mcp",
        headers=(("Authorization", "Bearer top-secret-token"),),
    )
    with pytest.raises(McpConnectionError) as caught:
        list_mcp_tools(server)
    message = str(caught.value)
    assert message.startswith("could not start MCP server 'nowhere': ")
    assert "\n" not in message
    assert "top-secret-token" not in message
    result = call_mcp_tool(server, "echo", {"text": "x"})
    assert result.isError
    assert "top-secret-token" not in result.text


# --------------------------------------------------------------------------- http


def test_http_transport_with_headers(http_url: str) -> None:
    server = McpServerParams(
        name="web",
        url=http_url,
        headers=(("Authorization", "Bearer t0ken"), ("X-Team", "a")),
    )
    echo = call_mcp_tool(server, "echo", {"text": "over http"})
    assert not echo.isError, echo.text
    assert echo.text == "over http"
    assert echo.metadata == {
        "mcp_server": "web",
        "mcp_tool": "echo",
        "structuredContent": {"result": "over http"},
    }
    assert call_mcp_tool(server, "pixel", {}).content == [
        ImageContent(data=PIXEL, mimeType="image/png")
    ]

    async def from_async() -> list[str]:
        results = await asyncio.gather(
            *(call_mcp_tool_async(server, "add", {"a": i, "b": 1}) for i in range(5))
        )
        return [r.text for r in results]

    assert asyncio.run(from_async()) == ["1", "2", "3", "4", "5"]
    names = [tool["name"] for tool in list_mcp_tools(server)]
    assert "inspect_args" in names
    unknown = call_mcp_tool(server, "no-such-tool", {})
    assert unknown.isError
