"""The http executor: a request made of a tool's templated parts (:func:`http_call`)
and sent (:func:`send`, :func:`send_async`).

httpx is imported by the first request sent (:mod:`.transport`): a package whose
http tools are not called never loads it.
"""

from __future__ import annotations

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
    from .transport import send

    return send(call)


async def send_async(call: HttpCall) -> ToolResult:
    from .transport import send_async

    return await send_async(call)
