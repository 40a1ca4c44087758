"""MCP's own Tasks over a server's background operations, for clients that speak
them: the 2025-11-25 utility and the 2026-07-28 extension
(``io.modelcontextprotocol/tasks``). Each task is an operation, and its id is the
operation's id, so ``status``, ``await`` and ``cancel`` see the tasks too and
``tasks/get`` sees the operations those tools started. Tasks are offered when the
server has tools that go on in the background and may start operations (not
under several workers without a shared backend).

At 2025-11-25:

- ``initialize`` advertises ``tasks`` (``list``, ``cancel``,
  ``requests.tools.call``); tools that go on in the background list
  ``execution.taskSupport: "optional"``.
- A ``tools/call`` whose params hold ``task`` starts the tool as an operation of
  its caller and answers a ``CreateTaskResult`` at once, the background hint in
  ``_meta`` for the model. A tool that cannot go on in the background is
  ``-32601``, as the spec says; input the tool refuses is ``-32602`` naming the
  field (no task is created).
- ``tasks/get``, ``tasks/list``, ``tasks/cancel`` and ``tasks/result`` act on the
  caller's own operations (another caller's id reads as an unknown one,
  ``-32602``): this process's, or every process's when they are shared through
  Redis. ``tasks/result`` waits for the end and answers the tool's
  ``CallToolResult``; ``tasks/cancel`` stops the command's process group and
  answers the task, ``cancelled``.
- Statuses: running is ``working``; completed, failed (an ``isError`` result)
  and cancelled are as named. ``ttl`` is how long a finished operation is kept
  (:data:`~.operations.KEEP_FOR_S`, whatever the client asked: the spec lets
  the receiver choose it); ``pollInterval`` is :data:`POLL_INTERVAL_MS`.

At 2026-07-28 (no handshake, no session):

- ``server/discover`` lists the extension under ``capabilities.extensions``.
- A ``tools/call`` that goes on in the background, from a client whose
  per-request capabilities declare the extension, is waited for as any such call
  is (:data:`~.operation_tools.BACKGROUND_AFTER_S`, Ahma's window): ended by
  then, it answers the tool's result, as it would without the extension;
  still running, a task (``resultType: "task"``). Without the extension it
  answers as before.
- ``tasks/get`` answers the task with the tool's result inline once it has ended
  (an ``isError`` result is a ``completed`` task: ``failed`` is for JSON-RPC
  errors); ``tasks/cancel`` stops the call and acknowledges with an empty result.
  There is no ``tasks/list`` or ``tasks/result`` in this version, and no
  ``tasks/update`` is served (no task ever needs input).

The MCP SDK (2.3) defines the Task types but serves none of this: ``tasks/*`` are
served through ``Server.add_request_handler``, and the ``initialize`` and
``server/discover`` answers and the calls that become tasks through a
``Server.middleware`` entry, since the SDK's own ``tools/call`` result check
takes only a ``CallToolResult``. Earlier protocol versions are served as before
(``tasks/*`` is ``-32601`` there, and a ``task`` in ``tools/call`` params is
ignored).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .operation_record import started_message
from .operation_tools import background_hint
from .operations import KEEP_FOR_S, Caller, Running, Store
from .wire import TASKS_CAPABILITY, TASKS_VERSION

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.lowlevel import Server

    from ..results import ToolResult

POLL_INTERVAL_MS = 500
"""How often a client is asked to poll ``tasks/get``."""

TASKS_PAGE_SIZE = 100
"""How many tasks one ``tasks/list`` answer holds."""

CANCEL_WAIT_S = 5.0
"""How long ``tasks/cancel`` waits for the cancelled call to end before answering
(it reads ``cancelled`` from the moment it was cancelled anyway)."""

EXTENSION = "io.modelcontextprotocol/tasks"
"""The 2026-07-28 Tasks extension's identifier."""

RELATED_TASK = "io.modelcontextprotocol/related-task"
IMMEDIATE_RESPONSE = "io.modelcontextprotocol/model-immediate-response"

_STATUSES = {
    "running": "working",
    "completed": "completed",
    "failed": "failed",
    "cancelled": "cancelled",
}

_MESSAGE_CHARS = 1000
"""The longest ``statusMessage`` (a failed call's text, cut)."""

CallerOf = Callable[["ServerRequestContext[Any]"], Caller]
Start = Callable[
    ["ServerRequestContext[Any]", "mcp_types.CallToolRequestParams"],
    Awaitable[Running],
]
Answer = Callable[["ToolResult"], "mcp_types.CallToolResult"]
GoesOn = Callable[[str, Mapping[str, Any]], bool]


def task_status(operation: Running) -> str:
    """The task status of ``operation`` (``cancelled`` from the moment it is
    cancelled, while its call winds down)."""
    if operation.cancel_reason is not None:
        return "cancelled"
    return _STATUSES[operation.status()]


