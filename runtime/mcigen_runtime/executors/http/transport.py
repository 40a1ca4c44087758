"""Sending the request of an http tool over pooled httpx transports, sync or async.

:mod:`mcigen_runtime.executors.http.request` encodes the request; this module fetches OAuth2 tokens
(cached as :mod:`mcigen_runtime.tokens` says), follows redirects and retries connection
errors and 5xx responses as requests does, reads the body up to the call's
``http_body`` limit and maps the response onto a :class:`ToolResult`. One deadline
holds the whole call, token, redirects, retries and body (:mod:`mcigen_runtime.executors.http.deadline`).
Secrets reach no message, no log record and no other origin (:mod:`mcigen_runtime.executors.http.redaction`).

Requests are ``httpx.Request`` objects handed straight to an ``httpx.HTTPTransport``,
one connection pool per process, and one per proxy the environment configures,
chosen per URL as requests chooses (urllib's ``getproxies`` and ``proxy_bypass``).
An ``httpx.Client`` would add its cookie jar (mci-py keeps no cookies between
calls: requests.request opens a new session every time), its redirect handling
(httpx's rules, not requests'), its request merging (a third of a loopback call)
and a log line with the URL as it is, secrets and all. The async twin runs the same
exchange in a worker thread (see :func:`send_async`).
"""

from __future__ import annotations

import contextvars
import functools
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlencode
from urllib.request import getproxies, proxy_bypass

from ...extras import missing_extra
from ...results import ToolResult, error_result, text_result, tool_result
from ...tokens import current
from .binary import binary_content
from .deadline import bounded, within
from .redaction import redacted, secret_header_names, shown_url
from .request import BadHeader, HttpCall, check_header

try:
    import httpx
except ModuleNotFoundError:
    raise missing_extra("http") from None

if TYPE_CHECKING:
    import asyncio

    from .parts import OAuth2

# -- transports and tokens ---------------------------------------------------------

_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
_MAX_REDIRECTS = 30  # requests' default
_URL_CACHE_SIZE = 256
_THREADS = 100
_TOKEN_TIMEOUT_S = 30.0  # mci-py's, within the call's own


_Raw = list[tuple[bytes, bytes]]
"""Headers as they are sent: names ASCII, values Latin-1 (as requests sends them)."""


def _default_headers() -> _Raw:
    """The headers an ``httpx.Client`` adds to every request (Accept, Accept-Encoding,
    Connection, User-Agent), read once from a client that never sends (a mock
    transport spares it the SSL context)."""
    global _defaults
    if _defaults is None:
        never = httpx.Client(transport=httpx.MockTransport(_never))
        _defaults = list(never.headers.raw)
    return _defaults


def _never(request: httpx.Request) -> httpx.Response:
    raise AssertionError("this client only lends its default headers")


class _Transports:
    """The process's connection pools: a direct one, and one per proxy scheme."""

    def __init__(self) -> None:
        self.headers = _default_headers()
        self.direct = bounded(httpx.HTTPTransport())
        self.proxies = {
            scheme: bounded(httpx.HTTPTransport(proxy=url))
            for scheme, url in getproxies().items()
            if scheme in ("http", "https", "all") and url
        }

    def _for(self, url: httpx.URL) -> httpx.HTTPTransport:
        if not self.proxies or proxy_bypass(url.host):
            return self.direct
        return self.proxies.get(url.scheme) or self.proxies.get("all", self.direct)

    def send(self, request: httpx.Request, call: HttpCall) -> httpx.Response:
        """The whole response, read and closed (redirects are not followed here)."""
        response = self._for(request.url).handle_request(request)
        response.request = request
        _logged(response, call)
        try:
            _read(response, call.body_limit)
        finally:
            response.close()
        return response


def _logged(response: httpx.Response, call: HttpCall) -> None:
    """The line ``httpx.Client`` logs for every response (logger ``httpx``, INFO),
    its URL redacted."""
    if _httpx_logger.isEnabledFor(logging.INFO):
        request = response.request
        _httpx_logger.info(
            'HTTP Request: %s %s "%s %d %s"',
            request.method,
            _shown(call, request.url),
            response.http_version,
            response.status_code,
            response.reason_phrase,
        )


