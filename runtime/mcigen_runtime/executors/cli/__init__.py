"""The cli executor: a command's argv built from a tool's templated parts, run as a
process group of its own, bounded in time and output, and stopped with its call.

Generated code reaches what it needs as this package's attributes, never in its
modules, which load when a call first uses one of their names.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from .. import lazy_face

if TYPE_CHECKING:
    from ...results import ToolResult
    from .args import Operand
    from .argv import (
        TempFiles,
        extra_args,
        plain_operands,
        shell_script,
        timeout_s,
        word,
        words,
        working_root,
    )
    from .call import CliCall

__all__ = [
    "CliCall",
    "Operand",
    "TempFiles",
    "extra_args",
    "plain_operands",
    "run_cli",
    "run_cli_async",
    "shell_script",
    "timeout_s",
    "word",
    "words",
    "working_root",
]


_Runners = tuple[
    Callable[["CliCall"], "ToolResult"],
    Callable[["CliCall"], Awaitable["ToolResult"]],
]

_RUNNERS: _Runners | None = None
"""The runners, once imported (:func:`_imported`), looked up here: an import
statement costs a few µs each time it runs, its module loaded or not."""


def run_cli(call: CliCall) -> ToolResult:
    """Run the call's command (:mod:`.run`, imported by the first call)."""
    return (_RUNNERS or _imported())[0](call)


async def run_cli_async(call: CliCall) -> ToolResult:
    """:func:`run_cli`, awaited; the first call imports :mod:`.run` off the event
    loop (:func:`_imported_off_loop`)."""
    return await (_RUNNERS or await _imported_off_loop())[1](call)


async def _imported_off_loop() -> _Runners:
    """The runners, imported in a thread of their own: the import (pydantic's
    core among it) takes tens of milliseconds of CPU, which would hold the event
    loop and every task waiting on it. ``threading.Thread.start`` would wait for
    the thread to be scheduled, which on a loaded machine is the loop's wait too."""
    import _thread
    import asyncio

    loop = asyncio.get_running_loop()
    imported: asyncio.Future[_Runners] = loop.create_future()

    def settle(outcome: _Runners | BaseException) -> None:
        if imported.done():  # the call was cancelled meanwhile
            return
        if isinstance(outcome, BaseException):
            imported.set_exception(outcome)
        else:
            imported.set_result(outcome)

    def load() -> None:
        try:
            outcome: _Runners | BaseException = _imported()
        except BaseException as error:  # noqa: BLE001 - raised by the awaiting call
            outcome = error
        try:
            loop.call_soon_threadsafe(settle, outcome)
        except RuntimeError:  # the loop has closed: no call waits any more
            pass

    _thread.start_new_thread(load, ())
    return await imported


def _imported() -> _Runners:
    global _RUNNERS
    from .run import run_cli, run_cli_async

    _RUNNERS = run_cli, run_cli_async
    return _RUNNERS


__getattr__ = lazy_face(
    __name__,
    {
        "CliCall": ".call",
        "Operand": ".args",
        "TempFiles": ".argv",
        "extra_args": ".argv",
        "plain_operands": ".argv",
        "shell_script": ".argv",
        "timeout_s": ".argv",
        "word": ".argv",
        "words": ".argv",
        "working_root": ".argv",
    },
)
