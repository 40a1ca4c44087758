"""The stdio transport of MCP sessions: the server is a child process, and JSON-RPC
messages go one per line over its stdin and stdout.

mcigen carries its own instead of the SDK's ``stdio_client``, which joins every
chunk it reads onto the line so far (a 40 MB answer took 45 s; 150 MB never came)
and reads a line of any size. Here a line is split off in linear time, and one
larger than the limit of the call it answers is skipped as it arrives, that call
answered with an error at once: the session serves on. A request is written in
the caller's own task, so its call learns whether it went out (see
:mod:`mcigen_runtime.executors.mcp.exchange`).

The server runs in a session (process group) of its own. Closing the transport
closes its stdin, gives it a moment to exit and then ends the whole group
(SIGTERM, then SIGKILL), as the SDK does. POSIX only, as the rest of the runtime.

Imported with the MCP SDK, once a session starts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, TextIO
from weakref import WeakValueDictionary

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process
from anyio.streams.memory import MemoryObjectSendStream
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest, jsonrpc_message_adapter
from pydantic import ValidationError

from ..running import disown, own
from .exchange import DEFAULT_LIMIT, Exchange, current
from .unreadable import LOOKED_AT, request_id, too_large, unreadable

_CHUNK = 1 << 16
"""Bytes read from the server's stdout at a time."""
_EXIT_GRACE = 2.0
"""Seconds a server may take to exit once its stdin is closed."""
_TERM_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL to the server's process group."""
_REAP_GRACE = 2.0
"""Seconds a killed server may take to be reaped before it is left behind."""
_BROKEN = (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)

Message = SessionMessage | Exception
Calls = WeakValueDictionary[int | str, Exchange]
"""The tool calls written and perhaps not yet answered, by request id."""


@asynccontextmanager
async def stdio_transport(
    command: str, args: Sequence[str], env: Mapping[str, str], errlog: TextIO
) -> AsyncIterator[tuple[Any, Any]]:
    """Start the server; yield the session's (read stream, write stream)."""
    process = await anyio.open_process(
        [command, *args], env=dict(env), stderr=errlog, start_new_session=True
    )
    own(process.pid)  # not an orphan a server adopted
    assert process.stdin is not None and process.stdout is not None
    calls: Calls = WeakValueDictionary()
    deliver, received = anyio.create_memory_object_stream[Message](0)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read, process.stdout, deliver, calls)
            try:
                yield received, _Writer(process.stdin, calls)
            finally:
                tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await _stop(process)
            received.close()
        if process.returncode is not None:
            disown(process.pid)


class _Writer:
    """The session's write stream: each message one line on the server's stdin,
    written in the sender's task."""

    def __init__(self, stdin: ByteSendStream, calls: Calls) -> None:
        self._stdin = stdin
        self._calls = calls
        self._lock = anyio.Lock()

    async def send(self, item: SessionMessage) -> None:
        message = item.message
        line = message.model_dump_json(by_alias=True, exclude_unset=True)
        exchange = current.get()
        if (
            exchange is not None
            and isinstance(message, JSONRPCRequest)
            and message.method == "tools/call"
        ):
            self._calls[message.id] = exchange
            exchange.sent = True  # until the write fails: a cancelled one may be out
        else:
            exchange = None
        try:
            async with self._lock:
                await self._stdin.send(line.encode() + b"\n")
        except _BROKEN:
            if exchange is not None:
                exchange.sent = False
            raise anyio.BrokenResourceError from None

    async def aclose(self) -> None:
        with suppress(*_BROKEN):
            await self._stdin.aclose()

    async def __aenter__(self) -> _Writer:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def _read(
    stdout: ByteReceiveStream, deliver: MemoryObjectSendStream[Message], calls: Calls
) -> None:
    """Hand every message on the server's stdout to the session, until it ends."""
    lines = _Lines(calls)
    async with deliver:
        while True:
            try:
                chunk = await stdout.receive(_CHUNK)
            except (anyio.EndOfStream, *_BROKEN):
                return
            for message in lines.feed(chunk):
                try:
                    await deliver.send(message)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return


