"""The cli executor: a command's argv built from a tool's templated parts, run as a
process group of its own, bounded in time and output, and stopped with its call.

Generated code imports what it needs from here, never from this package's modules.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from ...results import ToolResult

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
