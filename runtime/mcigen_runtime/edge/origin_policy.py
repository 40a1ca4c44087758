"""Which ``Host`` and ``Origin`` a request to the HTTP server may carry: the guard
against DNS rebinding, the same on every bind address (loopback, ``0.0.0.0``, ``::``,
a LAN address) for ``serve --http`` and the ASGI app alike (``http_origin`` applies it).

Origin (browsers send it; other clients do not):

- no ``Origin``: allowed;
- a loopback origin, ``http`` or ``https`` on ``localhost``, ``127.0.0.1`` or
  ``[::1]``, any port: allowed;
- an origin listed by ``--allow-origin`` / ``MCIGEN_ALLOWED_ORIGINS``: allowed when
  scheme, host and port match (a scheme's default port may be left out); ``null``
  only when it is listed;
- anything else: refused.

Host, checked when the server has no secret, or when host names are listed (a
page that rebinds its name to the server cannot know the secret, but a listed name
is a promise to serve those names only, as Django's ``ALLOWED_HOSTS`` is):

- an IP address or ``localhost``, with or without a port: allowed;
- a name listed by ``--allow-host`` / ``MCIGEN_ALLOWED_HOSTS``: ``NAME`` on any
  port, ``NAME:PORT`` on that port only;
- anything else: refused.

Only the standard library, and nothing ``python -m PKG list`` would not load anyway:
``serve_options`` reads the allowed entries with it.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from dataclasses import dataclass

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})
"""The hosts of the origins allowed without being listed (with ``http``/``https``)."""

_DEFAULT_PORTS = {"http": "80", "https": "443"}
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?\.?")
_BRACKETED = re.compile(r"\[[0-9a-f:.]+\]")
_PORT = re.compile(r"[0-9]{1,5}")


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


@functools.lru_cache(maxsize=256)
def _host_of(host_header: str) -> tuple[str, str, bool] | None:
    """A ``Host`` header's host, port, and whether the host is an IP address; None
    when it is no authority. Cached: a server hears the same few headers on every
    request."""
    parts = _split_authority(host_header.strip().lower())
    if parts is None:
        return None
    host, port = parts
    return host, port, _is_ip_address(host)


def _is_ip_address(host: str) -> bool:
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
    """False when the server requires a secret and lists no host name."""

    @classmethod
    def of_server(
        cls, hosts: frozenset[str], origins: frozenset[str], secret: str | None
    ) -> HostOriginPolicy:
        """The policy of a server with ``secret`` that lists ``hosts`` and
        ``origins`` (see the module docs)."""
        return cls(hosts, origins, check_host=not secret or bool(hosts))

    def host_allowed(self, host_header: str) -> bool:
        parts = _host_of(host_header)
        if parts is None:
            return False
        host, port, by_address = parts
        if host == "localhost" or by_address or host in self.hosts:
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
