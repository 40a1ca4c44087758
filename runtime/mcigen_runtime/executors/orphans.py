"""What the kernel lets a server do about the processes its commands leave behind
(Linux; elsewhere nothing here does anything).

- A child subreaper (``PR_SET_CHILD_SUBREAPER``) becomes the parent of every
  process below it that loses its own (a double fork, ``setsid … &``,
  ``nohup … &``), where init would otherwise adopt it: the server can find such
  an orphan among its children, stop it as it shuts down, and reap it.
- A parent-death signal (``PR_SET_PDEATHSIG``) set in a command before it starts
  kills the command when the thread that started it dies, the server killed by
  SIGKILL included (a server starts commands from its event loops' threads,
  which live as long as it does). It kills that one process: what the command
  started is reparented to init and lives on. Only a server without a cgroup sets
  it; a server with one is in it with its commands, and its warden takes them all
  along (:mod:`mcigen_runtime.executors.warden`).

Children are read from ``/proc/self/task/*/children``; a kernel without it
(``CONFIG_PROC_CHILDREN``) gets no subreaper, so no orphan is kept unreaped.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable, Iterable

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36

_prctl: Callable[..., int] | None = None
"""libc's ``prctl``, resolved before any fork: a child must not load a library."""


def become_subreaper() -> bool:
    """Make this process its descendants' reaper; whether it now is."""
    global _prctl
    if not os.path.exists(_children_file()):
        return False
    prctl = _libc_prctl()
    if prctl is None or prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        return False
    _prctl = prctl
    return True


def die_with_parent(parent: int) -> None:
    """In a command, before it starts: die when the server ``parent`` does (once
    :func:`become_subreaper` has succeeded)."""
    if _prctl is not None:
        _signal_at_death(_prctl, parent, signal.SIGKILL)


def signal_at_parent_death(parent: int, sig: int) -> None:
    """Have the kernel send ``sig`` to this process when ``parent``, its parent,
    dies (now, if it already has); nothing where that cannot be asked (not Linux)."""
    prctl = _libc_prctl()
    if prctl is not None:
        _signal_at_death(prctl, parent, sig)


def _libc_prctl() -> Callable[..., int] | None:
    """libc's ``prctl``; None off Linux, or where it cannot be loaded."""
    if sys.platform != "linux":
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


def _signal_at_death(prctl: Callable[..., int], parent: int, sig: int) -> None:
    """Ask for ``sig`` when this process's parent dies; ``sig`` now if ``parent``,
    the parent it had, died before the request was made."""
    prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


def children() -> list[int]:
    """This process's children, those of each of its threads."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return []
    pids: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children", "rb") as listed:
                pids += map(int, listed.read().split())
        except OSError:  # the thread has ended
            continue
    return pids


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] == b"Z"
    except (OSError, IndexError):
        return False


def signal_with_group(pids: Iterable[int], sig: int) -> None:
    """``sig`` to each of ``pids`` and to its process group, unless that group is
    this process's own."""
    own_group = os.getpgid(0)
    for pid in pids:
        try:
            group = os.getpgid(pid)
            if group != own_group:
                os.killpg(group, sig)
            os.kill(pid, sig)
        except OSError:  # gone meanwhile
            continue


def reap(pids: Iterable[int]) -> None:
    """Reap those of ``pids`` (children no one else waits for) that have exited."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue


def _children_file() -> str:
    return f"/proc/self/task/{os.getpid()}/children"
