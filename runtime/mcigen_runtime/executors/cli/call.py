"""What a cli tool's call runs: its argv, where, with what, and within which bounds.

Apart from :mod:`.run`, so that a tool module naming it does not load what
starting a process takes (``subprocess``, the sandbox) before a command runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...limits import Limits
from ...passed_env import PassEnv
from ...path_policy import WorkingDirectory
from .args import Operand


class CliCall:
    """One call's command, built by the tool's generated code and read by the
    runner. A plain slots class, not a dataclass: making one compiles its methods
    when the module is imported (~4 M instructions, a tenth of a text call's
    runtime share), and a call needs no more than its ``__init__`` (not frozen
    either: a frozen class sets each field through ``object.__setattr__``, several
    µs for a call's ten)."""

    __slots__ = (
        "argv",
        "cwd",
        "timeout_s",
        "limits",
        "env",
        "env_mode",
        "operands",
        "temp_files",
        "confined_to",
        "ahma_wording",
        "pass_env",
    )

    def __init__(
        self,
        argv: list[str],
        cwd: WorkingDirectory | None,
        timeout_s: float,
        limits: Limits,
        env: Mapping[str, Any],
        env_mode: str,
        operands: tuple[Operand, ...] = (),
        temp_files: tuple[str, ...] = (),
        confined_to: tuple[str, ...] | None = None,
        ahma_wording: bool = False,
        pass_env: PassEnv = False,
    ) -> None:
        self.argv = argv
        self.cwd = cwd
        """Opened and checked: the command starts in it, given the descriptors it
        holds (its path operands); closed once it has started."""
        self.timeout_s = timeout_s
        self.limits = limits
        """The package's limits; the call's own are resolved when it starts."""
        self.env = env
        """The environment the call's templates read."""
        self.env_mode = env_mode
        """The build's ``--cli-env``: what a command called with ``os.environ``
        sees."""
        self.operands = operands
        """The arguments a property fills whole (refused when they look like
        options)."""
        self.temp_files = temp_files
        """Files written for the call's arguments: removed once it is over,
        however it ends."""
        self.confined_to = confined_to
        """Where the kernel lets the command write (``--confine-cli``); else its
        working directory's (an MTDF call's sandbox), else nowhere is it
        confined."""
        self.ahma_wording = ahma_wording
        """A non-zero exit is told as Ahma tells it, with stderr and stdout (an
        MTDF tool); else as mci-py does, stderr only (stdout in the metadata)."""
        self.pass_env = pass_env
        """The schema's ``passEnv``: what of the process's environment the
        command gets besides ``env`` (see :mod:`...passed_env`)."""
