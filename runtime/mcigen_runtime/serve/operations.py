"""Tool calls run as operations: started now, awaited, looked at or cancelled later.

An :class:`Operation` runs its tool's awaitable entry point on one background
thread with its own event loop (so a call started from plain Python code, or by an
MCP server for a client that will ``await`` it later, outlives whoever started it).
Cancelling an operation cancels that task; a cancelled cli call stops its
command's process group (see :mod:`mcigen_runtime.executors.running`), and every command still running
is stopped when the process exits.

Ids are ``op_`` and 16 random URL-safe characters (``secrets``), so no client can
guess another's. Every operation belongs to the :data:`Caller` that started it:
a table (one per MCP server process, one per package for ``pkg.operations``) lists
to a caller only its own operations and finds only those by id, so another
caller's id reads as an unknown one. A table keeps every running operation and,
of each caller's finished ones, the newest :data:`KEEP_FINISHED` (and of all
callers', :data:`KEEP_FINISHED_IN_ALL`) for at most :data:`KEEP_FOR_S` seconds:
what a client has not collected by then is gone.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import os
import secrets
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..errors import ToolInputError
from ..executors.started import StartedCommand, watch_commands
from ..manifest import ToolEntry
from ..registry import Registry

if TYPE_CHECKING:
    from ..results import ToolResult

State = Literal["running", "completed", "failed", "cancelled"]

Caller = str | None
"""Who starts operations and may see them. A string names one client: its
operations are listed to it and found by it. None is an anonymous caller (an HTTP
request without a session): its operations are found by their id alone, by
anonymous callers, and listed to no one."""

PROCESS: Caller = ""
"""The one client of a process: its own Python code, or a stdio server's client."""

KEEP_FINISHED = 100
"""How many finished operations of each caller a table remembers (the newest)."""

KEEP_FINISHED_IN_ALL = 10 * KEEP_FINISHED
"""How many finished operations a table remembers in all, whatever their callers
(so that many callers cannot grow it without bound)."""

KEEP_FOR_S = 3600.0
"""How long a table remembers a finished operation."""


class Running(Protocol):
    """An operation as a server shows and acts on it: an :class:`Operation` of
    this process, or one shared through Redis (``shared_operations``)."""

    @property
    def id(self) -> str: ...
    @property
    def tool(self) -> str: ...
    @property
    def caller(self) -> Caller: ...
    @property
    def arguments(self) -> dict[str, Any]: ...
    @property
    def started(self) -> float: ...
    @property
    def ended(self) -> float | None: ...
    @property
    def started_at(self) -> float: ...
    @property
    def first_waited(self) -> float | None: ...
    @property
    def command(self) -> StartedCommand | None: ...
    @property
    def cancel_reason(self) -> str | None: ...
    def status(self) -> State: ...
    def result(self) -> ToolResult | None: ...
    def wall_clock(self, moment: float) -> float: ...
    async def finished_within(self, timeout: float | None) -> bool: ...
    def when_done(self, callback: Callable[[], object]) -> None: ...
    def cancel(self, reason: str | None = None) -> bool: ...
    async def stop(self, reason: str | None = None) -> bool: ...


class Store(Protocol):
    """Where a server's operations are: this process's :class:`Operations`, or
    those shared through Redis."""

    async def start_async(
        self, entry: ToolEntry, arguments: Mapping[str, Any], caller: Caller
    ) -> Running: ...
    async def find_async(self, op_id: str, caller: Caller) -> Running | None: ...
    async def listed_async(self, caller: Caller) -> Sequence[Running]: ...


