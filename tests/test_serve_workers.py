"""``serve --http ADDR --workers N`` (issue 33): N worker processes, each binding
ADDR with ``SO_REUSEPORT`` in a session of its own, supervised by the process
started. Real servers on 127.0.0.1, real SDK clients, real commands."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import package_env, run_mcigen, schema_of, text_tool, write_schema
from .mcp_servers import free_port
from .test_mcp_server import run
from .test_serve_lifecycle import SLEEP, call_request, gone_within, leader, sleeper
from .test_serve_orphans import _may_make_cgroup

TOOLS = [
    text_tool(
        "greet",
        "Hello, {{props.name}}!",
        inputSchema={
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    ),
    sleeper("sleep", SLEEP),
    {
        "name": "role",
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": ["-c", 'echo "${MCIGEN_HTTP_WORKER-none}"'],
        },
    },
]

PATIENCE = 60
"""Seconds a worker may take to start on a loaded machine."""


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("workers")
    schema = write_schema(directory, schema_of(*TOOLS), "workers.mci.json")
    result = run_mcigen("build", schema, "-o", directory / "wpkg")
    assert result.returncode == 0, result.stderr
    return directory


class Supervised:
    """``python -m wpkg serve --http 127.0.0.1:PORT --workers N ARGS``, its
    stderr read as it comes."""

    def __init__(self, pkg_dir: Path, workers: int, *args: str, port: int = 0):
        self.port = port or free_port()
        self.address = f"127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "wpkg", "serve", "--http", self.address]
        self.process = subprocess.Popen(
            [*command, "--workers", str(workers), *args],
            cwd=pkg_dir,
            env=package_env(pkg_dir),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self._heard = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._heard:
                self.lines.append(line.decode(errors="replace"))
                self._heard.notify_all()
        with self._heard:
            self.lines.append("")  # the end
            self._heard.notify_all()

    def heard(self, pattern: str, times: int = 1) -> list[re.Match[str]]:
        """The first ``times`` lines of stderr that match ``pattern``, once said."""

        def found() -> list[re.Match[str]]:
            matches = (re.search(pattern, line) for line in self.lines)
            return [match for match in matches if match]

        with self._heard:
            said = self._heard.wait_for(
                lambda: len(found()) >= times or self.lines[-1:] == [""], PATIENCE
            )
            assert said and len(found()) >= times, self.said()
            return found()[:times]

    def said(self) -> str:
        """All it wrote to stderr so far, for a failure's message."""
        with self._heard:
            return "".join(self.lines)

    def workers(self) -> list[int]:
        """The workers' pids, once every one serves."""
        (match,) = self.heard(r"serving with \d+ workers \(pids ([\d, ]+)\)")
        return [int(pid) for pid in match.group(1).split(", ")]

    def close(self) -> None:
        for pid in self.workers_alive():
            os.kill(pid, signal.SIGKILL)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def workers_alive(self) -> list[int]:
        return [pid for pid in _children(self.process.pid) if _serves(pid)]


@contextmanager
def supervised(pkg_dir: Path, workers: int, *args: str) -> Iterator[Supervised]:
    server = Supervised(pkg_dir, workers, *args)
    try:
        yield server
    finally:
        server.close()


def _children(pid: int) -> list[int]:
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        return [
            int(child)
            for task in tasks
            for child in (task / "children").read_text().split()
        ]
    except OSError:
        return []


def _serves(pid: int) -> bool:
    """Whether ``pid`` is a ``serve`` process (not a warden, not a command)."""
    try:
        return b"serve\0--http" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()
    except OSError:
        return False
    return state[0] not in (b"Z", b"X")


def ended_within(seconds: float, *pids: int) -> bool:
    deadline = time.monotonic() + seconds
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not any(map(alive, pids))


def held(pid: int, port: int) -> int:
    """How many connections to ``port`` (established) the process ``pid`` holds."""
    inodes = set()
    with open("/proc/net/tcp", encoding="ascii") as table:
        for line in list(table)[1:]:
            fields = line.split()
            if fields[1].endswith(f":{port:04X}") and fields[3] == "01":
                inodes.add(f"socket:[{fields[9]}]")
    links = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            links.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return sum(link in inodes for link in links)


def test_every_worker_takes_connections_of_its_own(pkg_dir: Path) -> None:
    """uvicorn's ``--workers 2`` put all 16 connections on one worker most of
    the time (benchmarks/README.md); here the kernel spreads them (all 16 on one
    of two workers: a chance of 2 in 65,536)."""
    with supervised(pkg_dir, 2) as server:
        workers = server.workers()
        assert len(workers) == 2
        for pid in workers:  # each in a session of its own, under the supervisor
            assert os.getsid(pid) == pid
            assert os.getppid() != pid and _parent(pid) == server.process.pid
        connections = [
            socket.create_connection(("127.0.0.1", server.port)) for _ in range(16)
        ]
        try:
            deadline = time.monotonic() + PATIENCE
            while sum(held(pid, server.port) for pid in workers) < 16:
                accepted = "not every connection accepted"
                assert time.monotonic() < deadline, f"{accepted}; {server.said()}"
                time.sleep(0.02)
            spread = [held(pid, server.port) for pid in workers]
            assert min(spread) > 0, (spread, server.said())
        finally:
            for connection in connections:
                connection.close()


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return int(stat.read().rpartition(b")")[2].split()[1])


