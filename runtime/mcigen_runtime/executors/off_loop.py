"""What the first awaited call of an executor kind imports (the cli runner, the
http transport: tens of milliseconds of CPU, pydantic's core or httpx among it),
loaded in a thread of its own so that the import does not hold the event loop and
every task waiting on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


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

    def run() -> None:
        try:
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
