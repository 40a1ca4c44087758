"""Every MCP tool call is bounded (issue 16): in time, with the call cancelled on the
server too; in the size of the answer; and a call that lost its connection is made
again only when that cannot run the tool twice. Against a real server written with
the SDK (tests/mcp_servers/bounds_server.py), over stdio and Streamable HTTP."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcigen_runtime import limits
from mcigen_runtime.errors import ToolInputError
from mcigen_runtime.executors.mcp import calls
from mcigen_runtime.executors.mcp.calls import (
    McpServerParams,
    call_mcp_tool,
    call_mcp_tool_async,
    close_mcp_sessions,
)
from mcigen_runtime.executors.mcp.unreadable import request_id
from mcp.shared import jsonrpc_dispatcher

from .mcp_servers import BOUNDS_SERVER, free_port, http_server
from .test_mcp_runtime import wait_gone

MIB = 1 << 20
DEFAULT_LIMIT = "the mcp_result limit (10485760 bytes)"


def stdio(log_dir: Path, call_timeout: float = 60.0) -> McpServerParams:
    return McpServerParams(
        name="bounds",
        command=sys.executable,
        args=(str(BOUNDS_SERVER), "stdio", str(log_dir)),
        call_timeout=call_timeout,
    )


def over_http(url: str, call_timeout: float = 60.0) -> McpServerParams:
    return McpServerParams(name="bounds", url=url, call_timeout=call_timeout)


def cancellations(log_dir: Path, at_least: int, wait: float = 10.0) -> int:
    """How many calls the server saw cancelled, once there are ``at_least``
    (or ``wait`` seconds have passed)."""
    log = log_dir / "cancelled.log"
    deadline = time.monotonic() + wait
    while True:
        seen = len(log.read_text().splitlines()) if log.exists() else 0
        if seen >= at_least or time.monotonic() > deadline:
            return seen
        time.sleep(0.02)


def runs(log_dir: Path, tool: str) -> int:
    log = log_dir / f"{tool}.runs"
    return len(log.read_text().splitlines()) if log.exists() else 0


def pid_of(server: McpServerParams) -> int:
    result = call_mcp_tool(server, "pid", {})
    assert not result.isError, result.text
    return int(result.text)


@pytest.fixture(autouse=True)
def _close_sessions() -> Iterator[None]:
    yield
    close_mcp_sessions()


@pytest.fixture(params=["http", "http-json"])
def http_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The bounds server over Streamable HTTP, answering SSE or JSON."""
    with http_server(BOUNDS_SERVER, request.param, str(tmp_path)) as url:
        yield url


# --------------------------------------------------------------------------- time


def test_a_hung_tool_times_out_is_cancelled_upstream_and_the_session_serves_on(
    tmp_path: Path,
) -> None:
    server = stdio(tmp_path, call_timeout=0.5)
    pid = pid_of(server)
    result = call_mcp_tool(server, "hang", {})
    assert result.isError
    assert (
        result.text
        == "MCP tool 'hang' did not answer within 0.5 s; the call was cancelled"
    )
    assert result.metadata == {"mcp_server": "bounds", "mcp_tool": "hang"}
    # The server is still running, so only notifications/cancelled stopped the tool.
    assert cancellations(tmp_path, 1) == 1
    assert pid_of(server) == pid
    assert call_mcp_tool(server, "quick", {"text": "next"}).text == "next"


def test_the_callers_timeout_overrides_the_servers(tmp_path: Path) -> None:
    server = stdio(tmp_path)  # 60 s
    started = time.monotonic()
    result = call_mcp_tool(server, "hang", {}, 0.3)
    assert time.monotonic() - started < 30
    assert (
        result.text
        == "MCP tool 'hang' did not answer within 0.3 s; the call was cancelled"
    )
    assert call_mcp_tool(server, "quick", {"text": "x"}, 5).text == "x"


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), True, "5"])
def test_a_timeout_that_is_not_a_positive_number_is_bad_input(
    tmp_path: Path, timeout: object
) -> None:
    with pytest.raises(ToolInputError, match="_timeout: must be a positive number"):
        call_mcp_tool(stdio(tmp_path), "quick", {"text": "x"}, timeout)  # type: ignore[arg-type]


def test_a_cancelled_awaiting_task_cancels_the_call_upstream(tmp_path: Path) -> None:
    server = stdio(tmp_path)
    pid = pid_of(server)

    async def caller() -> None:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(call_mcp_tool_async(server, "hang", {}), 0.5)

    asyncio.run(caller())
    assert cancellations(tmp_path, 1) == 1
    assert pid_of(server) == pid


def test_a_hung_tool_over_http_times_out_and_the_session_serves_on(
    tmp_path: Path, http_url: str
) -> None:
    server = over_http(http_url, call_timeout=0.5)
    pid = pid_of(server)
    result = call_mcp_tool(server, "hang", {})
    assert (
        result.text
        == "MCP tool 'hang' did not answer within 0.5 s; the call was cancelled"
    )
    assert cancellations(tmp_path, 1) == 1
    assert pid_of(server) == pid


