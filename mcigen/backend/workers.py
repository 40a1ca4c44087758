"""The worker processes of a large build: black runs in them, and so do input
models while black formats the tools' functions.

They are forked before the build emits any module, while this process is small,
and only when the build makes its models anew (one whose models come from the
cache changed little). A worker forked at the end of a large build would start as
a copy of everything the build holds (its page tables count it all, and its
garbage collector touches, and so copies, much of it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

_FROM_TOOLS = 100
"""Tools from which a build forks its workers before it emits anything."""

_pool: ProcessPoolExecutor | None = None


@contextmanager
def early_workers(tools: int) -> Iterator[None]:
    """Around the emission of a package of ``tools`` tools: the workers, when it is
    large and there is more than one core."""
    global _pool
    if tools < _FROM_TOOLS or (os.cpu_count() or 1) < 2:
        yield
        return
    _pool = ProcessPoolExecutor(os.cpu_count())
    _pool.submit(int).result()  # forks every worker now
    try:
        yield
    finally:
        _pool.shutdown()
        _pool = None


def pool() -> ProcessPoolExecutor | None:
    """The workers forked by :func:`early_workers`, if any."""
    return _pool


def in_background(function: Callable[..., T], *args: Any) -> Future[T]:
    """``function(*args)`` in a worker, or here and now when there is none."""
    if _pool is not None:
        return _pool.submit(function, *args)
    done: Future[T] = Future()
    try:
        done.set_result(function(*args))
    except Exception as error:  # handed over as the worker would hand it over
        done.set_exception(error)
    return done
