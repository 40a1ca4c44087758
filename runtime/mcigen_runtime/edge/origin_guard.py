"""The ASGI middleware that applies the server's ``origin_policy`` to every HTTP
request: ``403`` for an Origin it refuses, ``421`` for a Host it refuses, each with
a body that names the option that allows it.

CORS: a page from an allowed origin may call the server. Answers to it carry
``Access-Control-Allow-Origin``, and its preflight (``OPTIONS`` with
``Access-Control-Request-Method``) is answered here, before a secret is asked for,
since browsers send the preflight without credentials.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .answers import send_body, send_refusal
from .origin_policy import HostOriginPolicy

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger(__name__)

PREFLIGHT_HEADERS = (
    "authorization, content-type, accept, mcp-protocol-version, mcp-session-id, "
    "last-event-id"
)
"""The request headers a page may send (those MCP clients send)."""

ORIGIN_REFUSED = (
    "requests from this Origin are not allowed: start the server with "
    "--allow-origin ORIGIN (or set MCIGEN_ALLOWED_ORIGINS) to let a browser app at "
    "ORIGIN call it"
)
HOST_REFUSED = (
    "this server answers requests for an IP address, localhost or a listed host "
    "name only: add --allow-host NAME (or NAME to MCIGEN_ALLOWED_HOSTS) to serve "
    "the host name NAME"
)


class HostOriginGuard:
    """ASGI middleware applying a :class:`HostOriginPolicy` to every HTTP request."""

    def __init__(self, app: ASGIApp, policy: HostOriginPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            key: bytes(value).decode("latin-1")
            for key, value in scope["headers"]
            if key in (b"host", b"origin", b"access-control-request-method")
        }
        origin = headers.get(b"origin")
        if origin is not None and not self.policy.origin_allowed(origin):
            logger.warning("refused a request from Origin %r", origin[:200])
            await send_refusal(send, 403, "forbidden_origin", ORIGIN_REFUSED)
            return
        host = headers.get(b"host")
        if (
            self.policy.check_host
            and host is not None
            and not self.policy.host_allowed(host)
        ):
            logger.warning("refused a request for Host %r", host[:200])
            await send_refusal(send, 421, "misdirected_request", HOST_REFUSED)
            return
        if origin is None:
            await self.app(scope, receive, send)
        elif (
            scope["method"] == "OPTIONS" and b"access-control-request-method" in headers
        ):
            await send_body(send, 204, b"", _preflight_headers(origin))
        else:
            await self.app(scope, receive, _with_cors(send, origin))


def _cors_headers(origin: str) -> list[tuple[bytes, bytes]]:
    return [
        (b"access-control-allow-origin", origin.encode("latin-1")),
        (b"access-control-expose-headers", b"mcp-session-id"),
        (b"vary", b"Origin"),
    ]


def _preflight_headers(origin: str) -> list[tuple[bytes, bytes]]:
    return [
        *_cors_headers(origin),
        (b"access-control-allow-methods", b"POST"),
        (b"access-control-allow-headers", PREFLIGHT_HEADERS.encode()),
        (b"access-control-max-age", b"600"),
    ]


def _with_cors(send: Send, origin: str) -> Send:
    async def send_with_cors(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [*message.get("headers", ()), *_cors_headers(origin)]
            message = {**message, "headers": headers}
        await send(message)

    return send_with_cors
