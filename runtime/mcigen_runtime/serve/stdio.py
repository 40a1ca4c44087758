"""The messages a stdio client sends, as the server reads them: ``initialize`` params
read leniently (see ``initialize_params``), and a line that is not one JSON-RPC
message answered (``-32700`` for a line that is not JSON, ``-32600`` for a batch or
another malformed message, or a method with an id no request may have, such as
``"id": null``; the answer's id is null, since no id can be read from it) where the
SDK would drop it silently, or take it for a notification, and leave the client
waiting.

A line with a bad id is told from a notification before the SDK reads it
(:func:`checked_lines`). When the server answered ``initialize`` before the SDK
was loaded (``stdio_start``), :class:`AnsweredOnce` keeps the SDK from answering
it again.
"""

from __future__ import annotations

import json
import logging
import re
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, Protocol, Self, TextIO, cast

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from pydantic import ValidationError

from .initialize import InitializeParamsError, lenient_initialize
from .message_id import BAD_ID, has_bad_id

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream

    from .stdio_start import Handoff

logger = logging.getLogger(__name__)


class _ClosedOnExit:
    """An SDK stream as an async context manager: closed as the block ends."""

    async def aclose(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


class LenientReadStream(_ClosedOnExit):
    """The read side of a stdio connection (a ``ReadStream``), answering what it
    cannot pass on through ``replies``."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        replies: WriteStream[SessionMessage],
    ) -> None:
        self._inner = inner
        self._replies = replies

    @property
    def last_context(self) -> Any:
        """The sender's context of the last message (the SDK reads it if there)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if isinstance(item, ValidationError):
                await self._reply(None, *_unreadable(item))
                continue
            if isinstance(item, Exception):
                return item
            message = item.message
            if not (
                isinstance(message, JSONRPCRequest) and message.method == "initialize"
            ):
                return item
            try:
                params = lenient_initialize(message.params)
            except InitializeParamsError as error:
                await self._reply(message.id, INVALID_PARAMS, str(error))
                continue
            return SessionMessage(
                message.model_copy(update={"params": params}), metadata=item.metadata
            )

    async def _reply(self, request_id: RequestId | None, code: int, text: str) -> None:
        error = ErrorData(code=code, message=text)
        await self._replies.send(
            SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))
        )

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> LenientReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


def _unreadable(error: ValidationError) -> tuple[int, str]:
    """The JSON-RPC error code and message for a line the SDK could not read."""
    problems = error.errors()
    if any(problem["type"] == "json_invalid" for problem in problems):
        return PARSE_ERROR, "Parse error"
    if any(_BAD_ID_KEY in _as_dict(problem.get("input")) for problem in problems):
        return INVALID_REQUEST, BAD_ID
    return (
        INVALID_REQUEST,
        "Invalid Request: not one JSON-RPC request, notification or response",
    )


_BAD_ID_KEY = "mcigen: a method with a bad id"
_BAD_ID_LINE = json.dumps({_BAD_ID_KEY: True}) + "\n"
"""What the SDK reads in place of a line with a bad id: no JSON-RPC message, so
it hands :class:`LenientReadStream` its ``ValidationError``, which names this key."""

_SUSPECT = re.compile(r'"id"\s*:\s*(?:[^"\s\d-]|-?\d+[.eE])')
"""An ``"id"`` key whose value is not a string or an integer: only lines holding
one are parsed here (the SDK parses every line anyway)."""


def _as_dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


class Lines(Protocol):
    def readline(self) -> str: ...


class _CheckedLines:
    """The client's lines, a line with a bad id (see ``message_id``) replaced by
    :data:`_BAD_ID_LINE`."""

    def __init__(self, lines: Lines) -> None:
        self._lines = lines

    def readline(self) -> str:
        line = self._lines.readline()
        if not _SUSPECT.search(line):
            return line
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return line
        return (
            _BAD_ID_LINE if isinstance(message, dict) and has_bad_id(message) else line
        )

    def close(self) -> None:
        """Nothing: the wire is not this reader's to close (a worker thread may
        still be reading it)."""


def checked_lines(lines: Lines) -> anyio.AsyncFile[str]:
    """``lines`` as the SDK's stdio transport reads them, checked."""
    # The SDK reads the file only with readline (through anyio), and closes it.
    return anyio.wrap_file(cast(TextIO, _CheckedLines(lines)))


class Answers:
    """Where the SDK's stdio transport writes its answers (an ``AsyncFile``): each
    written and flushed in one call in a worker thread, where the SDK's own file
    takes two, each a thread to wake on a busy machine."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out

    async def write(self, text: str) -> None:
        await anyio.to_thread.run_sync(self._send, text.encode())

    async def flush(self) -> None:
        """Nothing: :meth:`write` flushed."""

    def _send(self, data: bytes) -> None:
        self._out.write(data)
        self._out.flush()


def answers(out: IO[bytes]) -> anyio.AsyncFile[str]:
    """``out`` as the SDK's stdio transport writes to it (see :class:`Answers`)."""
    return cast("anyio.AsyncFile[str]", Answers(out))


class AnsweredOnce(_ClosedOnExit):
    """The write side of a stdio connection (a ``WriteStream``) whose
    ``initialize`` was answered before the SDK was loaded (see ``stdio_start``):
    the SDK's own answer to it, when it reads it again, is not sent. One that is
    not the answer given is logged, as the bug it is."""

    def __init__(self, inner: WriteStream[SessionMessage], handoff: Handoff) -> None:
        self._inner = inner
        self._handoff = handoff
        self._pending = handoff.answered is not None

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        if (
            self._pending
            and isinstance(message, JSONRPCResponse | JSONRPCError)
            and message.id == self._handoff.answered_id
        ):
            self._pending = False
            said = message.model_dump_json(by_alias=True, exclude_unset=True)
            if said != self._handoff.answered:
                logger.warning(
                    "initialize was answered before the MCP SDK was loaded with "
                    "%s; the SDK answers %s",
                    self._handoff.answered,
                    said,
                )
            return
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()
