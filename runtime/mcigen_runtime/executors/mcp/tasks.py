"""A tool call made as a task (MCP 2025-11-25 Tasks), for a tool whose
``execution.taskSupport`` is ``required``: its server refuses a plain call.

The call asks for a task (``tools/call`` with ``task``), polls ``tasks/get`` at
the server's ``pollInterval`` until the task has ended, and then fetches its
result with ``tasks/result``: the same ``CallToolResult`` a plain call answers.
The whole exchange has the call's bounds; a call that times out or is cancelled
cancels its task on the server (``tasks/cancel``) before it ends.

The SDK (2.3) defines the Tasks types but its session checks a ``tools/call``
answer as a ``CallToolResult``, which a ``CreateTaskResult`` is not: that one
request goes through the session's dispatcher as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp.shared.dispatcher import Dispatcher
    from mcp_types import CallToolResult, InitializeResult

_M = TypeVar("_M", bound=BaseModel)

#: The bounds of the server's ``pollInterval`` (its own, unless it asks for a
#: poll faster or slower than these, in seconds).
POLL_MIN = 0.05
POLL_MAX = 5.0
POLL_DEFAULT = 0.5
#: How long a ``tasks/cancel`` may take, after the call itself has given up.
CANCEL_TIMEOUT = 5.0


class TaskError(Exception):
    """A task call that has no result: the server cancelled the task, or
    answered something that is no task; the message says which."""


@dataclass(frozen=True, slots=True)
class TaskChannel:
    """What a session needs to make task calls: its dispatcher (for the one
    request the session would refuse the answer of) and the protocol version
    it negotiated (its header, over Streamable HTTP)."""

    dispatcher: Dispatcher[Any]
    version: str


def task_channel(
    dispatcher: Dispatcher[Any], initialized: InitializeResult
) -> TaskChannel | None:
    """The channel of a session whose server takes a ``tools/call`` as a task
    (it declares ``tasks.requests.tools.call``); None for any other: the spec
    forbids asking it for tasks, whatever its tools say."""
    tasks = initialized.capabilities.tasks
    requests = None if tasks is None else tasks.requests
    tools = None if requests is None else requests.tools
    if tools is None or tools.call is None:
        return None
    return TaskChannel(dispatcher, initialized.protocol_version)


async def call_as_task(
    session: ClientSession,
    channel: TaskChannel,
    tool: str,
    arguments: dict[str, Any],
    seconds: float,
) -> CallToolResult:
    """The tool's result, made as a task; past ``seconds`` the SDK's timeout
    error (REQUEST_TIMEOUT), once the task is cancelled (within CANCEL_TIMEOUT).
    Raises the SDK's errors as a plain call does, and TaskError."""
    import anyio
    import mcp_types as types
    from mcp.shared.exceptions import MCPError
    from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER

    try:
        with anyio.fail_after(seconds):
            params = {"name": tool, "arguments": arguments, "task": {}}
            headers = {MCP_PROTOCOL_VERSION_HEADER: channel.version}
            options: Any = {"timeout": seconds, "headers": headers}
            created = await channel.dispatcher.send_raw_request(
                "tools/call", params, options
            )
            task: types.Task = _read(types.CreateTaskResult, created).task
            try:
                return await _outcome(session, task, seconds)
            except TaskError:
                raise
            except BaseException:
                await _cancel(session, task.task_id)
                raise
    except TimeoutError:
        # as a plain call's timeout is: not a broken connection (TimeoutError is
        # an OSError), so not one to make again on a fresh session
        timed_out = f"task call of {tool!r} timed out"
        raise MCPError(code=types.REQUEST_TIMEOUT, message=timed_out) from None


async def _outcome(session: ClientSession, task: Any, seconds: float) -> CallToolResult:
    import anyio
    import mcp_types as types

    while task.status == "working":
        await anyio.sleep(_poll_interval(task.poll_interval))
        request = types.GetTaskRequest(
            params=types.GetTaskRequestParams(task_id=task.task_id)
        )
        answer = await session.send_request(
            request, _Answer, request_read_timeout_seconds=seconds
        )
        task = _read(types.GetTaskResult, answer.model_extra)
    if task.status == "cancelled":
        message = f": {task.status_message}" if task.status_message else ""
        raise TaskError(f"the server cancelled task {task.task_id}{message}")
    # completed, failed (its result says why), or input_required, which its
    # result answers once the server needs no more input
    fetch = types.GetTaskPayloadRequest(
        params=types.GetTaskPayloadRequestParams(task_id=task.task_id)
    )
    return await session.send_request(
        fetch, types.CallToolResult, request_read_timeout_seconds=seconds
    )


class _Answer(BaseModel):
    """Any JSON object, read by :func:`_read`."""

    model_config = ConfigDict(extra="allow")


def _read(model: type[_M], answer: Any) -> _M:
    """``answer`` as ``model``; a TaskError that says how it is not one (a
    hostile server's answer, kept out of the message)."""
    try:
        return model.model_validate(answer, by_name=False)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the answer"
        raise TaskError(
            f"the server's answer is not a task ({where}: {first['msg']})"
        ) from None


def _poll_interval(milliseconds: int | None) -> float:
    if milliseconds is None:
        return POLL_DEFAULT
    return min(max(milliseconds / 1000, POLL_MIN), POLL_MAX)


async def _cancel(session: ClientSession, task_id: str) -> None:
    """Tell the server to stop the task, whatever stopped the call (shielded
    from that cancellation, and bounded); if that fails too, the call still
    reports its own failure."""
    import anyio
    import mcp_types as types

    request = types.CancelTaskRequest(
        params=types.CancelTaskRequestParams(task_id=task_id)
    )
    with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_TIMEOUT):
        try:
            await session.send_request(
                request,
                types.CancelTaskResult,
                request_read_timeout_seconds=CANCEL_TIMEOUT,
            )
        except Exception:
            pass
