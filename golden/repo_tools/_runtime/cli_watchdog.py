"""One thread that kills the process group of every command that outlives its timeout.

Starting a timer thread for each command costs more than a quick command takes to
run; one watchdog thread keeps every pending deadline in a heap instead.
"""

from __future__ import annotations

import heapq
import itertools
import os
import signal
import threading
import time


class Watch:
    """The deadline of one running command: cancel it once the command has exited."""

    __slots__ = ("pid", "fired", "cancelled")

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.fired = False
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class _Watchdog:
    def __init__(self) -> None:
        self._wakeup = threading.Condition()
        self._pending: list[tuple[float, int, Watch]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, pid: int, timeout_s: float) -> Watch:
        watch = Watch(pid)
        entry = (time.monotonic() + timeout_s, next(self._order), watch)
        with self._wakeup:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="mcigen-cli-watchdog", daemon=True
                )
                self._thread.start()
            heapq.heappush(self._pending, entry)
            if self._pending[0] is entry:
                self._wakeup.notify()
        return watch

    def _run(self) -> None:
        with self._wakeup:
            while True:
                if not self._pending:
                    self._wakeup.wait()
                    continue
                deadline, _, watch = self._pending[0]
                if watch.cancelled:
                    heapq.heappop(self._pending)
                    continue
                left = deadline - time.monotonic()
                if left > 0:
                    self._wakeup.wait(left)
                    continue
                heapq.heappop(self._pending)
                watch.fired = True
                kill_group(watch.pid)

    def forget_thread(self) -> None:
        """In a forked child the thread is gone: start a new one when needed."""
        self._wakeup = threading.Condition()
        self._pending = []
        self._thread = None


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


_WATCHDOG = _Watchdog()
os.register_at_fork(after_in_child=_WATCHDOG.forget_thread)

watch = _WATCHDOG.watch
"""Kill ``pid``'s process group after ``timeout_s`` unless the watch is cancelled."""
