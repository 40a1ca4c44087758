"""Every command this process is running, and how commands are stopped.

A command runs in a process group of its own. Stopping it sends SIGTERM to the
group; while a process of the group is still alive, it waits up to
:data:`GRACE_S` for the group to end; then it sends SIGKILL to the group and to
every process that left the group but still holds the command's output (see
:mod:`mcigen_runtime.executors.cli.survivors`). A command that ends on SIGTERM costs no wait.

The same sequence ends a command at its deadline, at its output limit, when its
call is cancelled, and when the process stops every command at once
(:func:`stop_all`): a server does that as it shuts down, and it runs at
interpreter exit, so no command outlives the process that started it (a process
killed by SIGKILL cannot do anything, of course).

A command's leader is reaped only after it is forgotten here, under the lock, and
:func:`stop_all` signals only the commands still here, under the lock: it never
signals a process group whose id may have been given to another process.
"""

from __future__ import annotations

import atexit
import signal
import threading
import time
from collections.abc import Iterable
from typing import Protocol


class Running(Protocol):
    """A started command, as :class:`.cli_process.Running` is."""

    stopped_because: str | None

    def signal_group(self, sig: int) -> None: ...

    def group_alive(self) -> bool: ...

    def kill(self) -> None:
        """SIGKILL to the group and to the processes that left it holding its output."""


GRACE_S = 0.5
"""How long a stopped command's process group may take to end on SIGTERM."""

_FIRST_LOOK_S = 0.001
_LAST_LOOK_S = 0.02
"""How long to wait before looking at the group again during the grace: the first
time, then doubled up to the last."""

_running: set[Running] = set()
# Reentrant: a signal handler that stops every command may interrupt this thread
# while it holds the lock.
_lock = threading.RLock()
_at_exit = False


def track(run: Running) -> None:
    """``run`` has started: stop it with the others."""
    global _at_exit
    with _lock:
        _running.add(run)
        if not _at_exit:
            atexit.register(stop_all)
            _at_exit = True


def forget(run: Running) -> None:
    """``run`` is about to be reaped: never signal its group again."""
    with _lock:
        _running.discard(run)


def end(runs: Iterable[Running]) -> None:
    """SIGTERM to the groups of ``runs``; the grace while any is alive; then SIGKILL
    to them and to the processes that left them holding their output. Only the
    runs still tracked are signalled."""
    with _lock:
        runs = [run for run in runs if run in _running]
        for run in runs:
            run.signal_group(signal.SIGTERM)
    deadline, pause = time.monotonic() + GRACE_S, _FIRST_LOOK_S
    # Looking does not signal: a run reaped meanwhile at worst prolongs the wait.
    while any(run.group_alive() for run in runs) and time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(pause * 2, _LAST_LOOK_S)
    with _lock:
        for run in runs:
            if run in _running:
                run.kill()


def stop_all(reason: str = "the process is exiting") -> None:
    """Stop every command this process is running (see the module docs); each of
    their calls ends with an error result that gives ``reason``."""
    with _lock:
        runs = list(_running)
        for run in runs:
            run.stopped_because = reason
    end(runs)


def stop_all_soon(reason: str) -> None:
    """:func:`stop_all` in a thread of its own: for a signal handler, which must not
    wait out the grace."""
    threading.Thread(
        target=stop_all, args=(reason,), name="mcigen-stop-commands", daemon=True
    ).start()
