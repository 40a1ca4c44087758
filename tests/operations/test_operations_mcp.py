"""Background calls served over MCP, with the SDK's client and real processes: a
call still running after the window answers an operation id at once; ``await``,
``status`` and ``cancel`` act on it; progress notifications reach a client that
asked for them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

from ..conftest import package_env
from ..mcp_servers import free_port
from ..test_mcp_server import (
    http_server,
    http_session,
    run,
    stdio_session,
)
from ..test_serve_lifecycle import gone_within, leader
from .background_package import WINDOW

HINT_END = (
    "Assume success, plan your next step, and summarize for the user. "
    "Call `await` when you need this result.\n\n"
)


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def blocks(result: types.CallToolResult) -> list[dict[str, Any]]:
    """The operation records of a ``status``/``await`` answer (Ahma's serialised
    operations: the blocks that are JSON objects with a ``state``)."""
    found = []
    for block in result.content[1:]:
        if isinstance(block, types.TextContent) and block.text.startswith("{"):
            value = json.loads(block.text)
            if "state" in value:
                found.append(value)
    return found


def operation_id(result: types.CallToolResult) -> str:
    found = re.fullmatch(
        r"AHMA ID: (op_[\w-]{16})\n\n### AHMA ID: \1 \(\w+\)\n.*", text(result), re.S
    )
    assert found, text(result)
    assert text(result).endswith(HINT_END)
    return found.group(1)


def slow(pidfile: Path, seconds: str) -> dict[str, str]:
    return {"pidfile": str(pidfile), "seconds": seconds}


def session(pkg_dir: Path, message_handler: Any = None) -> Any:
    return stdio_session(
        pkg_dir, message_handler=message_handler, MCIGEN_BACKGROUND_AFTER=WINDOW
    )


def test_a_slow_call_answers_an_id_and_await_gives_its_result(
    pkg_dir: Path, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with session(pkg_dir) as client:
            started = await client.call_tool("slow", slow(tmp_path / "pid", "1.5"))
            assert not started.is_error
            op_id = operation_id(started)
            assert f"({'slow'})" in text(started)
            status = await client.call_tool("status", {"id": op_id})
            assert [b["state"] for b in blocks(status)] == ["InProgress"]
            awaited = await client.call_tool("await", {"id": op_id})
            assert text(awaited).startswith("Completed 1 operations in ")
            [done] = blocks(awaited)
            assert done["id"] == op_id
            assert done["state"] == "Completed"
            assert done["result"]["stdout"] == "slept\n"
            status = await client.call_tool("status", {"tools": "sl"})
            assert [b["state"] for b in blocks(status)] == ["Completed"]
            assert text(status).startswith(
                "Operations status for 'sl': 0 active, 1 completed (total: 1)\n"
            )

    run(scenario)


def test_row_93_a_quick_call_answers_inline_and_cancel_is_listed_too(
    pkg_dir: Path,
) -> None:
    async def scenario() -> None:
        async with session(pkg_dir) as client:
            quick = await client.call_tool("quick", {})
            assert text(quick) == "quick\n"
            assert not quick.is_error
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert {"status", "await", "cancel"} <= set(listed)
            assert listed["cancel"].input_schema["required"] == ["id"]
            assert set(listed["await"].input_schema["properties"]) == {"tools", "id"}
            nothing = await client.call_tool("await", {})
            assert text(nothing) == "No pending operations to await for."

    run(scenario)


def test_cancel_stops_the_operations_process(pkg_dir: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"

    async def scenario() -> None:
        async with session(pkg_dir) as client:
            op_id = operation_id(await client.call_tool("slow", slow(pidfile, "30")))
            group = leader(pidfile)
            cancelled = await client.call_tool(
                "cancel", {"id": op_id, "reason": "enough"}
            )
            assert text(cancelled).startswith(
                f"OK Operation '{op_id}' has been cancelled successfully.\n"
                "String: reason='enough'."
            )
            assert gone_within(2, group)
            [state] = blocks(await client.call_tool("status", {"id": op_id}))
            assert state["state"] == "Cancelled"
            assert state["result"] == {"cancelled": True, "reason": "enough"}
            again = await client.call_tool("cancel", {"id": op_id})
            assert text(again).startswith(
                f"WARNING Operation '{op_id}' is already cancelled and cannot be "
                "cancelled."
            )

    run(scenario)


def test_row_94_a_call_failing_within_the_window_is_an_error_result(
    pkg_dir: Path, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with session(pkg_dir) as client:
            failed = await client.call_tool("slow", slow(tmp_path / "pid", "1.2.3"))
            assert failed.is_error
            assert "invalid time interval" in text(failed)
            assert "AHMA ID" not in text(failed)

    run(scenario)


def test_row_96_refused_input_starts_nothing_and_asked_for_sync_answers_inline(
    pkg_dir: Path, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with session(pkg_dir) as client:
            refused = await client.call_tool("slow", {"pidfile": "x"})
            assert refused.is_error
            assert text(refused).startswith("invalid input for tool 'slow': seconds")
            asked = {**slow(tmp_path / "pid", "1"), "execution_mode": "Synchronous"}
            inline = await client.call_tool("maybe", asked)
            assert text(inline) == "slept\n"
            status = await client.call_tool("status", {})
            assert text(status) == "Operations status: 0 active, 0 completed (total: 0)"

    run(scenario)


def test_progress_notifications_reach_a_client_that_asked(
    pkg_dir: Path, tmp_path: Path
) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    seen: list[types.ProgressNotificationParams] = []
    ids: list[str] = []

    async def on_progress(
        value: float, total: float | None, message: str | None
    ) -> None:
        progress.append((value, total, message))

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ProgressNotification):
            seen.append(message.params)

    async def scenario() -> None:
        async with session(pkg_dir, on_message) as client:
            await client.call_tool("quick", {}, progress_callback=on_progress)
            started = await client.call_tool(
                "slow", slow(tmp_path / "pid", "1"), progress_callback=on_progress
            )
            ids.append(operation_id(started))
            await client.call_tool("await", {"id": ids[0]})
            with anyio.fail_after(5):  # sent once the operation is over
                while not any(f"'{ids[0]}'" in (p.message or "") for p in seen):
                    await anyio.sleep(0.05)

    run(scenario)
    assert progress[0][:2] == (0, None)
    assert progress[1][:2] == (100, 100)
    assert progress[1][2] is not None and progress[1][2].startswith(
        "OPERATION COMPLETED: 'op_"
    )
    assert progress[2][:2] == (0, None)
    assert len(progress) == 3
    [last] = [p for p in seen if f"'{ids[0]}'" in (p.message or "")]
    assert (last.progress, last.total) == (100, 100)
    assert (last.message or "").startswith(f"OPERATION COMPLETED: '{ids[0]}'")


def test_over_http_an_id_from_one_request_is_awaited_in_another(
    pkg_dir: Path, tmp_path: Path
) -> None:
    """Stateless HTTP: each call is a request of its own, of the same session."""
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    with http_server(pkg_dir, argv, port, MCIGEN_BACKGROUND_AFTER=WINDOW) as url:

        async def scenario() -> None:
            async with http_session(url, None) as client:
                started = await client.call_tool("slow", slow(tmp_path / "pid", "1"))
                op_id = operation_id(started)
                [done] = blocks(await client.call_tool("await", {"id": op_id}))
                assert done["state"] == "Completed"
                assert done["result"]["stdout"] == "slept\n"

        run(scenario)


def test_stdin_closing_while_an_operation_runs_ends_without_a_traceback(
    pkg_dir: Path, tmp_path: Path
) -> None:
    """The client goes away (stdin closes) after a call went on in the background
    and asked for progress: the server ends, and says nothing of a closed loop
    when the operation finishes."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "slow",
                "arguments": slow(tmp_path / "pid", "1.5"),
                "_meta": {"progressToken": "p"},
            },
        },
    ]
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "pkg", "serve"],
            cwd=pkg_dir,
            env=package_env(pkg_dir, MCIGEN_BACKGROUND_AFTER=WINDOW),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,  # a file: a server writing much to it never waits
            text=True,
        )
        assert process.stdin and process.stdout

        def said() -> str:
            errors.seek(0)
            return errors.read().decode(errors="replace")

        try:
            process.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
            process.stdin.flush()
            while (answer := process.stdout.readline()) and (
                json.loads(answer).get("id") != 2
            ):
                pass
            assert answer, f"the server ended before it answered; its stderr: {said()}"
            process.stdin.close()
            ended = process.wait(30)
        finally:
            process.kill()
            process.wait()
        stderr = said()
    assert ended == 0, stderr
    assert "Traceback" not in stderr and "never awaited" not in stderr, stderr
