"""OAuth2 access tokens, kept until shortly before they expire.

A token is found again only by the same credentials: token URL, client id, client
secret and scopes, hashed together (no secret is kept as a key). Each ``Client``
has a cache of its own (:func:`tokens_of`), so one client's token never serves
another; plain function calls share the process's cache.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_MARGIN_S = 30.0


class TokenCache:
    """Tokens by the hash of the credentials they were issued for."""

    def __init__(self) -> None:
        self._tokens: dict[bytes, tuple[str, float]] = {}

    def get(self, credentials: tuple[str, ...]) -> str | None:
        cached = self._tokens.get(_key(credentials))
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        return None

    def put(self, credentials: tuple[str, ...], token: str, expires_in: float) -> None:
        expiry = time.monotonic() + max(expires_in - _MARGIN_S, 0.0)
        self._tokens[_key(credentials)] = (token, expiry)


def _key(credentials: tuple[str, ...]) -> bytes:
    """Every field, length-prefixed (no two tuples give the same bytes), hashed."""
    digest = hashlib.sha256()
    for part in credentials:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.digest()


_process = TokenCache()
_current: ContextVar[TokenCache | None] = ContextVar("mcigen_tokens", default=None)


def current() -> TokenCache:
    """The cache of the calling ``Client``, or the process's."""
    return _current.get() or _process


@contextmanager
def tokens_of(cache: TokenCache) -> Iterator[None]:
    """Calls made inside keep their tokens in ``cache``."""
    reset = _current.set(cache)
    try:
        yield
    finally:
        _current.reset(reset)
