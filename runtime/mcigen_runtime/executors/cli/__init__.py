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
    loop (``executors.off_loop``)."""
    if _RUNNERS is None:
        from ..off_loop import imported_off_loop

        return await (await imported_off_loop(_imported))[1](call)
    return await _RUNNERS[1](call)


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
