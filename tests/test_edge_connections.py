"""Connections whose request head never ends cannot starve an HTTP server of the
package (issue 29): ``serve --http``, ``broker`` and the ASGI app under uvicorn
with the documented ``--http`` protocol, each run with a small descriptor limit so
that the slow connections would hold every descriptor it may open."""

from __future__ import annotations

import select
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from mcigen_runtime.edge.connections import limits_from_environment

from .conftest import package_env, run_mcigen, text_tool, write_schema
from .mcp_servers import free_port
from .test_mcp_server import http_server

DESCRIPTORS = 64
"""The servers' descriptor limit (``ulimit -n``): their cap is half of it."""

SLOW = 80
"""Connections that send a request head without its end: more than the cap, and
more than the descriptors."""

HEADER_TIMEOUT = 3.0

GUARDED = "mcigen_runtime.edge.connections:GuardedH11Protocol"
"""The protocol docs/deployment.md gives uvicorn (``--http``)."""

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
JSON = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("connections")
    document = {"schemaVersion": "1.0", "tools": [text_tool("greet", "Hello!")]}
    schema = write_schema(directory, document, "c.mci.json")
    result = run_mcigen("build", schema, "-o", directory / "pkg")
    assert result.returncode == 0, result.stderr
    return directory


def limited(*argv: str) -> list[str]:
    """``argv`` run with at most :data:`DESCRIPTORS` open descriptors."""
    return ["sh", "-c", f'ulimit -n {DESCRIPTORS} && exec "$@"', "sh", *argv]


def serve(port: int) -> tuple[list[str], str, object]:
    argv = limited(sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}")
    return argv, "/mcp", PING


def broker(port: int) -> tuple[list[str], str, object]:
    argv = limited(sys.executable, "-m", "pkg", "broker", f"127.0.0.1:{port}")
    return argv, "/meta_tree", {}


def asgi(port: int) -> tuple[list[str], str, object]:
    argv = limited(
        sys.executable,
        "-m",
        "uvicorn",
        "pkg.server:app",
        "--port",
        str(port),
        "--http",
        GUARDED,
        "--backlog",
        str(DESCRIPTORS // 2 // 4),  # docs/deployment.md's rule: a quarter of the cap
    )
    return argv, "/mcp", PING


def test_the_limits_from_the_environment() -> None:
    default = limits_from_environment({}, None)
    assert (default.header_timeout_s, default.max_connections) == (10.0, 512)
    small = limits_from_environment(
        {"MCIGEN_HEADER_TIMEOUT": "2.5", "MCIGEN_MAX_CONNECTIONS": "900"}, 1024
    )
    assert (small.header_timeout_s, small.max_connections, small.backlog) == (
        2.5,
        512,
        128,
    )
    for name, text in (
        ("MCIGEN_HEADER_TIMEOUT", "0"),
        ("MCIGEN_HEADER_TIMEOUT", "nan"),
        ("MCIGEN_MAX_CONNECTIONS", "many"),
        ("MCIGEN_MAX_CONNECTIONS", "-1"),
    ):
        with pytest.raises(ValueError, match=f"{name} must be a positive number"):
            limits_from_environment({name: text}, None)


def test_a_bad_limit_stops_serve_at_start(pkg_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pkg", "serve", "--http", f":{free_port()}"],
        cwd=pkg_dir,
        env=package_env(pkg_dir, MCIGEN_MAX_CONNECTIONS="0"),
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "error: MCIGEN_MAX_CONNECTIONS must be a positive number" in done.stderr


SLOW_HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1"
"""A request head without its end."""
SLOW_BODY = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json\r\nContent-Length: 100000\r\n\r\n{"
)
"""A whole head, and a body's first byte of 100,000."""


def open_slow_connections(port: int, start: bytes) -> list[socket.socket]:
    sockets = []
    for _ in range(SLOW):
        connection = socket.create_connection(("127.0.0.1", port), timeout=5)
        connection.sendall(start)
        sockets.append(connection)
    return sockets


def closed(connection: socket.socket) -> bool:
    """Whether the server has closed ``connection`` (without waiting)."""
    readable, _, _ = select.select([connection], [], [], 0)
    if not readable:
        return False
    try:
        return connection.recv(4096) == b""
    except OSError:
        return True


def closed_within(seconds: float, sockets: list[socket.socket]) -> list[socket.socket]:
    """The sockets still open after ``seconds``, each sent a byte now and then
    meanwhile (a trickle must not keep a connection)."""
    deadline = time.monotonic() + seconds
    open_ = list(sockets)
    while open_ and time.monotonic() < deadline:
        open_ = [connection for connection in open_ if not closed(connection)]
        for connection in open_:
            try:
                connection.send(b"1")
            except OSError:
                pass
        time.sleep(0.1)
    return open_


@pytest.mark.parametrize(
    ("server", "start"),
    [(serve, SLOW_HEAD), (broker, SLOW_HEAD), (asgi, SLOW_HEAD), (serve, SLOW_BODY)],
    ids=["serve", "broker", "asgi", "serve-slow-body"],
)
def test_slow_requests_cannot_lock_clients_out(
    pkg_dir: Path, server: Callable[[int], tuple[list[str], str, object]], start: bytes
) -> None:
    """Connections whose request heads, or bodies, trickle in for ever."""
    port = free_port()
    argv, path, body = server(port)
    environment = {"MCIGEN_HEADER_TIMEOUT": str(HEADER_TIMEOUT)}
    with http_server(pkg_dir, argv, port, **environment) as mcp_url:
        url = mcp_url.removesuffix("/mcp") + path
        sockets = open_slow_connections(port, start)
        try:
            started = time.monotonic()
            answer = httpx.post(url, json=body, headers=JSON, timeout=HEADER_TIMEOUT)
            assert answer.status_code == 200, answer.text
            assert time.monotonic() - started < HEADER_TIMEOUT
            assert closed_within(HEADER_TIMEOUT + 3, sockets) == []
            # And the server is still there for the next client.
            assert httpx.post(url, json=body, headers=JSON, timeout=5).is_success
        finally:
            for connection in sockets:
                connection.close()


def test_answers_under_uvicorns_workers_are_not_held_back(pkg_dir: Path) -> None:
    """Under ``uvicorn --workers`` with the documented protocol, requests on one
    kept-alive connection are answered without Nagle's ~40 ms wait for an ACK
    (uvicorn's workers listen on a socket asyncio does not know is TCP)."""
    port = free_port()
    argv = [sys.executable, "-m", "uvicorn", "pkg.server:app", "--port", str(port)]
    argv += ["--workers", "2", "--http", GUARDED]
    with http_server(pkg_dir, argv, port) as url, httpx.Client(timeout=30) as client:
        assert client.post(url, json=PING, headers=JSON).is_success  # workers up
        took = []
        for _ in range(20):
            started = time.monotonic()
            assert client.post(url, json=PING, headers=JSON).is_success
            took.append(time.monotonic() - started)
    assert sorted(took)[len(took) // 2] < 0.02, took
