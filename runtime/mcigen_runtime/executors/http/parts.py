"""The parts of a request that only some http tools give: their auth and retry,
and how auth is added to a call (:func:`apply_auth`).

Apart from :mod:`.request`: these are six frozen dataclasses, ~20 M instructions
to make, which a package imports only when a tool module names one of them.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ...results import ToolResult, error_result

if TYPE_CHECKING:

    class HttpCall(Protocol):
        """What :func:`apply_auth` changes of a ``request.HttpCall`` (not imported:
        the request imports this module)."""

        headers: list[tuple[str, str]]
        params: list[tuple[str, str]]
        secrets: list[str]
        oauth2: OAuth2 | None


@dataclass(frozen=True, slots=True)
class Retry:
    """How often a request that cannot connect is tried, and the wait before each
    try after the first (doubled each time)."""

    attempts: int
    backoff_ms: int = 0


@dataclass(frozen=True, slots=True)
class ApiKeyAuth:
    """An API key sent as a header or a query parameter (``location``)."""

    location: str
    name: str
    value: str


@dataclass(frozen=True, slots=True)
class BearerAuth:
    token: str


@dataclass(frozen=True, slots=True)
class BasicAuth:
    username: str
    password: str


@dataclass(frozen=True, slots=True)
class OAuth2Auth:
    """OAuth2 credentials; ``clientCredentials`` is the one ``flow`` that is run."""

    flow: str
    token_url: str
    client_id: str
    client_secret: str
    scopes: Sequence[str] | None = None


Auth = ApiKeyAuth | BearerAuth | BasicAuth | OAuth2Auth


@dataclass(frozen=True, slots=True)
class OAuth2:
    token_url: str
    client_id: str
    client_secret: str
    scopes: tuple[str, ...]


def apply_auth(call: HttpCall, auth: Auth) -> ToolResult | None:
    """Add ``auth`` to the call: a header, a query parameter, or the OAuth2
    credentials its token is fetched with; an error result for a flow not run."""
    if isinstance(auth, ApiKeyAuth):
        _keep_secret(call, auth.value)
        pair = (auth.name, auth.value)
        if auth.location == "query":
            call.params = [p for p in call.params if p[0] != auth.name] + [pair]
        else:
            call.headers.append(pair)
    elif isinstance(auth, BearerAuth):
        _keep_secret(call, auth.token)
        call.headers.append(("Authorization", f"Bearer {auth.token}"))
    elif isinstance(auth, BasicAuth):
        _keep_secret(call, auth.password)
        credentials = f"{auth.username}:{auth.password}"
        encoded = base64.b64encode(credentials.encode("utf-8", "surrogateescape"))
        call.headers.append(("Authorization", f"Basic {encoded.decode()}"))
    else:
        if auth.flow != "clientCredentials":
            return error_result(f"Unsupported OAuth2 flow: {auth.flow}")
        _keep_secret(call, auth.client_secret)
        scopes = tuple(auth.scopes or ())
        call.oauth2 = OAuth2(auth.token_url, auth.client_id, auth.client_secret, scopes)
    return None


def _keep_secret(call: HttpCall, value: Any) -> None:
    if isinstance(value, str) and value:
        call.secrets.append(value)
