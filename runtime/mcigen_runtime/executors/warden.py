"""A cgroup of the server's commands, and a warden that empties it when the server
dies, however it dies (Linux, where this process may create a cgroup v2 below its
own: root, or a delegated subtree; elsewhere nothing here does anything).

Every command of the server joins the cgroup before it starts, and all it starts
stays there: no fork, ``setsid`` or double fork leaves a cgroup. The warden is a
small process of its own session, outside the cgroup, that reads a pipe only the
server holds open. When the server is gone, SIGKILL included, the pipe ends, and
the warden kills everything in the cgroup (``cgroup.kill``) and removes it.
"""

from __future__ import annotations

import os
import subprocess
import sys

_WARDEN = """
import os, sys, time
group = sys.argv[1]


def kill_all():
    try:
        with open(group + "/cgroup.kill", "w") as kill:
            kill.write("1")
            return
    except OSError:
        pass
    try:
        with open(group + "/cgroup.procs") as procs:
            pids = procs.read().split()
    except OSError:
        return
    for pid in pids:
        try:
            os.kill(int(pid), 9)
        except OSError:
            pass


while os.read(0, 512):
    pass
for _ in range(100):
    kill_all()
    try:
        os.rmdir(group)
        break
    except OSError:
        time.sleep(0.05)
"""
"""The warden: once the pipe on its stdin ends, kill the cgroup's processes (on
kernels before 5.14, without ``cgroup.kill``, one by one) until it can be removed."""

_procs: str | None = None
"""The ``cgroup.procs`` of the commands' cgroup, once the warden watches it."""
_watched: int | None = None
"""The end of the warden's pipe this process holds until it ends (no child
inherits it: it is not inheritable)."""


def guard() -> int | None:
    """Create the commands' cgroup and start its warden; the warden's pid, None
    where that cannot be done."""
    global _procs, _watched
    group = _new_group()
    if group is None:
        return None
    read_end, write_end = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WARDEN, group],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        os.rmdir(group)
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    _watched, _procs = write_end, f"{group}/cgroup.procs"
    return process.pid


def join() -> None:
    """In a command, before it starts: move into the commands' cgroup."""
    if _procs is None:
        return
    try:
        descriptor = os.open(_procs, os.O_WRONLY)
        try:
            os.write(descriptor, b"0")
        finally:
            os.close(descriptor)
    except OSError:  # the command runs outside it
        pass


def _new_group() -> str | None:
    """A new cgroup below this process's own in the cgroup v2 hierarchy, which this
    process may move its children into; None where there is none."""
    if sys.platform != "linux":
        return None
    mount, own = _mount(), _own_group()
    if mount is None or own is None:
        return None
    parent = os.path.join(mount, own.lstrip("/"))
    group = os.path.join(parent, f"mcigen-serve-{os.getpid()}")
    try:
        os.mkdir(group)
    except OSError:
        return None
    if not os.access(f"{parent}/cgroup.procs", os.W_OK):
        os.rmdir(group)
        return None
    return group


def _mount() -> str | None:
    """Where the cgroup v2 hierarchy is mounted."""
    try:
        with open("/proc/self/mountinfo") as mounts:
            for line in mounts:
                fields = line.split(" - ")
                if len(fields) == 2 and fields[1].split()[0] == "cgroup2":
                    return fields[0].split()[4]
    except OSError:
        pass
    return None


def _own_group() -> str | None:
    """This process's cgroup in the v2 hierarchy (``0::/path``)."""
    try:
        with open("/proc/self/cgroup") as groups:
            for line in groups:
                if line.startswith("0::"):
                    return line[3:].strip()
    except OSError:
        pass
    return None
