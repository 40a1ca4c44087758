"""Which variables of the process a command started with an environment of its
own also gets (row 56 of COMPATIBILITY.md).

A call made with its own environment (``Client(env_vars=...)``) gives a command
that environment over the minimal base, nothing else of the process's. Two ways
let more through: a cli execution's ``passEnv`` (``true``, or a list of names) in
the schema, and ``Client(pass_env=...)`` for every call of that client, which
:data:`CLIENT_PASS_ENV` carries to the executors. Either is ``True`` (all of the
process's environment, as mci-py gives its commands) or the names to pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextvars import ContextVar

PassEnv = bool | frozenset[str]

CLIENT_PASS_ENV: ContextVar[PassEnv] = ContextVar("CLIENT_PASS_ENV", default=False)
"""What the client making the current call passes through."""


def pass_env_of(value: bool | Iterable[str]) -> PassEnv:
    """``Client(pass_env=...)`` as the executors take it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        raise TypeError("pass_env takes True or a list of variable names, not a str")
    return frozenset(value)


def passed(own: PassEnv, environ: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``environ`` that the schema's ``own`` setting and the
    current client's let through."""
    client = CLIENT_PASS_ENV.get()
    if own is True or client is True:
        return dict(environ)
    names = (own or frozenset()) | (client or frozenset())
    return {name: environ[name] for name in names if name in environ}
