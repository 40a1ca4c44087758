"""Bounds on the connections of an HTTP server of the package: ``serve --http``,
``broker``, and the ASGI app under uvicorn with ``--http
mcigen_runtime.edge.connections:GuardedH11Protocol``.

uvicorn (0.54) has no bound on the time a client takes to send a request's headers:
a new connection may stay silent, or send a byte now and then, for ever (each byte
restarts its keep-alive timer), and ``limit_concurrency`` answers 503 but keeps
every connection open. So about a thousand connections whose headers never end,
sent before any secret is asked for, hold every file descriptor the process may
open, and no client is served.

:class:`GuardedH11Protocol` is uvicorn's h11 protocol with two bounds:

- **request time**: a connection must have sent a whole request, its head and its
  body, within :data:`HEADER_TIMEOUT_S` seconds (``MCIGEN_HEADER_TIMEOUT``) of
  opening, or of its previous answer when kept alive, else it is closed. Bytes
  trickling in do not extend it.
- **connections**: when a new connection brings the count over
  ``MCIGEN_MAX_CONNECTIONS`` (default :data:`MAX_CONNECTIONS`, and at most half the
  process's descriptor limit), the connection that has waited longest for its
  request is closed to make room; when every other connection is busy with a
  request, the new one is answered 503 and closed.

Requests being answered are never cut: each call is bounded by its tool's own
bounds. The header size is bounded by h11 (16 KiB).

It also sends each write at once (``TCP_NODELAY``), as asyncio does on the sockets
it makes itself. uvicorn's ``--workers`` listen on a socket made without naming TCP
(``socket.socket(family=...)``), so asyncio leaves its connections to Nagle's
algorithm: an answer written in two parts (head, then body) waits for the client's
delayed ACK, ~40 ms a request on Linux.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .json_text import json_bytes

if TYPE_CHECKING:
    from collections.abc import Mapping

HEADER_TIMEOUT_S = 10.0
"""How long a connection may take to send a whole request (head and body)."""

MAX_CONNECTIONS = 512
"""How many connections a server keeps open, at most (see the module docs)."""

_BUSY_BODY = json_bytes(
    {
        "error": "unavailable",
        "error_description": "too many connections: try again soon",
    }
)
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY)
)
"""The answer to a connection there is no room for."""


@dataclass(frozen=True)
class ConnectionLimits:
    header_timeout_s: float = HEADER_TIMEOUT_S
    max_connections: int = MAX_CONNECTIONS

    @property
    def backlog(self) -> int:
        """The listen backlog: asyncio accepts up to this many connections at once
        before any of them is counted, so it must leave descriptors to spare."""
        return max(1, min(2048, self.max_connections // 4))


def limits_from_environment(
    env: Mapping[str, str], descriptor_limit: int | None
) -> ConnectionLimits:
    """``MCIGEN_HEADER_TIMEOUT`` (seconds) and ``MCIGEN_MAX_CONNECTIONS``, the
    connection cap no more than half ``descriptor_limit`` (when there is one).
    Raises ``ValueError`` naming the variable for a value that is not a positive
    number."""
    timeout = _positive(env, "MCIGEN_HEADER_TIMEOUT", float, HEADER_TIMEOUT_S)
    most = _positive(env, "MCIGEN_MAX_CONNECTIONS", int, MAX_CONNECTIONS)
    if descriptor_limit is not None:
        most = max(1, min(most, descriptor_limit // 2))
    return ConnectionLimits(timeout, most)


def _positive(env: Mapping[str, str], name: str, kind: Any, default: Any) -> Any:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = 0
    if not 0 < value < float("inf"):
        raise ValueError(f"{name} must be a positive number, not {text!r}")
    return value


def _descriptor_limit() -> int | None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


@cache
def process_limits() -> ConnectionLimits:
    """The limits of this process, read once (see the module docs)."""
    return limits_from_environment(os.environ, _descriptor_limit())


def _send_at_once(transport: asyncio.Transport) -> None:
    """``TCP_NODELAY`` on the connection of ``transport`` (see the module docs)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # closed already
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


_SENT = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)
"""The client's states once its request has arrived whole (or broke the protocol,
which uvicorn answers at once)."""


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the bounds of the module docs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = process_limits()
        self.waiting_since: float | None = None
        """When the connection began to wait for a request; None while it has
        one."""
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        _send_at_once(transport)
        super().connection_made(transport)
        self._await_head()
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.waiting_since is not None and self.conn.their_state in _SENT:
            self._stop_waiting()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def _await_head(self) -> None:
        self._stop_waiting()
        self.waiting_since = time.monotonic()
        self._deadline = self.loop.call_later(
            self.limits.header_timeout_s, self.transport.close
        )

    def _stop_waiting(self) -> None:
        self.waiting_since = None
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _make_room(self) -> None:
        """Close the connection that has waited longest for a request, or
        this new one (with a 503) when no other is waiting."""
        waiting = [
            other
            for other in self.connections
            if isinstance(other, GuardedH11Protocol)
            and other is not self
            and other.waiting_since is not None
            and not other.transport.is_closing()
        ]
        if waiting:
            oldest = min(waiting, key=lambda other: other.waiting_since or 0.0)
            oldest._stop_waiting()
            oldest.transport.close()
            return
        self._stop_waiting()
        self.transport.write(_BUSY)
        self.transport.close()
