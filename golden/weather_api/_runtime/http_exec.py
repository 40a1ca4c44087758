"""Sending the request of an http tool over one pooled httpx transport, sync or async.

:mod:`.http_request` encodes the request; this module fetches OAuth2 tokens (cached
until shortly before they expire), follows redirects and retries connection errors
and 5xx responses as requests does, and maps the response onto a
:class:`ToolResult`. Secrets never reach a message: auth values and the environment
values the tool reads are replaced by ``***``.

Requests are ``httpx.Request`` objects handed straight to an ``httpx.HTTPTransport``,
one connection pool per process: an ``httpx.Client`` would add its cookie jar (mci-py
keeps no cookies between calls: requests.request opens a new session every time), its
redirect handling (httpx's rules, not requests') and its request merging, a third of
a loopback call. When the environment configures a proxy, requests go through an
``httpx.Client`` instead, which mounts it. The async twin runs the same exchange in a
worker thread (see :func:`send_async`).
"""

from __future__ import annotations

import base64
import contextvars
import functools
import json
import logging
import threading
import time
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast
from urllib.parse import quote, quote_plus, urlencode
from urllib.request import getproxies

import httpx

from .http_request import HttpCall, OAuth2
from .results import ImageContent, ToolResult, error_result, text_result

_TOKEN_MARGIN_S = 30.0
_REDACTED = "***"


# -- transports and tokens ---------------------------------------------------------

_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
_MAX_REDIRECTS = 30  # requests' default
_URL_CACHE_SIZE = 256
_THREADS = 100


def _proxied() -> bool:
    """Whether the environment configures a proxy (as httpx and requests read it)."""
    proxies = getproxies()
    return any(proxies.get(scheme) for scheme in ("http", "https", "all"))


def _default_headers() -> list[tuple[str, str]]:
    """The headers an ``httpx.Client`` adds to every request (Accept, Accept-Encoding,
    Connection, User-Agent), read once from a client that never sends (a mock
    transport spares it the SSL context)."""
    global _defaults
    if _defaults is None:
        never = httpx.Client(transport=httpx.MockTransport(_never))
        _defaults = [
            (k.decode("ascii"), v.decode("ascii")) for k, v in never.headers.raw
        ]
    return _defaults


def _never(request: httpx.Request) -> httpx.Response:
    raise AssertionError("this client only lends its default headers")


def _logged(response: httpx.Response) -> None:
    """The line ``httpx.Client`` logs for every response (logger ``httpx``, INFO)."""
    if _httpx_logger.isEnabledFor(logging.INFO):
        request = response.request
        _httpx_logger.info(
            'HTTP Request: %s %s "%s %d %s"',
            request.method,
            request.url,
            response.http_version,
            response.status_code,
            response.reason_phrase,
        )


class _Sync:
    """The process's connection pool: a bare transport, or a client when a proxy is
    configured (the client mounts it)."""

    def __init__(self) -> None:
        self.headers = _default_headers()
        self.client: httpx.Client | None = None
        self.transport: httpx.HTTPTransport | None = None
        if _proxied():
            self.client = httpx.Client()
        else:
            self.transport = httpx.HTTPTransport()

    def send(self, request: httpx.Request) -> httpx.Response:
        """The whole response, read and closed (redirects are not followed here)."""
        if self.transport is None:
            assert self.client is not None
            return self.client.send(request)
        response = self.transport.handle_request(request)
        response.request = request
        _logged(response)
        try:
            response.read()
        finally:
            response.close()
        return response


_lock = threading.Lock()
_sync: _Sync | None = None
_pool: ThreadPoolExecutor | None = None
_tokens: dict[tuple[str, str, tuple[str, ...]], tuple[str, float]] = {}
_urls: dict[str, httpx.URL] = {}
_timeouts: dict[float, dict[str, float | None]] = {}
_encodings: dict[str, str] = {}
_defaults: list[tuple[str, str]] | None = None
_httpx_logger = logging.getLogger("httpx")


def _sync_sender() -> _Sync:
    global _sync
    if _sync is None:
        with _lock:
            if _sync is None:
                _sync = _Sync()
    return _sync


