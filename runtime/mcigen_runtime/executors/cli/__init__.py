"""The cli executor: a command's argv built from a tool's templated parts, run as a
process group of its own, bounded in time and output, and stopped with its call.

Generated code imports what it needs from here, never from this package's modules.
"""

from __future__ import annotations

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
    from .run import run_cli

    return run_cli(call)


async def run_cli_async(call: CliCall) -> ToolResult:
    from .run import run_cli_async

    return await run_cli_async(call)
