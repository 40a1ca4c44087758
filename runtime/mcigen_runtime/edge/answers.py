"""The short HTTP answers the server's edge gives by itself, before the MCP SDK sees a
request: a refusal whose JSON body names the fix, or a bare status."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .json_text import json_bytes

if TYPE_CHECKING:
    from starlette.types import Send

HeaderList = Iterable[tuple[bytes, bytes]]


async def send_json(
    send: Send, status: int, body: Any, headers: HeaderList = ()
) -> None:
    """Answer ``status`` with ``body`` as JSON."""
    await send_body(
        send,
        status,
        json_bytes(body),
        [(b"content-type", b"application/json"), *headers],
    )


async def send_refusal(
    send: Send, status: int, error: str, description: str, headers: HeaderList = ()
) -> None:
    """Answer ``status`` with ``{"error", "error_description"}``, the shape of an
    OAuth bearer error, so every refusal of the edge reads alike."""
    body = {"error": error, "error_description": description}
    await send_json(send, status, body, headers)


async def send_body(
    send: Send, status: int, body: bytes, headers: HeaderList = ()
) -> None:
    """Answer ``status`` with ``body`` (which may be empty) and ``headers``."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
