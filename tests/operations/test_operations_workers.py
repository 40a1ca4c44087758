"""Operations under several workers (issue 31, item 3): without a shared backend,
a call that would start a background operation is refused with a clear error
(each worker has its own operations, so an id would name different jobs in
different workers); plain calls and synchronous ones still answer."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcigen_runtime.edge.settings import worker_count

from ..mcp_servers import free_port
from ..test_mcp_server import http_server, http_session, run
from .background_package import WINDOW
from .test_operations_mcp import slow, text

REFUSED = "background operations are off: this server runs 2 workers"


def uvicorn(port: int, *argv: str) -> list[str]:
    command = [sys.executable, "-m", "uvicorn", "pkg.server:app", *argv]
    return [*command, "--port", str(port), "--log-level", "warning"]


def serve_workers(port: int, count: str) -> list[str]:
    command = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    return [*command, "--workers", count]


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (lambda port: uvicorn(port, "--workers", "2"), {}),
        (uvicorn, {"WEB_CONCURRENCY": "2"}),
        (lambda port: serve_workers(port, "2"), {}),
    ],
    ids=["--workers", "WEB_CONCURRENCY", "serve --workers"],
)
def test_several_workers_without_a_shared_backend_refuse_background_calls(
    pkg_dir: Path,
    tmp_path: Path,
    argv: Callable[[int], list[str]],
    env: dict[str, str],
) -> None:
    port = free_port()
    with http_server(
        pkg_dir, argv(port), port, MCIGEN_BACKGROUND_AFTER=WINDOW, **env
    ) as url:

        async def scenario() -> None:
            for _ in range(4):  # whichever worker answers
                async with http_session(url, None) as client:
                    refused = await client.call_tool(
                        "slow", slow(tmp_path / "pid", "1")
                    )
                    assert refused.is_error
                    assert text(refused).startswith(REFUSED), text(refused)
                    assert "MCIGEN_OPERATIONS_URL" in text(refused)
                    assert not (tmp_path / "pid").exists()  # nothing ran
                    plain = await client.call_tool("plain", {})
                    assert text(plain) == "plain\n"
                    asked = {
                        **slow(tmp_path / "s", "0"),
                        "execution_mode": "Synchronous",
                    }
                    inline = await client.call_tool("maybe", asked)
                    assert text(inline) == "slept\n"

        run(scenario)


def test_one_worker_is_counted_from_uvicorns_and_gunicorns_options() -> None:
    uvicorn = "/venv/bin/uvicorn"
    assert worker_count([uvicorn, "pkg.server:app"], {}) == 1
    assert worker_count([uvicorn, "pkg.server:app", "--workers", "3"], {}) == 3
    assert worker_count([uvicorn, "pkg.server:app", "--workers=4"], {}) == 4
    assert worker_count([uvicorn, "a:app"], {"WEB_CONCURRENCY": "2"}) == 2
    # The command line wins over the variable, as it does for uvicorn.
    assert (
        worker_count([uvicorn, "a:app", "--workers", "1"], {"WEB_CONCURRENCY": "5"})
        == 1
    )
    assert worker_count(["/venv/bin/gunicorn", "-w", "2", "a:app"], {}) == 2
    assert worker_count(["/venv/bin/gunicorn", "-w3", "a:app"], {}) == 3
    assert worker_count(["python", "-m", "pkg", "serve", "-w", "2"], {}) == 1
    assert (
        worker_count([uvicorn, "a:app", "--workers", "x"], {"WEB_CONCURRENCY": "?"})
        == 1
    )
