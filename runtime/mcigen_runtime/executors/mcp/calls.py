"""Calling tools on MCP servers, with one long-lived session per server.

Every session lives on a single background thread that runs its own asyncio
event loop. A session is owned by one task on that loop, which enters the
transport and the ``ClientSession`` (anyio cancel scopes must be left in the
task that entered them), initializes it, and then waits to be told to stop.
Calls from any thread or event loop are handed to that loop, so sync and async
callers share the same sessions and a stdio server is started once per process.

Every call is bounded: in the time it waits for its answer (the server's
``config.timeout_ms``, 60 s unless it says otherwise, or the caller's ``_timeout``;
the SDK then tells the server the call is cancelled, and the session serves on; a
new session's start has a bound of its own), and in the size of the answer (the
``mcp_result`` limit, enforced by the transports: :mod:`mcigen_runtime.executors.mcp.stdio`,
:mod:`mcigen_runtime.executors.mcp.http_bounds`). A call that finds its connection broken (the server
process died, the HTTP server went away) discards the session; it is made again
on a fresh one only when its request never went out, or the server never ran it
(a restarted HTTP server that no longer knows the session), or the tool says it
may run twice (``readOnlyHint`` or ``idempotentHint``). Sessions are closed at
interpreter exit, which also stops stdio server processes.

A tool its server lists with ``execution.taskSupport: "required"`` is called as a
task (MCP 2025-11-25) when the server declares task calls: see
:mod:`mcigen_runtime.executors.mcp.tasks`.

A result's content items are the server's, kind for kind (annotations too). The
progress the server reports during a call goes to the call's progress listener,
if its caller set one (:mod:`mcigen_runtime.executors.progress`).

The MCP SDK is imported lazily: a package whose schema has no MCP tools, or that
never calls one, does not pay for importing it.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from pydantic import ValidationError

from ...errors import ToolInputError
from ...extras import require_extra
from ...limits import DEFAULT, MAX_TIMEOUT_S, Limits, active
from ...results import (
    STRUCTURED_CONTENT,
    AudioContent,
    Content,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    ToolResult,
    error_result,
    text_content,
)
from ..child_env import network_settings, over_base
from ..progress import ProgressListener, progress_listener
from .exchange import Exchange, current, too_large_message
from .tasks import TaskChannel, TaskError, call_as_task, task_channel

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp_types import CallToolResult

require_extra("mcp")

__all__ = [
    "McpCall",
    "McpConnectionError",
    "McpServerParams",
    "call_mcp_tool",
    "call_mcp_tool_async",
    "close_mcp_sessions",
    "list_mcp_tools",
    "start_mcp_sessions",
    "start_outcomes",
    "stop_listed_session",
]

_T = TypeVar("_T")

logger = logging.getLogger(__name__)

#: How long a new session may take to finish ``initialize``.
STARTUP_TIMEOUT = 60.0
#: How long a tool call (or a page of a listing) may wait for its answer, unless
#: the server's ``config.timeout_ms`` or the caller says otherwise.
CALL_TIMEOUT = 60.0
#: How much longer than its timeout a call may take to give up on its own (the
#: SDK's read timeout starts once the request is written) before it is stopped.
_CALL_GRACE = 1.0
#: The most a listing (``tools/list``, every page) may hold: a server answering
#: each page with a new ``nextCursor`` would otherwise be listed for ever.
LIST_PAGES = 1_000
LIST_TOOLS = 10_000
LIST_BYTES = 32 * 1024 * 1024
#: How long closing all sessions may take before it is given up.
CLOSE_TIMEOUT = 15.0
#: The SDK's own defaults for Streamable HTTP: 30 s, and 300 s to read a stream.
_HTTP_TIMEOUT = 30.0
_HTTP_READ_TIMEOUT = 300.0


@dataclass(frozen=True)
class McpServerParams:
    """One MCP server's connection settings, already resolved from the run-time environment."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    call_timeout: float = field(default=CALL_TIMEOUT, compare=False)
    """Seconds a call, or a page of a listing, may wait for its answer once the
    session is open (its start has a bound of its own, STARTUP_TIMEOUT); not part
    of what makes two servers one."""


