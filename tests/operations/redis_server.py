"""A ``redis-server`` of a test's own, on a free port, without persistence, that
dies with the test process, even one killed by SIGKILL (Linux's parent-death
signal): a killed run leaves no server behind."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..mcp_servers import free_port, listening


@contextmanager
def redis_server(directory: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A ``redis-server`` running in ``directory`` until the block ends: its URL
    and its process."""
    program = shutil.which("redis-server")
    if program is None:
        pytest.skip(
            "redis-server is not installed (apt-get install redis-server; "
            ".ci/run installs it)"
        )
    port = free_port()
    argv = [program, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    with listening(
        argv,
        port,
        stop=signal.SIGKILL,
        cwd=directory,
        preexec_fn=_killed_with_this_thread(),
    ) as process:
        yield f"redis://127.0.0.1:{port}/0", process


def _killed_with_this_thread() -> Callable[[], None] | None:
    """What a child runs before it starts its program to be sent SIGKILL when the
    thread starting it ends (the fixture's: the test process's main thread);
    None off Linux. ``prctl`` is found now: a forked child must not load a
    library."""
    if sys.platform != "linux":
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def killed_with_parent() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # it died before the signal was asked for
            os.kill(os.getpid(), signal.SIGKILL)

    return killed_with_parent


_PR_SET_PDEATHSIG = 1
