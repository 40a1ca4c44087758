"""The messages a stdio client sends, as the server reads them: ``initialize`` params
read leniently (see ``initialize_params``), and a line that is not one JSON-RPC
message answered (``-32700`` for a line that is not JSON, ``-32600`` for a batch or
another malformed message, ``id: null`` since no id can be read from it) where the
SDK would drop it silently and leave the client waiting."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

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
    if any(problem["type"] == "json_invalid" for problem in error.errors()):
        return PARSE_ERROR, "Parse error"
    return (
        INVALID_REQUEST,
        "Invalid Request: not one JSON-RPC request, notification or response",
    )
