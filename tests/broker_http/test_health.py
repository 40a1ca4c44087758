"""``/healthz`` and ``/readyz`` of every HTTP server of a package, against real
processes: ``serve --http``, the ASGI app under uvicorn and ``broker``, the package
calling two real MCP servers (``toy``, and ``ghost``, broken when its program does
not exist)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from ..mcp_servers import free_port
from .conftest import package_server, serving

BROKEN = {"GHOST_PYTHON": "/nonexistent/python"}


def settled(base: str, **headers: str) -> httpx.Response:
    """``/readyz`` once no upstream server is still starting."""
    deadline = time.monotonic() + 60
    while True:
        answer = httpx.get(f"{base}/readyz", headers=headers, timeout=10)
        states = answer.json()["upstream"].values()
        if "starting" not in states or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def serve_http(package: ModuleType, port: int, *args: str) -> list[str]:
    return [sys.executable, "-m", package.__name__, "serve", "--http", str(port), *args]


def test_serve_http_is_live_and_ready_once_its_mcp_servers_started(
    package: ModuleType,
) -> None:
    port = free_port()
    with package_server(package, serve_http(package, port), port) as base:
        live = httpx.get(f"{base}/healthz", timeout=10)
        assert (live.status_code, live.json()) == (200, {"status": "ok"})
        ready = settled(base)
        assert ready.status_code == 200
        assert ready.json() == {
            "status": "ready",
            "upstream": {"ghost": "ready", "toy": "ready"},
        }
        assert ready.headers["cache-control"] == "no-store"
        assert httpx.head(f"{base}/readyz", timeout=10).status_code == 200
        refused = httpx.post(f"{base}/healthz", timeout=10)
        assert refused.status_code == 405
        assert refused.headers["allow"] == "GET, HEAD"


def test_readiness_names_an_mcp_server_that_failed_to_start(
    package: ModuleType,
) -> None:
    port = free_port()
    with package_server(
        package, serve_http(package, port), port, None, **BROKEN
    ) as base:
        ready = settled(base)
        assert ready.status_code == 503
        assert ready.json() == {
            "status": "not_ready",
            "upstream": {"ghost": "failed", "toy": "ready"},
        }
        assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200


def test_health_needs_no_secret_but_the_origin_guard_holds(
    package: ModuleType,
) -> None:
    port = free_port()
    argv = serve_http(package, port, "--only", "hello")
    with package_server(package, argv, port, MCIGEN_SECRET="s3cret") as base:
        assert httpx.post(f"{base}/mcp", json={}, timeout=10).status_code == 401
        ready = settled(base)
        assert (ready.status_code, ready.json()["upstream"]) == (200, {})
        foreign = {"Origin": "http://evil.example"}
        assert httpx.get(f"{base}/healthz", headers=foreign).status_code == 403


def test_the_asgi_app_under_uvicorn_answers_health(package: ModuleType) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "uvicorn", f"{package.__name__}.server:app"]
    argv += ["--port", str(port), "--log-level", "warning"]
    with package_server(package, argv, port, None, **BROKEN) as base:
        assert httpx.get(f"{base}/healthz", timeout=10).json() == {"status": "ok"}
        ready = settled(base)
        assert ready.status_code == 503
        assert ready.json()["upstream"] == {"ghost": "failed", "toy": "ready"}


def test_the_broker_is_ready_without_the_servers_it_was_told_to_leave_out(
    package: ModuleType, tmp_path: Path
) -> None:
    with serving(
        package, tmp_path, "s3cret", "--ignore-broken-tool", **BROKEN
    ) as server:
        assert server.post("meta_tree", {"path": "/"}).status_code == 401
        live = httpx.get(f"{server.url}/healthz", timeout=10)
        assert (live.status_code, live.json()) == (200, {"status": "ok"})
        ready: Any = settled(server.url)
        assert ready.status_code == 200
        assert ready.json() == {
            "status": "ready",
            "upstream": {"ghost": "left_out", "toy": "ready"},
        }
