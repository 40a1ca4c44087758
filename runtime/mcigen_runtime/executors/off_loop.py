"""What the first awaited call of an executor kind imports (the cli runner, the
http transport: tens of milliseconds of CPU, pydantic's core or httpx among it),
loaded in a thread of its own so that the import does not hold the event loop and
every task waiting on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_importing: Any = None
"""A lock held while an import runs in its thread (:func:`_import_lock`), which a
fork of the process waits for: a child forked mid-import (``multiprocessing``'s
``fork``, a ``ProcessPoolExecutor`` started by an asyncio app) inherits the
module's import lock held by a thread it does not have, and its first call of
that kind waited on it forever."""


def _import_lock() -> Any:
    global _importing
    if _importing is None:
        import _thread
        import os

        lock = _thread.allocate_lock()
        os.register_at_fork(
            before=lock.acquire,
            after_in_parent=lock.release,
            after_in_child=lock.release,
        )
        _importing = lock
    return _importing


async def imported_off_loop(load: Callable[[], T]) -> T:
    """What ``load`` (an import) returns, or raises, run in a thread of its own
    while the loop serves on. ``threading.Thread.start`` would wait for the thread
    to be scheduled, which on a loaded machine is the loop's wait too.

    In a call whose caller watches it (an operation, on the operations' loop),
    ``load`` runs in the call's own step: the operation's start is told what that
    first step did (the command it started), and the import would be its wait."""
    from .started import caller_watches

    if caller_watches():
        return load()
    import _thread
    import asyncio

    loop = asyncio.get_running_loop()
    imported: asyncio.Future[T] = loop.create_future()

    def settle(setter: Callable[[Any], None], outcome: object) -> None:
        if not imported.done():  # else the call was cancelled meanwhile
            setter(outcome)

    importing = _import_lock()

    def run() -> None:
        try:
            with importing:
                outcome: object = load()
            setter: Callable[[Any], None] = imported.set_result
        except BaseException as error:  # noqa: BLE001 - raised by the awaiting call
            outcome, setter = error, imported.set_exception
        try:
            loop.call_soon_threadsafe(settle, setter, outcome)
        except RuntimeError:  # the loop has closed: no call waits any more
            pass

    _thread.start_new_thread(run, ())
    return await imported
