"""Where the progress a call's upstream reports goes: to the client that made the
call, when it asked for progress (an MCP server relays an upstream MCP server's
``notifications/progress`` to its own client this way).

The listener is a context variable, so it hears the very call that set it (its
task) and no other. It may be called from any thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

ProgressListener = Callable[[float, float | None, str | None], None]
"""Takes ``progress``, ``total`` and ``message``, as MCP's notification has them."""

_listener: ContextVar[ProgressListener | None] = ContextVar(
    "mcigen_progress_listener", default=None
)


@contextmanager
def progress_to(listener: ProgressListener) -> Iterator[None]:
    """Tell ``listener`` the progress that calls made in the block report."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def progress_listener() -> ProgressListener | None:
    """Who hears the progress of the current call, if anyone does."""
    return _listener.get()