@dataclass(frozen=True, slots=True)
class McpCall:
    """A tool call ready to make: the server's settings and the tool's arguments."""

    server: McpServerParams
    arguments: dict[str, Any]


class McpConnectionError(Exception):
    """An MCP server could not be reached or did not answer a request."""


class _StartupError(Exception):
    """A session could not be started; the message is a one-line reason."""


class _ListingTooLarge(Exception):
    """A listing past LIST_PAGES, LIST_TOOLS or LIST_BYTES; the message says which."""


class _Entry:
    """One server's session and the task that owns it."""

    __slots__ = ("session", "tasks", "ready", "stop", "error", "closed", "listed")

    def __init__(self) -> None:
        self.session: ClientSession | None = None
        self.tasks: TaskChannel | None = None  # None: the server takes no task calls
        self.ready = asyncio.Event()
        self.stop = asyncio.Event()
        self.error: str | None = None
        self.closed = False  # closed by close_mcp_sessions(): no restart
        self.listed = False  # opened by a listing that kept it for calls to come


# --------------------------------------------------------------------------- loop thread

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_thread_id: int | None = None
# Only touched on the loop thread.
_sessions: dict[McpServerParams, _Entry] = {}
_owners: dict[asyncio.Task[None], _Entry] = {}
# The last start of each server, by name: None when its session opened, else why
# it did not. Written on the loop thread, copied whole by start_outcomes().
_outcomes: dict[str, str | None] = {}


def _get_loop() -> asyncio.AbstractEventLoop:
    global _loop, _loop_thread_id
    with _lock:
        if _loop is not None:
            return _loop
        loop = asyncio.new_event_loop()
        started = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(started.set)
            loop.run_forever()

        thread = threading.Thread(target=run, name="mcigen-mcp-sessions", daemon=True)
        thread.start()
        started.wait()
        _loop_thread_id = thread.ident
        _loop = loop
        atexit.register(_close_at_exit)
        return loop


