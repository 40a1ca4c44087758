"""A package with a text tool and two real MCP servers (the SDK's, over stdio), and
``python -m PKG broker`` run as a real process on a free port."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from ..conftest import built_package, package_env, text_tool, write_schema
from ..mcp_servers import BOUNDS_SERVER, TOY_SERVER, end_session, free_port, listening

RUN_ENV = {"TOY_TOKEN": "token-at-run-time", "GHOST_PYTHON": sys.executable}
"""What the servers' settings read: the toy server's TOY_TOKEN, and the program
that runs the ghost server (one that does not exist makes the server broken)."""

SCHEMA: dict[str, Any] = {
    "schemaVersion": "1.0",
    "metadata": {"name": "demo", "description": "Tools to try the broker's HTTP API."},
    "tools": [
        text_tool(
            "hello",
            "Hello {{props.who}}!",
            description="Say hello.",
            inputSchema={
                "type": "object",
                "properties": {"who": {"type": "string"}},
                "required": ["who"],
            },
        )
    ],
    "mcp_servers": {
        "toy": {
            "command": sys.executable,
            "args": [str(TOY_SERVER), "stdio"],
            "env": {"TOY_TOKEN": "{{env.TOY_TOKEN}}"},
        },
        "ghost": {
            "command": "{{env.GHOST_PYTHON}}",
            "args": [str(BOUNDS_SERVER), "stdio"],
            "config": {"filter": "only", "filterValue": "quick, hang"},
        },
    },
}


@pytest.fixture(scope="session")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("broker-http")
    schema = write_schema(directory, SCHEMA, "demo.mci.json")
    saved = {name: os.environ.get(name) for name in RUN_ENV}
    os.environ.update(RUN_ENV)
    try:
        with built_package(schema, directory / "demopkg") as built:
            yield built
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def broker_env(package: ModuleType, **changes: str | None) -> dict[str, str]:
    """:func:`package_env` of ``package`` with :data:`RUN_ENV`; ``changes`` set
    (None: unset)."""
    return package_env(
        Path(str(package.__file__)).parent.parent, **{**RUN_ENV, **changes}
    )


@contextmanager
def package_process(
    package: ModuleType, argv: list[str], port: int, log: Path | None, **env: str | None
) -> Iterator[subprocess.Popen[bytes]]:
    """``argv`` (a server of ``package``) until the block ends, once it listens on
    ``port``; its stderr appended to ``log`` (else kept by ``listening``: told if
    it fails to start). SIGTERM stops it as the block ends, so that ``log`` is
    whole."""
    with ExitStack() as stack:
        logged: dict[str, Any] = {}
        if log is not None:
            logged["stderr"] = stack.enter_context(log.open("ab"))
        with listening(
            argv,
            port,
            timeout=60,
            cwd=Path(str(package.__file__)).parent.parent,
            env=broker_env(package, **env),
            **logged,
        ) as process:
            yield process


@contextmanager
def package_server(
    package: ModuleType,
    argv: list[str],
    port: int,
    log: Path | None = None,
    **env: str | None,
) -> Iterator[str]:
    """:func:`package_process`; yields its base URL."""
    with package_process(package, argv, port, log, **env):
        yield f"http://127.0.0.1:{port}"


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def post(
        self, endpoint: str, body: Any = None, secret: str | None = None, **kw: Any
    ) -> httpx.Response:
        headers = {"authorization": f"Bearer {secret}"} if secret else {}
        return httpx.post(
            f"{self.url}/{endpoint}", json=body, headers=headers, timeout=60, **kw
        )

    def stop(self) -> str:
        """Terminate the server; its log."""
        end_session(self.process)
        return self.log.read_text()


@contextmanager
def serving(
    package: ModuleType, tmp_path: Path, *args: str, **env: str | None
) -> Iterator[Server]:
    """A broker of ``package`` listening on a free port of 127.0.0.1."""
    port = free_port()
    log = tmp_path / f"broker-{port}.log"
    argv = [sys.executable, "-m", package.__name__, "broker", f"127.0.0.1:{port}"]
    with package_process(package, [*argv, *args], port, log, **env) as process:
        yield Server(process, f"http://127.0.0.1:{port}", log)