def task(
    operation: Running, modern: bool = False, created: bool = False
) -> dict[str, Any]:
    """The ``Task`` of ``operation``, as wire JSON: of the 2025-11-25 utility, or
    (``modern``) of the 2026-07-28 extension, where a tool's error result is a
    ``completed`` task (``failed`` is for JSON-RPC errors, which no operation
    ends with) and ``ttl``, ``pollInterval`` are ``ttlMs``, ``pollIntervalMs``.
    ``created``: as it was created, ``working`` (the state every task begins
    in, even one whose call has ended by the time it is answered)."""
    status = "working" if created else task_status(operation)
    ended = None if created else operation.ended
    updated = operation.started_at if ended is None else operation.wall_clock(ended)
    message = _status_message(operation, status)
    if modern and status == "failed":
        status = "completed"
    suffix = "Ms" if modern else ""
    return {
        "taskId": operation.id,
        "status": status,
        "statusMessage": message,
        "createdAt": _iso(operation.started_at),
        "lastUpdatedAt": _iso(updated),
        f"ttl{suffix}": int(KEEP_FOR_S * 1000),
        f"pollInterval{suffix}": POLL_INTERVAL_MS,
    }


def _declares_extension(params: Mapping[str, Any]) -> bool:
    """Whether a request's per-request client capabilities hold the extension."""
    from mcp_types import CLIENT_CAPABILITIES_META_KEY

    meta = params.get("_meta")
    capabilities = (
        meta.get(CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, dict) else None
    )
    extensions = (
        capabilities.get("extensions") if isinstance(capabilities, dict) else None
    )
    return isinstance(extensions, dict) and EXTENSION in extensions


def _status_message(operation: Running, status: str) -> str:
    if status == "working":
        return started_message(operation)
    if status == "cancelled":
        return f"cancelled: {operation.cancel_reason or 'cancelled by the caller'}"
    result = operation.result()
    text = "" if result is None else result.text
    if len(text) > _MESSAGE_CHARS:
        text = text[:_MESSAGE_CHARS] + "…"
    return text or status


