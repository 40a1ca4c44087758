"""The environment a command or a stdio MCP server starts with.

A call made with the process's own environment (a plain tool function, ``python -m
pkg call``, a server or broker left at its default) gives a command what the build
chose: all of ``os.environ`` (``--cli-env inherit``, mci-py's way) or the minimal base
only (``--cli-env minimal``). A call made with an environment of its own
(``Client(env_vars=...)``, ``Broker(env=...)``) gives the command that environment
over the minimal base and nothing else of the process: the variables a tool sees are
the ones it was given, and those the schema or the client passes through
(:mod:`..passed_env`). A stdio MCP server gets its configured ``env`` over the
minimal base and the usual settings of proxies, certificate authorities and npm
(:data:`NETWORK_NAMES`, ``npm_config_*``): a server that fetches needs them to
reach its network as the user does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from ..passed_env import PassEnv, passed

BASE_NAMES = frozenset({"PATH", "HOME", "LANG", "TZ", "TMPDIR"})
"""What every child gets from the process (with ``LC_*``): where programs are, the
user's home, the locale, the time zone and the place for temporary files."""


def minimal_base() -> dict[str, str]:
    environ = os.environ
    raw = getattr(environ, "_data", None)
    if os.supports_bytes_environ and type(raw) is dict:
        return _minimal_from(raw)
    # its names only are walked: decoding every value costs more
    return {
        name: environ[name]
        for name in environ
        if name in BASE_NAMES or name.startswith("LC_")
    }


_BASE_BYTES = frozenset(name.encode() for name in BASE_NAMES)
_FS_ENCODING = sys.getfilesystemencoding()


def _minimal_from(raw: dict[bytes, bytes]) -> dict[str, str]:
    """The minimal base from CPython's dict behind ``os.environ`` on POSIX (its
    names and values as bytes, kept in step with it): walking ``os.environ``
    decodes every name in a Python call, ~4,000 instructions a variable, most of
    a call's cost where the environment holds a few dozen."""
    return {
        name.decode(_FS_ENCODING, "surrogateescape"): value.decode(
            _FS_ENCODING, "surrogateescape"
        )
        for name, value in raw.items()
        if name in _BASE_BYTES or name.startswith(b"LC_")
    }


NETWORK_NAMES = frozenset(
    {
        *(
            name
            for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY")
            for name in (proxy, proxy.lower())
        ),
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "UV_INDEX_URL",
    }
)
"""What a stdio MCP server gets from the process besides the base: how it reaches
the network (proxies, the certificate authorities to trust, package indexes)."""


def network_settings() -> dict[str, str]:
    environ = os.environ
    return {
        name: environ[name]
        for name in environ
        if name in NETWORK_NAMES or name.lower().startswith("npm_config_")
    }


def over_base(
    env: Mapping[str, Any], through: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``env`` over ``through`` (what is let through of the process's environment)
    over the minimal base; a value that is not a string is passed as the text
    ``str()`` makes of it, as a template prints it."""
    return {
        **minimal_base(),
        **(through or {}),
        **{
            name: value if isinstance(value, str) else str(value)
            for name, value in env.items()
        },
    }


def child_env(
    env: Mapping[str, Any], mode: str, own: PassEnv = False
) -> dict[str, str] | None:
    """The environment of a command started by a call that sees ``env``; None
    means the process's own (``mode`` is the build's ``--cli-env``, ``own`` the
    tool's ``passEnv``)."""
    if env is os.environ:
        if mode == "inherit":
            return None
        return {**minimal_base(), **passed(own, os.environ)}
    return over_base(env, passed(own, os.environ))