def _submit(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coro`` on the session loop and wait for it from this (non-loop) thread."""
    loop = _loop or _get_loop()
    if threading.get_ident() == _loop_thread_id:
        raise RuntimeError(
            "MCP tools cannot be called synchronously from the MCP session thread"
        )
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise


# --------------------------------------------------------------------------- sessions


_devnull: TextIO | None = None


def _errlog() -> TextIO:
    """Where a stdio server's stderr goes: ours, if it is a real file."""
    global _devnull
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    if _devnull is None:
        _devnull = open(os.devnull, "w")  # kept open for the process's life
    return _devnull


async def _open_transport(server: McpServerParams, stack: AsyncExitStack) -> Any:
    if server.url is not None:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        from .http_bounds import bounded_client

        client = bounded_client(
            dict(server.headers),
            httpx2.Timeout(_HTTP_TIMEOUT, read=_HTTP_READ_TIMEOUT),
        )
        await stack.enter_async_context(client)
        return await stack.enter_async_context(
            streamable_http_client(
                server.url, http_client=client, max_sse_event_size=None
            )
        )
    if server.command is None:
        raise _StartupError("it has neither a command nor a url")
    from mcp.client.stdio import get_default_environment

    from .stdio import stdio_transport

    # Not the host's secrets: see .child_env.
    env = get_default_environment() | over_base(dict(server.env), network_settings())
    return await stack.enter_async_context(
        stdio_transport(server.command, server.args, env, _errlog())
    )


async def _own_session(server: McpServerParams, entry: _Entry) -> None:
    """The task that owns one session, from start to stop."""
    import anyio
    from mcp import ClientSession
    from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

    started = time.monotonic()
    try:
        async with AsyncExitStack() as stack:
            read, write = await _open_transport(server, stack)
            # the session's own dispatcher, kept for the calls made as tasks (.tasks)
            dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(read, write)
            session = await stack.enter_async_context(
                ClientSession(dispatcher=dispatcher)
            )
            try:
                with anyio.fail_after(STARTUP_TIMEOUT):
                    initialized = await session.initialize()
            except TimeoutError:
                raise _StartupError(
                    f"it did not finish initializing within {STARTUP_TIMEOUT:g} s"
                ) from None
            entry.tasks = task_channel(dispatcher, initialized)
            entry.session = session
            entry.ready.set()
            _outcomes[server.name] = None
            _log_session("MCP server started", server, started)
            await entry.stop.wait()
        _log_session("MCP server session closed", server, started)
    except BaseException as exc:
        # The task ends here, whatever happened; the callers get the reason.
        if entry.session is None and isinstance(exc, Exception):
            entry.error = _reason(exc)
            _outcomes[server.name] = entry.error
            _log_session("MCP server did not start", server, started, entry.error)
    finally:
        entry.session = None
        entry.ready.set()
        if _sessions.get(server) is entry:
            del _sessions[server]


def _log_session(
    message: str, server: McpServerParams, since: float, error: str | None = None
) -> None:
    fields: dict[str, Any] = {
        "server": server.name,
        "duration_ms": round((time.monotonic() - since) * 1000, 1),
    }
    if error is not None:
        fields["error"] = error
    logger.debug(message, extra={"fields": fields})  # see edge.logs


async def _session_for(server: McpServerParams) -> tuple[_Entry, ClientSession]:
    """The server's open session, started if there is none (once, however many callers)."""
    entry = _sessions.get(server)
    if entry is None:
        entry = _sessions[server] = _Entry()
        task = asyncio.get_running_loop().create_task(_own_session(server, entry))
        _owners[task] = entry
        task.add_done_callback(_forget_owner)
    await entry.ready.wait()
    session = entry.session
    if session is None:
        raise _StartupError(
            f"could not start MCP server '{server.name}': {entry.error or 'its session was closed'}"
        )
    return entry, session


def _forget_owner(task: asyncio.Task[None]) -> None:
    _owners.pop(task, None)


def _discard(server: McpServerParams, entry: _Entry) -> bool:
    """Stop a broken session; whether a fresh one may be started in its place."""
    if entry.closed:
        return False
    if _sessions.get(server) is entry:
        del _sessions[server]
    entry.stop.set()
    return True


async def _close_all() -> None:
    owners = list(_owners.items())
    _sessions.clear()
    for task, entry in owners:
        entry.closed = True
        if entry.ready.is_set():
            entry.stop.set()
        else:
            # Still starting (up to STARTUP_TIMEOUT): give up on it now.
            task.cancel()
    pending = [task for task, _entry in owners if not task.done()]
    if pending:
        _done, late = await asyncio.wait(pending, timeout=CLOSE_TIMEOUT)
        for task in late:
            task.cancel()


# --------------------------------------------------------------------------- errors


def _leaf(exc: BaseException) -> BaseException:
    """The first real exception inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    """A one-line description of a failure, without a traceback."""
    exc = _leaf(exc)
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, (_StartupError, _ListingTooLarge, TaskError, MCPError)):
        text = str(exc)
    elif isinstance(exc, TimeoutError) and not str(exc):
        text = "timed out"
    else:
        message = str(exc)
        text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return " ".join(text.split()) or type(exc).__name__


def _is_broken(exc: BaseException) -> bool:
    """Whether the exception says the connection is gone (so a new session may help)."""
    if isinstance(exc, BaseExceptionGroup):
        return any(_is_broken(e) for e in exc.exceptions)
    import anyio
    import httpx2
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    if isinstance(exc, MCPError):
        return exc.code == CONNECTION_CLOSED or _session_unknown(exc)
    if isinstance(exc, TimeoutError):  # an OSError, but a call that took too long
        return False
    return isinstance(
        exc,
        (
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            anyio.EndOfStream,
            OSError,
            httpx2.TransportError,
        ),
    )


def _session_unknown(exc: BaseException) -> bool:
    """Whether the server refused the request because it does not know the session:
    a Streamable HTTP server that restarted answers 404 "Session not found" (before
    running anything), which the SDK turns into an error."""
    from mcp.shared.exceptions import MCPError

    exc = _leaf(exc)
    if not isinstance(exc, MCPError):
        return False
    message = exc.message.lower()
    return "session" in message and ("not found" in message or "terminated" in message)


def _timed_out(exc: BaseException) -> bool:
    from mcp.shared.exceptions import MCPError
    from mcp_types import REQUEST_TIMEOUT

    exc = _leaf(exc)
    return isinstance(exc, TimeoutError) or (
        isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT
    )


class _NotRetried(Exception):
    """The connection broke after the request went out, and the tool may have
    effects: running it again could do them twice."""

    def __init__(self, server: McpServerParams, tool: str, cause: Exception) -> None:
        super().__init__(
            f"MCP server '{server.name}' died during the call to '{tool}' "
            f"({_reason(cause)}); it was not retried, because the tool may have had "
            "effects (it is not annotated readOnlyHint or idempotentHint)"
        )


def _failure(
    tool: str,
    exc: Exception,
    exchange: Exchange,
    seconds: float,
) -> str:
    """The text of the error result of a call that failed with ``exc``."""
    if exchange.too_large:
        return too_large_message(tool, exchange.limit)
    if _timed_out(exc):
        return f"MCP tool '{tool}' did not answer within {seconds:g} s; the call was cancelled"
    if isinstance(exc, _NotRetried):
        return str(exc)
    return f"Failed to execute MCP tool '{tool}': {_reason(exc)}"


async def _with_session(
    server: McpServerParams, op: Callable[[ClientSession], Awaitable[_T]]
) -> _T:
    """Run ``op`` on the server's session, retrying once on a fresh session if it broke."""
    entry, session = await _session_for(server)
    try:
        return await op(session)
    except Exception as exc:
        if not _is_broken(exc) or not _discard(server, entry):
            raise
    return await op((await _session_for(server))[1])


# --------------------------------------------------------------------------- results


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


_KINDS: dict[str, type[Content]] = {
    "text": TextContent,
    "image": ImageContent,
    "audio": AudioContent,
    "resource": EmbeddedResource,
    "resource_link": ResourceLink,
}


def _content(item: Any) -> Content:
    """The SDK's content item as the result's own: every kind MCP defines as it
    came (annotations and ``_meta`` too), a kind it does not as the text of its
    JSON."""
    if item.type == "text" and item.annotations is None and item.meta is None:
        return text_content(item.text)
    wire = item.model_dump(by_alias=True, exclude_none=True, mode="json")
    kind = _KINDS.get(item.type)
    if kind is not None:
        try:
            return kind.model_validate(wire)
        except ValidationError:
            pass
    return text_content(_json(wire))


async def _call_tool(
    session: ClientSession,
    tool: str,
    arguments: dict[str, Any],
    seconds: float,
    listener: ProgressListener | None,
) -> CallToolResult:
    """``tools/call``, without ``ClientSession.call_tool``'s check of the structured
    content: that lists the server's tools on the first call of each tool (a round
    trip per session, and one per call of a tool the server no longer lists) and
    turns content that does not match the outputSchema into an exception, losing
    the result. A generated function checks it with its model instead
    (``structured.py``).

    With a ``listener``, the request asks for progress, and the listener hears
    each ``notifications/progress`` the server sends for it."""
    import mcp_types

    request = mcp_types.CallToolRequest(
        params=mcp_types.CallToolRequestParams(name=tool, arguments=arguments)
    )
    on_progress = None
    if listener is not None:

        async def on_progress(
            progress: float, total: float | None, message: str | None
        ) -> None:
            listener(progress, total, message)

    return await session.send_request(
        request,
        mcp_types.CallToolResult,
        request_read_timeout_seconds=seconds,
        progress_callback=on_progress,
    )


def _tool_result(result: CallToolResult, metadata: dict[str, Any]) -> ToolResult:
    content = [_content(item) for item in result.content]
    structured = result.structured_content
    if structured is not None:
        metadata[STRUCTURED_CONTENT] = structured
        if not content:
            content.append(text_content(_json(structured)))
    return ToolResult.model_construct(
        content=content, isError=bool(result.is_error), metadata=metadata
    )


async def _call(
    server: McpServerParams,
    tool: str,
    arguments: dict[str, Any],
    seconds: float,
    limit: int,
    repeatable: bool,
    listener: ProgressListener | None,
    as_task: bool,
) -> ToolResult:
    """``repeatable``: the tool may run twice (see :func:`call_mcp_tool`);
    ``listener`` hears the progress the server reports; ``as_task``: the call is
    made as a task when the server takes task calls."""
    metadata: dict[str, Any] = {"mcp_server": server.name, "mcp_tool": tool}
    exchange = Exchange(limit)
    current.set(exchange)  # this task's own context: nothing to reset
    try:
        # The fast path, inlined: one dict lookup, then the call.
        entry = _sessions.get(server)
        session = entry.session if entry is not None else None
        if entry is None or session is None:
            entry, session = await _session_for(server)
        try:
            tasks = entry.tasks if as_task else None
            result = await _call_within(
                session, tasks, tool, arguments, seconds, listener
            )
        except Exception as exc:
            if exchange.too_large or not _is_broken(exc):
                raise
            if not _discard(server, entry):
                raise
            if exchange.sent and not repeatable and not _session_unknown(exc):
                raise _NotRetried(server, tool, exc) from None
            exchange = Exchange(limit)
            current.set(exchange)
            entry, session = await _session_for(server)
            tasks = entry.tasks if as_task else None
            result = await _call_within(
                session, tasks, tool, arguments, seconds, listener
            )
    except Exception as exc:  # every failure becomes an error result
        return error_result(_failure(tool, exc, exchange, seconds), metadata)
    return _tool_result(result, metadata)


async def _call_within(
    session: ClientSession,
    tasks: TaskChannel | None,
    tool: str,
    arguments: dict[str, Any],
    seconds: float,
    listener: ProgressListener | None,
) -> CallToolResult:
    """The tool's answer, made as a task through ``tasks`` if given (bounded on
    its own: ``seconds``, then its task's cancellation). Past ``seconds`` the
    SDK's read timeout gives up on the request and tells the server so; anything
    else that hangs is stopped a little later."""
    import anyio

    if tasks is not None:
        return await call_as_task(session, tasks, tool, arguments, seconds)
    with anyio.fail_after(seconds + _CALL_GRACE):
        return await _call_tool(session, tool, arguments, seconds, listener)


async def _list_tools(server: McpServerParams, keep: bool) -> list[dict[str, Any]]:
    """Every page of the listing, all of them within the server's call timeout;
    unless ``keep``, the session closed afterwards if the listing opened it."""
    opened_here = server not in _sessions
    try:
        return await _listing(server)
    finally:
        if opened_here and not keep:
            await _close(server)
        elif opened_here and server in _sessions:
            _sessions[server].listed = True


async def _close(server: McpServerParams) -> None:
    """Close the server's session, if it has one, and wait until it is closed (a
    stdio server stopped)."""
    entry = _sessions.pop(server, None)
    if entry is None:
        return
    entry.stop.set()
    owners = [task for task, owned in _owners.items() if owned is entry]
    if owners:
        await asyncio.wait(owners, timeout=CLOSE_TIMEOUT)


async def _listing(server: McpServerParams) -> list[dict[str, Any]]:
    import anyio
    from mcp_types import PaginatedRequestParams

    async def op(session: ClientSession) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        size = 0
        seen: set[str] = set()
        cursor: str | None = None
        with anyio.fail_after(server.call_timeout):
            for _ in range(LIST_PAGES):
                params = (
                    None if cursor is None else PaginatedRequestParams(cursor=cursor)
                )
                page = await session.list_tools(params=params)
                for tool in page.tools:
                    wire = tool.model_dump(
                        by_alias=True, exclude_none=True, mode="json"
                    )
                    size += len(_json(wire))
                    tools.append(wire)
                if len(tools) > LIST_TOOLS or size > LIST_BYTES:
                    raise _ListingTooLarge(
                        f"it lists more than {LIST_TOOLS} tools or {LIST_BYTES} bytes"
                    )
                cursor = page.next_cursor
                if not cursor or cursor in seen:
                    return tools
                seen.add(cursor)
        raise _ListingTooLarge(
            f"it lists more than {LIST_PAGES} pages, each with a new nextCursor"
        )

    return await _with_session(server, op)


# --------------------------------------------------------------------------- public API


def call_mcp_tool(
    server: McpServerParams,
    tool: str,
    arguments: dict[str, Any],
    timeout: float | None = None,
    *,
    limits: Limits = DEFAULT,
    repeatable: bool = False,
    task_support: str = "forbidden",
) -> ToolResult:
    """Call ``tool`` on the server; works inside and outside a running event loop.

    Args:
        timeout: Seconds the call may wait for its answer once the session is
            open (a generated function's ``_timeout``); None for the server's
            ``call_timeout``. Past it the call is cancelled, on the server too,
            and its result is an error.
        limits: The package's limits, as a caller's ``limited()`` changes them:
            ``mcp_result`` bounds each message of the answer.
        repeatable: The tool is annotated ``readOnlyHint`` or ``idempotentHint``,
            so a call that lost its connection after its request went out may
            be made again on a fresh session.
        task_support: The tool's ``execution.taskSupport`` on its server. A
            ``required`` tool is called as a task when the server declares
            task calls (``tasks.requests.tools.call``): the same result, in the
            same bounds, its task cancelled when the call is; ``optional`` and
            ``forbidden`` ones are called plainly.

    Raises:
        ToolInputError: ``timeout`` is not a positive number.
    """
    call = _bounded(server, tool, arguments, timeout, limits, repeatable, task_support)
    return _submit(call)


async def call_mcp_tool_async(
    server: McpServerParams,
    tool: str,
    arguments: dict[str, Any],
    timeout: float | None = None,
    *,
    limits: Limits = DEFAULT,
    repeatable: bool = False,
    task_support: str = "forbidden",
) -> ToolResult:
    """Call ``tool`` on the server from any asyncio event loop, as
    :func:`call_mcp_tool` does. Cancelling the awaiting task cancels the call on
    the server too."""
    call = _bounded(server, tool, arguments, timeout, limits, repeatable, task_support)
    loop = _loop or _get_loop()
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call, loop))


