"""The request of an http tool, encoded from its templated parts.

Generated code templates the url, headers, params, body and auth fields;
:func:`http_call` encodes them as mci-py (requests) would.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from ...limits import Limits, active
from ...results import ToolResult, error_result
from .redaction import url_query_secrets

if TYPE_CHECKING:
    from .parts import Auth, OAuth2, Retry


class HttpCall:
    """A request ready to send, but for an OAuth2 token it may still have to fetch.
    A plain slots class, not a dataclass: making one compiles its methods when the
    module is imported (~4 M instructions), paid by every tool module that names
    the http face, whether or not it sends a request."""

    __slots__ = (
        "method",
        "url",
        "headers",
        "params",
        "content",
        "timeout_s",
        "attempts",
        "backoff_ms",
        "retries",
        "body_limit",
        "oauth2",
        "secrets",
    )

    def __init__(
        self,
        method: str,
        url: str,
        headers: list[tuple[str, str]],
        params: list[tuple[str, str]],
        content: bytes | None,
        timeout_s: float,
        attempts: int,
        backoff_ms: int,
        retries: bool,
        body_limit: int,
        oauth2: OAuth2 | None = None,
        secrets: list[str] | None = None,
    ) -> None:
        self.method = method
        self.url = url
        self.headers = headers
        self.params = params
        self.content = content
        self.timeout_s = timeout_s
        """For the whole call: connecting, redirects, retries and the body."""
        self.attempts = attempts
        self.backoff_ms = backoff_ms
        self.retries = retries
        self.body_limit = body_limit
        """Bytes of response body the call may read (the ``http_body`` limit)."""
        self.oauth2 = oauth2
        self.secrets: list[str] = [] if secrets is None else secrets


class BadHeader(ValueError):
    """A header that cannot be sent; the message says why."""


def http_call(
    *,
    method: str,
    url: str,
    headers: dict[str, Any],
    params: Any,
    body_type: str | None = None,
    body: Any = None,
    auth: Auth | None = None,
    timeout_ms: int,
    retry: Retry | None = None,
    secrets: Sequence[Any] = (),
    url_env: Sequence[Any] = (),
    limits: Limits,
) -> HttpCall | ToolResult:
    """Encode the templated parts of a request; what cannot be sent (a header with
    a line break or beyond Latin-1, a body JSON cannot hold) is an error result.

    ``secrets``: the environment values the headers, params and auth fields read;
    ``url_env``: those the url reads (its query values holding one are secrets)."""
    header_pairs = [(str(k), str(v)) for k, v in headers.items()]
    param_pairs = _pairs(params) if isinstance(params, dict) else []
    content: bytes | None = None
    if body_type is not None:
        try:
            content, content_type = _body(body_type, body)
        except (ValueError, RecursionError) as error:
            message = _unencodable(body_type, error)
            return error_result(f"{message}; the request was not sent")
        if not any(k.lower() == "content-type" for k, _ in header_pairs):
            header_pairs.append(("Content-Type", content_type))
    call = HttpCall(
        method,
        url,
        header_pairs,
        param_pairs,
        content,
        timeout_ms / 1000 if timeout_ms > 0 else 30.0,
        retry.attempts if retry else 1,
        retry.backoff_ms if retry else 0,
        retry is not None,
        active(limits).http_body,
        secrets=[s for s in secrets if isinstance(s, str) and s],
    )
    call.secrets += url_query_secrets(url, url_env)
    if auth is not None:
        try:
            failure = _auth_applier()(call, auth)
        except UnicodeEncodeError:
            failure = error_result(
                "The basic auth credentials cannot be encoded; the request was not sent"
            )
        if failure is not None:
            return failure
    try:
        for name, value in call.headers:
            check_header(name, value)
    except BadHeader as bad:
        return error_result(f"{bad}; the request was not sent")
    return call


def check_header(name: str, value: str) -> None:
    """Raise :class:`BadHeader` for a header HTTP cannot carry: a line break, a name
    beyond ASCII, a value beyond Latin-1 (sent as Latin-1 bytes, as requests sends
    it)."""
    if "\r" in value or "\n" in value:
        raise BadHeader(f"Header '{name}' contains a line break")
    if not name.isascii():
        raise BadHeader(f"Header name '{name}' is not ASCII")
    if not value.isascii():
        try:
            value.encode("latin-1")
        except UnicodeEncodeError:
            raise BadHeader(
                f"Header '{name}' holds a character no header can carry "
                "(header values are Latin-1 text)"
            ) from None


def _unencodable(body_type: str, error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return f"The {body_type} body is nested too deep to encode"
    if body_type == "json" and "JSON compliant" in str(error):
        return "The JSON body holds NaN or Infinity, which JSON cannot carry"
    return f"The {body_type} body cannot be encoded: {error}"


def _pairs(mapping: dict[str, Any]) -> list[tuple[str, str]]:
    """Query or form pairs as requests encodes a dict: lists repeat, None is left out."""
    pairs: list[tuple[str, str]] = []
    for key, value in mapping.items():
        values = value if isinstance(value, list | tuple) else [value]
        pairs.extend((str(key), str(v)) for v in values if v is not None)
    return pairs


def _body(body_type: str, body: Any) -> tuple[bytes, str]:
    if body_type == "json":
        return _json_dumps()(body, allow_nan=False).encode(), "application/json"
    if body_type == "form":
        pairs = _pairs(body) if isinstance(body, dict) else []
        return urlencode(pairs).encode(), "application/x-www-form-urlencoded"
    return str(body).encode(), "text/plain"


@functools.cache
def _json_dumps() -> Callable[..., str]:
    """``json.dumps``, imported by the first JSON body encoded (the transport
    imports json anyway, with its first request): a text call never needs it."""
    from json import dumps

    return dumps


@functools.cache
def _auth_applier() -> Callable[[HttpCall, Auth], ToolResult | None]:
    """``parts.apply_auth``, looked up once (a tool with auth has loaded
    :mod:`.parts` already, to name its auth)."""
    from .parts import apply_auth

    return apply_auth