def test_an_sdk_session_goes_on_across_connections_and_workers(
    pkg_dir: Path,
) -> None:
    """A real SDK client that opens a new connection for every request (no
    keep-alive): its session goes on whichever worker each request reaches,
    since the transport is stateless (all twelve on one of two workers: a chance
    of 1 in 2,048). The Bearer check holds in every worker."""
    import httpx
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with supervised(pkg_dir, 2, "--secret", "tok") as server:
        server.workers()
        url = f"http://{server.address}/mcp"

        async def session() -> list[str]:
            no_keep_alive = httpx2.Limits(max_keepalive_connections=0)
            async with (
                httpx2.AsyncClient(
                    headers={"Authorization": "Bearer tok"}, limits=no_keep_alive
                ) as client,
                streamable_http_client(url, http_client=client) as (read, write),
                ClientSession(read, write) as mcp,
            ):
                await mcp.initialize()
                listed = await mcp.list_tools()
                assert [t.name for t in listed.tools] == ["greet", "sleep", "role"]
                texts = []
                for n in range(10):
                    result = await mcp.call_tool("greet", {"name": f"n{n}"})
                    texts.append(result.content[0].text)
                # what the worker was told is no command's business
                role = await mcp.call_tool("role", {})
                assert role.content[0].text == "none\n"
                return texts

        assert run(session) == [f"Hello, n{n}!" for n in range(10)]
        for _ in range(4):  # whichever worker takes it
            assert httpx.post(url, json={}, timeout=10).status_code == 401


@dataclass
class Busy:
    """Two workers under their supervisor (``server``), one of them running a
    ``sleep`` command (its process group: ``group``) for a client that waits for
    its answer on ``connection``."""

    server: Supervised
    workers: list[int]
    connection: socket.socket
    group: int


@pytest.fixture
def busy(pkg_dir: Path, tmp_path: Path) -> Iterator[Busy]:
    with supervised(pkg_dir, 2) as server:
        workers = server.workers()
        pidfile = tmp_path / "pid"
        with socket.create_connection(("127.0.0.1", server.port)) as connection:
            connection.sendall(call_request(server.address, "sleep", pidfile))
            yield Busy(server, workers, connection, leader(pidfile))


@pytest.mark.parametrize(
    ("stop", "status"),
    [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, 130)],
    ids=["SIGTERM", "SIGINT"],
)
def test_a_stopped_supervisor_stops_every_worker_and_their_commands(
    busy: Busy, stop: int, status: int
) -> None:
    busy.server.process.send_signal(stop)  # the supervisor alone, as Ctrl-C does
    assert gone_within(10, busy.group)
    assert b"the server is shutting down" in _answer(busy.connection)
    busy.connection.close()
    assert busy.server.process.wait(PATIENCE) == status
    assert ended_within(10, *busy.workers)


def _answer(connection: socket.socket) -> bytes:
    """What the server sent on ``connection`` until it closed it: the headers and
    the body may come in separate reads."""
    connection.settimeout(PATIENCE)
    answer = b""
    while chunk := connection.recv(65536):
        answer += chunk
    return answer


def test_a_killed_supervisor_takes_its_workers_and_their_commands_along(
    busy: Busy,
) -> None:
    busy.server.process.kill()
    assert busy.server.process.wait(PATIENCE) == -signal.SIGKILL
    assert ended_within(PATIENCE, *busy.workers)
    assert gone_within(10, busy.group)


@pytest.mark.skipif(not _may_make_cgroup(), reason="no cgroup v2 may be made here")
def test_a_killed_tree_leaves_no_command(busy: Busy) -> None:
    """SIGKILL to the supervisor and every worker at once: each worker's warden
    empties its cgroup."""
    for pid in (busy.server.process.pid, *busy.workers):
        os.kill(pid, signal.SIGKILL)
    assert gone_within(10, busy.group)


def test_a_worker_that_dies_is_reported_and_replaced(pkg_dir: Path) -> None:
    with supervised(pkg_dir, 2) as server:
        first, second = server.workers()
        os.kill(first, signal.SIGKILL)
        (died,) = server.heard(r"worker (\d) \(pid (\d+)\) was killed by SIGKILL")
        assert int(died.group(2)) == first
        (again,) = server.heard(rf"worker {died.group(1)} \(pid (\d+)\) serves")
        replacement = int(again.group(1))
        assert sorted(server.workers_alive()) == sorted([second, replacement])
        # It serves: connections reach it too (all 16 on the other: 2 in 65,536).
        connections = [
            socket.create_connection(("127.0.0.1", server.port)) for _ in range(16)
        ]
        try:
            deadline = time.monotonic() + PATIENCE
            while held(replacement, server.port) == 0:
                taken = "the new worker takes nothing"
                assert time.monotonic() < deadline, f"{taken}; {server.said()}"
                time.sleep(0.02)
        finally:
            for connection in connections:
                connection.close()
        assert server.process.poll() is None, server.said()


def test_an_address_in_use_is_refused_before_any_worker_starts(
    pkg_dir: Path,
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = Supervised(pkg_dir, 2, port=port)
        try:
            assert server.process.wait(PATIENCE) == 1
            server.heard(rf"error: cannot listen at 127\.0\.0\.1:{port}: ")
            assert not _children(server.process.pid)
        finally:
            server.close()


def test_workers_need_http(pkg_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "wpkg", "serve", "--workers", "2"],
        cwd=pkg_dir,
        env=package_env(pkg_dir),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "--workers needs --http" in result.stderr
