"""The MCP tools ``status``, ``await`` and ``cancel`` over a server's operations, and
the texts a client sees of an operation, shaped as Ahma MCP words them.

- A call that goes on in the background answers at once with
  :func:`background_hint`: ``AHMA ID: op_…``, then how to collect the result.
- Each tool sees only the operations of its caller (see ``operations``): another
  caller's id answers as an unknown one does.
- ``await {tools?, id?}`` waits (at most :data:`AWAIT_LIMIT_S`) for the operation
  ``id``, or for every running operation whose tool name starts with one of the
  comma-separated prefixes ``tools`` (all of them without a filter), and answers
  ``Completed N operations in S.SSs`` and one JSON block per operation.
- ``status {tools?, id?}`` answers the same blocks at once, running and finished.
- ``cancel {id, reason?}`` stops an operation.

Each operation block is a JSON object: ``id``, ``tool_name``, ``state``
(``running``, ``completed``, ``failed``, ``cancelled``), ``duration_ms`` and, once
finished, ``isError`` and ``output`` (the result's text, bounded by the tool's own
output limits).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import Any

from ..manifest import ToolEntry
from ..results import ToolResult, error_result, text_content, tool_result
from .operations import Caller, Operation, Operations

BACKGROUND_AFTER_S = 5.0
"""How long a call that may go on in the background is waited for before it does
(Ahma's window); ``MCIGEN_BACKGROUND_AFTER`` (seconds) sets another."""

AWAIT_LIMIT_S = 600.0
"""The longest ``await`` waits (Ahma's default); then it answers what it has."""

STATUS, AWAIT, CANCEL = "status", "await", "cancel"

_FILTERS = {
    "tools": {
        "type": "string",
        "description": "Comma-separated tool name prefixes (optional; all when omitted)",
    },
    "id": {"type": "string", "description": "One operation ID (optional)"},
}

DEFINITIONS: tuple[dict[str, Any], ...] = (
    {
        "name": STATUS,
        "description": "Report the background operations, running and finished, "
        "without waiting for them.",
        "inputSchema": {"type": "object", "properties": _FILTERS},
    },
    {
        "name": AWAIT,
        "description": "Wait for background operations to finish and return their "
        "results: the operation `id`, or every running one (of the tools whose names "
        f"start with a prefix in `tools`). Waits at most {AWAIT_LIMIT_S:.0f} s.",
        "inputSchema": {"type": "object", "properties": _FILTERS},
    },
    {
        "name": CANCEL,
        "description": "Cancel the background operation `id`, stopping its process.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "The operation ID"},
                "reason": {"type": "string", "description": "Why (optional)"},
            },
            "required": ["id"],
        },
    },
)
"""The three tools as ``tools/list`` entries."""


def background_after(env: Mapping[str, str]) -> float:
    """The window of :data:`BACKGROUND_AFTER_S`, as ``env`` sets it."""
    given = env.get("MCIGEN_BACKGROUND_AFTER", "").strip()
    try:
        seconds = float(given) if given else BACKGROUND_AFTER_S
    except ValueError:
        seconds = BACKGROUND_AFTER_S
    return seconds if 0 <= seconds < float("inf") else BACKGROUND_AFTER_S


def runs_in_background(entry: ToolEntry, arguments: Mapping[str, Any]) -> bool:
    """Whether a call of ``entry`` with ``arguments`` is served as an operation."""
    if entry.background == "unless_asked":
        return arguments.get("execution_mode") != "Synchronous"
    return entry.background == "always"


def background_hint(operation: Operation) -> str:
    """What a call answers when its operation goes on in the background."""
    return (
        f"AHMA ID: {operation.id}\n\n"
        f"### AHMA ID: {operation.id} ({operation.tool})\n"
        "This is running in the background \u2014 NOT complete.\n\n"
        f"- Do other work not blocked by `{operation.tool}` while it runs.\n"
        "- **Need results?** Call `await` with this ID. **AVOID POLLING** \u2014 "
        "do not call `status` in a loop.\n"
        "- **Batch:** Start multiple tools, then `await` all IDs at once.\n\n"
        "Assume success, plan your next step, and summarize for the user. "
        "Call `await` when you need this result.\n\n"
    )


