"""What an Ahma client sees of background calls (issue 30, items 4 and 5), with the
SDK's client over stdio and real processes: the last progress notification holds
the command, its working directory and its whole output; ``status`` and
``await`` answer Ahma's serialised operations; ``cancel`` answers Ahma's text and
hint, and a missing id is invalid params; the tools carry titles."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from ..test_mcp_server import run
from .test_operations_mcp import blocks, operation_id, session, slow, text

RECORD_KEYS = [
    "id",
    "tool_name",
    "description",
    "state",
    "result",
    "start_time",
    "end_time",
    "first_wait_time",
    "timeout_duration",
]


class Heard:
    """The progress notifications a client's session hears (its
    ``message_handler``), and a ``progress_callback`` for its calls that asks for
    them and leaves them to the handler."""

    def __init__(self) -> None:
        self.seen: list[types.ProgressNotificationParams] = []

    async def on_message(self, message: Any) -> None:
        if isinstance(message, types.ProgressNotification):
            self.seen.append(message.params)

    @staticmethod
    async def ignore(value: float, total: float | None, message: str | None) -> None:
        pass


def last_messages(seen: list[types.ProgressNotificationParams], op_id: str) -> str:
    [last] = [p for p in seen if f"'{op_id}'" in (p.message or "")]
    assert (last.progress, last.total) == (100, 100)
    assert last.message is not None
    return last.message


def test_the_last_progress_notification_holds_the_commands_whole_output(
    pkg_dir: Path, tmp_path: Path
) -> None:
    heard = Heard()
    seen = heard.seen
    ids: list[str] = []

    async def scenario() -> None:
        async with session(pkg_dir, heard.on_message) as client:
            for tool, arguments in (
                ("slow", slow(tmp_path / "pid", "1")),
                ("flaky", {"seconds": "1"}),
            ):
                started = await client.call_tool(
                    tool, arguments, progress_callback=heard.ignore
                )
                ids.append(operation_id(started))
            for op_id in ids:
                await client.call_tool("await", {"id": op_id})
            with anyio.fail_after(5):  # sent once each operation is over
                while not all(
                    any(f"'{i}'" in (p.message or "") for p in seen) for i in ids
                ):
                    await anyio.sleep(0.05)

    run(scenario)
    where = os.path.realpath(pkg_dir)
    starts = [p.message for p in seen if p.progress == 0]
    assert starts == [
        f"{pkg_dir / 'sleeper'}: Execute {pkg_dir / 'sleeper'} in {where}",
        f"{pkg_dir / 'failer'}: Execute {pkg_dir / 'failer'} in {where}",
    ]
    pattern = (
        r"OPERATION (COMPLETED|FAILED): '(op_[\w-]{16})'\nCommand: (.+)\n"
        r"Description: Execute \3 in (.+)\nWorking Directory: \4\nDuration: \d+ms\n\n"
        r"=== FULL OUTPUT ===\n(.*)"
    )
    completed = re.fullmatch(pattern, last_messages(seen, ids[0]), re.S)
    assert completed, last_messages(seen, ids[0])
    assert completed.group(1, 2, 3, 4) == (
        "COMPLETED",
        ids[0],
        str(pkg_dir / "sleeper"),
        where,
    )
    assert completed.group(5) == 'Exit code: 0\nStdout:\n"slept\\n"\nStderr:\n""'
    failed = re.fullmatch(pattern, last_messages(seen, ids[1]), re.S)
    assert failed, last_messages(seen, ids[1])
    assert failed.group(1, 3) == ("FAILED", str(pkg_dir / "failer"))
    assert failed.group(5) == 'Exit code: 3\nStdout:\n"out\\n"\nStderr:\n"err ü\\n"'


def test_status_and_await_answer_ahmas_serialised_operations(
    pkg_dir: Path, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with session(pkg_dir) as client:
            op_id = operation_id(await client.call_tool("flaky", {"seconds": "1"}))
            status = await client.call_tool("status", {"id": op_id})
            assert text(status).startswith(f"Operation '{op_id}' found\n")
            [running] = blocks(status)
            assert list(running) == RECORD_KEYS
            assert running["state"] == "InProgress"
            assert (running["result"], running["end_time"]) == (None, None)

            awaited = await client.call_tool("await", {"id": op_id})
            assert re.fullmatch(
                r"Completed 1 operations in \d+\.\d\ds", awaited.content[0].text
            )
            [done] = blocks(awaited)
            assert list(done) == RECORD_KEYS
            assert done["id"] == op_id
            assert done["tool_name"] == "flaky"
            assert done["description"] == 'flaky {"seconds": "1"}'
            assert done["state"] == "Failed"
            assert done["result"] == {
                "exit_code": 3,
                "stderr": "err ü\n",
                "stdout": "out\n",
            }
            assert done["timeout_duration"] == {"secs": 360, "nanos": 0}
            start, end, waited = (
                datetime.fromisoformat(done[key])
                for key in ("start_time", "end_time", "first_wait_time")
            )
            assert start.tzinfo is not None
            assert start <= waited < end
            assert 0.9 < (end - start).total_seconds() < 5
            # The record is pretty JSON, as Ahma prints it.
            assert awaited.content[1].text == json.dumps(
                done, indent=2, ensure_ascii=False
            )

            again = await client.call_tool("await", {"id": op_id})
            assert again.content[0].text == f"Operation {op_id} already completed"
            assert blocks(again) == [done]

            listed = await client.call_tool("status", {})
            summary, analysis, heading, _ = (b.text for b in listed.content)
            assert summary == "Operations status: 0 active, 1 completed (total: 1)"
            assert re.fullmatch(
                r"\nConcurrency Analysis:\n(OK|WARNING) \w+ concurrency efficiency: "
                r"\d+\.\d% of execution time spent waiting.*",
                analysis,
            )
            assert heading == "\n=== COMPLETED OPERATIONS ==="
            assert blocks(listed) == [done]
            scoped = await client.call_tool("status", {"tools": "fl, zz"})
            assert scoped.content[0].text == (
                "Operations status for 'fl, zz': 0 active, 1 completed (total: 1)"
            )
            unknown = await client.call_tool("await", {"id": "op_nope"})
            assert text(unknown) == "Operation op_nope not found"
            assert not unknown.is_error

    run(scenario)


def test_await_with_tools_and_nothing_running_lists_the_recently_completed(
    pkg_dir: Path, tmp_path: Path
) -> None:
    async def scenario() -> None:
        async with session(pkg_dir) as client:
            op_id = operation_id(
                await client.call_tool("slow", slow(tmp_path / "pid", "0.8"))
            )
            await client.call_tool("await", {})
            recent = await client.call_tool("await", {"tools": "sl,zz"})
            assert recent.content[0].text == (
                "No pending operations for tools: sl, zz. However, these operations "
                "recently completed:"
            )
            assert [b["id"] for b in blocks(recent)] == [op_id]
            none = await client.call_tool("await", {"tools": "zz"})
            assert text(none) == "No pending operations for tools: zz"
            everything = await client.call_tool("await", {})
            assert text(everything) == "No pending operations to await for."

    run(scenario)


def test_cancel_answers_ahmas_text_and_hint_and_a_missing_id_is_invalid_params(
    pkg_dir: Path, tmp_path: Path
) -> None:
    def hint(op_id: str) -> dict[str, Any]:
        return {
            "tool_hint": {
                "next_steps": [
                    {"args": {"id": op_id}, "tool": "status"},
                    {"args": {"timeout_seconds": 360, "tools": ""}, "tool": "await"},
                ],
                "reason": "Operation cancelled; check status and consider restarting",
                "suggested_tool": "status",
            }
        }

    async def scenario() -> None:
        async with session(pkg_dir) as client:
            op_id = operation_id(
                await client.call_tool("slow", slow(tmp_path / "pid", "30"))
            )
            cancelled = await client.call_tool("cancel", {"id": op_id})
            said, block = (b.text for b in cancelled.content)
            assert said == (
                f"OK Operation '{op_id}' has been cancelled successfully.\n"
                "String: reason='No reason provided (default: user-initiated)'.\n"
                "Hint: Consider restarting the operation if needed."
            )
            assert json.loads(block) == hint(op_id)
            assert not cancelled.is_error

            unknown = await client.call_tool("cancel", {"id": "op_999"})
            assert not unknown.is_error
            said, block = (b.text for b in unknown.content)
            assert said == (
                "FAIL Operation 'op_999' not found. It may have already completed "
                "or never existed."
            )
            assert json.loads(block) == hint("op_999")

            with pytest.raises(MCPError, match="^id parameter is required$") as missing:
                await client.call_tool("cancel", {})
            assert missing.value.error.code == types.INVALID_PARAMS
            assert missing.value.error.data == {"missing_param": "id"}
            with pytest.raises(MCPError, match="^id must be a string$") as number:
                await client.call_tool("cancel", {"id": 7})
            assert number.value.error.data == {"id": 7}

    run(scenario)


def test_every_tool_carries_a_title(pkg_dir: Path) -> None:
    async def scenario() -> list[types.Tool]:
        async with session(pkg_dir) as client:
            tools: list[types.Tool] = (await client.list_tools()).tools
            return tools

    tools = run(scenario)
    assert {tool.name for tool in tools} >= {"slow", "status", "await", "cancel"}
    assert [tool.title for tool in tools] == [tool.name for tool in tools]


def test_a_cancelled_operations_last_notification_is_ahmas_cancellation_text(
    pkg_dir: Path, tmp_path: Path
) -> None:
    heard = Heard()
    seen = heard.seen
    ids: list[str] = []

    def last() -> list[types.ProgressNotificationParams]:
        return [p for p in seen if f"Operation: {ids[0]}." in (p.message or "")]

    async def scenario() -> None:
        async with session(pkg_dir, heard.on_message) as client:
            started = await client.call_tool(
                "slow", slow(tmp_path / "pid", "30"), progress_callback=heard.ignore
            )
            ids.append(operation_id(started))
            await client.call_tool("cancel", {"id": ids[0], "reason": "enough"})
            with anyio.fail_after(5):
                while not last():
                    await anyio.sleep(0.05)

    run(scenario)
    [notification] = last()
    assert (notification.progress, notification.total) == (100, 100)
    assert notification.message == (
        f"Operation was cancelled. Operation: {ids[0]}. Raw: Operation was cancelled. "
        "Suggestions: retry the command; capture server logs with `2>&1`; if this "
        "happened immediately, verify MCP roots/list handshake completed before "
        "tools/call"
    )
