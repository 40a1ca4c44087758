"""An MCP server written with the official SDK's low-level server whose tools
declare ``execution.taskSupport`` (MCP 2025-11-25 Tasks), over stdio:

    python tasks_server.py stdio LOG_DIR [--no-tasks]
    python tasks_server.py http PORT LOG_DIR     (Streamable HTTP at /mcp on 127.0.0.1)

- ``render`` (``required``): waits ``seconds`` (0 by default), then answers
  ``rendered TEXT``; a plain ``tools/call`` of it is refused (``-32601``, as the
  spec says), ``text`` "fail" ends it with an error result.
- ``maybe`` (``optional``): answers at once how it was called (``plain`` or
  ``as a task``).
- ``plain``: no ``execution``; answers ``plain``.
- ``bogus`` (``required``): a hostile server's: its task is no task (a number
  for an id, no status).

The SDK (2.3) defines the Tasks types but serves none of them: a middleware
answers a ``tools/call`` that asks for a task with a ``CreateTaskResult``, and
``tasks/get``, ``tasks/result`` and ``tasks/cancel`` are handlers of their own.
The ``initialize`` answer declares ``tasks`` (``cancel``, ``requests.tools.call``)
unless ``--no-tasks``. Each ``tasks/cancel`` is a line ``cancelled TASK_ID`` of
LOG_DIR/cancelled.log, written before it is answered; each ``tasks/get`` a line of
LOG_DIR/polls.log. The server asks for a poll every 20 ms.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

TASKS = "--no-tasks" not in sys.argv
LOG_DIR = Path([arg for arg in sys.argv if arg != "--no-tasks"][-1])
TERMINAL = ("completed", "failed", "cancelled")

TOOLS = [
    types.Tool(
        name="render",
        description="Renders a text, slowly; only as a task.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}, "seconds": {"type": "number"}},
            "required": ["text"],
        },
        execution=types.ToolExecution(task_support="required"),
    ),
    types.Tool(
        name="maybe",
        description="Says how it was called.",
        input_schema={"type": "object", "properties": {}},
        execution=types.ToolExecution(task_support="optional"),
    ),
    types.Tool(
        name="bogus",
        description="Answers a task that is none.",
        input_schema={"type": "object", "properties": {}},
        execution=types.ToolExecution(task_support="required"),
    ),
    types.Tool(
        name="plain",
        description="Answers plain.",
        input_schema={"type": "object", "properties": {}},
    ),
]


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _text(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], is_error=error
    )


class _Task:
    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self.status = "working"
        self.created = self.updated = _now()
        self.result: types.CallToolResult | None = None
        self.ended = asyncio.Event()
        self.runner: asyncio.Task[None] | None = None

    def end(self, status: str, result: types.CallToolResult | None) -> None:
        if self.status in TERMINAL:
            return
        self.status, self.result, self.updated = status, result, _now()
        self.ended.set()

    def wire(self) -> dict[str, Any]:
        return {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": self.created,
            "lastUpdatedAt": self.updated,
            "ttl": 60_000,
            "pollInterval": 20,
        }


_tasks: dict[str, _Task] = {}
_ids = itertools.count(1)


async def _run(
    name: str, arguments: dict[str, Any], as_task: bool
) -> types.CallToolResult:
    if name == "maybe":
        return _text("as a task" if as_task else "plain")
    if name == "plain":
        return _text("plain")
    await anyio.sleep(float(arguments.get("seconds") or 0))
    text = str(arguments.get("text"))
    if text == "fail":
        return _text("render failed", error=True)
    return _text(f"rendered {text}")


async def _start(task: _Task, name: str, arguments: dict[str, Any]) -> None:
    result = await _run(name, arguments, as_task=True)
    task.end("failed" if result.is_error else "completed", result)


async def tasks_middleware(ctx: Any, call_next: Any) -> Any:
    """A ``tools/call`` with ``task``: a new task, answered at once."""
    params = ctx.params or {}
    if ctx.method != "tools/call" or "task" not in params or not TASKS:
        return await call_next(ctx)
    if params["name"] == "bogus":
        return {"task": {"taskId": 5}}
    task = _Task(f"task-{next(_ids)}")
    _tasks[task.task_id] = task
    coroutine = _start(task, params["name"], params.get("arguments") or {})
    task.runner = asyncio.get_running_loop().create_task(coroutine)
    return {"task": task.wire()}


async def call_tool(
    ctx: Any, params: types.CallToolRequestParams
) -> types.CallToolResult:
    if params.name == "render":
        raise MCPError(
            code=types.METHOD_NOT_FOUND,
            message="tool 'render' must be called as a task",
        )
    return await _run(params.name, params.arguments or {}, as_task=False)


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


def _task(task_id: str) -> _Task:
    task = _tasks.get(task_id)
    if task is None:
        raise MCPError(code=types.INVALID_PARAMS, message="Task not found")
    return task


async def get_task(ctx: Any, params: types.GetTaskRequestParams) -> dict[str, Any]:
    with (LOG_DIR / "polls.log").open("a") as log:
        log.write(f"{params.task_id}\n")
    return _task(params.task_id).wire()


async def task_result(
    ctx: Any, params: types.GetTaskPayloadRequestParams
) -> dict[str, Any]:
    task = _task(params.task_id)
    await task.ended.wait()
    if task.result is None:
        raise MCPError(code=types.INVALID_PARAMS, message="Task was cancelled")
    wire = task.result.model_dump(by_alias=True, mode="json", exclude_none=True)
    related = {"io.modelcontextprotocol/related-task": {"taskId": task.task_id}}
    return {**wire, "_meta": related}


async def cancel_task(
    ctx: Any, params: types.CancelTaskRequestParams
) -> dict[str, Any]:
    task = _task(params.task_id)
    with (LOG_DIR / "cancelled.log").open("a") as log:
        log.write(f"cancelled {task.task_id}\n")
    if task.runner is not None:
        task.runner.cancel()
    task.end("cancelled", None)
    return task.wire()


class TasksServer(Server[Any]):
    """The SDK's server, whose capabilities also say it takes task calls."""

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        capabilities = super().get_capabilities(*args, **kwargs)
        if TASKS:
            call = types.TasksCallCapability()
            capabilities.tasks = types.ServerTasksCapability(
                cancel=types.TasksCancelCapability(),
                requests=types.ServerTasksRequestsCapability(
                    tools=types.TasksToolsCapability(call=call)
                ),
            )
        return capabilities


def build() -> Server[Any]:
    server = TasksServer("tasks", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(tasks_middleware)
    if TASKS:
        server.add_request_handler("tasks/get", types.GetTaskRequestParams, get_task)
        server.add_request_handler(
            "tasks/result", types.GetTaskPayloadRequestParams, task_result
        )
        server.add_request_handler(
            "tasks/cancel", types.CancelTaskRequestParams, cancel_task
        )
    return server


async def stdio() -> None:
    server = build()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream, write_stream, server.create_initialization_options()
        )


def main() -> None:
    if sys.argv[1] == "http":
        import uvicorn

        app = build().streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="error")
    else:
        anyio.run(stdio)


if __name__ == "__main__":
    main()
