"""The http executor: a request made of a tool's templated parts (:func:`http_call`)
and sent (:func:`send`, :func:`send_async`).

Generated code reaches these names as the package's attributes: the request's
parts (:mod:`.request`) load with the first http call made, httpx with the first
request sent (:mod:`.transport`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .. import lazy_face

if TYPE_CHECKING:
    from ...results import ToolResult
    from .parts import ApiKeyAuth, BasicAuth, BearerAuth, OAuth2Auth, Retry
    from .request import HttpCall, http_call

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


_Senders = tuple[
    Callable[["HttpCall"], "ToolResult"],
    Callable[["HttpCall"], Awaitable["ToolResult"]],
]

_SENDERS: _Senders | None = None
"""The transport's ``send`` and ``send_async``, once imported (:func:`_imported`),
looked up here: an import statement costs microseconds every time it runs."""


def send(call: HttpCall) -> ToolResult:
    return (_SENDERS or _imported())[0](call)


def send_async(call: HttpCall) -> Awaitable[ToolResult]:
    """:func:`send`, awaited (see ``transport.send_async``); the first call imports
    the transport (httpx) off the event loop (``executors.off_loop``)."""
    if _SENDERS is None:
        return _sent_once_imported(call)
    return _SENDERS[1](call)


async def _sent_once_imported(call: HttpCall) -> ToolResult:
    from ..off_loop import imported_off_loop

    return await (await imported_off_loop(_imported))[1](call)


def _imported() -> _Senders:
    global _SENDERS
    from .transport import send, send_async

    _SENDERS = send, send_async
    return _SENDERS


__getattr__ = lazy_face(
    __name__,
    {
        "ApiKeyAuth": ".parts",
        "BasicAuth": ".parts",
        "BearerAuth": ".parts",
        "OAuth2Auth": ".parts",
        "Retry": ".parts",
        "HttpCall": ".request",
        "http_call": ".request",
    },
    # the auth and retry parts (~20 M instructions to make) load with the first
    # tool that has one, not with every first call
    apart={".parts"},
)
