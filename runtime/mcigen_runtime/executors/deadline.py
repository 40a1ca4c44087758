"""The deadline of the call a command runs for.

A command's call is usually its tool's own, bounded by the command's timeout. A
sequence runs its steps within its own call's deadline (see
:mod:`mcigen_runtime.executors.sequence`): a step's command may then wait only for
what is left of it. Every timeout is also cut to
:data:`~mcigen_runtime.limits.MAX_TIMEOUT_S`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..limits import MAX_TIMEOUT_S

_deadline: ContextVar[float | None] = ContextVar("mcigen_deadline", default=None)


@contextmanager
def within(deadline: float | None) -> Iterator[None]:
    """Run what is inside by ``deadline`` (``time.monotonic()``; None: no deadline
    of its own) and by any enclosing one."""
    outer = _deadline.get()
    if deadline is None or (outer is not None and outer < deadline):
        deadline = outer
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def allowed(timeout_s: float) -> float:
    """How long something with a timeout of ``timeout_s`` may take here: at most the
    maximum, and what is left before the deadline."""
    seconds = min(max(timeout_s, 0.0), MAX_TIMEOUT_S)
    deadline = _deadline.get()
    if deadline is not None:
        seconds = min(seconds, max(deadline - time.monotonic(), 0.0))
    return seconds