class _Lines:
    """The messages in the server's output, each read once, none kept past the
    bound of the call it answers (or the default bound, if it answers none)."""

    def __init__(self, calls: Calls) -> None:
        self._calls = calls
        self._buffer = bytearray()
        self._scanned = 0
        """Bytes at the start of the buffer known to hold no newline."""
        self._skipped: _Skipped | None = None

    def feed(self, chunk: bytes) -> list[Message]:
        messages: list[Message] = []
        if self._skipped is not None:
            end = chunk.find(b"\n")
            if end < 0:
                self._skipped.last(chunk)
                return messages
            self._skipped.last(chunk[:end])
            messages += self._skipped.end(self._calls)
            self._skipped = None
            chunk = chunk[end + 1 :]
        buffer = self._buffer
        buffer += chunk
        start = 0
        while (end := buffer.find(b"\n", self._scanned)) >= 0:
            messages += self._message(bytes(buffer[start:end]))
            start = self._scanned = end + 1
        del buffer[:start]
        self._scanned = len(buffer)
        if len(buffer) > DEFAULT_LIMIT and len(buffer) > self._bound():
            self._skipped = _Skipped(bytes(buffer[:LOOKED_AT]))
            self._skipped.last(bytes(buffer[-LOOKED_AT:]))
            messages += self._skipped.start(self._calls)
            buffer.clear()
            self._scanned = 0
        return messages

    def _bound(self) -> int:
        """The most bytes a line may take now: what the largest limit allows."""
        return max((e.limit for e in self._calls.values()), default=DEFAULT_LIMIT)

    def _message(self, line: bytes) -> list[Message]:
        if not line.strip():
            return []
        smallest = min((e.limit for e in self._calls.values()), default=DEFAULT_LIMIT)
        if len(line) > smallest:
            ident = request_id(line[:LOOKED_AT], line[-LOOKED_AT:])
            exchange = self._calls.get(ident) if ident is not None else None
            if (
                ident is not None
                and exchange is not None
                and len(line) > exchange.limit
            ):
                exchange.too_large = True
                return [too_large(ident, exchange.limit)]
        try:
            return [SessionMessage(jsonrpc_message_adapter.validate_json(line))]
        except ValidationError as error:
            return [unreadable(line, error)]


class _Skipped:
    """A line too large to keep, being read past: what its ends say of the request
    it answers, which is answered with an error as soon as it is known."""

    def __init__(self, head: bytes) -> None:
        self._head = head
        self._tail = b""
        self._answered = False

    def last(self, data: bytes) -> None:
        """Note ``data``, the next bytes of the line."""
        self._tail = (self._tail + data)[-LOOKED_AT:]

    def start(self, calls: Calls) -> list[Message]:
        """The answer, if the head of the line names its request."""
        return self._answer(request_id(self._head, b""), calls)

    def end(self, calls: Calls) -> list[Message]:
        """The answer, if it was not given and the end of the line names it."""
        if self._answered:
            return []
        return self._answer(request_id(b"", self._tail), calls)

    def _answer(self, ident: int | str | None, calls: Calls) -> list[Message]:
        if ident is None:
            return []
        self._answered = True
        exchange = calls.get(ident)
        if exchange is None:
            return [too_large(ident, DEFAULT_LIMIT)]
        exchange.too_large = True
        return [too_large(ident, exchange.limit)]


async def _stop(process: Process) -> None:
    """Close the server's stdin, give it a moment to exit, then end its whole
    process group (what it started too) and reap it."""
    assert process.stdin is not None and process.stdout is not None
    with suppress(*_BROKEN):
        await process.stdin.aclose()
    with anyio.move_on_after(_EXIT_GRACE):
        while process.returncode is None:
            await anyio.sleep(0.01)
    await terminate_posix_process_tree(process, _TERM_GRACE)
    with suppress(*_BROKEN):
        await process.stdout.aclose()
    with anyio.move_on_after(_REAP_GRACE):
        await process.wait()
