"""The messages a stdio client sends, as the server reads them: ``initialize`` params
read leniently (see ``initialize_params``), and a line that is not one JSON-RPC
message answered (``-32700`` for a line that is not JSON, ``-32600`` for a batch or
another malformed message, or a method with an id no request may have, such as
``"id": null``; the answer's id is null, since no id can be read from it) where the
SDK would drop it silently, or take it for a notification, and leave the client
waiting.

The lines are read from a duplicate of stdin (:func:`claimed_stdin`), so that a
line with a bad id can be told from a notification before the SDK reads it.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from io import TextIOWrapper
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO, cast

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
    RequestId,
)
from pydantic import ValidationError

from .initialize import InitializeParamsError, lenient_initialize
from .message_id import BAD_ID, has_bad_id

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream


class LenientReadStream:
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

    async def __aenter__(self) -> LenientReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


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


class _CheckedLines:
    """The client's lines, a line with a bad id (see ``message_id``) replaced by
    :data:`_BAD_ID_LINE`."""

    def __init__(self, lines: TextIO) -> None:
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


def _async_lines(lines: TextIO) -> anyio.AsyncFile[str]:
    # The SDK reads the file only with readline (through anyio), and closes it.
    return anyio.wrap_file(cast(TextIO, _CheckedLines(lines)))


@contextmanager
def claimed_stdin() -> Iterator[anyio.AsyncFile[str]]:
    """The client's lines (checked), read from a duplicate of stdin while fd 0
    reads ``/dev/null``, so that commands the tools start read nothing of the
    wire (as the SDK's own claim of stdin does), until the block ends."""
    try:
        wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        devnull = os.open(os.devnull, os.O_RDONLY)
    except OSError:  # no stdin to claim: read whatever sys.stdin is
        yield _async_lines(sys.stdin)
        return
    os.dup2(devnull, 0)
    os.close(devnull)
    binary = os.fdopen(wire, "rb", closefd=False)
    text = TextIOWrapper(binary, encoding="utf-8", errors="replace")  # as the SDK
    try:
        yield _async_lines(text)
    finally:
        os.dup2(wire, 0)
