"""MCP's own Tasks over the background operations: the 2025-11-25 utility through
the TypeScript SDK 1.x client (``client.experimental.tasks``, which finds the tools
to run as tasks from the server's capability and ``execution.taskSupport``) on
stdio and Streamable HTTP, and across two server processes sharing Redis over
plain JSON-RPC; the 2026-07-28 extension through the official Tasks client
(``@modelcontextprotocol/ext-tasks`` over the TypeScript SDK 2.x)."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

import anyio
import httpx

from ..conftest import package_env
from ..mcp_servers import free_port
from ..npm_clients import ext_tasks_modules, typescript_sdk_dir
from ..npm_packages import node
from ..test_mcp_server import http_server
from ..test_serve_edge import read_lines
from ..test_serve_lifecycle import gone_within, leader
from .background_package import WINDOW
from .test_operations_redis import serve

CLIENT = Path(__file__).with_name("tasks_client.mjs")
TASKS: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


def node_client(script: Path, config: dict[str, Any]) -> dict[str, Any]:
    """What the Node.js client ``script``, given ``config``, saw (its JSON report)."""
    done = subprocess.run(
        [node(), str(script), json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def typescript_client(pidfile: Path, **connection: Any) -> dict[str, Any]:
    """What the TypeScript SDK's client saw (see ``tasks_client.mjs``)."""
    config = {"sdk": str(typescript_sdk_dir()), "pidfile": str(pidfile), **connection}
    return node_client(CLIENT, config)


def check_report(report: dict[str, Any]) -> None:
    assert report["capabilities"] == TASKS
    support = report["taskSupport"]
    assert support["slow"] == support["quick"] == "optional"
    assert support["plain"] is support["status"] is support["await"] is None
    # A call run as a task: created, polled while working, its result fetched.
    assert report["done"] == {
        "seen": ["taskCreated", "status:working", "status:completed", "result"],
        "text": "slept\n",
        "error": None,
    }
    created = report["created"]
    assert report["doneMeta"]["taskId"].startswith("op_")
    assert created["taskId"].startswith("op_") and created["status"] == "working"
    assert created["ttl"] == 3_600_000 and created["pollInterval"] == 500
    # Cancelled through tasks/cancel while its command ran.
    assert report["cancel"]["status"] == "cancelled"
    assert report["cancelled"]["error"].endswith("was cancelled")
    assert report["afterCancel"] == "cancelled"
    assert report["listed"] == [
        [report["doneMeta"]["taskId"], "completed"],
        [created["taskId"], "cancelled"],
    ]
    assert report["unknown"] == -32602
    # A call without a task still answers as before.
    assert report["plainCall"] == "quick\n"
    assert gone_within(5, report["pid"])


def test_the_typescript_client_runs_and_cancels_tasks_over_stdio(
    pkg_dir: Path, tmp_path: Path
) -> None:
    env = package_env(pkg_dir, MCIGEN_BACKGROUND_AFTER=WINDOW)
    report = typescript_client(
        tmp_path / "pid",
        command=sys.executable,
        args=["-m", "pkg", "serve"],
        cwd=str(pkg_dir),
        env=env,
    )
    check_report(report)


def test_the_typescript_client_runs_and_cancels_tasks_over_http(
    pkg_dir: Path, tmp_path: Path
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    with http_server(pkg_dir, argv, port, MCIGEN_BACKGROUND_AFTER=WINDOW) as url:
        check_report(typescript_client(tmp_path / "pid", url=url))


HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Mcp-Session-Id": "alice",
    "MCP-Protocol-Version": "2025-11-25",
}


def rpc(url: str, method: str, params: dict[str, Any], **headers: str) -> Any:
    """One JSON-RPC request as the session ``alice`` at 2025-11-25: its answer."""
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    answer = httpx.post(url, json=message, headers={**HEADERS, **headers}, timeout=30)
    answer.raise_for_status()
    return answer.json()