def _iso(wall_clock: float) -> str:
    moment = datetime.fromtimestamp(wall_clock, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _not_found(doing: str) -> Exception:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(code=INVALID_PARAMS, message=f"Failed to {doing}: Task not found")


def _method_not_found(method: str) -> Exception:
    from mcp.shared.exceptions import MCPError
    from mcp_types import METHOD_NOT_FOUND

    return MCPError(code=METHOD_NOT_FOUND, message="Method not found", data=method)


class Tasks:
    """The Tasks of one server's operations (see the module docs)."""

    def __init__(
        self,
        operations: Store,
        caller_of: CallerOf,
        start: Start,
        answer: Answer,
        goes_on: GoesOn,
        window: float,
    ) -> None:
        """``start`` starts a ``tools/call`` as an operation (raising the SDK's
        ``MCPError`` for a call that cannot be one); ``answer`` makes a tool's
        result the ``CallToolResult`` MCP sends; ``goes_on`` says whether a call
        of a tool (by name) with these arguments goes on in the background; a call of
        a client declaring the 2026-07-28 extension becomes a task only if it is
        still running after ``window`` seconds, as any call that goes on in the
        background does."""
        self.operations = operations
        self.caller_of = caller_of
        self.start = start
        self.answer = answer
        self.goes_on = goes_on
        self.window = window
        self._server_info: Callable[[], dict[str, Any]] = dict

    def install(self, server: Server[Any]) -> None:
        """Serve the Tasks through ``server``."""
        import mcp_types as types

        self._server_info = lambda: server.server_info_stamp
        server.middleware.append(self.middleware)
        server.add_request_handler("tasks/get", types.GetTaskRequestParams, self.get)
        server.add_request_handler(
            "tasks/result", types.GetTaskPayloadRequestParams, self.result
        )
        server.add_request_handler(
            "tasks/list", types.PaginatedRequestParams, self.list
        )
        server.add_request_handler(
            "tasks/cancel", types.CancelTaskRequestParams, self.cancel
        )

    async def middleware(
        self, ctx: ServerRequestContext[Any], call_next: CallNext
    ) -> HandlerResult:
        """Advertise the capability in ``initialize``, and answer a task-augmented
        ``tools/call``; everything else goes on unchanged."""
        if ctx.method == "initialize":
            answer = await call_next(ctx)
            if isinstance(answer, dict) and answer.get("protocolVersion") == (
                TASKS_VERSION
            ):
                capabilities = answer.setdefault("capabilities", {})
                capabilities["tasks"] = TASKS_CAPABILITY
            return answer
        if ctx.method == "server/discover":
            answer = await call_next(ctx)
            if isinstance(answer, dict):
                capabilities = answer.setdefault("capabilities", {})
                extensions = capabilities.get("extensions") or {}
                capabilities["extensions"] = {**extensions, EXTENSION: {}}
            return answer
        params = ctx.params
        if ctx.method != "tools/call" or not isinstance(params, Mapping):
            return await call_next(ctx)
        if ctx.protocol_version == TASKS_VERSION and params.get("task") is not None:
            operation = await self._started(ctx, params)
            return {
                "task": task(operation, created=True),
                "_meta": {IMMEDIATE_RESPONSE: background_hint(operation)},
            }
        if (
            ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
            and _declares_extension(params)
            and self.goes_on(str(params.get("name")), params.get("arguments") or {})
        ):
            operation = await self._started(ctx, params)
            try:
                finished = await operation.finished_within(self.window)
            except BaseException:
                operation.cancel("the call was cancelled")
                raise
            if finished:
                return self._completed(operation, ctx.protocol_version)
            return {
                "resultType": "task",
                **task(operation, modern=True, created=True),
                "_meta": self._meta({}),
            }
        return await call_next(ctx)

    def _meta(self, meta: Mapping[str, Any]) -> dict[str, Any]:
        """A modern answer's ``_meta``: ``meta`` and the server's identity."""
        from mcp_types import SERVER_INFO_META_KEY

        return {**meta, SERVER_INFO_META_KEY: self._server_info()}

    def _completed(self, operation: Running, version: str) -> dict[str, Any]:
        """The answer of a call that ended within the window, shaped for
        ``version`` as the SDK shapes a call that is not a task."""
        from mcp_types.methods import serialize_server_result

        ended = operation.result()
        assert ended is not None
        answer = {**self._result(ended), "resultType": "complete"}
        shaped = serialize_server_result("tools/call", version, answer)
        shaped["_meta"] = self._meta(shaped.get("_meta") or {})
        return shaped

    async def _started(
        self, ctx: ServerRequestContext[Any], params: Mapping[str, Any]
    ) -> Running:
        import mcp_types as types

        call = types.CallToolRequestParams.model_validate(params, by_name=False)
        return await self.start(ctx, call)

    def _served(self, ctx: ServerRequestContext[Any], modern: bool = False) -> None:
        """Refuse a method of the 2025-11-25 utility at another version (or, with
        ``modern``, one the 2026-07-28 extension has too, at neither)."""
        version = ctx.protocol_version
        if version != TASKS_VERSION and not (
            modern and version in MODERN_PROTOCOL_VERSIONS
        ):
            raise _method_not_found(ctx.method)

    async def _find(
        self, ctx: ServerRequestContext[Any], task_id: str, doing: str
    ) -> Running:
        self._served(ctx, modern=ctx.method in ("tasks/get", "tasks/cancel"))
        operation = await self.operations.find_async(task_id, self.caller_of(ctx))
        if operation is None:
            raise _not_found(doing)
        return operation

    async def get(
        self, ctx: ServerRequestContext[Any], params: mcp_types.GetTaskRequestParams
    ) -> dict[str, Any]:
        """``tasks/get``: the task as it is now (at 2026-07-28, with the tool's
        result once it has ended)."""
        operation = await self._find(ctx, params.task_id, "retrieve task")
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return task(operation)
        detailed = task(operation, modern=True)
        ended = operation.result()
        if detailed["status"] == "completed" and ended is not None:
            # What the call would have answered at this version: resultType too.
            detailed["result"] = {"resultType": "complete", **self._result(ended)}
        return detailed

    def _result(self, ended: ToolResult) -> dict[str, Any]:
        return self.answer(ended).model_dump(
            mode="json", by_alias=True, exclude_none=True, exclude={"result_type"}
        )

    async def result(
        self,
        ctx: ServerRequestContext[Any],
        params: mcp_types.GetTaskPayloadRequestParams,
    ) -> dict[str, Any]:
        """``tasks/result``: once the task has ended, the tool's result."""
        operation = await self._find(ctx, params.task_id, "retrieve task result")
        await operation.finished_within(None)  # the call's own timeout bounds it
        ended = operation.result()
        assert ended is not None
        answer = self._result(ended)
        meta = answer.setdefault("_meta", {})
        meta[RELATED_TASK] = {"taskId": operation.id}
        return answer

    async def list(
        self, ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams
    ) -> dict[str, Any]:
        """``tasks/list``: the caller's tasks, oldest first, in pages."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import INVALID_PARAMS

        self._served(ctx)
        listed = list(await self.operations.listed_async(self.caller_of(ctx)))
        cursor = params.cursor
        start = 0
        if cursor is not None:
            if not cursor.isdigit() or not 0 < int(cursor) < len(listed):
                raise MCPError(
                    code=INVALID_PARAMS, message="Invalid params: unknown cursor"
                )
            start = int(cursor)
        end = start + TASKS_PAGE_SIZE
        answer: dict[str, Any] = {"tasks": [task(op) for op in listed[start:end]]}
        if end < len(listed):
            answer["nextCursor"] = str(end)
        return answer

    async def cancel(
        self, ctx: ServerRequestContext[Any], params: mcp_types.CancelTaskRequestParams
    ) -> dict[str, Any]:
        """``tasks/cancel``: stop the call; the task, cancelled (at 2026-07-28,
        an empty acknowledgement, also for a task that has ended)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import INVALID_PARAMS

        operation = await self._find(ctx, params.task_id, "cancel task")
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if task_status(operation) == "working" and await operation.stop(
            "cancelled by tasks/cancel"
        ):
            await operation.finished_within(CANCEL_WAIT_S)
        elif not modern:
            status = task_status(operation)
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Cannot cancel task: already in terminal status '{status}'",
            )
        return {} if modern else task(operation)
