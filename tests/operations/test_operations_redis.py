"""Operations shared through Redis (issue 31, item 3): a real ``redis-server``,
uvicorn with two workers and ``serve --http`` processes sharing it. Ids are unique
across processes; ``status``, ``await`` and ``cancel`` work from any of them; a
process killed while it runs an operation leaves it failed, not lost or re-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..conftest import package_env
from ..mcp_servers import free_port, listening
from ..test_mcp_server import http_server
from ..test_serve_lifecycle import gone_within, group_alive, leader
from .background_package import WINDOW

ACCEPT = {"Accept": "application/json, text/event-stream"}


def call(url: str, session: str, tool: str, **arguments: Any) -> list[str]:
    """``tools/call`` of ``tool`` as the session ``session``: the texts answered."""
    answer = httpx.post(
        url,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        },
        headers={**ACCEPT, "Mcp-Session-Id": session},
        timeout=30,
    )
    answer.raise_for_status()
    return [item["text"] for item in answer.json()["result"]["content"]]


def started(texts: list[str]) -> str:
    assert texts[0].startswith("AHMA ID: op_"), texts
    return texts[0].split()[2]


def records(texts: list[str]) -> list[dict[str, Any]]:
    return [json.loads(t) for t in texts[1:] if t.startswith("{")]


def serve(pkg_dir: Path, port: int, redis_url: str, stack: ExitStack) -> str:
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    return stack.enter_context(
        http_server(
            pkg_dir,
            argv,
            port,
            MCIGEN_BACKGROUND_AFTER=WINDOW,
            MCIGEN_OPERATIONS_URL=redis_url,
        )
    )


def server(
    pkg_dir: Path, redis_url: str, port: int
) -> AbstractContextManager[subprocess.Popen[bytes]]:
    """``serve --http`` on ``port``, whose operations are shared at ``redis_url``."""
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    env = package_env(
        pkg_dir, MCIGEN_BACKGROUND_AFTER=WINDOW, MCIGEN_OPERATIONS_URL=redis_url
    )
    return listening(argv, port, cwd=pkg_dir, env=env)


def uvicorn_workers(port: int) -> list[str]:
    command = [sys.executable, "-m", "uvicorn", "pkg.server:app", "--workers", "2"]
    return [*command, "--port", str(port), "--log-level", "warning"]


def serve_workers(port: int) -> list[str]:
    command = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    return [*command, "--workers", "2"]


@pytest.mark.parametrize(
    "several", [uvicorn_workers, serve_workers], ids=["uvicorn", "serve"]
)
def test_two_workers_and_two_servers_share_status_await_and_cancel(
    pkg_dir: Path,
    tmp_path: Path,
    redis_url: str,
    several: Callable[[int], list[str]],
) -> None:
    workers_port, serve_port = free_port(), free_port()
    with ExitStack() as stack:
        workers = stack.enter_context(
            http_server(
                pkg_dir,
                several(workers_port),
                workers_port,
                MCIGEN_BACKGROUND_AFTER=WINDOW,
                MCIGEN_OPERATIONS_URL=redis_url,
            )
        )
        other = serve(pkg_dir, serve_port, redis_url, stack)
        servers = [workers, other]

        # Each request lands on any worker: every one knows every operation.
        ids = [
            started(
                call(
                    workers,
                    "alice",
                    "slow",
                    pidfile=str(tmp_path / f"p{n}"),
                    seconds="30",
                )
            )
            for n in range(4)
        ]
        assert len(set(ids)) == 4
        for n in range(12):
            texts = call(servers[n % 2], "alice", "status", id=ids[n % 4])
            assert texts[0] == f"Operation '{ids[n % 4]}' found", texts
            assert [r["state"] for r in records(texts)] == ["InProgress"]
        listed = call(other, "alice", "status")
        assert listed[0] == "Operations status: 4 active, 0 completed (total: 4)"
        # Another session sees none of them.
        assert call(other, "mallory", "status", id=ids[0])[0].endswith("not found")

        # cancel, from the other server, stops the command wherever it runs.
        groups = [leader(tmp_path / f"p{n}") for n in range(4)]
        for op_id, group in zip(ids, groups, strict=True):
            cancelled = call(servers[ids.index(op_id) % 2], "alice", "cancel", id=op_id)
            assert cancelled[0].startswith(f"OK Operation '{op_id}' has been cancelled")
            assert gone_within(5, group)
        states = records(call(workers, "alice", "status"))
        assert [s["state"] for s in states] == ["Cancelled"] * 4

        # await, from the other server, answers the operation's own output (it
        # runs long enough past the 0.5 s that the start took to still be running
        # on a loaded machine: 1 s was not, once in 25 runs).
        op_id = started(
            call(workers, "bob", "slow", pidfile=str(tmp_path / "q"), seconds="4")
        )
        awaited = call(other, "bob", "await", id=op_id)
        assert awaited[0].startswith("Completed 1 operations in ")
        [done] = records(awaited)
        assert (done["id"], done["state"]) == (op_id, "Completed")
        assert done["result"]["stdout"] == "slept\n"


def server_running(group: int, servers: list[subprocess.Popen[bytes]]) -> int:
    """Which of ``servers`` (its index) is the parent of the command ``group``."""
    pids = {server.pid: n for n, server in enumerate(servers)}
    pid = group
    while pid > 1:
        if pid in pids:
            return pids[pid]
        with open(f"/proc/{pid}/stat") as stat:
            pid = int(stat.read().rsplit(")", 1)[1].split()[1])
    raise AssertionError(f"no server runs {group}")


def test_a_killed_server_leaves_its_operations_failed_not_lost_or_rerun(
    pkg_dir: Path, tmp_path: Path, redis_url: str
) -> None:
    ports = [free_port(), free_port()]
    with ExitStack() as stack:
        servers = [
            stack.enter_context(server(pkg_dir, redis_url, port)) for port in ports
        ]
        urls = [f"http://127.0.0.1:{port}/mcp" for port in ports]
        pidfile = tmp_path / "pid"
        op_id = started(
            call(urls[0], "alice", "slow", pidfile=str(pidfile), seconds="30")
        )
        group = leader(pidfile)
        victim = server_running(group, servers)
        servers[victim].send_signal(signal.SIGKILL)
        servers[victim].wait()
        survivor = urls[1 - victim]

        deadline = time.monotonic() + 30
        while True:
            [state] = records(call(survivor, "alice", "status", id=op_id))
            if state["state"] != "InProgress" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert state["state"] == "Failed", state
        assert "the server process that ran it stopped" in state["result"]
        # Nothing ran it again.
        assert pidfile.read_text().strip() == str(group)
        assert not group_alive(group) or gone_within(5, group)
        awaited = call(survivor, "alice", "await", id=op_id)
        assert awaited[0] == f"Operation {op_id} already completed"


@pytest.mark.parametrize("shared", [False, True])
def test_saq_and_redis_are_not_imported_until_shared_operations_run(
    pkg_dir: Path, shared: bool
) -> None:
    probe = (
        "import json, sys\n"
        "from mcigen_runtime.edge.settings import ServeOptions\n"
        "from mcigen_runtime.serve.server import ToolSurface\n"
        "surface = ToolSurface('pkg', ServeOptions())\n"
        "print(json.dumps([type(surface.operations).__name__, sorted(\n"
        "    {m.split('.')[0] for m in sys.modules} & {'saq', 'redis'})]))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCIGEN_")}
    env["PYTHONPATH"] = str(pkg_dir)
    if shared:  # nothing connects, or imports saq, before the server runs
        env["MCIGEN_OPERATIONS_URL"] = "redis://127.0.0.1:9/0"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=pkg_dir,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    kind = "SharedOperations" if shared else "Operations"
    assert json.loads(done.stdout) == [kind, []]