def test_tasks_are_shared_by_servers_sharing_redis(
    pkg_dir: Path, tmp_path: Path, redis_url: str
) -> None:
    with ExitStack() as stack:
        first = serve(pkg_dir, free_port(), redis_url, stack)
        second = serve(pkg_dir, free_port(), redis_url, stack)
        pidfile = tmp_path / "pid"
        arguments = {"pidfile": str(pidfile), "seconds": "60"}
        call = {"name": "slow", "arguments": arguments, "task": {"ttl": 1000}}
        created = rpc(first, "tools/call", call)["result"]["task"]
        task_id = created["taskId"]
        group = leader(pidfile)

        got = rpc(second, "tasks/get", {"taskId": task_id})["result"]
        assert (got["taskId"], got["status"]) == (task_id, "working")
        listed = rpc(second, "tasks/list", {})["result"]["tasks"]
        assert [t["taskId"] for t in listed] == [task_id]
        # Another session's id reads as an unknown one.
        other = rpc(
            second, "tasks/get", {"taskId": task_id}, **{"Mcp-Session-Id": "bob"}
        )
        assert other["error"]["code"] == -32602

        cancelled = rpc(second, "tasks/cancel", {"taskId": task_id})["result"]
        assert cancelled["status"] == "cancelled"
        assert gone_within(5, group)
        result = rpc(first, "tasks/result", {"taskId": task_id})["result"]
        assert result["isError"] is True
        assert result["_meta"]["io.modelcontextprotocol/related-task"] == {
            "taskId": task_id
        }
        again = rpc(first, "tasks/cancel", {"taskId": task_id})
        assert again["error"]["code"] == -32602


def test_tasks_only_at_the_version_that_has_them(pkg_dir: Path) -> None:
    """Before 2025-11-25 there are no Tasks: ``tasks/*`` is unknown and a
    ``task`` in ``tools/call`` params is ignored (the call answers as before).
    At 2025-11-25, a call that cannot be a task is refused as the spec says."""
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    with http_server(pkg_dir, argv, port, MCIGEN_BACKGROUND_AFTER=WINDOW) as url:
        for version in ("2025-06-18", "2025-11-25"):
            at = {"MCP-Protocol-Version": version}
            init = {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            }
            capabilities = rpc(url, "initialize", init, **at)["result"]["capabilities"]
            call = {"name": "quick", "arguments": {}, "task": {}}
            called = rpc(url, "tools/call", call, **at)
            listed = rpc(url, "tasks/list", {}, **at)
            if version == "2025-11-25":
                assert capabilities["tasks"] == TASKS
                assert called["result"]["task"]["status"] == "working"
                assert "tasks" in listed["result"]
                refused = {
                    "plain": (-32601, "Tool plain does not support task-augmented"),
                    "status": (-32601, "Tool status does not support task-augmented"),
                    "nosuch": (-32602, "Unknown tool: nosuch"),
                    "slow": (-32602, "invalid input for tool 'slow': pidfile: Field"),
                }
                for name, (code, message) in refused.items():
                    call = {"name": name, "arguments": {}, "task": {}}
                    error = rpc(url, "tools/call", call, **at)["error"]
                    assert error["code"] == code
                    assert error["message"].startswith(message)
            else:
                assert "tasks" not in capabilities
                assert called["result"]["content"][0]["text"] == "quick\n"
                assert listed["error"]["code"] == -32601


EXT_TASKS_CLIENT = Path(__file__).with_name("ext_tasks_client.mjs")


