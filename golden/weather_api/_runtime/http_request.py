"""The request of an http tool, encoded from its templated parts, and the entry
points that send it.

Generated code templates the url, headers, params, body and auth fields;
:func:`http_call` encodes them as mci-py (requests) would. :func:`send` and
:func:`send_async` hand the request to :mod:`.http_exec`, imported on the first
request: a package whose http tools are not called never loads httpx.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from .results import ToolResult, error_result


@dataclass(frozen=True, slots=True)
class OAuth2:
    token_url: str
    client_id: str
    client_secret: str
    scopes: tuple[str, ...]


@dataclass(slots=True)
class HttpCall:
    """A request ready to send, but for an OAuth2 token it may still have to fetch."""

    method: str
    url: str
    headers: list[tuple[str, str]]
    params: list[tuple[str, str]]
    content: bytes | None
    timeout_s: float
    attempts: int
    backoff_ms: int
    retries: bool
    oauth2: OAuth2 | None = None
    secrets: list[str] = field(default_factory=list)


def http_call(
    method: str,
    url: str,
    headers: dict[str, Any],
    params: Any,
    body_type: str | None,
    body: Any,
    auth: dict[str, Any] | None,
    timeout_ms: int,
    retries: tuple[int, int] | None,
    secrets: list[str],
) -> HttpCall | ToolResult:
    """Encode the templated parts of a request; a header with a line break is refused."""
    header_pairs = [(str(k), str(v)) for k, v in headers.items()]
    param_pairs = _pairs(params) if isinstance(params, dict) else []
    content: bytes | None = None
    if body_type is not None:
        content, content_type = _body(body_type, body)
        if not any(k.lower() == "content-type" for k, _ in header_pairs):
            header_pairs.append(("Content-Type", content_type))
    call = HttpCall(
        method,
        url,
        header_pairs,
        param_pairs,
        content,
        timeout_ms / 1000 if timeout_ms > 0 else 30.0,
        retries[0] if retries else 1,
        retries[1] if retries else 0,
        retries is not None,
        secrets=[s for s in secrets if isinstance(s, str) and len(s) >= 3],
    )
    if auth is not None:
        failure = _apply_auth(call, auth)
        if failure is not None:
            return failure
    for name, value in call.headers:
        if "\r" in value or "\n" in value:
            return error_result(
                f"Header '{name}' contains a line break; the request was not sent"
            )
    return call


def _pairs(mapping: dict[str, Any]) -> list[tuple[str, str]]:
    """Query or form pairs as requests encodes a dict: lists repeat, None is left out."""
    pairs: list[tuple[str, str]] = []
    for key, value in mapping.items():
        values = value if isinstance(value, list | tuple) else [value]
        pairs.extend((str(key), str(v)) for v in values if v is not None)
    return pairs


def _body(body_type: str, body: Any) -> tuple[bytes, str]:
    if body_type == "json":
        return json.dumps(body, allow_nan=False).encode(), "application/json"
    if body_type == "form":
        pairs = _pairs(body) if isinstance(body, dict) else []
        return urlencode(pairs).encode(), "application/x-www-form-urlencoded"
    return str(body).encode(), "text/plain"


def _apply_auth(call: HttpCall, auth: dict[str, Any]) -> ToolResult | None:
    kind = auth["type"]
    if kind == "apiKey":
        call.secrets.append(auth["value"])
        pair = (auth["name"], auth["value"])
        if auth["in"] == "query":
            call.params = [p for p in call.params if p[0] != auth["name"]] + [pair]
        else:
            call.headers.append(pair)
    elif kind == "bearer":
        call.secrets.append(auth["token"])
        call.headers.append(("Authorization", f"Bearer {auth['token']}"))
    elif kind == "basic":
        call.secrets.append(auth["password"])
        credentials = f"{auth['username']}:{auth['password']}".encode()
        encoded = base64.b64encode(credentials).decode()
        call.headers.append(("Authorization", f"Basic {encoded}"))
    else:
        if auth["flow"] != "clientCredentials":
            return error_result(f"Unsupported OAuth2 flow: {auth['flow']}")
        call.secrets.append(auth["clientSecret"])
        scopes = tuple(auth.get("scopes") or ())
        call.oauth2 = OAuth2(
            auth["tokenUrl"], auth["clientId"], auth["clientSecret"], scopes
        )
    return None


def send(call: HttpCall) -> ToolResult:
    from .http_exec import send

    return send(call)


async def send_async(call: HttpCall) -> ToolResult:
    from .http_exec import send_async

    return await send_async(call)
