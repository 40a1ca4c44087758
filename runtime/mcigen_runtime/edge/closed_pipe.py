"""A command whose reader went away (``... | head``) ends quietly, as Unix tools do;
so does a stdio server whose client closed its end of stdout, or its terminal
(``serve.wire_failed``, which also says so in its log)."""

from __future__ import annotations

import os
import sys

EXIT_PIPE_CLOSED = 141
"""128 + SIGPIPE: what a shell reports for a tool the closed pipe ended."""


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so what is still buffered for the closed pipe
    goes nowhere when the interpreter flushes it at exit, instead of failing there."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def hung_up(fd: int) -> bool:
    """Whether ``fd`` is a terminal whose other side has closed (a pty's master:
    the client's terminal went away), which Linux reports as ``EIO`` to a read
    already waiting then and to every write, as a closed pipe's ``EPIPE``. A
    terminal still open (``EIO`` to a background process group) is no hangup."""
    import select  # here: every command loads this module, few ask this

    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return any(events & select.POLLHUP for _, events in poller.poll(0))
