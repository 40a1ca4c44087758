"""The http executor: a request made of a tool's templated parts (:func:`http_call`)
and sent (:func:`send`, :func:`send_async`).

httpx is imported by the first request sent (:mod:`.transport`): a package whose
http tools are not called never loads it.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from ...results import ToolResult
from .request import (
    ApiKeyAuth,
    BasicAuth,
    BearerAuth,
    HttpCall,
    OAuth2Auth,
    Retry,
    http_call,
)

__all__ = [
    "ApiKeyAuth",
    "BasicAuth",
    "BearerAuth",
    "HttpCall",
    "OAuth2Auth",
    "Retry",
    "http_call",
    "send",
    "send_async",
]


def send(call: HttpCall) -> ToolResult:
    return _senders()[0](call)


def send_async(call: HttpCall) -> Awaitable[ToolResult]:
    """:func:`send`, awaited (see ``transport.send_async``)."""
    return _senders()[1](call)


@functools.cache
def _senders() -> (
    tuple[Callable[[HttpCall], ToolResult], Callable[[HttpCall], Awaitable[ToolResult]]]
):
    """The transport's ``send`` and ``send_async``, imported by the first call and
    looked up once: an import statement costs microseconds every time it runs."""
    from .transport import send, send_async

    return send, send_async
