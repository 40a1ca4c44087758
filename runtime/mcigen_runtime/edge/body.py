"""A request body read whole, up to a bound, at the server's edge (the MCP endpoint's
and the broker API's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import Receive

Headers = list[tuple[bytes, bytes]]


class ClientGone(Exception):
    """The client disconnected before it had sent its whole request."""


def header(headers: Headers, name: bytes) -> bytes | None:
    """The first value of the header ``name`` (lower case)."""
    for key, value in headers:
        if key == name:
            return value
    return None


async def read_body(headers: Headers, receive: Receive, limit: int) -> bytes | None:
    """The whole request body; None when it is larger than ``limit`` bytes (said by
    its ``Content-Length``, or found while reading). Raises :class:`ClientGone`."""
    declared = header(headers, b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
