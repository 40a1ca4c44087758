"""``tools/call`` of a tool that runs inline answered by the HTTP server's edge
(``http.ExchangeEdge``) once it has read and checked the request, without the
SDK's stateless transport, its session and dispatcher (see ``inline_calls``: the
calls answered so, and how). The answer is the SDK's JSON answer: ``200``,
``Content-Type: application/json`` and the same body, which the edge frames as
one SSE event for a client that accepts only ``text/event-stream``, as it frames
the SDK's.

A call whose result cannot be written (see ``inline_calls.Unwritable``) is
answered as the SDK's transport answers it: ``500`` and its JSON-RPC error.

Over HTTP a request is answered so only when also:

- the app serves: its lifespan has started the SDK's session managers and not
  yet stopped them (:meth:`HttpCalls.serving`; the SDK answers ``500`` without);
- the SDK would hand it to its stateless transport of the handshake era: the
  request's ``Mcp-Protocol-Version`` is one of the handshake's versions, or it
  has none (the SDK then answers as ``2025-03-26`` does);
- its ``Content-Type`` is one the SDK's transport takes (``application/json``,
  as both of the transport's checks read it);
- the client accepts JSON, as the edge passes its ``Accept`` on (the edge asks
  only then);
- OpenTelemetry records nothing of it: no metrics (``telemetry.CallMetrics``) and
  no tracer provider set (the SDK's spans record with one).

The session (``Mcp-Session-Id``) does not bear on such a call: the transport is
stateless, and a call that runs inline sees no operation and reveals no bundle.
Everything around the exchange stays as it is around the SDK's answer: the
request's log line (with the call's fields), the Host/Origin guard, the bearer
check, the lifecycle middleware.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from mcp_types import DEFAULT_NEGOTIATED_VERSION, INTERNAL_ERROR

from ..edge.body import Headers, header
from ..edge.json_text import json_bytes
from .inline_calls import InlineAnswers, Unwritable
from .telemetry import records_requests
from .wire import HANDSHAKE_VERSIONS, MESSAGE_KEYS, plain_id

if TYPE_CHECKING:
    from starlette.types import Scope

    from .inline_calls import Surface

logger = logging.getLogger(__name__)

_JSON = "application/json"

_UNWRITTEN = json_bytes(
    {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": INTERNAL_ERROR, "message": "Error handling POST request"},
    }
)
"""The SDK's transport's answer to a request it failed to answer (``500``)."""


class HttpCalls:
    """The calls one HTTP app's edge answers itself."""

    def __init__(self, surface: Surface) -> None:
        self._answers = InlineAnswers(surface)
        self._serving = False

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[None]:
        """While the app's lifespan runs the SDK's session managers (entered
        after them, left before)."""
        self._serving = True
        try:
            yield
        finally:
            self._serving = False

    def answer(
        self, message: Mapping[str, Any], headers: Headers, scope: Scope
    ) -> tuple[int, bytes] | None:
        """The status and JSON answer to ``message``, the request the edge read,
        sent with ``headers`` in the exchange ``scope``, the call made; None
        when the SDK answers it."""
        if (
            not self._serving
            or message.get("method") != "tools/call"
            or "id" not in message
            or not MESSAGE_KEYS.issuperset(message)
            or not plain_id(message["id"])
            or not _takes_json(header(headers, b"content-type"))
            or records_requests()
        ):
            return None
        version = _version(header(headers, b"mcp-protocol-version"))
        if version is None:
            return None
        try:
            answered = self._answers.answer(message, version, scope)
        except Unwritable as error:
            logger.error("the answer to tools/call cannot be written: %s", error)
            return 500, _UNWRITTEN
        return None if answered is None else (200, answered.encode())


@lru_cache(maxsize=64)  # clients send a few, over and over
def _takes_json(content_type: bytes | None) -> bool:
    """Whether the SDK's transport takes a body of ``content_type``: its check
    of the Host and Origin headers (which ends with ``400``) and its own (``415``)."""
    if content_type is None:
        return False
    text = content_type.decode("latin-1")
    return text.lower().startswith(_JSON) and any(
        part.strip() == _JSON for part in text.split(";")[0].split(",")
    )


def _version(given: bytes | None) -> str | None:
    """The protocol version the SDK answers a request at that says ``given``;
    None when it would not take the request to its handshake-era transport."""
    if given is None:
        return DEFAULT_NEGOTIATED_VERSION
    version = given.decode("latin-1")
    return version if version in HANDSHAKE_VERSIONS else None