def _bounded(
    server: McpServerParams,
    tool: str,
    arguments: dict[str, Any],
    timeout: float | None,
    limits: Limits,
    repeatable: bool,
    task_support: str,
) -> Coroutine[Any, Any, ToolResult]:
    """The call, its bounds and progress listener taken in the caller's context
    (where ``limited()`` and ``progress_to()`` apply), to run on the session loop."""
    seconds = _seconds(server, tool, timeout)
    limit = active(limits).mcp_result
    listener = progress_listener()
    as_task = task_support == "required"
    return _call(server, tool, arguments, seconds, limit, repeatable, listener, as_task)


def _seconds(server: McpServerParams, tool: str, timeout: object) -> float:
    if timeout is None:
        return server.call_timeout
    if isinstance(timeout, int | float) and not isinstance(timeout, bool):
        if timeout > 0:
            return float(min(timeout, MAX_TIMEOUT_S))
    problem = f"must be a positive number of seconds or None, not {timeout!r}"
    raise ToolInputError(tool, [("_timeout", problem)])


def list_mcp_tools(
    server: McpServerParams, *, keep: bool = True
) -> list[dict[str, Any]]:
    """Every tool the server lists (following pagination), each as its JSON wire form.

    ``keep``: the session stays open for the calls to come (the broker's start,
    ``MCIClient``'s build); False: a session the listing opened is closed once it
    is done, its server stopped (a build, which only lists).

    Keys are camelCase (``name``, ``description``, ``inputSchema``,
    ``annotations`` with ``readOnlyHint`` and so on), as
    ``model_dump(by_alias=True, exclude_none=True, mode="json")`` gives them.

    The whole listing, every page, must come within the server's
    ``call_timeout`` and hold at most LIST_PAGES pages, LIST_TOOLS tools and
    LIST_BYTES bytes of tools.

    Raises:
        McpConnectionError: The server could not be started or reached, did
            not answer the listing in time, or listed past those bounds; the
            message is one line, naming the server.
    """
    try:
        return _submit(_list_tools(server, keep))
    except _StartupError as exc:
        raise McpConnectionError(str(exc)) from None
    except TimeoutError:
        raise McpConnectionError(
            f"MCP server '{server.name}' did not list its tools: not every page "
            f"within {server.call_timeout:g} s"
        ) from None
    except Exception as exc:
        raise McpConnectionError(
            f"MCP server '{server.name}' did not list its tools: {_reason(exc)}"
        ) from None