def _read(response: httpx.Response, limit: int) -> None:
    """Read the body, decoded, refusing one of more than ``limit`` bytes as soon as
    it is known to be: by its Content-Length (unless it is a HEAD's, or counts
    encoded bytes), or once that much has come."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        bodiless = response.request.method == "HEAD"
        if not bodiless and "Content-Encoding" not in response.headers:
            raise _TooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise _TooLarge(limit)
        chunks.append(chunk)
    response._content = b"".join(chunks)  # what Response.read() keeps


_lock = threading.Lock()
_transports: _Transports | None = None
_pool: ThreadPoolExecutor | None = None
_urls: dict[str, httpx.URL] = {}
_timeouts: dict[float, dict[str, float | None]] = {}
_encodings: dict[str, str] = {}
_defaults: _Raw | None = None
_httpx_logger = logging.getLogger("httpx")


def _the_transports() -> _Transports:
    global _transports
    if _transports is None:
        with _lock:
            if _transports is None:
                _transports = _Transports()
    return _transports


def _threads() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(_THREADS, thread_name_prefix="mcigen-http")
    return _pool


class _Failed(Exception):
    """A failure whose message is the tool's error result."""


class _TooLarge(_Failed):
    def __init__(self, limit: int) -> None:
        super().__init__(
            f"The response body is larger than the http_body limit ({limit} bytes); "
            "a larger limit is set with limited(http_body=...) or "
            "mcigen build --limit http_body=SIZE"
        )


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


def _credentials(oauth: OAuth2) -> tuple[str, ...]:
    return (oauth.token_url, oauth.client_id, oauth.client_secret, *oauth.scopes)


def _token_of(response: httpx.Response, call: HttpCall) -> tuple[str, float | None]:
    """The access token of a token response, and how long it lives (if it says)."""
    if response.status_code >= 400:
        raise _Failed(_status_message(response, call))
    try:
        payload = response.json()
    except (ValueError, RecursionError):
        payload = {}
    token = payload.get("access_token") if isinstance(payload, dict) else None
    if not token:
        raise _Failed("OAuth2 token response missing access_token")
    expires_in = payload.get("expires_in")
    if isinstance(expires_in, int | float) and not isinstance(expires_in, bool):
        return str(token), float(expires_in)
    return str(token), None


def _authorize(call: HttpCall, token: str) -> list[tuple[str, str]]:
    call.secrets.append(token)
    authorization = ("Authorization", f"Bearer {token}")
    try:
        check_header(*authorization)
    except BadHeader:
        raise _Failed("The OAuth2 access token cannot be sent in a header") from None
    return [*call.headers, authorization]


# -- sending -------------------------------------------------------------------


# The exchange is a generator that yields what to do (send a request, wait) and
# receives the response (read and closed): the protocol (tokens, redirects, retries,
# the result) apart from the I/O, which ``send`` performs.
_Step = tuple[str, Any]
_Exchange = Generator[_Step, httpx.Response | None, ToolResult]


def _exchange(call: HttpCall, defaults: _Raw, deadline: float) -> _Exchange:
    started = time.perf_counter()
    try:
        headers = call.headers
        if call.oauth2 is not None:
            headers = yield from _with_token(call, call.oauth2, defaults)
        merged = _merged(defaults, headers)
        secret_names = secret_header_names(call.headers, call.secrets)
        params = call.params or None
        response: httpx.Response | None = None
        failure: Exception | None = None
        for attempt in range(call.attempts):
            pause = call.backoff_ms * 2**attempt / 1000
            try:
                response = yield from _follow(
                    call.method,
                    call.url,
                    merged,
                    params,
                    call.content,
                    call.timeout_s,
                    secret_names,
                )
                failure = None
                if response.status_code < 500:
                    break
            except (httpx.TransportError, _TooManyRedirects) as error:
                failure = error
            if attempt == call.attempts - 1 or time.monotonic() + pause >= deadline:
                break
            yield ("sleep", pause)
        if failure is not None:
            raise failure
        assert response is not None
        return _finish(call, response, started)
    except (_Failed, _TooManyRedirects) as failure:
        return error_result(redacted(str(failure), call.secrets))
    except httpx.TimeoutException as error:
        took = f"{type(error).__name__}: the call took longer than its timeout"
        message = f"HTTP request failed: {took} of {call.timeout_s * 1000:g} ms"
        return error_result(message)
    except httpx.HTTPError as error:
        return error_result(redacted(_transport_message(error), call.secrets))


