"""MCP's own Tasks over the background operations: the 2025-11-25 utility through
the TypeScript SDK's client (``client.experimental.tasks``, which finds the tools
to run as tasks from the server's capability and ``execution.taskSupport``) on
stdio and Streamable HTTP, and across two server processes sharing Redis over
plain JSON-RPC; the 2026-07-28 extension through the Python SDK's client (its
``ResultClaim`` for ``resultType: "task"``, and ``tasks/get`` and
``tasks/cancel`` sent with its ``send_request``)."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

from ..mcp_servers import free_port
from ..npm_clients import typescript_sdk_dir
from ..npm_packages import node
from ..test_mcp_server import http_server, server_env
from ..test_serve_lifecycle import gone_within, leader
from .background_package import WINDOW
from .test_operations_redis import serve

CLIENT = Path(__file__).with_name("tasks_client.mjs")
TASKS = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


def typescript_client(pidfile: Path, **connection: Any) -> dict[str, Any]:
    """What the TypeScript SDK's client saw (see ``tasks_client.mjs``)."""
    config = {"sdk": str(typescript_sdk_dir()), "pidfile": str(pidfile), **connection}
    done = subprocess.run(
        [node(), str(CLIENT), json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


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
    env = server_env(pkg_dir, MCIGEN_BACKGROUND_AFTER=WINDOW)
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


EXTENSION = "io.modelcontextprotocol/tasks"


def test_the_2026_tasks_extension_with_the_python_sdk_client(
    pkg_dir: Path, tmp_path: Path
) -> None:
    """At 2026-07-28 (no handshake, no session), a client that declares the
    extension in its per-request capabilities gets a task for a background call
    (the SDK client's ``ResultClaim`` reads it) and polls ``tasks/get``, whose
    answer carries the result; ``tasks/cancel`` stops the command. A client
    without the extension gets the call's result as before."""
    from typing import Literal

    import anyio
    import httpx2
    import mcp_types as types
    from mcp.client.extension import ClaimContext, ResultClaim
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from pydantic import ConfigDict

    class Task(types.Result):
        model_config = ConfigDict(extra="allow")
        task_id: str
        status: str
        ttl_ms: int | None
        poll_interval_ms: int | None = None
        result: dict[str, Any] | None = None

    class CreatedTask(Task):
        result_type: Literal["task"] = "task"

    async def unresolved(task: CreatedTask, ctx: ClaimContext) -> Any:
        raise AssertionError("the test reads the task itself")

    claim = ResultClaim(result_type="task", model=CreatedTask, resolve=unresolved)
    claims = {EXTENSION: [claim]}

    async def get(client: ClientSession, task_id: str) -> Task:
        params = types.GetTaskRequestParams(task_id=task_id)
        return await client.send_request(types.GetTaskRequest(params=params), Task)

    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    with http_server(pkg_dir, argv, port, MCIGEN_BACKGROUND_AFTER=WINDOW) as url:

        async def scenario() -> int:
            async with (
                httpx2.AsyncClient() as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(
                    read, write, extensions={EXTENSION: {}}, result_claims=claims
                ) as client,
            ):
                discovered = await client.discover()
                assert discovered.capabilities.extensions == {EXTENSION: {}}
                done = tmp_path / "done"
                created = await client.call_tool(
                    "slow", {"pidfile": str(done), "seconds": "0.2"}, allow_claimed=True
                )
                assert isinstance(created, CreatedTask)
                assert created.status == "working" and created.ttl_ms == 3_600_000
                task = await get(client, created.task_id)
                while task.status == "working":
                    await anyio.sleep(0.1)
                    task = await get(client, created.task_id)
                assert task.status == "completed"
                assert task.result is not None
                assert task.result["content"] == [{"type": "text", "text": "slept\n"}]

                pidfile = tmp_path / "pid"
                arguments = {"pidfile": str(pidfile), "seconds": "60"}
                created = await client.call_tool("slow", arguments, allow_claimed=True)
                assert isinstance(created, CreatedTask)
                group = await anyio.to_thread.run_sync(leader, pidfile)
                params = types.CancelTaskRequestParams(task_id=created.task_id)
                cancel = types.CancelTaskRequest(params=params)
                await client.send_request(cancel, types.EmptyResult)
                assert (await get(client, created.task_id)).status == "cancelled"

            async with (
                httpx2.AsyncClient() as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(read, write) as plain,
            ):
                await plain.discover()
                answer = await plain.call_tool("quick", {})
                assert isinstance(answer, types.CallToolResult)
                assert answer.content[0].text == "quick\n"  # type: ignore[union-attr]
            return group

        group = anyio.run(scenario)
        assert gone_within(5, group)