@pytest.mark.parametrize("tool", ["note", "peek"])
def test_a_call_whose_request_cannot_be_written_in_time_times_out_unretried(
    tmp_path: Path, tool: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stopped server reads nothing: a request larger than its stdin's pipe is
    not written in time, so the SDK's read timeout (which starts once the request
    is written) never starts, and the call's own bound ends it. That is a call
    that timed out, not a lost connection: its session is kept (once the server
    runs on, so is its process) and it is not made again, even for a read-only
    tool (``peek``)."""
    # The call's grace and the SDK's wait for its notifications/cancelled to
    # drain (1 s and 5 s) pass in full while the server is stopped: shortened.
    monkeypatch.setattr(calls, "_CALL_GRACE", 0.1)
    monkeypatch.setattr(jsonrpc_dispatcher, "_ABANDON_WRITE_TIMEOUT", 0.1)
    server = stdio(tmp_path, call_timeout=0.5)
    pid = pid_of(server)
    os.kill(pid, signal.SIGSTOP)
    try:
        result = call_mcp_tool(
            server, tool, {"text": "x" * MIB}, repeatable=tool == "peek"
        )
    finally:
        os.kill(pid, signal.SIGCONT)
    assert result.isError
    assert (
        result.text
        == f"MCP tool '{tool}' did not answer within 0.5 s; the call was cancelled"
    )
    assert pid_of(server) == pid
    assert call_mcp_tool(server, "quick", {"text": "next"}).text == "next"
    assert runs(tmp_path, tool) <= 1


# --------------------------------------------------------------------------- size


def test_an_answer_past_the_limit_is_an_error_at_once_and_the_session_serves_on(
    tmp_path: Path,
) -> None:
    server = stdio(tmp_path)
    pid = pid_of(server)
    # The text comes twice: as content and as structured content.
    huge = call_mcp_tool(server, "huge", {"size": 6 * MIB})
    assert huge.isError
    assert huge.text.startswith(
        f"MCP tool 'huge' answered with a message larger than {DEFAULT_LIMIT}"
    )
    assert "limited(mcp_result=...)" in huge.text
    assert pid_of(server) == pid
    with limits.limited(mcp_result=16 * MIB):
        assert len(call_mcp_tool(server, "huge", {"size": 6 * MIB}).text) == 6 * MIB
    with limits.limited(mcp_result=1000):
        small = call_mcp_tool(server, "huge", {"size": 1000})
        assert "the mcp_result limit (1000 bytes)" in small.text
        assert call_mcp_tool(server, "huge", {"size": 100}).text == "x" * 100
    assert pid_of(server) == pid


def test_an_answer_past_the_limit_over_http(tmp_path: Path, http_url: str) -> None:
    server = over_http(http_url)
    pid = pid_of(server)
    # Past the SDK's own bound on an SSE event (1 MiB), within ours.
    assert len(call_mcp_tool(server, "huge", {"size": 2 * MIB}).text) == 2 * MIB
    huge = call_mcp_tool(server, "huge", {"size": 6 * MIB})
    assert huge.text.startswith(
        f"MCP tool 'huge' answered with a message larger than {DEFAULT_LIMIT}"
    )
    with limits.limited(mcp_result=1000):
        assert "(1000 bytes)" in call_mcp_tool(server, "huge", {"size": 1000}).text
    assert pid_of(server) == pid


@pytest.mark.parametrize(
    ("head", "tail", "ident"),
    [
        # Python servers write the envelope's keys first, TypeScript ones last;
        # an "id" inside the result is not the envelope's.
        (b'{"jsonrpc":"2.0","id":7,"result":{"id":1', b"", 7),
        (
            b'{"result":{"structuredContent":{"id":1',
            b'"x"}},"jsonrpc":"2.0","id":"a"}',
            "a",
        ),
        (b'{"result":{"id":1', b"xxxx", None),
    ],
)
def test_the_request_an_oversized_line_answers(
    head: bytes, tail: bytes, ident: int | str | None
) -> None:
    assert request_id(head, tail) == ident


# --------------------------------------------------------------------------- retries


def test_a_tool_with_effects_is_not_run_again_after_a_crash_mid_call(
    tmp_path: Path,
) -> None:
    server = stdio(tmp_path)
    result = call_mcp_tool(server, "effect", {})
    assert result.isError
    assert result.text == (
        "MCP server 'bounds' died during the call to 'effect' (Connection closed); it "
        "was not retried, because the tool may have had effects (it is not annotated "
        "readOnlyHint or idempotentHint)"
    )
    assert runs(tmp_path, "effect") == 1
    # The next call starts a fresh server.
    assert call_mcp_tool(server, "effect", {}).text == "done"
    assert runs(tmp_path, "effect") == 2


def test_a_tool_that_may_run_twice_is_run_again_after_a_crash_mid_call(
    tmp_path: Path,
) -> None:
    result = call_mcp_tool(stdio(tmp_path), "look", {}, repeatable=True)
    assert not result.isError, result.text
    assert result.text == "done"
    assert runs(tmp_path, "look") == 2


def test_a_request_that_never_went_out_is_sent_to_a_fresh_server(
    tmp_path: Path,
) -> None:
    server = stdio(tmp_path)
    assert call_mcp_tool(server, "count", {}).text == "1"
    pid = pid_of(server)
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid)
    # The session is known closed, or the dead server's stdin refuses the request:
    # the call went out once, to a new server.
    assert call_mcp_tool(server, "count", {}).text == "2"
    assert runs(tmp_path, "count") == 2


def test_over_http_a_restarted_server_runs_the_call_once(tmp_path: Path) -> None:
    port = free_port()
    with http_server(BOUNDS_SERVER, "http", str(tmp_path), port=port) as url:
        server = over_http(url)
        assert call_mcp_tool(server, "count", {}).text == "1"
    with http_server(BOUNDS_SERVER, "http", str(tmp_path), port=port):
        # The new server does not know the session: it refused the call unrun.
        assert call_mcp_tool(server, "count", {}).text == "2"
    assert runs(tmp_path, "count") == 2


def test_over_http_a_tool_with_effects_is_not_run_again(
    tmp_path: Path, http_url: str
) -> None:
    result = call_mcp_tool(over_http(http_url), "effect", {})
    assert result.isError
    assert "it was not retried, because the tool may have had effects" in result.text
    assert runs(tmp_path, "effect") == 1
