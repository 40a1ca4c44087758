"""A cgroup of the server and its commands, and a warden that empties it when the
server dies, however it dies (Linux, where this process may create a cgroup v2 below
its own: root, or a delegated subtree; elsewhere nothing here does anything).

The server moves itself into the cgroup once, so every command it starts is born
there, and all a command starts stays there: no fork, ``setsid`` or double fork
leaves a cgroup. (A command moving in by itself before it starts would need a
``preexec_fn``, which makes CPython ``fork()`` the whole server rather than
``vfork()`` it, and a move per command, which waits on the kernel's cgroup lock:
together ~10× the cost of starting ``echo`` from a server.) The warden is a small
process of its own session, started before the move so that it stays outside the
cgroup, that reads a pipe only the server holds open. When the server is gone,
SIGKILL included, the pipe ends, and the warden kills everything in the cgroup
(``cgroup.kill``) and removes it.
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


def remove():
    for path, _, _ in os.walk(group, topdown=False):
        os.rmdir(path)


while os.read(0, 512):
    pass
for _ in range(100):
    kill_all()
    try:
        remove()
        break
    except OSError:
        time.sleep(0.05)
"""
"""The warden: once the pipe on its stdin ends, kill the cgroup's processes (on
kernels before 5.14, without ``cgroup.kill``, one by one) until it can be removed,
with the cgroups below it, innermost first: those of servers served by this one,
whose wardens were in this cgroup and died with it. (On kernels without
``cgroup.kill`` only this cgroup's own processes are killed: those of the cgroups
below live on, and the removal gives up after 5 s.)"""

_watched: int | None = None
"""The end of the warden's pipe this process holds until it ends (no child
inherits it: it is not inheritable)."""
_warden: subprocess.Popen[bytes] | None = None
"""The warden, once it watches."""


def guard() -> int | None:
    """Create the cgroup, start its warden and move this process into it; the
    warden's pid, None where that cannot be done."""
    global _watched, _warden
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
    if not _move_in(group):
        os.close(write_end)  # the warden removes the group, empty, and ends
        process.wait()
        return None
    _watched, _warden = write_end, process
    return process.pid


def watching() -> bool:
    """Whether the warden is still there: it ends only after this process, unless
    it was killed. Once it has ended, it is reaped here."""
    return _warden is not None and _warden.poll() is None


def _move_in(group: str) -> bool:
    """Move this process, every thread of it, into ``group``; whether it moved."""
    try:
        descriptor = os.open(f"{group}/cgroup.procs", os.O_WRONLY)
        try:
            os.write(descriptor, b"0")
        finally:
            os.close(descriptor)
    except OSError:
        return False
    return True


def _new_group() -> str | None:
    """A new cgroup below this process's own in the cgroup v2 hierarchy, which this
    process may move itself into; None where there is none."""
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
