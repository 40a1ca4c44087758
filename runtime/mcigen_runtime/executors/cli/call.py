"""What a cli tool's call runs: its argv, where, with what, and within which bounds.

Apart from :mod:`.run`, so that a tool module naming it does not load what
starting a process takes (``subprocess``, the sandbox) before a command runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...limits import Limits
from ...passed_env import PassEnv
from ...path_policy import WorkingDirectory
from .args import Operand


@dataclass(slots=True)
class CliCall:
    """One call's command, built by the tool's generated code and read by the
    runner (not frozen: a frozen dataclass sets each field through
    ``object.__setattr__``, several µs for a call's ten)."""

    argv: list[str]
    cwd: WorkingDirectory | None
    """Opened and checked: the command starts in it, given the descriptors it
    holds (its path operands); closed once it has started."""
    timeout_s: float
    limits: Limits
    """The package's limits; the call's own are resolved when it starts."""
    env: Mapping[str, Any]
    """The environment the call's templates read."""
    env_mode: str
    """The build's ``--cli-env``: what a command called with ``os.environ`` sees."""
    operands: tuple[Operand, ...] = ()
    """The arguments a property fills whole (refused when they look like options)."""
    temp_files: tuple[str, ...] = ()
    """Files written for the call's arguments: removed once it is over, however
    it ends."""
    confined_to: tuple[str, ...] | None = None
    """Where the kernel lets the command write (``--confine-cli``); else its
    working directory's (an MTDF call's sandbox), else nowhere is it confined."""
    ahma_wording: bool = False
    """A non-zero exit is told as Ahma tells it, with stderr and stdout (an MTDF
    tool); else as mci-py does, stderr only (stdout in the metadata)."""
    pass_env: PassEnv = False
    """The schema's ``passEnv``: what of the process's environment the command
    gets besides ``env`` (see :mod:`...passed_env`)."""
