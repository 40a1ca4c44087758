"""The bearer secret of ``serve --http --secret`` and ``MCIGEN_SECRET``: every request
must carry ``Authorization: Bearer SECRET``, else ``401`` with a short JSON body."""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING

from .answers import send_refusal

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send


class BearerSecretMiddleware:
    """Refuses every HTTP request without ``Authorization: Bearer SECRET`` (401).

    The token is compared through SHA-256 digests with ``hmac.compare_digest``, so
    the time taken depends on neither the secret's length nor its content."""

    def __init__(self, app: ASGIApp, secret: str) -> None:
        self.app = app
        self._digest = hashlib.sha256(secret.encode()).digest()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send_refusal(
            send,
            401,
            "unauthorized",
            "this server needs 'Authorization: Bearer <secret>'",
            [(b"www-authenticate", b'Bearer realm="mcp"')],
        )

    def _authorized(self, scope: Scope) -> bool:
        token = b""
        for key, value in scope.get("headers", ()):
            if key == b"authorization":
                scheme, _, rest = bytes(value).partition(b" ")
                if scheme.lower() == b"bearer":
                    token = rest.strip()
                break
        given = hashlib.sha256(token).digest()
        return hmac.compare_digest(given, self._digest) and bool(token)
