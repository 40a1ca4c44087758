"""Finding a test's own ``sleep`` processes in /proc, and waiting for them to end.

Each test gives its sleepers a length of its own, and each xdist worker its own
lengths, so that a test counts only what it started while other tests, on this
worker or the other, start and kill sleepers of their own."""

from __future__ import annotations

import os
import time

_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))


def own_length(seconds: int) -> str:
    """``seconds``, made this worker's own (e.g. ``977`` on gw0, ``1977`` on gw1)."""
    return str(seconds + 1000 * _WORKER)


def sleepers(seconds: str) -> list[int]:
    """The processes running ``sleep SECONDS``."""
    pids = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if cmdline.read() == f"sleep\0{seconds}\0".encode():
                    pids.append(int(entry))
        except (OSError, ValueError):
            continue
    return pids


def started(seconds: str, timeout: float = 60) -> list[int]:
    """The processes running ``sleep SECONDS``, once there is one (none after
    ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while not (pids := sleepers(seconds)) and time.monotonic() < deadline:
        time.sleep(0.01)
    return pids


def gone(pids: list[int]) -> bool:
    """Whether none of ``pids`` runs any more, soon (a zombie waiting for init, or
    a process being torn down, has no command line left)."""
    for _ in range(100):
        if not any(_running(pid) for pid in pids):
            return True
        time.sleep(0.02)
    return False


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read() != b""
    except OSError:
        return False