def _threads() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(_THREADS, thread_name_prefix="mcigen-http")
    return _pool


class _Failed(Exception):
    """A failure (of the OAuth2 token request) whose message is the tool's error result."""


class _TooManyRedirects(Exception):
    """requests' TooManyRedirects: a request error, retried like a connection error."""


def _token_request(oauth: OAuth2) -> tuple[str, str, list[tuple[str, str]], bytes]:
    data = [
        ("grant_type", "client_credentials"),
        ("client_id", oauth.client_id),
        ("client_secret", oauth.client_secret),
    ]
    if oauth.scopes:
        data.append(("scope", " ".join(oauth.scopes)))
    form = [("Content-Type", "application/x-www-form-urlencoded")]
    return "POST", oauth.token_url, form, urlencode(data).encode()


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


# The exchange is a generator that yields what to do (send a request, wait) and
# receives the response (read and closed): the protocol (tokens, redirects, retries,
# the result) apart from the I/O, which ``send`` performs.
_Step = tuple[str, Any]
_Exchange = Generator[_Step, httpx.Response | None, ToolResult]


def _exchange(call: HttpCall, defaults: list[tuple[str, str]]) -> _Exchange:
    started = time.perf_counter()
    try:
        headers = call.headers
        if call.oauth2 is not None:
            token = _cached_token(call.oauth2)
            if token is None:
                method, url, form, body = _token_request(call.oauth2)
                reply = yield from _follow(
                    method, url, _merged(defaults, form), None, body, 30.0
                )
                token = _store_token(call.oauth2, reply)
            headers = _authorize(call, token)
        merged = _merged(defaults, headers)
        params = call.params or None
        response: httpx.Response | None = None
        for attempt in range(call.attempts):
            try:
                response = yield from _follow(
                    call.method, call.url, merged, params, call.content, call.timeout_s
                )
                if response.status_code < 500:
                    break
            except (httpx.TransportError, _TooManyRedirects):
                if attempt == call.attempts - 1:
                    raise
            if attempt < call.attempts - 1:
                yield ("sleep", call.backoff_ms * 2**attempt / 1000)
        assert response is not None
        return _finish(call, response, started)
    except (_Failed, _TooManyRedirects) as failure:
        return error_result(_redact(call, str(failure)))
    except httpx.HTTPError as error:
        return error_result(_redact(call, _transport_message(error)))


