"""Background calls over Streamable HTTP (issue 31, item 2): progress notifications
ride the SSE response of the request that asked for them, with the SDK's client."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
from mcp.shared.dispatcher import ProgressFnT

from ..mcp_servers import free_port
from ..test_mcp_server import http_server, http_session, run
from .background_package import WINDOW
from .test_operations_mcp import operation_id, slow, text

Seen = list[tuple[float, float | None, str | None]]


def recorder(seen: Seen) -> ProgressFnT:
    async def on_progress(
        progress: float, total: float | None, message: str | None
    ) -> None:
        seen.append((progress, total, message))

    return on_progress


def test_progress_of_background_calls_reaches_an_http_client_that_asked(
    pkg_dir: Path, tmp_path: Path
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    quick: Seen = []
    started: Seen = []
    awaited: Seen = []
    with http_server(pkg_dir, argv, port, MCIGEN_BACKGROUND_AFTER=WINDOW) as url:

        async def scenario() -> list[str]:
            async with http_session(url, None) as client:
                answer = await client.call_tool(
                    "quick", {}, progress_callback=recorder(quick)
                )
                assert text(answer) == "quick\n"
                ids = []
                for name in ("first", "second"):
                    call = await client.call_tool(
                        "slow",
                        slow(tmp_path / name, "2"),
                        progress_callback=recorder(started),
                    )
                    ids.append(operation_id(call))
                done = await client.call_tool(
                    "await", {}, progress_callback=recorder(awaited)
                )
                assert text(done).startswith("Completed 2 operations in ")
                return ids

        ids = run(scenario)

    assert [p[:2] for p in quick] == [(0, None), (100, 100)]
    assert (quick[0][2] or "").startswith("echo: Execute echo in ")
    assert (quick[1][2] or "").startswith("OPERATION COMPLETED: 'op_")
    # A call that goes on in the background hears that it started; its end is
    # told to an ``await`` that asked for progress, one notification per operation.
    assert [p[:2] for p in started] == [(0, None), (0, None)]
    assert [p[:2] for p in awaited] == [(1, 2), (2, 2)]
    ends = sorted((message or "").split("\n")[0] for _, _, message in awaited)
    assert ends == sorted(f"OPERATION COMPLETED: '{op_id}'" for op_id in ids)


def test_a_call_without_a_progress_token_still_answers_one_json_document(
    pkg_dir: Path,
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    with http_server(pkg_dir, argv, port, MCIGEN_BACKGROUND_AFTER=WINDOW) as url:
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "quick", "arguments": {}},
        }
        headers = {"Accept": "application/json, text/event-stream"}
        plain = httpx.post(url, json=call, headers=headers, timeout=10)
        assert plain.headers["content-type"] == "application/json"
        assert plain.json()["result"]["content"][0]["text"] == "quick\n"

        call["params"]["_meta"] = {"progressToken": "t1"}  # type: ignore[index]
        streamed = httpx.post(url, json=call, headers=headers, timeout=10)
        assert streamed.headers["content-type"].startswith("text/event-stream")
        frames = [
            line.removeprefix("data: ")
            for line in streamed.text.splitlines()
            if line.startswith("data: ")
        ]
        assert '"notifications/progress"' in frames[0]
        assert '"progressToken":"t1"' in frames[0].replace(" ", "")
        assert '"quick\\n"' in frames[-1]

        # A client that takes JSON only is answered JSON, progress or not.
        only_json = httpx.post(
            url, json=call, headers={"Accept": "application/json"}, timeout=10
        )
        assert only_json.headers["content-type"] == "application/json"
        assert only_json.json()["result"]["content"][0]["text"] == "quick\n"


def test_progress_reaches_a_client_of_the_2026_protocol_over_http(
    pkg_dir: Path, tmp_path: Path
) -> None:
    """The stateless 2026-07-28 era (``server/discover``, no handshake, no
    session): the same notifications on the SSE response."""
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    quick: Seen = []
    started: Seen = []
    awaited: Seen = []
    with http_server(pkg_dir, argv, port, MCIGEN_BACKGROUND_AFTER=WINDOW) as url:

        async def scenario() -> str:
            async with (
                httpx2.AsyncClient(timeout=60) as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(read, write) as client,
            ):
                discovered = await client.discover()
                assert "2026-07-28" in discovered.supported_versions
                await client.call_tool("quick", {}, progress_callback=recorder(quick))
                call = await client.call_tool(
                    "slow",
                    slow(tmp_path / "pid", "2"),
                    progress_callback=recorder(started),
                )
                op_id = operation_id(call)
                done = await client.call_tool(
                    "await", {"id": op_id}, progress_callback=recorder(awaited)
                )
                assert text(done).startswith("Completed 1 operations in ")
                return op_id

        op_id = run(scenario)

    assert [p[:2] for p in quick] == [(0, None), (100, 100)]
    assert [p[:2] for p in started] == [(0, None)]
    assert [p[:2] for p in awaited] == [(1, 1)]
    assert (awaited[0][2] or "").startswith(f"OPERATION COMPLETED: '{op_id}'")
