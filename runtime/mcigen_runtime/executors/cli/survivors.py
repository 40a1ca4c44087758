"""Finding the processes a command left behind: those still alive in its process
group, and those that left the group but still hold its output pipes.

A command's process group is killed when it times out, but a child that left the
group (``setsid sleep 30 &``, or a shell's job control) survives and keeps the pipe
open. Such a child is found by its open descriptors (``/proc/PID/fd`` on Linux): a
process of another session than this one that holds one of the command's pipes for
writing can only descend from the command (this process's own forks share its
session), and is killed. Where ``/proc`` does not exist nothing is found; the call
still ends at its deadline.
"""

from __future__ import annotations

import os
import signal


def pipe_names(fds: list[int]) -> set[str]:
    """How ``/proc/PID/fd`` shows the pipes whose read ends are ``fds``."""
    return {f"pipe:[{os.fstat(fd).st_ino}]" for fd in fds}


def kill_holders(pipes: set[str], group: int) -> list[int]:
    """Kill every process holding one of ``pipes`` that is neither of this session
    nor of the process group ``group`` (killed already); their pids."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    own_pid, own_session = os.getpid(), os.getsid(0)
    killed = []
    for entry in entries:
        if not entry.isdigit() or int(entry) == own_pid:
            continue
        pid = int(entry)
        if not _holds(pid, pipes):
            continue
        try:
            if os.getsid(pid) == own_session or os.getpgid(pid) == group:
                continue
            os.kill(pid, signal.SIGKILL)
        except OSError:  # gone meanwhile
            continue
        killed.append(pid)
    return sorted(killed)


def group_alive(group: int) -> bool:
    """Whether a process of the process group ``group`` is alive, not a zombie
    (where there is no ``/proc``: whether the group has any process at all)."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member of another user: it is there
        pass
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                # pid (comm) state ppid pgrp ...: comm may hold spaces and ')'
                state, _ppid, pgrp = stat.read().rpartition(b")")[2].split()[:3]
        except (OSError, ValueError):  # gone meanwhile
            continue
        if int(pgrp) == group and state not in (b"Z", b"X"):
            return True
    return False


def _holds(pid: int, pipes: set[str]) -> bool:
    directory = f"/proc/{pid}/fd"
    try:
        fds = os.listdir(directory)
    except OSError:  # gone, or not this user's
        return False
    for fd in fds:
        try:
            if os.readlink(f"{directory}/{fd}") in pipes and _writes(pid, fd):
                return True
        except OSError:  # closed meanwhile
            continue
    return False


def _writes(pid: int, fd: str) -> bool:
    """Whether the descriptor is a write end. A process this one forks for another
    command holds copies of the read ends for a moment, until it closes them."""
    with open(f"/proc/{pid}/fdinfo/{fd}") as info:
        for line in info:
            if line.startswith("flags:"):
                return int(line.split()[1], 8) & os.O_ACCMODE != os.O_RDONLY
    return False
