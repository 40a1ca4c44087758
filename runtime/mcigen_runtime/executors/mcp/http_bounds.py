"""The HTTP client of Streamable HTTP MCP sessions: no message read past its bound.

The SDK reads a JSON answer whole, and bounds an event of an event stream at 1 MiB
whatever the call's limit. This client counts a response's bytes as they arrive
(per event on an event stream, whole otherwise) and stops reading past the limit
of the tool call the response answers (:mod:`mcigen_runtime.executors.mcp.exchange`), or past the default
limit for one that answers no call. It asks for responses uncompressed, so the
bytes counted are the bytes kept. It also notes, in the call's exchange, that its
request went out.

Imported with the MCP SDK, once a session starts.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx2

from .exchange import DEFAULT_LIMIT, Exchange, current

_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


def bounded_client(
    headers: dict[str, str], timeout: httpx2.Timeout
) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        headers={"Accept-Encoding": "identity", **headers},
        timeout=timeout,
        event_hooks={"request": [_note_sent], "response": [_bound]},
    )


async def _note_sent(request: httpx2.Request) -> None:
    exchange = current.get()
    if exchange is not None:
        exchange.sent = True


async def _bound(response: httpx2.Response) -> None:
    exchange = current.get()
    content_type = response.headers.get("content-type", "")
    events = content_type.lower().startswith("text/event-stream")
    assert isinstance(response.stream, httpx2.AsyncByteStream)
    response.stream = _Counted(response.stream, exchange, events)


class TooLarge(httpx2.SSEError, httpx2.StreamError):
    """A message past its bound. Both kinds the SDK's transport expects from a
    response it cannot read, so that it answers the request with an error at once
    (an SSE error is not met with reconnecting)."""


class _Counted(httpx2.AsyncByteStream):
    def __init__(
        self, stream: httpx2.AsyncByteStream, exchange: Exchange | None, events: bool
    ) -> None:
        self._stream = stream
        self._exchange = exchange
        self._limit = exchange.limit if exchange is not None else DEFAULT_LIMIT
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        tail = b""
        async for chunk in self._stream:
            if not self._events:
                size += len(chunk)
                self._check(size)
                yield chunk
                continue
            # An event ends at a blank line, which may start in the last chunk.
            seen = tail + chunk
            counted = len(tail)
            for end in _EVENT_END.finditer(seen):
                if end.end() <= len(tail):
                    continue  # seen with the last chunk
                size += max(end.start() - counted, 0)
                self._check(size)
                size, counted = 0, end.end()
            size += len(seen) - counted
            self._check(size)
            tail = seen[-3:]
            yield chunk

    def _check(self, size: int) -> None:
        if size > self._limit:
            if self._exchange is not None:
                self._exchange.too_large = True
            raise TooLarge(f"a message is larger than {self._limit} bytes")

    async def aclose(self) -> None:
        await self._stream.aclose()