def _with_token(
    call: HttpCall, oauth: OAuth2, defaults: _Raw
) -> Generator[_Step, httpx.Response | None, list[tuple[str, str]]]:
    """The call's headers with its bearer token, fetched unless cached."""
    tokens, credentials = current(), _credentials(oauth)
    token = tokens.get(credentials)
    if token is None:
        method, url, form, body = _token_request(oauth)
        reply = yield from _follow(
            method, url, _merged(defaults, form), None, body, _TOKEN_TIMEOUT_S
        )
        token, expires_in = _token_of(reply, call)
        if expires_in is not None:
            tokens.put(credentials, token, expires_in)
    return _authorize(call, token)


def _merged(defaults: _Raw, headers: list[tuple[str, str]]) -> _Raw:
    """httpx's defaults, less those the request sets (any case), then the request's
    headers: what ``httpx.Client`` sends."""
    if not headers:
        return defaults
    own = [(name.encode("ascii"), value.encode("latin-1")) for name, value in headers]
    named = {name.lower() for name, _ in own}
    return [h for h in defaults if h[0].lower() not in named] + own


def _follow(
    method: str,
    url: str,
    headers: _Raw,
    params: list[tuple[str, str]] | None,
    content: bytes | None,
    timeout_s: float,
    secret_names: frozenset[bytes] = frozenset({b"authorization"}),
) -> Generator[_Step, httpx.Response | None, httpx.Response]:
    """One request and the redirects it leads to, as requests follows them: up to 30;
    301 (a POST), 302 and 303 (not a HEAD) become a GET; 301, 302 and 303 drop the
    body and its headers; cookies the redirects set are sent on along the chain, and
    none outlive the call. When the host, scheme or port changes (but for http ->
    https on default ports), Authorization is dropped, as requests drops it, and so is
    every header in ``secret_names`` (requests would send those on)."""
    extensions = {"timeout": _timeout(timeout_s)}
    try:
        request = httpx.Request(
            method,
            _url(url),
            params=cast(Any, params),  # a list of str pairs, which httpx takes
            headers=headers,
            content=content,
            extensions=extensions,
        )
    except (httpx.InvalidURL, ValueError) as error:  # the URL, or its params
        raise _Failed(f"HTTP request failed: {type(error).__name__}: {error}") from None
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
        request = _redirected(request, response, jar, extensions, secret_names)
    raise _TooManyRedirects(f"Exceeded {_MAX_REDIRECTS} redirects.")