def test_the_official_tasks_client_runs_and_cancels_2026_tasks(
    pkg_dir: Path, tmp_path: Path
) -> None:
    """At 2026-07-28 the official Tasks client (ext-tasks, over the TypeScript
    SDK 2.x) declares the extension: a background call that ends within the
    window answers its result at once, as it would without the extension; one
    still running then answers a task, which the client cancels, stopping the
    command. A client that does not declare the extension (the Python SDK's) gets
    the call's result as before, and a raw call's answer is the same bytes with
    the extension and without."""
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    pidfile = tmp_path / "pid"
    # A window that a call of ``sleep 0`` ends within even on a loaded machine.
    with http_server(pkg_dir, argv, port, MCIGEN_BACKGROUND_AFTER="2") as url:
        config = {
            "modules": str(ext_tasks_modules()),
            "url": url,
            "pidfile": str(pidfile),
        }
        report = node_client(EXT_TASKS_CLIENT, config)
        assert report["era"] == "modern"
        assert report["extensions"] == {"io.modelcontextprotocol/tasks": {}}
        assert (report["doneKind"], report["runningKind"]) == ("immediate", "task")
        assert (report["doneStatus"], report["doneText"]) == ("completed", "slept\n")
        assert report["cancelledStatus"] == "cancelled"
        assert gone_within(5, report["pid"])
        assert anyio.run(call_without_the_extension, url) == "quick\n"
        declared, undeclared = (
            raw_modern_call(url, "quick", ext) for ext in (True, False)
        )
        assert '"resultType":"complete"' in declared and "quick\\n" in declared
        assert declared == undeclared


def modern_meta(extension: bool) -> dict[str, Any]:
    """A 2026-07-28 request's ``_meta``, from a client that declares the Tasks
    extension or not."""
    extensions: dict[str, Any] = (
        {"io.modelcontextprotocol/tasks": {}} if extension else {}
    )
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions},
    }


def raw_modern_call(url: str, tool: str, extension: bool) -> str:
    """The JSON-RPC answer's text to a 2026-07-28 ``tools/call`` of ``tool``,
    whose client declares the Tasks extension or not."""
    params = {"name": tool, "arguments": {}, "_meta": modern_meta(extension)}
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
    }
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    return httpx.post(url, json=request, headers=headers, timeout=30).text


async def call_without_the_extension(url: str) -> str:
    """The text of ``quick`` called at 2026-07-28 by the Python SDK's client,
    which declares no extension."""
    import httpx2
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as plain,
    ):
        await plain.discover()
        answer = await plain.call_tool("quick", {})
        assert isinstance(answer, types.CallToolResult)
        block = answer.content[0]
        assert isinstance(block, types.TextContent)
        return block.text


def test_a_2026_call_cancelled_in_its_window_is_logged_as_the_cancel_is_read(
    pkg_dir: Path, tmp_path: Path
) -> None:
    """Over stdio, a 2026-07-28 client that declares the extension calls ``slow``
    and cancels it while the server waits out the window (the tool has started
    its operation: the call's line is held for its answer): the operation is
    stopped, no answer is written, and the call's line says ``cancelled`` then,
    not once the client closes stdin (``unsent``)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "pkg", "serve"],
        cwd=pkg_dir,
        env=package_env(pkg_dir, MCIGEN_BACKGROUND_AFTER="600"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin and server.stderr
    pidfile = tmp_path / "pid"
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": "slow",
            "arguments": {"pidfile": str(pidfile), "seconds": "600"},
            "_meta": modern_meta(True),
        },
    }
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 7, "_meta": modern_meta(True)},
    }
    try:
        server.stdin.write(json.dumps(call).encode() + b"\n")
        server.stdin.flush()
        command = leader(pidfile)
        server.stdin.write(json.dumps(cancel).encode() + b"\n")
        server.stdin.flush()
        logged = first_line_with(server.stderr, b" tool call ", timeout=60)
        assert gone_within(60, command)
    finally:
        server.kill()
        server.stdin.close()
    assert b" tool=slow outcome=cancelled " in logged, logged


def first_line_with(stream: IO[bytes], needle: bytes, timeout: float) -> bytes:
    """The first line of ``stream`` holding ``needle``; fails after ``timeout``
    seconds without a line (the server writes each of its log lines whole)."""
    while True:
        for line in read_lines(stream, 1, timeout):
            if needle in line:
                return line
