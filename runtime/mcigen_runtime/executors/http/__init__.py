"""The http executor: a request made of a tool's templated parts (:func:`http_call`)
and sent (:func:`send`, :func:`send_async`).

httpx is imported by the first request sent (:mod:`.transport`): a package whose
http tools are not called never loads it.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ...results import ToolResult
from .request import HttpCall, http_call

if TYPE_CHECKING:
    from .parts import ApiKeyAuth, BasicAuth, BearerAuth, OAuth2Auth, Retry

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


_PARTS = frozenset({"ApiKeyAuth", "BasicAuth", "BearerAuth", "OAuth2Auth", "Retry"})


def __getattr__(name: str) -> Any:
    """The auth and retry parts (:mod:`.parts`), loaded by the first tool module
    that names one: a package whose tools have none never makes them."""
    if name in _PARTS:
        from . import parts

        return getattr(parts, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
