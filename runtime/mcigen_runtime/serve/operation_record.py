"""An operation as Ahma MCP shows it to a client: the JSON record that ``status``
and ``await`` answer, and the messages of its progress notifications.

The record has Ahma's fields in Ahma's order: ``id``, ``tool_name``,
``description``, ``state`` (``InProgress``, ``Completed``, ``Failed``,
``Cancelled``), ``result`` (null while it runs; ``{exit_code, stderr, stdout}``
once a command has exited; ``{cancelled, reason}`` when cancelled; else the
result's text), ``start_time``, ``end_time`` and ``first_wait_time`` (RFC 3339,
local time) and ``timeout_duration`` (``{secs, nanos}``).
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..results import ToolResult
    from .operations import Running

STATES = {
    "running": "InProgress",
    "completed": "Completed",
    "failed": "Failed",
    "cancelled": "Cancelled",
}
"""Ahma's names of the states of :meth:`Running.status`."""


def record(operation: Running) -> dict[str, Any]:
    """What ``status`` and ``await`` show of ``operation``."""
    state = operation.status()
    result = None if state == "running" else operation.result()
    command = operation.command
    timeout = None
    if command is not None:
        secs = int(command.timeout_s)
        timeout = {"secs": secs, "nanos": round((command.timeout_s - secs) * 1e9)}
    return {
        "id": operation.id,
        "tool_name": operation.tool,
        "description": description(operation),
        "state": STATES[state],
        "result": None if result is None else _result(operation, result),
        "start_time": _rfc3339(operation.started_at),
        "end_time": _at(operation, operation.ended),
        "first_wait_time": _at(operation, operation.first_waited),
        "timeout_duration": timeout,
    }


def record_text(operation: Running) -> str:
    """:func:`record` as the text of one content block (pretty JSON)."""
    return json.dumps(record(operation), indent=2, ensure_ascii=False)


def description(operation: Running) -> str:
    """The tool and its arguments (as JSON)."""
    return f"{operation.tool} {json.dumps(operation.arguments, ensure_ascii=False)}"


def command_output(result: ToolResult) -> dict[str, Any] | None:
    """``{exit_code, stderr, stdout}`` of a command that exited; else None."""
    metadata = result.metadata or {}
    code, stderr = metadata.get("exit_code"), metadata.get("stderr")
    if not isinstance(code, int) or not isinstance(stderr, str):
        return None
    stdout = metadata.get("stdout")
    return {
        "exit_code": code,
        "stderr": stderr,
        "stdout": stdout if isinstance(stdout, str) else result.text,
    }


def _result(operation: Running, result: ToolResult) -> Any:
    if operation.cancel_reason is not None:
        return {"cancelled": True, "reason": operation.cancel_reason}
    output = command_output(result)
    return result.text if output is None else output


def _at(operation: Running, monotonic: float | None) -> str | None:
    return None if monotonic is None else _rfc3339(operation.wall_clock(monotonic))


def _rfc3339(wall_clock: float) -> str:
    return datetime.fromtimestamp(wall_clock).astimezone().isoformat()


def started_message(operation: Running) -> str:
    """The message of the first progress notification (progress 0)."""
    program, _ = _ran(operation)
    return f"{program}: {_execute(operation)}"


def final_message(operation: Running) -> str:
    """The message of the last progress notification (100 of 100): how it ended
    and, for a command, what it ran, where, and its whole output (exit code,
    stdout and stderr as JSON strings)."""
    state = operation.status()
    if state == "cancelled":
        return (
            f"Operation was cancelled. Operation: {operation.id}. Raw: Operation was "
            "cancelled. Suggestions: retry the command; capture server logs with "
            "`2>&1`; if this happened immediately, verify MCP roots/list handshake "
            "completed before tools/call"
        )
    result = operation.result()
    assert result is not None
    output = command_output(result)
    if output is None:  # no command exited: a sequence's text, or why it failed
        full = result.text if state == "completed" else f"Error: {result.text}"
    else:
        full = (
            f"Exit code: {output['exit_code']}\n"
            f"Stdout:\n{json.dumps(output['stdout'], ensure_ascii=False)}\n"
            f"Stderr:\n{json.dumps(output['stderr'], ensure_ascii=False)}"
        )
    program, where = _ran(operation)
    end = time.monotonic() if operation.ended is None else operation.ended
    return (
        f"OPERATION {'COMPLETED' if state == 'completed' else 'FAILED'}: "
        f"'{operation.id}'\nCommand: {program}\n"
        f"Description: {_execute(operation)}\nWorking Directory: {where}\n"
        f"Duration: {round((end - operation.started) * 1000)}ms\n\n"
        f"=== FULL OUTPUT ===\n{full}"
    )


def _ran(operation: Running) -> tuple[str, str]:
    """The program run and its working directory (for a call that started no
    command: the tool's name, and ``.``, Ahma's default)."""
    command = operation.command
    if command is None:
        return operation.tool, "."
    return command.program, command.working_directory


def _execute(operation: Running) -> str:
    program, where = _ran(operation)
    return f"Execute {program} in {where}"