def _redirected(
    request: httpx.Request,
    response: httpx.Response,
    jar: httpx.Cookies,
    extensions: dict[str, Any],
    secret_names: frozenset[bytes],
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
        dropped |= secret_names
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
    try:
        transports = _the_transports()
    except (ImportError, ValueError, httpx.InvalidURL) as error:
        return error_result(
            f"HTTP request failed: the proxy the environment sets is unusable: {error}"
        )
    deadline = time.monotonic() + call.timeout_s
    exchange = _exchange(call, transports.headers, deadline)
    reply: httpx.Response | None = None
    thrown: Exception | None = None
    with within(deadline):
        while True:
            try:
                step = exchange.throw(thrown) if thrown else exchange.send(reply)
            except StopIteration as done:
                result: ToolResult = done.value
                return result
            action, argument = step
            reply, thrown = None, None
            if action == "sleep":
                time.sleep(argument)
                continue
            try:
                reply = transports.send(argument, call)
            except (httpx.HTTPError, _Failed) as failure:
                thrown = failure


def send_async(call: HttpCall) -> Awaitable[ToolResult]:
    """:func:`send` in a worker thread, to await (a future of the running loop).

    A loopback call costs half what it does over httpx's async transport (whose
    anyio streams cost more than the request), and 16 concurrent tasks make several
    times the calls per second; the process has one connection pool for sync and
    async calls and every event loop. Up to 100 requests run at once (httpx's
    default connection limit); more wait for a thread. A cancelled task stops
    waiting at once; a request that has not reached a thread yet is then not
    sent, one that has runs on to its end or its deadline, and the result is
    dropped. The thread settles the loop's future itself (one callback on the
    loop), where ``run_in_executor`` chains a second future to it.
    """
    loop = _running_loop()()
    answer: asyncio.Future[ToolResult] = loop.create_future()
    _threads().submit(_answer, loop, answer, contextvars.copy_context(), call)
    return answer


@functools.cache
def _running_loop() -> Callable[[], asyncio.AbstractEventLoop]:
    import asyncio  # here, once: sync calls never load it

    return asyncio.get_running_loop


def _answer(
    loop: asyncio.AbstractEventLoop,
    answer: asyncio.Future[ToolResult],
    context: contextvars.Context,
    call: HttpCall,
) -> None:
    """In a worker thread: :func:`send`, in the awaiting task's context, its
    result (or what it raised) set on ``answer`` on its loop."""
    if answer.cancelled():  # a read of its state: it is not sent
        return
    try:
        settle: tuple[Any, ...] = (_result, answer, context.run(send, call))
    except BaseException as error:  # noqa: BLE001 - raised in the awaiting task
        settle = (_raised, answer, error)
    try:
        loop.call_soon_threadsafe(*settle)
    except RuntimeError:  # the loop is closed: nobody awaits the call
        pass


def _result(answer: asyncio.Future[ToolResult], result: ToolResult) -> None:
    if not answer.done():
        answer.set_result(result)


def _raised(answer: asyncio.Future[ToolResult], error: BaseException) -> None:
    if not answer.done():
        answer.set_exception(error)


def _finish(call: HttpCall, response: httpx.Response, started: float) -> ToolResult:
    metadata: dict[str, Any] = {
        "status_code": response.status_code,
        "response_time_ms": int((time.perf_counter() - started) * 1000),
    }
    if response.status_code >= 400:
        if call.retries and response.status_code >= 500:
            message = f"Server error: {response.status_code}"
        else:
            message = _status_message(response, call)
        body = _error_body(response, call)
        if body:
            metadata[RESPONSE_BODY] = body
        return error_result(redacted(message, call.secrets), metadata)
    content_type = response.headers.get("Content-Type", "")
    lowered = content_type.lower()
    media = binary_content(lowered, response.content, _shown(call, response.url))
    if media is not None:
        return tool_result([media], False, metadata)
    if "application/json" in lowered:
        try:
            return text_result(json.dumps(response.json(), indent=2), metadata)
        except ValueError:
            pass
        except RecursionError:
            message = "The JSON response is nested too deep to read"
            return error_result(message, metadata)
    return text_result(_text(response, content_type), metadata)


RESPONSE_BODY = "response_body"
"""The metadata key of an error response's body (its text, at most
``ERROR_BODY_CHARS`` of it): what the server said was wrong."""
ERROR_BODY_CHARS = 4096


def _error_body(response: httpx.Response, call: HttpCall) -> str:
    """The body of an error response as text, cut to ``ERROR_BODY_CHARS``, with
    the call's secrets as ``***`` (a server may echo the key it refused)."""
    text = _text(response, response.headers.get("Content-Type", ""))
    if len(text) > ERROR_BODY_CHARS:
        cut = len(text) - ERROR_BODY_CHARS
        text = f"{text[:ERROR_BODY_CHARS]}… ({cut} more characters)"
    return redacted(text, call.secrets)


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


def _shown(call: HttpCall, url: httpx.URL) -> str:
    """The URL as messages and logs show it: query values holding a secret are
    ``***``, and so is every secret elsewhere in it."""
    return redacted(shown_url(str(url), call.secrets), call.secrets)


def _status_message(response: httpx.Response, call: HttpCall) -> str:
    """requests' wording: ``404 Client Error: Not Found for url: URL``."""
    side = "Client" if response.status_code < 500 else "Server"
    reason = response.reason_phrase
    url = _shown(call, response.url)
    return f"{response.status_code} {side} Error: {reason} for url: {url}"


def _transport_message(error: httpx.HTTPError) -> str:
    return f"HTTP request failed: {type(error).__name__}: {error}"
