"""Listing an MCP server's tools to build a package starts the server and stops it
again once listed: an in-process build (``build --watch``, a first ``MCIClient``,
the tests' own) left it running for the life of the process."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .conftest import run_mcigen, write_schema
from .mcp_servers import LISTED_SERVER


def running_with(word: str) -> list[int]:
    """The processes alive (not zombies) with ``word`` in their command line."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if word.encode() in cmdline.read().split(b"\0"):
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def test_a_build_stops_the_server_it_listed(tmp_path: Path) -> None:
    tools = tmp_path / "listed.json"
    act = {"name": "act", "inputSchema": {"type": "object", "properties": {}}}
    tools.write_text(json.dumps([act]), encoding="utf-8")
    server = {"command": sys.executable, "args": [str(LISTED_SERVER), str(tools)]}
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"listed": server}}
    schema = write_schema(tmp_path, document, "main.mci.json")
    built = run_mcigen("build", schema, "-o", tmp_path / "pkg")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "pkg" / "manifest.json").is_file()
    assert running_with(str(tools)) == []
