"""The end of a stdio client's input, held back from the SDK until every request
it was handed has been answered.

At EOF the SDK's dispatcher cancels the requests still in flight, and a request
whose handler had not yet started is never answered. A client that writes a batch
and closes stdin at once (``cat requests.jsonl | python -m PKG serve``) expects an
answer to each: so the read side (``stdio.LenientReadStream``) gives the SDK its
EOF only once :class:`Unanswered` counts no request of the client's that the SDK
has not answered (``stdio.AnsweredOnce`` sees each answer go out). Each request
held so is bounded by what bounds it anyway (a tool's timeout); with nothing in
flight the EOF passes at once. A request the client cancelled
(``notifications/cancelled``) is never answered, so it is no longer counted.

A request of the server's to the client (``roots/list``) that the client has not
answered when its input ends cannot be answered any more: it gets, at once, the
error the SDK gives its waiters at EOF (``CONNECTION_CLOSED``), as does one sent
while the end is held.
"""

from __future__ import annotations

import logging

import anyio
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage
from mcp_types import (
    CONNECTION_CLOSED,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)

logger = logging.getLogger(__name__)


class Unanswered:
    """The requests of one stdio connection not yet answered, either way."""

    def __init__(self) -> None:
        self._requests: dict[RequestId, int] = {}
        """How many of the client's requests handed to the SDK, by id, are not
        answered (the SDK answers two with one id twice)."""
        self._asked: set[RequestId] = set()
        """The server's requests to the client not answered."""
        self._changed: anyio.Event | None = None
        """Set as either changes, once the end is held."""

    def read(self, message: JSONRPCMessage) -> None:
        """Note ``message``, read from the client, as the SDK is handed it."""
        if isinstance(message, JSONRPCRequest):
            key = coerce_request_id(message.id)
            self._requests[key] = self._requests.get(key, 0) + 1
        elif isinstance(message, JSONRPCNotification):
            if message.method == "notifications/cancelled":
                cancelled = cancelled_request_id_from_params(message.params)
                if cancelled is not None:
                    self._settle(coerce_request_id(cancelled))
        elif message.id is not None:
            self._asked.discard(coerce_request_id(message.id))

    def sent(self, message: JSONRPCMessage) -> None:
        """Note ``message``, sent by the SDK."""
        if isinstance(message, (JSONRPCResponse, JSONRPCError)):
            if message.id is not None:
                self._settle(coerce_request_id(message.id))
        elif isinstance(message, JSONRPCRequest):
            self._asked.add(coerce_request_id(message.id))
            self._wake()

    def count(self) -> int:
        """How many of the client's requests are not answered."""
        return sum(self._requests.values())

    def _settle(self, key: RequestId) -> None:
        left = self._requests.get(key, 0)
        if left > 1:
            self._requests[key] = left - 1
        elif left:
            del self._requests[key]
            self._wake()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()

    async def at_end(self) -> SessionMessage:
        """At the end of the client's input: the answer the client can no longer
        give to a request of the server's, once there is one; raises
        ``anyio.EndOfStream`` once no request of the client's is unanswered."""
        while not self._asked:
            if not self._requests:
                raise anyio.EndOfStream
            if self._changed is None:  # the first wait: the log says why
                logger.info(
                    "stdin has ended: exiting once the %d request(s) in flight "
                    "are answered",
                    self.count(),
                )
            self._changed = anyio.Event()
            await self._changed.wait()
        closed = ErrorData(code=CONNECTION_CLOSED, message="Connection closed")
        return SessionMessage(
            JSONRPCError(jsonrpc="2.0", id=self._asked.pop(), error=closed)
        )
