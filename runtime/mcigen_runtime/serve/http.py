"""One HTTP exchange at ``/mcp`` as clients send it, made into what the SDK's stateless
Streamable HTTP transport expects, and its answer made into what the client accepts.

- Only ``POST`` carries an exchange: the server keeps no session, so there is no
  stream to ``GET`` and nothing to ``DELETE``; other methods get ``405`` with
  ``Allow: POST`` (the transport spec lets a server refuse the ``GET`` stream),
  rather than a stream held open for ever.
- The body is read whole, up to :data:`MAX_BODY_BYTES` (``413`` beyond).
- A body that is not JSON, or whose strings hold a lone surrogate, gets
  ``-32700``; a batch, or anything but one JSON-RPC
  2.0 message (``"jsonrpc": "2.0"`` missing, say), gets ``-32600 Invalid Request``
  with a one-line message (HTTP 400).
- Sessions: the answer to ``initialize`` carries a new ``Mcp-Session-Id`` (random,
  from ``secrets``), which clients send back on every later request. The SDK's
  transport stays stateless (any worker answers any request); the id only says
  whose background operations a request may see (:func:`session_of`). A request
  without one is an anonymous caller.
- ``initialize`` params are read leniently (see ``initialize_params``); params that
  still cannot be read get ``-32602`` naming the field.
- Accept: a client that accepts JSON (``application/json``, ``application/*``,
  ``*/*``, or that sends no ``Accept``) gets JSON; one that accepts only
  ``text/event-stream`` (``text/*``) gets each JSON-RPC answer as exactly one SSE
  frame, ``event: message`` and its ``data:``, as many MCP quickstarts expect. A
  notification is ``202`` with no body either way. Any other ``Accept`` is left to
  the SDK (``406``).
- Progress: a request whose ``params._meta`` holds a ``progressToken``, from a
  client that accepts ``text/event-stream``, is answered with an SSE stream: the
  request's progress notifications, then its answer (:class:`ByProgress`). Any
  other request gets one JSON answer, as the transport allows.
- A message with a ``method`` and ``"id": null`` (or another id no request may
  have) is ``-32600`` (see ``message_id``).
- A ``tools/call`` of a tool that runs inline (a text tool) is answered here,
  as the SDK would answer it, without the SDK (see ``http_calls``).
- A request the ASGI server cancels before its answer began (uvicorn's
  ``--timeout-graceful-shutdown`` has passed) is answered with a JSON-RPC error
  (``-32000``, the server is shutting down) rather than uvicorn's bare ``500``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
from collections.abc import Awaitable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp_types import (
    CONNECTION_CLOSED,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from ..edge.answers import send_body, send_json
from ..edge.body import ClientGone, header, read_body
from ..edge.json_text import lone_surrogate, may_hold_surrogate
from ..edge.logs import FIELDS
from ..edge.shutdown import SHUTTING_DOWN
from .initialize import InitializeParamsError, lenient_initialize
from .message_id import BAD_ID, has_bad_id
from .operations import Caller

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from .http_calls import HttpCalls

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE
"""The largest request body read (4 MiB, the SDK's own limit)."""

SESSION_HEADER = "mcp-session-id"

_SESSION_ID = re.compile(r"[\x21-\x7e]{1,128}")
"""A session id as the transport spec allows it (visible ASCII), bounded."""

_JSON_TYPES = frozenset({"application/json", "application/*", "*/*"})
_SSE_TYPES = frozenset({"text/event-stream", "text/*", "*/*"})

_STREAMS_PROGRESS = "mcigen.streams_progress"
"""The scope key that says an exchange is answered with an SSE stream."""
_BOTH = b"application/json, text/event-stream"
_JSON_ANSWER = ((b"content-type", b"application/json"),)


class ExchangeEdge:
    """ASGI middleware that shapes the exchanges at ``path`` (see the module docs),
    answering those ``calls`` answers; other paths pass through."""

    def __init__(self, app: ASGIApp, path: str, calls: HttpCalls | None) -> None:
        self.app = app
        self.path = path
        self.calls = calls

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await send_body(send, 405, b"", [(b"allow", b"POST")])
            return
        headers = [(key, bytes(value)) for key, value in scope["headers"]]
        accept = header(headers, b"accept")
        types = _media_types(accept)
        sse_only = accept is not None and _accepts_only_sse(types)
        answer = _SseFraming(send) if sse_only else send
        try:
            body = await read_body(headers, receive, MAX_BODY_BYTES)
        except ClientGone:
            return
        if body is None:
            await send_body(answer, 413, b"", [(b"content-type", b"text/plain")])
            return
        try:
            message, body, initialize, request_id, asks_progress = _normalised(body)
        except _Refusal as refusal:
            await send_json(answer, refusal.status, refusal.answer)
            return
        if self.calls is not None and (
            accept is None or sse_only or types & _JSON_TYPES
        ):
            answered = self.calls.answer(message, headers, scope)
            if answered is not None:
                answering = _Answering(answer)
                sending = send_body(answering, *answered, _JSON_ANSWER)
                await _stopping(sending, answering, request_id)
                return
        if initialize:
            answer = _with_new_session(answer)
        streams = asks_progress and bool(types & _SSE_TYPES)
        if streams:
            accept = _BOTH
        elif accept is None or sse_only:
            accept = b"application/json"
        headers = [
            (key, value)
            for key, value in headers
            if key not in (b"accept", b"content-length")
        ]
        headers += [(b"accept", accept), (b"content-length", str(len(body)).encode())]
        scope = {**scope, "headers": headers, _STREAMS_PROGRESS: streams}
        answering = _Answering(answer)
        exchange = self.app(scope, _replay(body, receive), answering)
        await _stopping(exchange, answering, request_id)


class ByProgress:
    """The ASGI app at ``/mcp``: an exchange the edge marked goes to
    ``streaming`` (answers with SSE streams), any other to ``answering``."""

    def __init__(self, answering: ASGIApp, streaming: ASGIApp) -> None:
        self.answering = answering
        self.streaming = streaming

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self.streaming if scope.get(_STREAMS_PROGRESS) else self.answering
        await app(scope, receive, send)


class _Refusal(Exception):
    """A JSON-RPC error the edge answers itself."""

    def __init__(self, status: int, request_id: object, code: int, message: str):
        super().__init__(message)
        self.status = status
        self.answer = {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": code, "message": message},
        }


_NO_ANSWER = object()
"""The id of a message that gets no answer (a notification, a response)."""


async def _stopping(
    answering_it: Awaitable[None], answering: _Answering, request_id: object
) -> None:
    """``answering_it``; when the ASGI server cancels it before the answer began,
    the JSON-RPC error that says so."""
    try:
        await answering_it
    except asyncio.CancelledError:
        if answering.started or request_id is _NO_ANSWER:
            raise
        await send_json(answering, 200, _stopped(request_id))


def _stopped(request_id: object) -> dict[str, Any]:
    """The answer to a request the ASGI server cancelled as it shut down (uvicorn's
    ``--timeout-graceful-shutdown``): a JSON-RPC error rather than uvicorn's bare
    500, so the client learns why and may try again elsewhere."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": CONNECTION_CLOSED,
            "message": f"{SHUTTING_DOWN}: the request was stopped; try again",
        },
    }


class _Answering:
    """A ``send`` that notes whether the answer has begun."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self.send(message)


def session_of(headers: Mapping[str, str]) -> Caller:
    """The caller a request's headers name: its session, or None (anonymous)."""
    session = headers.get(SESSION_HEADER)
    if session is None or not _SESSION_ID.fullmatch(session):
        return None
    return f"session {session}"


def _with_new_session(send: Send) -> Send:
    """``send`` that gives a successful answer a new session id."""
    header_line = (SESSION_HEADER.encode(), secrets.token_urlsafe(24).encode())

    async def send_with_session(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 200:
            message = {**message, "headers": [*message.get("headers", ()), header_line]}
        await send(message)

    return send_with_session


def _normalised(body: bytes) -> tuple[dict[str, Any], bytes, bool, object, bool]:
    """The message ``body`` holds, ``body`` as the SDK should read it, whether it
    is an ``initialize`` request, its id (:data:`_NO_ANSWER` when it is not a
    request), and whether it asks for progress; raises :class:`_Refusal`."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        raise _Refusal(400, None, PARSE_ERROR, "Parse error") from None
    surrogate = lone_surrogate(message) if may_hold_surrogate(body) else None
    if surrogate is not None:
        raise _Refusal(
            400,
            None,
            PARSE_ERROR,
            f"Parse error: a lone surrogate ({surrogate}) is not Unicode text",
        )
    if isinstance(message, list):
        raise _Refusal(
            400, None, INVALID_REQUEST, "Invalid Request: batches are not supported"
        )
    if not isinstance(message, dict):
        raise _Refusal(
            400, None, INVALID_REQUEST, "Invalid Request: expected a JSON object"
        )
    request_id = message.get("id")
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        request_id = None
    if message.get("jsonrpc") != "2.0":
        raise _Refusal(
            400, request_id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"'
        )
    if has_bad_id(message):
        raise _Refusal(400, None, INVALID_REQUEST, BAD_ID)
    try:
        if not _plain_request(message):
            jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError:
        raise _Refusal(
            400,
            request_id,
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC request, notification or response",
        ) from None
    fields = {"method": message.get("method"), "id": message.get("id")}
    logger.debug("mcp message", extra={FIELDS: fields})
    answered = "method" in message and "id" in message
    if message.get("method") != "initialize" or "id" not in message:
        request = message["id"] if answered else _NO_ANSWER
        return message, body, False, request, answered and _asks_progress(message)
    try:
        message["params"] = lenient_initialize(message.get("params"))
    except InitializeParamsError as error:
        raise _Refusal(200, request_id, INVALID_PARAMS, str(error)) from None
    normalised = json.dumps(message, ensure_ascii=False).encode()
    return message, normalised, True, message["id"], False


def _plain_request(message: dict[str, object]) -> bool:
    """Whether ``message`` (``"jsonrpc": "2.0"``, no bad id) is a request or a
    notification as the SDK's message model reads it: a string method, params an
    object or none. The model's own check then always passes, and is skipped: it
    cost as much as reading the JSON."""
    params = message.get("params")
    return isinstance(message.get("method"), str) and (
        params is None or isinstance(params, dict)
    )


def _asks_progress(request: dict[str, object]) -> bool:
    params = request.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    return isinstance(token, (str, int)) and not isinstance(token, bool)


@lru_cache(maxsize=256)  # clients send a few Accept headers, over and over
def _media_types(accept: bytes | None) -> frozenset[str]:
    if accept is None:
        return frozenset()
    return frozenset(
        part.split(b";")[0].strip().lower().decode("latin-1")
        for part in accept.split(b",")
    )


def _accepts_only_sse(types: frozenset[str]) -> bool:
    return not types & _JSON_TYPES and bool(types & _SSE_TYPES)


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` that gives ``body`` first, then whatever the client sends."""
    pending: list[Message] = [{"type": "http.request", "body": body}]

    async def replayed() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replayed


class _SseFraming:
    """A ``send`` that turns a JSON answer into one SSE frame (``event: message``);
    an empty answer (``202``) and others pass as they are."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.start: Message | None = None
        self.chunks: list[bytes] = []

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start" and _is_json(message):
            self.start = message
        elif message["type"] == "http.response.body" and self.start is not None:
            self.chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                await self._send_frame(self.start, b"".join(self.chunks))
        else:
            await self.send(message)

    async def _send_frame(self, start: Message, data: bytes) -> None:
        if not data:
            await self.send(start)
            await self.send({"type": "http.response.body", "body": data})
            return
        kept = [
            (key, value)
            for key, value in start.get("headers", ())
            if key.lower() not in (b"content-type", b"content-length")
        ]
        lines = b"".join(b"data: " + line + b"\n" for line in data.splitlines())
        frame = b"event: message\n" + lines + b"\n"
        kept += [
            (b"content-type", b"text/event-stream"),
            (b"cache-control", b"no-cache"),
        ]
        await send_body(self.send, start["status"], frame, kept)


def _is_json(start: Message) -> bool:
    for key, value in start.get("headers", ()):
        if key.lower() == b"content-type":
            return bytes(value).split(b";")[0].strip().lower() == b"application/json"
    return False
