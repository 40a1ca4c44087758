"""The environment a command or a stdio MCP server starts with.

A call made with the process's own environment (a plain tool function, ``python -m
pkg call``, a server or broker left at its default) gives a command what the build
chose: all of ``os.environ`` (``--cli-env inherit``, mci-py's way) or the minimal base
only (``--cli-env minimal``). A call made with an environment of its own
(``Client(env_vars=...)``, ``Broker(env=...)``) gives the command that environment
over the minimal base and nothing else of the process: the variables a tool sees are
the ones it was given. A stdio MCP server gets its configured ``env`` over the
minimal base.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

BASE_NAMES = frozenset({"PATH", "HOME", "LANG", "TZ", "TMPDIR"})
"""What every child gets from the process (with ``LC_*``): where programs are, the
user's home, the locale, the time zone and the place for temporary files."""


def minimal_base() -> dict[str, str]:
    environ = os.environ  # its names only are walked: decoding every value costs more
    return {
        name: environ[name]
        for name in environ
        if name in BASE_NAMES or name.startswith("LC_")
    }


def over_base(env: Mapping[str, Any]) -> dict[str, str]:
    """``env`` over the minimal base; a value that is not a string is passed as
    the text ``str()`` makes of it, as a template prints it."""
    return {
        **minimal_base(),
        **{
            name: value if isinstance(value, str) else str(value)
            for name, value in env.items()
        },
    }


def child_env(env: Mapping[str, Any], mode: str) -> dict[str, str] | None:
    """The environment of a command started by a call that sees ``env``; None
    means the process's own (``mode`` is the build's ``--cli-env``)."""
    if env is os.environ:
        return None if mode == "inherit" else minimal_base()
    return over_base(env)
