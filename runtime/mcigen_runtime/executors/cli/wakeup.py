"""A signal that arrives while a sync call waits for its command wakes the wait.

CPython's C handler only takes note of a signal; the Python handler
(``KeyboardInterrupt`` for Ctrl-C) runs once the main thread runs bytecode
again. A ``poll`` the main thread is blocked in returns early only when the
kernel interrupts that very call: not when the signal was taken by another
thread (the kernel's choice, e.g. while the main thread blocks every signal to
start a command), nor when it came between the main thread's last look and its
entering ``poll``. Then the call waited for the command's end or timeout.

So while the main thread waits, the signal's number is also written to a pipe
(:func:`signal.set_wakeup_fd`) that the wait polls. A wakeup descriptor the
program had (an event loop's) is put back after, and given what came meanwhile;
with ``warn_on_full_buffer`` true, the default, whatever it had been set with:
CPython answers the descriptor it replaces, never that flag, so it cannot be
known (nor asked for without replacing the descriptor).

Each process has a pipe of its own: a forked child drops the one it inherited.
Shared, it woke every process's wait for any one's signal, and the first to
read took the number: the process signalled could wait for its command's end.
"""

from __future__ import annotations

import os
import signal
import threading
from types import TracebackType

_MAIN = threading.main_thread().ident
_set_wakeup_fd = signal.set_wakeup_fd
_pipe: tuple[int, int] | None = None
"""Read and write ends, made at the first wait and kept: both non-blocking."""


def _made_pipe() -> tuple[int, int]:
    global _pipe
    if _pipe is None:
        _pipe = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    return _pipe


def _forget_inherited() -> None:
    """In a forked child, whose main thread is the one that forked: close the
    parent's pipe. A fork from another thread while the parent's main thread
    waited leaves the pipe the child's wakeup descriptor, with no wait here to put
    the program's back: then the child has none."""
    global _pipe, _MAIN
    _MAIN = threading.get_ident()
    if _pipe is None:
        return
    read_end, write_end = _pipe
    _pipe = None
    previous = _set_wakeup_fd(-1)
    if previous not in (-1, write_end):
        _set_wakeup_fd(previous)
    os.close(read_end)
    os.close(write_end)


os.register_at_fork(after_in_child=_forget_inherited)


def drain(fd: int) -> bytes:
    """What the pipe ``fd`` holds now (the numbers of the signals that came)."""
    came = b""
    while True:
        try:
            chunk = os.read(fd, 512)
        except BlockingIOError:
            return came
        if not chunk:
            return came
        came += chunk


class _WokenBySignals:
    """``with woken_by_signals() as fd``: ``fd`` (to poll, and :func:`drain` when
    ready) becomes readable when a signal comes; None outside the main thread,
    where the signal's handler does not run."""

    __slots__ = ("previous",)

    def __enter__(self) -> int | None:
        self.previous: int | None = None
        if threading.get_ident() != _MAIN:
            return None
        read_end, write_end = _pipe or _made_pipe()
        # Whatever the pipe holds is drained as the wait polls it: it never fills.
        self.previous = _set_wakeup_fd(write_end)
        return read_end

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        previous = self.previous
        if previous is None:
            return
        _set_wakeup_fd(previous)
        if previous != -1 and _pipe is not None:
            came = drain(_pipe[0])
            if came:
                try:
                    os.write(previous, came)
                except OSError:  # full, or closed by its owner: it had been told
                    pass


woken_by_signals = _WokenBySignals