class Operation:
    """One tool call running in the background. Create it with :meth:`Operations.start`."""

    def __init__(self, op_id: str, tool: str, caller: Caller) -> None:
        self.id = op_id
        self.tool = tool
        """The tool's name (its MCI name, or the Ahma name of an MTDF tool)."""
        self.caller = caller
        self.arguments: dict[str, Any] = {}
        """What the tool was called with (set as it starts)."""
        self.started = time.monotonic()
        self.ended: float | None = None
        self.started_at = time.time()
        """When it started, as a wall-clock time (``started`` is monotonic)."""
        self.first_waited: float | None = None
        """Monotonic time of the first wait for it (Ahma's ``first_wait_time``)."""
        self.command: StartedCommand | None = None
        """The command its call started (the last one, for a sequence)."""
        self.cancel_reason: str | None = None
        self._task: concurrent.futures.Future[ToolResult] | None = None
        self._done = threading.Event()

    def status(self) -> State:
        """``running``, ``completed``, ``failed`` (an ``isError`` result) or
        ``cancelled``."""
        if not self._done.is_set():
            return "running"
        if self.cancel_reason is not None:
            return "cancelled"
        result = self.result()
        return "failed" if result is None or result.isError else "completed"

    def result(self) -> ToolResult | None:
        """The finished call's result (an ``isError`` one when it was cancelled);
        None while it runs."""
        if self._task is None or not self._done.is_set():
            return None
        if self.cancel_reason is not None or self._task.cancelled():
            return _error_result()(
                f"operation {self.id} ({self.tool}) was cancelled: "
                f"{self.cancel_reason or 'cancelled'}"
            )
        error = self._task.exception()
        if error is not None:
            return _error_result()(
                f"tool '{self.tool}' failed unexpectedly ({type(error).__name__})"
            )
        return self._task.result()

    def wait(self, timeout: float | None = None) -> ToolResult:
        """The result, once the call has finished. Raises ``TimeoutError`` when it
        has not within ``timeout`` seconds (None: no limit)."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"operation {self.id} ({self.tool}) is still running")
        result = self.result()
        assert result is not None
        return result

    async def finished_within(self, timeout: float | None) -> bool:
        """Wait (in any event loop) until the call has finished or ``timeout``
        seconds have passed; whether it has finished. Cancelling the wait does not
        cancel the operation."""
        if self.first_waited is None:
            self.first_waited = time.monotonic()
        if self._done.is_set():
            return True
        loop = asyncio.get_running_loop()
        finished = loop.create_future()

        def wake() -> None:
            try:
                loop.call_soon_threadsafe(_resolve, finished)
            except RuntimeError:  # that loop is closed: nobody waits any more
                pass

        self.when_done(wake)
        try:
            await asyncio.wait_for(asyncio.shield(finished), timeout)
        except TimeoutError:
            return False
        return True

    def when_done(self, callback: Callable[[], object]) -> None:
        """Call ``callback()`` once the call has finished (at once if it has), on
        the background thread or this one."""
        assert self._task is not None
        self._task.add_done_callback(lambda _: callback())

    def cancel(self, reason: str | None = None) -> bool:
        """Stop the call (its command's process group, for a cli tool); False when
        it had already finished."""
        if self._task is None or self._done.is_set():
            return False
        self.cancel_reason = reason or "cancelled by the caller"
        self._task.cancel()
        return True

    async def stop(self, reason: str | None = None) -> bool:
        """:meth:`cancel`, as a shared operation is cancelled."""
        return self.cancel(reason)

    def wall_clock(self, moment: float) -> float:
        """The wall-clock time of ``moment`` (one of this operation's monotonic
        times)."""
        return self.started_at + (moment - self.started)

    def _command_started(self, command: StartedCommand) -> None:
        self.command = command

    def _finish(self, _: object) -> None:
        self.ended = time.monotonic()
        self._done.set()


@functools.cache
def _error_result() -> Callable[[str], ToolResult]:
    """``results.error_result``, imported once (this module is loaded with the
    server, before pydantic, which ``results`` needs)."""
    from ..results import error_result

    return error_result


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Operations:
    """The operations of one package's tools, by id."""

    def __init__(
        self, registry: Registry, env: Mapping[str, str] | None = None
    ) -> None:
        self.registry = registry
        self.env = env
        """What the tools see as the environment (None: ``os.environ`` at the call)."""
        self._table: dict[str, Operation] = {}
        self._lock = threading.Lock()

    def start(self, name: str, arguments: Mapping[str, Any]) -> Operation:
        """Start the tool ``name`` (its name or Python name) with ``arguments``.
        Raises ``UnknownToolError``, and ``ToolInputError`` before anything runs."""
        entry = self.registry.find(name)
        operation, first_step = self._launch(entry, arguments, PROCESS)
        try:
            first_step.result()
        except ToolInputError:
            self._forget(operation)
            raise
        return operation

    async def start_async(
        self, entry: ToolEntry, arguments: Mapping[str, Any], caller: Caller
    ) -> Operation:
        """:meth:`start` for ``caller``, from an event loop, which it does not block.
        Cancelled before it returns, it cancels the operation: no one has its id."""
        operation, first_step = self._launch(entry, arguments, caller)
        try:
            await asyncio.shield(asyncio.wrap_future(first_step))
        except ToolInputError:
            self._forget(operation)
            raise
        except asyncio.CancelledError:
            operation.cancel("the call was cancelled")
            raise
        return operation

    def find(self, op_id: str, caller: Caller) -> Operation | None:
        """The operation ``op_id`` when ``caller`` started it, else None."""
        with self._lock:
            operation = self._table.get(op_id)
        return operation if operation and operation.caller == caller else None

    async def find_async(self, op_id: str, caller: Caller) -> Operation | None:
        """:meth:`find`, as a :class:`Store` is asked."""
        return self.find(op_id, caller)

    async def listed_async(self, caller: Caller) -> list[Operation]:
        """:meth:`listed`, as a :class:`Store` is asked."""
        return self.listed(caller)

    def listed(self, caller: Caller) -> list[Operation]:
        """Every operation of ``caller`` remembered, oldest first (none for an
        anonymous caller)."""
        if caller is None:
            return []
        with self._lock:
            self._forget_old()
            return [op for op in self._table.values() if op.caller == caller]

    def _launch(
        self, entry: ToolEntry, arguments: Mapping[str, Any], caller: Caller
    ) -> tuple[Operation, concurrent.futures.Future[None]]:
        env = os.environ if self.env is None else self.env
        call = self.registry.call_async(entry.name, dict(arguments), env)
        with self._lock:
            self._forget_old()
            operation = Operation(new_id(), entry.name, caller)
            operation.arguments = dict(arguments)
            self._table[operation.id] = operation
        first_step: concurrent.futures.Future[None] = concurrent.futures.Future()
        task = asyncio.run_coroutine_threadsafe(
            _stepped(call, first_step, operation._command_started), _background_loop()
        )
        operation._task = task
        task.add_done_callback(operation._finish)
        return operation, first_step

    def _forget(self, operation: Operation) -> None:
        with self._lock:
            self._table.pop(operation.id, None)

    def _forget_old(self) -> None:
        """Drop each caller's finished operations beyond its newest
        :data:`KEEP_FINISHED`, any beyond the newest :data:`KEEP_FINISHED_IN_ALL`,
        and those finished over :data:`KEEP_FOR_S` ago (the lock is held)."""
        now = time.monotonic()
        newer: dict[Caller, int] = {}
        kept = 0
        for op in reversed(list(self._table.values())):
            if op.ended is None:
                continue
            newer[op.caller] = newer.get(op.caller, 0) + 1
            if (
                newer[op.caller] > KEEP_FINISHED
                or kept >= KEEP_FINISHED_IN_ALL
                or now - op.ended > KEEP_FOR_S
            ):
                del self._table[op.id]
            else:
                kept += 1


def new_id() -> str:
    """An operation id no client can guess: ``op_`` and 96 random bits."""
    return f"op_{secrets.token_urlsafe(12)}"


async def _stepped(
    call: Coroutine[Any, Any, ToolResult],
    first_step: concurrent.futures.Future[None],
    on_command: Callable[[StartedCommand], object],
) -> ToolResult:
    """Run ``call``, telling ``on_command`` of the commands it starts;
    ``first_step`` is settled once it has run up to its first wait, by when a tool
    has validated its input (and started its command): with the
    ``ToolInputError`` that refused it, else with None."""
    watch_commands(on_command)
    asyncio.get_running_loop().call_soon(_settle, first_step)
    try:
        return await call
    except ToolInputError as error:
        if not first_step.done():
            first_step.set_exception(error)
        raise


def _settle(first_step: concurrent.futures.Future[None]) -> None:
    if not first_step.done():
        first_step.set_result(None)


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """The event loop of the thread that runs every operation, started on first use."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(
                target=loop.run_forever, name="mcigen-operations", daemon=True
            ).start()
            _loop = loop
        return _loop
