"""The MCP tools ``status``, ``await`` and ``cancel`` over a server's operations,
answering as Ahma MCP answers (each operation as :mod:`.operation_record` shows it).

- A call that goes on in the background answers at once with
  :func:`background_hint`: ``AHMA ID: op_…``, then how to collect the result.
- Each tool sees only the operations of its caller (see ``operations``): another
  caller's id answers as an unknown one does.
- ``await {tools?, id?}`` waits (at most :data:`AWAIT_LIMIT_S`) for the operation
  ``id``, or for every running operation whose tool name starts with one of the
  comma-separated prefixes ``tools`` (all of them without a filter), and answers
  ``Completed N operations in S.SSs`` and one record per operation; with nothing
  running it lists the finished operations of those ``tools``. A call that asked
  for progress hears of each awaited operation as it finishes (``done`` of
  ``awaited``, with its final message): over HTTP, where a call that went on in
  the background cannot tell its own end, this is how a client hears of it.
- ``status {tools?, id?}`` answers a count, then the running and the finished
  operations' records, at once.
- ``cancel {id, reason?}`` stops an operation and answers Ahma's text and its
  ``tool_hint`` block; without an ``id`` it is a JSON-RPC invalid-params error
  (:class:`InvalidParams`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Mapping
from typing import Any, Protocol

from ..manifest import ToolEntry
from ..results import ToolResult, error_result, text_content, tool_result
from .operation_record import record_text
from .operations import Caller, Running, Store

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
        "title": STATUS,
        "description": "Report the background operations, running and finished, "
        "without waiting for them.",
        "inputSchema": {"type": "object", "properties": _FILTERS},
    },
    {
        "name": AWAIT,
        "title": AWAIT,
        "description": "Wait for background operations to finish and return their "
        "results: the operation `id`, or every running one (of the tools whose names "
        f"start with a prefix in `tools`). Waits at most {AWAIT_LIMIT_S:.0f} s.",
        "inputSchema": {"type": "object", "properties": _FILTERS},
    },
    {
        "name": CANCEL,
        "title": CANCEL,
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


def refused_under_workers(workers: int) -> str:
    """Why a server of ``workers`` processes that share no operations refuses to
    start one (each worker would know only its own)."""
    return (
        f"background operations are off: this server runs {workers} workers, and "
        "an operation started in one would be unknown to the others (its id could "
        "name another worker's job). Set MCIGEN_OPERATIONS_URL=redis://HOST:PORT/DB "
        "(with mcigen-runtime[redis] installed) so that every worker shares them, "
        "or serve with one worker."
    )


def background_hint(operation: Running) -> str:
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


class Finished(Protocol):
    """Where an ``await`` tells of each operation it awaited as it finishes."""

    def finished(
        self, done: int, awaited: int, operation: Running
    ) -> Awaitable[None]: ...


class InvalidParams(Exception):
    """A call the tool refuses as JSON-RPC ``invalid params`` (Ahma's answer to a
    ``cancel`` without a string ``id``), with the error's ``data``."""

    def __init__(self, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


async def call_operation_tool(
    operations: Store,
    name: str,
    arguments: Mapping[str, Any],
    caller: Caller,
    progress: Finished | None = None,
) -> ToolResult:
    """Run ``status``, ``await`` or ``cancel`` (``name``) for ``caller``, over its
    own operations only; an ``await`` tells ``progress`` of each operation it
    awaited as it finishes. Raises :class:`InvalidParams`."""
    if name == CANCEL:
        return await _cancel(operations, arguments, caller)
    for key in ("tools", "id"):
        if key in arguments and not isinstance(arguments[key], str):
            return error_result(f"invalid input for tool '{name}': {key}: not a string")
    prefixes = [p.strip() for p in arguments.get("tools", "").split(",") if p.strip()]
    op_id: str | None = arguments.get("id")
    if name == STATUS:
        return await _status(operations, caller, op_id, prefixes)
    if op_id is not None:
        found = await operations.find_async(op_id, caller)
        return await _await_one(found, op_id, progress)
    listed = list(await operations.listed_async(caller))
    return await _await_all(listed, prefixes, progress)


def _of_tools(operations: list[Running], prefixes: list[str]) -> list[Running]:
    return [
        op
        for op in operations
        if not prefixes or any(op.tool.startswith(p) for p in prefixes)
    ]


async def _status(
    operations: Store, caller: Caller, op_id: str | None, prefixes: list[str]
) -> ToolResult:
    if op_id is None:
        candidates = list(await operations.listed_async(caller))
    else:
        found = await operations.find_async(op_id, caller)
        candidates = [] if found is None else [found]
    wanted = _of_tools(candidates, prefixes)
    active = [op for op in wanted if op.status() == "running"]
    finished = [op for op in wanted if op not in active]
    if op_id is not None:
        summary = f"Operation '{op_id}' {'found' if wanted else 'not found'}"
    else:
        scope = f" for '{', '.join(prefixes)}'" if prefixes else ""
        summary = (
            f"Operations status{scope}: {len(active)} active, {len(finished)} "
            f"completed (total: {len(wanted)})"
        )
    texts = [summary]
    analysis = _concurrency(finished)
    if analysis is not None:
        texts.append(f"\nConcurrency Analysis:\n{analysis}")
    if active:
        texts += ["\n=== ACTIVE OPERATIONS ===", *map(record_text, active)]
    if finished:
        texts += ["\n=== COMPLETED OPERATIONS ===", *map(record_text, finished)]
    return _texts(texts)


def _concurrency(finished: list[Running]) -> str | None:
    """How long finished operations ran before they were first waited for, as a
    share of how long they ran (Ahma's "concurrency analysis")."""
    ran = waited = 0.0
    with_waits = 0
    for op in finished:
        if op.ended is None:
            continue
        ran += op.ended - op.started
        if op.first_waited is not None:
            waited += op.first_waited - op.started
            with_waits += 1
    if ran <= 0:
        return None
    if not with_waits:
        return "OK Excellent concurrency: No blocking waits detected"
    share = waited / ran * 100
    if share < 10:
        return f"OK Good concurrency efficiency: {share:.1f}% of execution time spent waiting"
    if share < 50:
        return (
            f"WARNING Moderate concurrency efficiency: {share:.1f}% of execution "
            "time spent waiting"
        )
    return (
        f"WARNING Low concurrency efficiency: {share:.1f}% of execution time spent "
        "waiting. Consider using status tool instead of frequent waits."
    )


async def _finishing(pending: list[Running], progress: Finished | None) -> None:
    """Wait (at most :data:`AWAIT_LIMIT_S`) until every operation of ``pending``
    has finished, telling ``progress`` of each as it does."""
    done = 0

    async def one(operation: Running) -> None:
        nonlocal done
        if await operation.finished_within(AWAIT_LIMIT_S) and progress is not None:
            done += 1
            await progress.finished(done, len(pending), operation)

    await asyncio.gather(*map(one, pending))


async def _await_one(
    operation: Running | None, op_id: str, progress: Finished | None
) -> ToolResult:
    if operation is None:
        return _texts([f"Operation {op_id} not found"])
    if operation.status() != "running":
        return _texts([f"Operation {op_id} already completed", record_text(operation)])
    started = time.monotonic()
    await _finishing([operation], progress)
    if operation.status() == "running":
        return _texts([f"Timeout waiting for operation {op_id}"])
    return _completed([operation], started)


async def _await_all(
    listed: list[Running], prefixes: list[str], progress: Finished | None
) -> ToolResult:
    wanted = _of_tools(listed, prefixes)
    pending = [op for op in wanted if op.status() == "running"]
    if not pending:
        if not prefixes:
            return _texts(["No pending operations to await for."])
        scope = f"No pending operations for tools: {', '.join(prefixes)}"
        if not wanted:
            return _texts([scope])
        recent = f"{scope}. However, these operations recently completed:"
        return _texts([recent, *map(record_text, wanted)])
    started = time.monotonic()
    await _finishing(pending, progress)
    still = [op for op in pending if op.status() == "running"]
    if not still:
        return _completed(pending, started)
    lines = [
        f"Wait operation timed out after {time.monotonic() - started:.2f}s "
        f"(configured timeout: {AWAIT_LIMIT_S:.0f}s).",
        "",
        f"Progress: {len(pending) - len(still)}/{len(pending)} operations completed "
        "during await.",
        f"Still running: {len(still)} operations.",
        "",
        "Suggestions:",
        "\u2022 Use the 'status' tool to check remaining operations",
        "\u2022 Operations continue running in background - they may complete shortly",
        "",
        "Still running operations:",
        *(f"\u2022 {op.id} ({op.tool})" for op in still),
    ]
    return _texts(["\n".join(lines)])


def _completed(finished: list[Running], started: float) -> ToolResult:
    took = time.monotonic() - started
    summary = f"Completed {len(finished)} operations in {took:.2f}s"
    return _texts([summary, *map(record_text, finished)])


async def _cancel(
    operations: Store, arguments: Mapping[str, Any], caller: Caller
) -> ToolResult:
    if "id" not in arguments:
        raise InvalidParams("id parameter is required", {"missing_param": "id"})
    op_id = arguments["id"]
    if not isinstance(op_id, str):
        raise InvalidParams("id must be a string", {"id": op_id})
    reason = arguments.get("reason")
    if reason is not None and not isinstance(reason, str):
        return error_result("invalid input for tool 'cancel': reason: not a string")
    operation = await operations.find_async(op_id, caller)
    if operation is None:
        said = (
            f"FAIL Operation '{op_id}' not found. It may have already completed or "
            "never existed."
        )
    elif await operation.stop(reason):
        why = reason or "No reason provided (default: user-initiated)"
        said = (
            f"OK Operation '{op_id}' has been cancelled successfully.\n"
            f"String: reason='{why}'.\nHint: Consider restarting the operation if "
            "needed."
        )
    else:
        said = (
            f"WARNING Operation '{op_id}' is already {operation.status()} and cannot "
            "be cancelled."
        )
    return _texts([said, _restart_hint(op_id)])


def _restart_hint(op_id: str) -> str:
    """The machine-readable block that follows every ``cancel`` answer."""
    hint = {
        "tool_hint": {
            "suggested_tool": STATUS,
            "reason": "Operation cancelled; check status and consider restarting",
            "next_steps": [
                {"tool": STATUS, "args": {"id": op_id}},
                {"tool": AWAIT, "args": {"tools": "", "timeout_seconds": 360}},
            ],
        }
    }
    return json.dumps(hint, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _texts(texts: list[str]) -> ToolResult:
    return tool_result([text_content(text) for text in texts], False, None)
