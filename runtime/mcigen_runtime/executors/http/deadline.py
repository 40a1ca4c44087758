"""One deadline for a whole http call: connecting, sending, every redirect and retry,
and every byte of the answer.

httpcore gives each read the same timeout, taken once per phase of a request, so a
server that trickles a byte just before each read would time out holds a call as
long as it likes. The connections of our transports go through :class:`_Backend`
instead, which gives each connect, read and write only the time left before the
deadline of the call running in this context (:func:`within`), and raises the
phase's timeout error once none is left.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

_deadline: ContextVar[float | None] = ContextVar("mcigen_http_deadline", default=None)
_SLICE = 1 << 16
"""Bytes written under one check of the time left."""


@contextmanager
def within(deadline: float) -> Iterator[None]:
    """Network I/O in this context ends by ``deadline`` (``time.monotonic()``)."""
    reset = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(reset)


def bounded(transport: httpx.HTTPTransport) -> httpx.HTTPTransport:
    """``transport``, its connections held to the deadline of the calling context.

    httpx has no parameter for the network backend of the httpcore pool it makes;
    the pool reads it when it opens a connection, so it is swapped before any is.
    """
    pool: Any = transport._pool
    pool._network_backend = _Backend(pool._network_backend)
    return transport


def _left(
    timeout: float | None, expired: type[httpcore.TimeoutException]
) -> float | None:
    """The time this operation may take: its own timeout, cut to the time left."""
    deadline = _deadline.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("timed out")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        for start in range(0, len(buffer), _SLICE):
            piece = buffer[start : start + _SLICE]
            self._inner.write(piece, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(
            self._inner.connect_tcp(host, port, left, local_address, socket_options)
        )

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, left, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)
