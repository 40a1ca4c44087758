"""What a call's command is, told to whoever watches the call: an operation shows
its program and working directory (as Ahma's progress notifications and
operation records do).

The watcher is a context variable, so it reaches the command run by the very
call that set it (its task) and no other.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StartedCommand:
    program: str
    """The command line's first word."""
    working_directory: str
    timeout_s: float


Watcher = Callable[[StartedCommand], object]

logger = logging.getLogger(__name__)

_watcher: ContextVar[Watcher | None] = ContextVar(
    "mcigen_command_watcher", default=None
)


def watch_commands(watcher: Watcher) -> None:
    """Tell ``watcher`` of every command the current context starts from now on."""
    _watcher.set(watcher)


def caller_watches() -> bool:
    """Whether the call's caller watches for its commands (an operation, whose
    start names the command the call's first step started)."""
    return _watcher.get() is not None


def commands_watched() -> bool:
    """Whether :func:`command_starting` tells anyone (a watcher, the debug log): if
    not, an executor need not find the command's working directory for it."""
    return _watcher.get() is not None or logger.isEnabledFor(logging.DEBUG)


def command_starting(program: str, working_directory: str, timeout_s: float) -> None:
    """Called by an executor just before it starts a command."""
    if logger.isEnabledFor(logging.DEBUG):  # see edge.logs
        fields = {"program": program, "cwd": working_directory, "timeout_s": timeout_s}
        logger.debug("command starting", extra={"fields": fields})
    watcher = _watcher.get()
    if watcher is not None:
        watcher(StartedCommand(program, working_directory, timeout_s))
