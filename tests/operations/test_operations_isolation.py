"""Operations belong to the client that started them (issue 29): over ``serve
--http``, two clients (the SDK's, over Streamable HTTP) never see, await or cancel
each other's operations, and a request without a session sees none listed."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import httpx

from ..mcp_servers import free_port
from ..test_mcp_server import http_server, http_session, run
from ..test_serve_lifecycle import gone_within, leader
from .background_package import WINDOW
from .test_operations_mcp import blocks, operation_id, slow, text

JSON = {"Accept": "application/json, text/event-stream"}


def test_two_http_clients_see_only_their_own_operations(
    pkg_dir: Path, tmp_path: Path
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    with http_server(pkg_dir, argv, port, MCIGEN_BACKGROUND_AFTER=WINDOW) as url:

        async def scenario() -> None:
            async with (
                http_session(url, None) as alice,
                http_session(url, None) as mallory,
            ):
                started = await alice.call_tool("slow", slow(tmp_path / "pid", "30"))
                op_id = operation_id(started)
                group = leader(tmp_path / "pid")  # it runs
                assert re.fullmatch(r"op_[A-Za-z0-9_-]{16}", op_id)

                listed = await mallory.call_tool("status", {})
                assert text(listed).startswith("Operations status: 0 active")
                assert op_id not in text(listed)
                none = await mallory.call_tool("await", {})
                assert text(none) == "No pending operations to await for."

                # Another client's id answers exactly as an unknown id does.
                for tool in ("status", "await", "cancel"):
                    theirs = await mallory.call_tool(tool, {"id": op_id})
                    unknown = await mallory.call_tool(tool, {"id": "op_unknown"})
                    assert theirs.is_error == unknown.is_error, tool
                    assert text(theirs) == text(unknown).replace("op_unknown", op_id)
                    assert "not found" in text(theirs).splitlines()[0], tool

                [running] = blocks(await alice.call_tool("status", {}))
                assert (running["id"], running["state"]) == (op_id, "InProgress")
                cancelled = await alice.call_tool("cancel", {"id": op_id})
                assert text(cancelled).startswith(
                    f"OK Operation '{op_id}' has been cancelled"
                )
                assert gone_within(2, group)

        run(scenario)

        # A client without a session (curl, say) is listed nothing, and cannot
        # reach a session's operation by its id either.
        answer = httpx.post(
            url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "status", "arguments": {}},
            },
            headers=JSON,
            timeout=10,
        )
        [summary] = answer.json()["result"]["content"]
        assert summary["text"].startswith("Operations status: 0 active, 0 completed")