def start_mcp_sessions(
    servers: list[McpServerParams],
) -> list[concurrent.futures.Future[Any]]:
    """Start the session of each of ``servers`` in the background, as its first
    call would, without waiting: a future for each, which fails with
    :class:`McpConnectionError` when its server does not start
    (:func:`start_outcomes` tells it too)."""
    loop = _loop or _get_loop()
    return [
        asyncio.run_coroutine_threadsafe(_started(server), loop) for server in servers
    ]


async def _started(server: McpServerParams) -> None:
    try:
        await _session_for(server)
    except _StartupError as exc:
        raise McpConnectionError(str(exc)) from None


def stop_listed_session(server: McpServerParams) -> None:
    """Close the server's session if a listing opened it and kept it (``keep``),
    for calls that will not come, and wait until it is closed (a stdio server
    stopped); a session opened otherwise, a caller's, is left open. Later calls
    start a new one."""
    if _loop is not None:
        _submit(_close_listed(server))


async def _close_listed(server: McpServerParams) -> None:
    entry = _sessions.get(server)
    if entry is not None and entry.listed:
        await _close(server)


def start_outcomes() -> dict[str, str | None]:
    """How the last start of each MCP server this process started went, by the
    server's name: None when its session opened, else the one-line reason it did
    not. A server not yet started, or still starting, is not in it."""
    return dict(_outcomes)


def close_mcp_sessions() -> None:
    """Close every open MCP session and stop the stdio server processes.

    Runs at interpreter exit; later calls start new sessions as needed.
    """
    loop = _loop
    if loop is None or not loop.is_running():
        return
    if threading.get_ident() == _loop_thread_id:
        raise RuntimeError("close_mcp_sessions() cannot run on the MCP session thread")
    future = asyncio.run_coroutine_threadsafe(_close_all(), loop)
    try:
        future.result(timeout=CLOSE_TIMEOUT + 5)
    except Exception:  # closing is best effort
        future.cancel()


def _close_at_exit() -> None:
    """close_mcp_sessions() at interpreter exit, after every non-daemon thread ended.

    By then ``concurrent.futures`` has shut its thread pools down, so closing an
    HTTP session cannot resolve a host name for its DELETE request; the SDK
    logs that as a warning, which is only noise at exit (the server expires the
    session on its own).
    """
    import logging

    def quiet(record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Session termination failed")

    logger = logging.getLogger("mcp.client.streamable_http")
    logger.addFilter(quiet)
    try:
        close_mcp_sessions()
    finally:
        logger.removeFilter(quiet)
