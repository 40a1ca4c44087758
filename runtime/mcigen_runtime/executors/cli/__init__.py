"""The cli executor: a command's argv built from a tool's templated parts, run as a
process group of its own, bounded in time and output, and stopped with its call.

Generated code imports what it needs from here, never from this package's modules.
"""

from __future__ import annotations

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
from .run import CliCall, run_cli, run_cli_async

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