def _merged(
    defaults: list[tuple[str, str]], headers: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """httpx's defaults, less those the request sets (any case), then the request's
    headers: what ``httpx.Client`` sends."""
    if not headers:
        return defaults
    named = {name.lower() for name, _ in headers}
    return [h for h in defaults if h[0].lower() not in named] + headers


def _follow(
    method: str,
    url: str,
    headers: list[tuple[str, str]],
    params: list[tuple[str, str]] | None,
    content: bytes | None,
    timeout_s: float,
) -> Generator[_Step, httpx.Response | None, httpx.Response]:
    """One request and the redirects it leads to, as requests follows them: up to 30;
    301 (a POST), 302 and 303 (not a HEAD) become a GET; 301, 302 and 303 drop the
    body and its headers; Authorization is dropped when the host, scheme or port
    changes (but for http -> https on default ports); cookies the redirects set are
    sent on along the chain, and none outlive the call."""
    extensions = {"timeout": _timeout(timeout_s)}
    request = httpx.Request(
        method,
        _url(url),
        params=cast(Any, params),  # a list of str pairs, which httpx takes
        headers=headers,
        content=content,
        extensions=extensions,
    )
    jar: httpx.Cookies | None = None
    for _ in range(_MAX_REDIRECTS + 1):
        response = yield ("request", request)
        assert response is not None
        if (
            response.status_code not in _REDIRECT_CODES
            or "location" not in response.headers
        ):
            return response
        if jar is None:
            jar = httpx.Cookies()
        jar.extract_cookies(response)
        request = _redirected(request, response, jar, extensions)
    raise _TooManyRedirects(f"Exceeded {_MAX_REDIRECTS} redirects.")


def _redirected(
    request: httpx.Request,
    response: httpx.Response,
    jar: httpx.Cookies,
    extensions: dict[str, Any],
) -> httpx.Request:
    code, method = response.status_code, request.method
    if (code in (302, 303) and method != "HEAD") or (code == 301 and method == "POST"):
        method = "GET"
    try:
        url = request.url.join(response.headers["location"])
    except httpx.InvalidURL as error:  # httpx's words, as a transport error
        raise httpx.RemoteProtocolError(
            f"Invalid URL in location header: {error}.", request=request
        ) from None
    if request.url.fragment and not url.fragment:
        url = url.copy_with(fragment=request.url.fragment)
    dropped = {b"host", b"cookie"}
    content: bytes | None = None
    if code in (307, 308):
        content = request.content
    else:
        dropped |= {b"content-length", b"content-type", b"transfer-encoding"}
    if _strips_auth(request.url, url):
        dropped.add(b"authorization")
    headers = [(k, v) for k, v in request.headers.raw if k.lower() not in dropped]
    following = httpx.Request(
        method, url, headers=headers, content=content, extensions=extensions
    )
    jar.set_cookie_header(following)
    return following


def _strips_auth(old: httpx.URL, new: httpx.URL) -> bool:
    """requests' ``should_strip_auth`` (httpx's URL.port is None on a default port)."""
    if old.host != new.host:
        return True
    if old.scheme == "http" and new.scheme == "https" and old.port is new.port is None:
        return False
    return old.scheme != new.scheme or old.port != new.port


def _url(url: str) -> httpx.URL:
    """The parsed URL, from a small cache (parsing is a tenth of a loopback call)."""
    parsed = _urls.get(url)
    if parsed is None:
        if len(_urls) >= _URL_CACHE_SIZE:
            _urls.clear()
        parsed = _urls[url] = httpx.URL(url)
    return parsed


def _timeout(seconds: float) -> dict[str, float | None]:
    """The ``timeout`` extension of ``httpx.Timeout(seconds)`` (one per value)."""
    timeout = _timeouts.get(seconds)
    if timeout is None:
        timeout = _timeouts[seconds] = httpx.Timeout(seconds).as_dict()
    return timeout


def send(call: HttpCall) -> ToolResult:
    sender = _sync_sender()
    exchange = _exchange(call, sender.headers)
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
            reply = sender.send(argument)
        except httpx.HTTPError as failure:
            error = failure


async def send_async(call: HttpCall) -> ToolResult:
    """:func:`send` in a worker thread, awaited.

    A loopback call costs half what it does over httpx's async transport (whose
    anyio streams cost more than the request), and 16 concurrent tasks make several
    times the calls per second; the process has one connection pool for sync and
    async calls and every event loop. Up to 100 requests run at once (httpx's
    default connection limit); more wait for a thread. A cancelled task stops
    waiting at once, while its request runs on in its thread to its end or its
    timeout, and the result is dropped.
    """
    context = contextvars.copy_context()
    work = functools.partial(context.run, send, call)
    import asyncio  # here: sync calls never load it

    return await asyncio.get_running_loop().run_in_executor(_threads(), work)


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
    content_type = response.headers.get("Content-Type", "")
    lowered = content_type.lower()
    if lowered.startswith("image/"):
        data = base64.b64encode(response.content).decode()
        image = ImageContent.model_construct(
            type="image", data=data, mimeType=lowered.split(";")[0]
        )
        return ToolResult.model_construct(
            content=[image], isError=False, metadata=metadata
        )
    if "application/json" in lowered:
        try:
            return text_result(json.dumps(response.json(), indent=2), metadata)
        except ValueError:
            pass
    return text_result(_text(response, content_type), metadata)


def _text(response: httpx.Response, content_type: str) -> str:
    """``response.text``, with the encoding httpx finds in a Content-Type remembered:
    parsing the header (with ``email.message``) costs more than decoding a short body.
    """
    try:
        encoding = _encodings[content_type]
    except KeyError:
        encoding = _encodings[content_type] = response.encoding or "utf-8"
        if len(_encodings) > _URL_CACHE_SIZE:
            _encodings.clear()
    else:
        response.encoding = encoding
    return response.text


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
