"""Which ``Host`` and ``Origin`` a request to the HTTP server may carry: the guard
against DNS rebinding, the same on every bind address (loopback, ``0.0.0.0``, ``::``,
a LAN address) for ``serve --http`` and the ASGI app alike.

Origin (browsers send it; other clients do not):

- no ``Origin``: allowed;
- a loopback origin, ``http`` or ``https`` on ``localhost``, ``127.0.0.1`` or
  ``[::1]``, any port: allowed;
- an origin listed by ``--allow-origin`` / ``MCIGEN_ALLOWED_ORIGINS``: allowed when
  scheme, host and port match (a scheme's default port may be left out); ``null``
  only when it is listed;
- anything else: ``403``, with a body that names the option.

Host, checked only when the server has no secret (a page that rebinds its name to
the server cannot know the secret):

- an IP address or ``localhost``, with or without a port: allowed;
- a name listed by ``--allow-host`` / ``MCIGEN_ALLOWED_HOSTS``: ``NAME`` on any
  port, ``NAME:PORT`` on that port only;
- anything else: ``421``, with a body that names the option.

CORS: a page from an allowed origin may call the server. Answers to it carry
``Access-Control-Allow-Origin``, and its preflight (``OPTIONS`` with
``Access-Control-Request-Method``) is answered here, before a secret is asked for,
since browsers send the preflight without credentials.

Nothing here imports more than the standard library: ``serve_options`` reads the
allowed entries with it, and ``python -m PKG list`` loads ``serve_options``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .http_answers import send_body, send_refusal

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger(__name__)

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})
"""The hosts of the origins allowed without being listed (with ``http``/``https``)."""

_DEFAULT_PORTS = {"http": "80", "https": "443"}
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?\.?")
_BRACKETED = re.compile(r"\[[0-9a-f:.]+\]")
_PORT = re.compile(r"[0-9]{1,5}")

PREFLIGHT_HEADERS = (
    "authorization, content-type, accept, mcp-protocol-version, mcp-session-id, "
    "last-event-id"
)
"""The request headers a page may send (those MCP clients send)."""

ORIGIN_REFUSED = (
    "requests from this Origin are not allowed: start the server with "
    "--allow-origin ORIGIN (or set MCIGEN_ALLOWED_ORIGINS) to let a browser app at "
    "ORIGIN call it"
)
HOST_REFUSED = (
    "this server answers requests for an IP address or localhost only: start it "
    "with --allow-host NAME (or set MCIGEN_ALLOWED_HOSTS) to serve the host name "
    "NAME, or with a secret"
)


def host_entry(text: str) -> str:
    """``NAME`` or ``NAME:PORT`` as an allowed host, lower-cased. Raises
    ``ValueError`` for anything else (a URL, an empty name)."""
    entry = text.strip().lower()
    parts = _split_authority(entry)
    if parts is None or parts[0].startswith("["):
        raise ValueError(
            "expected a host name such as mcp.example.com or mcp.example.com:8443, "
            f"not {text!r}"
        )
    return entry


def origin_entry(text: str) -> str:
    """An allowed origin as browsers send it: ``scheme://host[:port]``, lower-cased,
    without the scheme's default port (a trailing ``/`` is dropped); ``null`` as is.
    Raises ``ValueError`` for anything else."""
    origin = normal_origin(text.strip().removesuffix("/"))
    if origin is None:
        raise ValueError(
            "expected an origin such as https://app.example.com or "
            f"http://localhost:3000 (scheme://host[:port], no path), not {text!r}"
        )
    return origin


def normal_origin(text: str) -> str | None:
    """``text`` (an ``Origin`` header) in the form of :func:`origin_entry`; None
    when it is not an origin."""
    if text == "null":
        return text
    scheme, separator, authority = text.lower().partition("://")
    parts = _split_authority(authority)
    if not separator or not _SCHEME.fullmatch(scheme) or parts is None:
        return None
    host, port = parts
    if port and port != _DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{host}:{port}"
    return f"{scheme}://{host}"


def _split_authority(authority: str) -> tuple[str, str] | None:
    """``(host, port)`` of ``host[:port]`` (lower case; an IPv6 host keeps its
    brackets, an absent port is ``""``); None when it is not of that form."""
    if authority.startswith("["):
        host, _, rest = authority.partition("]")
        host += "]"
        if not _BRACKETED.fullmatch(host) or (rest and not rest.startswith(":")):
            return None
        port = rest[1:]
    else:
        host, _, port = authority.partition(":")
        if not _NAME.fullmatch(host):
            return None
    if port and not _PORT.fullmatch(port):
        return None
    return host, port


def _is_ip_address(host: str) -> bool:
    import ipaddress  # here: listing the tools needs no address parsing

    try:
        if host.startswith("["):
            ipaddress.IPv6Address(host[1:-1])
        else:
            ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class HostOriginPolicy:
    """The hosts and origins a server allows beyond the defaults of the module docs."""

    hosts: frozenset[str] = frozenset()
    """:func:`host_entry` values."""
    origins: frozenset[str] = frozenset()
    """:func:`origin_entry` values."""
    check_host: bool = True
    """False when the server requires a secret."""

    def host_allowed(self, host_header: str) -> bool:
        parts = _split_authority(host_header.strip().lower())
        if parts is None:
            return False
        host, port = parts
        if host == "localhost" or _is_ip_address(host) or host in self.hosts:
            return True
        return bool(port) and f"{host}:{port}" in self.hosts

    def origin_allowed(self, origin_header: str) -> bool:
        origin = normal_origin(origin_header.strip())
        if origin is None:
            return False
        if origin in self.origins:
            return True
        scheme, _, authority = origin.partition("://")
        parts = _split_authority(authority)
        return (
            scheme in ("http", "https")
            and parts is not None
            and parts[0] in LOOPBACK_HOSTS
        )


class HostOriginGuard:
    """ASGI middleware applying a :class:`HostOriginPolicy` to every HTTP request."""

    def __init__(self, app: ASGIApp, policy: HostOriginPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            key: bytes(value).decode("latin-1")
            for key, value in scope["headers"]
            if key in (b"host", b"origin", b"access-control-request-method")
        }
        origin = headers.get(b"origin")
        if origin is not None and not self.policy.origin_allowed(origin):
            logger.warning("refused a request from Origin %r", origin[:200])
            await send_refusal(send, 403, "forbidden_origin", ORIGIN_REFUSED)
            return
        host = headers.get(b"host")
        if (
            self.policy.check_host
            and host is not None
            and not self.policy.host_allowed(host)
        ):
            logger.warning("refused a request for Host %r", host[:200])
            await send_refusal(send, 421, "misdirected_request", HOST_REFUSED)
            return
        if origin is None:
            await self.app(scope, receive, send)
        elif (
            scope["method"] == "OPTIONS" and b"access-control-request-method" in headers
        ):
            await send_body(send, 204, b"", _preflight_headers(origin))
        else:
            await self.app(scope, receive, _with_cors(send, origin))


def _cors_headers(origin: str) -> list[tuple[bytes, bytes]]:
    return [
        (b"access-control-allow-origin", origin.encode("latin-1")),
        (b"vary", b"Origin"),
    ]


def _preflight_headers(origin: str) -> list[tuple[bytes, bytes]]:
    return [
        *_cors_headers(origin),
        (b"access-control-allow-methods", b"POST"),
        (b"access-control-allow-headers", PREFLIGHT_HEADERS.encode()),
        (b"access-control-max-age", b"600"),
    ]


def _with_cors(send: Send, origin: str) -> Send:
    async def send_with_cors(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [*message.get("headers", ()), *_cors_headers(origin)]
            message = {**message, "headers": headers}
        await send(message)

    return send_with_cors