def progress_message(operation: Operation) -> str:
    """The message of the last progress notification of ``operation``."""
    word = {"completed": "COMPLETED", "cancelled": "CANCELLED"}.get(
        operation.status(), "FAILED"
    )
    return (
        f"OPERATION {word}: '{operation.id}'\nTool: {operation.tool}\n"
        f"Duration: {_duration_ms(operation)}ms"
    )


async def call_operation_tool(
    operations: Operations, name: str, arguments: Mapping[str, Any], caller: Caller
) -> ToolResult:
    """Run ``status``, ``await`` or ``cancel`` (``name``) for ``caller``, over its
    own operations only."""
    for key in ("tools", "id", "reason"):
        if key in arguments and not isinstance(arguments[key], str):
            return error_result(f"invalid input for tool '{name}': {key}: not a string")
    if name == CANCEL:
        return _cancel(operations, arguments, caller)
    prefixes = [p.strip() for p in arguments.get("tools", "").split(",") if p.strip()]
    if "id" in arguments:
        found = operations.find(arguments["id"], caller)
        candidates = [] if found is None else [found]
    else:
        candidates = operations.listed(caller)
    wanted = [
        op
        for op in candidates
        if not prefixes or any(op.tool.startswith(p) for p in prefixes)
    ]
    if name == STATUS:
        if "id" in arguments and not wanted:
            return _answer(f"Operation '{arguments['id']}' not found", [])
        running = sum(op.status() == "running" for op in wanted)
        return _answer(
            f"Operations status: {running} active, {len(wanted) - running} "
            f"completed (total: {len(wanted)})",
            wanted,
        )
    return await _await(arguments.get("id"), prefixes, wanted)


async def _await(
    op_id: str | None, prefixes: list[str], wanted: list[Operation]
) -> ToolResult:
    if op_id is None:
        wanted = [op for op in wanted if op.status() == "running"]
    if not wanted:
        if op_id is not None:
            return _answer(f"Operation {op_id} not found", [])
        scope = f" for tools: {', '.join(prefixes)}" if prefixes else " to await for"
        return _answer(f"No pending operations{scope}.", [])
    started = time.monotonic()
    await asyncio.gather(*(op.finished_within(AWAIT_LIMIT_S) for op in wanted))
    done = [op for op in wanted if op.status() != "running"]
    summary = f"Completed {len(done)} operations in {time.monotonic() - started:.2f}s"
    if len(done) < len(wanted):
        summary += (
            f"; {len(wanted) - len(done)} still running after {AWAIT_LIMIT_S:.0f}s"
        )
    return _answer(summary, wanted)


def _cancel(
    operations: Operations, arguments: Mapping[str, Any], caller: Caller
) -> ToolResult:
    op_id = arguments.get("id")
    if op_id is None:
        return error_result("invalid input for tool 'cancel': id: required")
    operation = operations.find(op_id, caller)
    if operation is None:
        return error_result(f"Operation '{op_id}' not found.")
    if not operation.cancel(arguments.get("reason")):
        return _answer(
            f"Operation '{op_id}' is already {operation.status()} and cannot be "
            "cancelled.",
            [operation],
        )
    return _answer(
        f"Operation '{op_id}' has been cancelled: {operation.cancel_reason}.",
        [operation],
    )


def _answer(summary: str, listed: list[Operation]) -> ToolResult:
    blocks = [text_content(summary)]
    blocks += [text_content(json.dumps(_described(op), indent=2)) for op in listed]
    return tool_result(list(blocks), False, None)


def _described(operation: Operation) -> dict[str, Any]:
    described: dict[str, Any] = {
        "id": operation.id,
        "tool_name": operation.tool,
        "state": operation.status(),
        "duration_ms": _duration_ms(operation),
    }
    result = operation.result()
    if result is not None:
        described["isError"] = result.isError
        described["output"] = result.text
    return described


def _duration_ms(operation: Operation) -> int:
    end = time.monotonic() if operation.ended is None else operation.ended
    return round((end - operation.started) * 1000)
