"""The cli executor: a command's argv built from a tool's templated parts, run as a
process group of its own, bounded in time and output, and stopped with its call.

Generated code reaches what it needs as this package's attributes, never in its
modules, which load when a call first uses one of their names.
"""

from __future__ import annotations

import functools
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


def run_cli(call: CliCall) -> ToolResult:
    """Run the call's command (:mod:`.run`, imported by the first call)."""
    return _runners()[0](call)


async def run_cli_async(call: CliCall) -> ToolResult:
    return await _runners()[1](call)


@functools.cache
def _runners() -> (
    tuple[Callable[[CliCall], ToolResult], Callable[[CliCall], Awaitable[ToolResult]]]
):
    """The runners, imported once: an import statement costs a few µs each time
    it runs, its module loaded or not."""
    from .run import run_cli, run_cli_async

    return run_cli, run_cli_async


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
