"""``python -m PKG broker --reload``: a changed schema is rebuilt and served; a
broken one leaves the package it was serving."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from ..conftest import imported_package, run_mcigen, schema_of, text_tool, write_schema
from .conftest import Server, serving

PATIENCE = 120.0
"""How long a rebuild may take before the test gives up on it (not a timing
assertion: a slow machine only waits longer)."""


def eventually(check: Callable[[], Any]) -> Any:
    """``check()`` once it returns something true, tolerating a server that is
    restarting in between."""
    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            found = check()
        except httpx.TransportError:
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.2)


def tree_paths(server: Server) -> list[str]:
    children = server.post("meta_tree", {"path": "/"}).json()["children"]
    return [child["path"] for child in children]


def test_reload_serves_the_rebuilt_package_and_keeps_it_when_a_build_fails(
    tmp_path: Path,
) -> None:
    hello = text_tool("hello", "Hello {{props.who}}!")
    schema = write_schema(tmp_path, schema_of(hello), "live.mci.json")
    built = run_mcigen("build", schema, "-o", tmp_path / "livepkg")
    assert built.returncode == 0, built.stderr
    with (
        imported_package(tmp_path / "livepkg") as package,
        serving(package, tmp_path, "--reload") as server,
    ):
        assert tree_paths(server) == ["/hello"]
        first_pid = server.process.pid

        write_schema(tmp_path, schema_of(hello, text_tool("bye", "Bye!")), schema.name)
        assert eventually(lambda: tree_paths(server) == ["/bye", "/hello"])
        call = server.post("meta_call", {"path": "/bye"}).json()
        assert call["content"] == [{"type": "text", "text": "Bye!"}]

        schema.write_text('{"schemaVersion": "1.0", "tools": [{"name": 1}]}')
        eventually(lambda: "the rebuild failed" in server.log.read_text())
        assert tree_paths(server) == ["/bye", "/hello"]
        greeting = server.post("meta_call", {"path": "/hello", "args": {"who": "Bo"}})
        assert greeting.json()["content"][0]["text"] == "Hello Bo!"
        assert server.process.pid == first_pid  # the same process, re-executed
        log = server.stop()
    assert "live.mci.json:1:" in log  # the failed build's diagnostics, located
