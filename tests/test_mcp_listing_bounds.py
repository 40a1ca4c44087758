"""A hostile MCP server whose ``tools/list`` never ends (each page a new
``nextCursor``; tests/mcp_servers/paging_server.py, written with the SDK): the
listing is bounded in pages and in time, and ``build``, ``check`` and a first
``MCIClient`` end with a diagnostic naming the server instead of listing for ever."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from mcigen_runtime.executors.mcp.calls import LIST_PAGES

from mcigen import MCIClient, MCIClientError

from .broker_config.test_broker_build import write_config
from .conftest import run_mcigen, write_schema
from .mcp_servers import PAGING_SERVER


def test_build_of_a_broker_config_stops_after_so_many_pages(tmp_path: Path) -> None:
    command = f"{sys.executable} {PAGING_SERVER}"
    config = write_config(
        tmp_path, {"tree": [{"path": "/pages", "source": {"command": command}}]}
    )
    result = run_mcigen("build", config, "-o", tmp_path / "pkg")
    assert result.returncode == 1
    assert result.stderr.splitlines()[1] == (
        f"{config}:5:17: error: cannot fetch the tools of MCP server 'pages': MCP "
        f"server 'pages' did not list its tools: it lists more than {LIST_PAGES} "
        "pages, each with a new nextCursor"
    )
    assert not (tmp_path / "pkg").exists()


def test_check_stops_listing_at_the_servers_timeout(tmp_path: Path) -> None:
    """Pages that come slowly, each well within the timeout, but never the last."""
    server = {
        "command": sys.executable,
        "args": [str(PAGING_SERVER), "0.2"],
        "config": {"timeout_ms": 1500},
    }
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"slow": server}}
    schema = write_schema(tmp_path, document, "main.mci.json")
    started = time.monotonic()
    result = run_mcigen("check", schema)
    assert result.returncode == 1
    assert time.monotonic() - started < 30
    assert (
        "error: cannot fetch the tools of MCP server 'slow': MCP server 'slow' did "
        "not list its tools: not every page within 1.5 s" in result.stderr
    )


def test_a_first_mci_client_stops_listing_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(tmp_path / "cache"))
    server = {"command": sys.executable, "args": [str(PAGING_SERVER)]}
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"pages": server}}
    schema = write_schema(tmp_path, document, "main.mci.json")
    with pytest.raises(MCIClientError, match=f"more than {LIST_PAGES} pages"):
        MCIClient(schema_file_path=str(schema))
