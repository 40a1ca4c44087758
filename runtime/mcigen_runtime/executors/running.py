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
killed by SIGKILL cannot do anything itself: see below for what a server's
commands do then).

A command's leader is reaped only after it is forgotten here, under the lock, and
:func:`stop_all` signals only the commands still here, under the lock: it never
signals a process group whose id may have been given to another process. A
command is started and tracked under that same lock (:data:`spawning`), so a
:func:`stop_all` in another thread never misses one that has started.

A server also takes along what its commands leave behind (:func:`contain`, see
:mod:`mcigen_runtime.executors.orphans`): it adopts every process that a command
started and that lost its parent, reaps those that exit as each command ends,
and as it stops every command it stops them too (SIGTERM to each and its group,
the grace, SIGKILL), until none is left. The processes the runtime started itself
(:func:`own`) are never taken for adopted ones. A server dies with its commands,
SIGKILL included: where the system allows, the server and so every command it
starts is in a cgroup that a warden empties then
(:mod:`mcigen_runtime.executors.warden`); elsewhere each command is started so
that the kernel kills it when the server dies (:func:`child_setup`).
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from types import TracebackType
from typing import Protocol

from . import orphans, warden


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

_ADOPTED_ROUNDS = 20
"""How many times the orphans are killed again: killing one hands its children
to this process, a new round's orphans."""

_running: set[Running] = set()
_ended_because: str | None = None
"""Why this process stopped every command for good (it is ending), once it has: a
command that would start after that is not started."""
# Reentrant: a signal handler that stops every command may interrupt this thread
# while it holds the lock.
_lock = threading.RLock()
_at_exit = False
_own: set[int] = set()
"""The processes this runtime started itself, until they are reaped: every other
child of this process is an orphan it adopted."""
_contained = False
_adopting = False
_warden: int | None = None
"""The pid of the warden of the cgroup this process is in, while it watches."""


def contain() -> None:
    """For a server, where the system allows it (Linux): adopt what commands leave
    behind, and make every command die with the server: where a cgroup may be made,
    by moving the server into one that a warden empties once the server is gone,
    else by starting each command with a parent-death signal."""
    global _contained, _adopting, _warden
    if _contained:
        return
    _contained = True
    _adopting = orphans.become_subreaper()
    with spawning as started:
        _warden = warden.guard()
        if _warden is not None:
            started(_warden)  # to live on until this process ends


def child_setup(
    last: Callable[[], None] | None = None,
) -> Callable[[], None] | None:
    """What a command runs before it starts (``preexec_fn``), if anything; ``last``
    (its confinement) after the rest, which it might forbid.

    Only a server without a warden sets a parent-death signal: any ``preexec_fn``
    makes CPython ``fork()`` the whole server instead of ``vfork()``, several
    milliseconds a call, while a command born in the warden's cgroup needs
    nothing (and the warden takes along what the command started, which the
    signal does not). Should the warden be killed, the signal is set again."""
    if not _adopting or _guarded():
        return last
    return partial(_in_the_child, os.getpid(), last)


def _guarded() -> bool:
    """Whether a warden watches the cgroup this process is in."""
    global _warden
    if _warden is not None and not warden.watching():
        disown(_warden)
        _warden = None
    return _warden is not None


def _in_the_child(server: int, last: Callable[[], None] | None) -> None:
    orphans.die_with_parent(server)
    if last is not None:
        last()


class _Spawning:
    """Start a process inside and hand its pid to what this gives: until then no
    adopted orphan is looked for, so the new process is never taken for one.

    A class rather than a generator's context manager: it is entered for every
    command started, and a generator's costs three times as much."""

    __slots__ = ()

    def __enter__(self) -> Callable[[int], None]:
        _lock.acquire()
        return _own.add

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        _lock.release()


spawning = _Spawning()
"""The start lock: ``with spawning as started: ...; started(pid)``."""


def own(pid: int) -> None:
    """``pid`` is a child this runtime started itself, not an adopted orphan."""
    with _lock:
        _own.add(pid)


def disown(pid: int) -> None:
    """``pid`` has been reaped."""
    with _lock:
        _own.discard(pid)


def reap_adopted() -> None:
    """Reap the adopted orphans that have exited."""
    if _adopting:
        with _lock:
            orphans.reap(pid for pid in _adopted() if orphans.is_zombie(pid))


def _adopted() -> list[int]:
    return [pid for pid in orphans.children() if pid not in _own]


def track(run: Running) -> None:
    """``run`` has started: stop it with the others."""
    global _at_exit
    with _lock:
        _running.add(run)
        if not _at_exit:
            atexit.register(stop_all, for_good=True)
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
    # Looking does not signal: a run reaped meanwhile at worst prolongs the wait.
    _grace(lambda: any(run.group_alive() for run in runs))
    with _lock:
        for run in runs:
            if run in _running:
                run.kill()


def _grace(alive: Callable[[], bool]) -> None:
    """Wait up to :data:`GRACE_S` while ``alive()``."""
    deadline, pause = time.monotonic() + GRACE_S, _FIRST_LOOK_S
    while alive() and time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(pause * 2, _LAST_LOOK_S)


def stop_all(reason: str = "the process is exiting", *, for_good: bool = False) -> None:
    """Stop every command this process is running (see the module docs); each of
    their calls ends with an error result that gives ``reason``. ``for_good``: the
    process is ending, and no command starts any more (:func:`ended_because`)."""
    global _ended_because
    if for_good:
        _ended_because = reason
    with _lock:
        runs = list(_running)
        for run in runs:
            run.stopped_because = reason
    end(runs)
    if _adopting:
        _end_adopted()


def _end_adopted() -> None:
    """SIGTERM to the adopted orphans, the grace while any is alive, then SIGKILL
    to them and to those that killing them hands over; reap them all."""
    with _lock:
        alive = [pid for pid in _adopted() if not orphans.is_zombie(pid)]
        if not alive:
            return
        orphans.signal_with_group(alive, signal.SIGTERM)
    _grace(partial(_any_alive, alive))
    for _ in range(_ADOPTED_ROUNDS):
        with _lock:
            adopted = _adopted()
            orphans.reap(adopted)
            alive = [pid for pid in adopted if not orphans.is_zombie(pid)]
            if not alive:
                return
            orphans.signal_with_group(alive, signal.SIGKILL)
        _grace(partial(_any_alive, alive))


def _any_alive(pids: list[int]) -> bool:
    return any(not orphans.is_zombie(pid) for pid in pids)


def stop_all_soon(reason: str) -> None:
    """:func:`stop_all` for good, in a thread of its own: for a signal handler that
    ends the process, which must not wait out the grace. No command starts from now
    on, before the thread runs too."""
    global _ended_because
    _ended_because = reason
    threading.Thread(
        target=stop_all, args=(reason,), name="mcigen-stop-commands", daemon=True
    ).start()


def ended_because() -> str | None:
    """Why every command was stopped for good, if it was: read under
    :data:`spawning`, before a command starts."""
    return _ended_because
