"""Sending the request of an http tool over one pooled httpx client, sync or async.

Generated code templates the url, headers, params, body and auth fields; this module
encodes them as mci-py (requests) would, applies auth (caching OAuth2 tokens until
shortly before they expire), retries connection errors and 5xx responses, and maps
the response onto a :class:`ToolResult`. Secrets never reach a message: auth values
and the environment values the tool reads are replaced by ``***``.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
import weakref
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, quote_plus, urlencode

import httpx

from .results import ImageContent, ToolResult, error_result, text_result

_TOKEN_MARGIN_S = 30.0
_REDACTED = "***"


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


# -- clients and tokens ------------------------------------------------------------

_lock = threading.Lock()
_client: httpx.Client | None = None
_async_clients: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, httpx.AsyncClient
] = weakref.WeakKeyDictionary()
_tokens: dict[tuple[str, str, tuple[str, ...]], tuple[str, float]] = {}


def _sync_client() -> httpx.Client:
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                _client = httpx.Client()
    return _client


def _async_client() -> httpx.AsyncClient:
    """One client per event loop: an httpx connection belongs to the loop that opened it."""
    loop = asyncio.get_running_loop()
    client = _async_clients.get(loop)
    if client is None:
        client = _async_clients[loop] = httpx.AsyncClient()
    return client


class _Failed(Exception):
    """A failure (of the OAuth2 token request) whose message is the tool's error result."""


def _token_request(oauth: OAuth2) -> dict[str, Any]:
    data = {
        "grant_type": "client_credentials",
        "client_id": oauth.client_id,
        "client_secret": oauth.client_secret,
    }
    if oauth.scopes:
        data["scope"] = " ".join(oauth.scopes)
    return {"method": "POST", "url": oauth.token_url, "data": data, "timeout": 30.0}


def _cached_token(oauth: OAuth2) -> str | None:
    cached = _tokens.get((oauth.token_url, oauth.client_id, oauth.scopes))
    if cached is not None and cached[1] > time.monotonic():
        return cached[0]
    return None


def _store_token(oauth: OAuth2, response: httpx.Response) -> str:
    if response.status_code >= 400:
        raise _Failed(_status_message(response))
    try:
        payload = response.json()
    except ValueError:
        payload = {}
    token = payload.get("access_token") if isinstance(payload, dict) else None
    if not token:
        raise _Failed("OAuth2 token response missing access_token")
    expires_in = payload.get("expires_in")
    if isinstance(expires_in, int | float) and not isinstance(expires_in, bool):
        expiry = time.monotonic() + max(float(expires_in) - _TOKEN_MARGIN_S, 0.0)
        _tokens[(oauth.token_url, oauth.client_id, oauth.scopes)] = (str(token), expiry)
    return str(token)


def _authorize(call: HttpCall, token: str) -> list[tuple[str, str]]:
    call.secrets.append(token)
    return [*call.headers, ("Authorization", f"Bearer {token}")]


# -- sending -------------------------------------------------------------------


# The exchange is written once, as a generator that yields what to do (send a request,
# wait) and receives the response; the sync and async senders only perform the I/O.
_Step = tuple[str, Any]
_Exchange = Generator[_Step, httpx.Response | None, ToolResult]


def _exchange(call: HttpCall) -> _Exchange:
    started = time.perf_counter()
    try:
        headers = call.headers
        if call.oauth2 is not None:
            token = _cached_token(call.oauth2)
            if token is None:
                reply = yield ("request", _token_request(call.oauth2))
                assert reply is not None
                token = _store_token(call.oauth2, reply)
            headers = _authorize(call, token)
        response: httpx.Response | None = None
        for attempt in range(call.attempts):
            try:
                response = yield ("request", _request(call, headers))
                assert response is not None
                if response.status_code < 500:
                    break
            except httpx.TransportError:
                if attempt == call.attempts - 1:
                    raise
            if attempt < call.attempts - 1:
                yield ("sleep", call.backoff_ms * 2**attempt / 1000)
        assert response is not None
        return _finish(call, response, started)
    except _Failed as failure:
        return error_result(_redact(call, str(failure)))
    except httpx.HTTPError as error:
        return error_result(_redact(call, _transport_message(error)))


def send(call: HttpCall) -> ToolResult:
    client = _sync_client()
    exchange = _exchange(call)
    reply: httpx.Response | None = None
    error: httpx.HTTPError | None = None
    while True:
        try:
            action, argument = exchange.throw(error) if error else exchange.send(reply)
        except StopIteration as done:
            result: ToolResult = done.value
            return result
        reply, error = None, None
        if action == "sleep":
            time.sleep(argument)
            continue
        try:
            reply = client.request(**argument)
        except httpx.HTTPError as failure:
            error = failure


async def send_async(call: HttpCall) -> ToolResult:
    client = _async_client()
    exchange = _exchange(call)
    reply: httpx.Response | None = None
    error: httpx.HTTPError | None = None
    while True:
        try:
            action, argument = exchange.throw(error) if error else exchange.send(reply)
        except StopIteration as done:
            result: ToolResult = done.value
            return result
        reply, error = None, None
        if action == "sleep":
            await asyncio.sleep(argument)
            continue
        try:
            reply = await client.request(**argument)
        except httpx.HTTPError as failure:
            error = failure


def _request(call: HttpCall, headers: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "method": call.method,
        "url": call.url,
        "headers": headers,
        "params": call.params or None,
        "content": call.content,
        "timeout": call.timeout_s,
    }


def _finish(call: HttpCall, response: httpx.Response, started: float) -> ToolResult:
    metadata: dict[str, Any] = {
        "status_code": response.status_code,
        "response_time_ms": int((time.perf_counter() - started) * 1000),
    }
    if response.status_code >= 400:
        if call.retries and response.status_code >= 500:
            message = f"Server error: {response.status_code}"
        else:
            message = _status_message(response)
        return error_result(_redact(call, message), metadata)
    content_type = response.headers.get("Content-Type", "").lower()
    if content_type.startswith("image/"):
        data = base64.b64encode(response.content).decode()
        image = ImageContent.model_construct(
            type="image", data=data, mimeType=content_type.split(";")[0]
        )
        return ToolResult.model_construct(
            content=[image], isError=False, metadata=metadata
        )
    if "application/json" in content_type:
        try:
            return text_result(json.dumps(response.json(), indent=2), metadata)
        except ValueError:
            pass
    return text_result(response.text, metadata)


def _status_message(response: httpx.Response) -> str:
    """requests' wording: ``404 Client Error: Not Found for url: URL``."""
    side = "Client" if response.status_code < 500 else "Server"
    reason = response.reason_phrase
    return f"{response.status_code} {side} Error: {reason} for url: {response.url}"


def _transport_message(error: httpx.HTTPError) -> str:
    return f"HTTP request failed: {type(error).__name__}: {error}"


def _redact(call: HttpCall, message: str) -> str:
    for secret in sorted(set(call.secrets), key=len, reverse=True):
        for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
            message = message.replace(form, _REDACTED)
    return message
