"""Ctrl-C held back while a sync call starts its command.

Python runs a signal's handler between two bytecodes of the main thread, so
``KeyboardInterrupt`` may be raised after the kernel has created the command and
before anything in Python holds it (even before ``subprocess`` has stored its
pid): the call would end and leave it running. While a command starts, SIGINT's
handler only takes note; the handler the program had is put back, and run if the
signal came, once the call holds the command.
"""

from __future__ import annotations

import importlib
import signal
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any

_MAIN = threading.main_thread().ident

# The C functions behind :mod:`signal` (CPython's ``_signal``): ``signal.signal``
# and ``getsignal`` turn every handler into their enum, for a function a failed
# lookup with an exception, three of them a call (~15 µs). Elsewhere the public
# functions do the same, slower.
try:
    _C_SIGNAL: Any = importlib.import_module("_signal")
except ImportError:
    _C_SIGNAL = signal
_getsignal: Callable[[int], object] = _C_SIGNAL.getsignal
_setsignal: Callable[[int, object], object] = _C_SIGNAL.signal


class _HeldBack:
    """Around a command's start: SIGINT's handler runs after it, if it came.

    A class rather than a generator's context manager: it is entered for every
    sync call, and a generator's costs three times as much."""

    __slots__ = ("handler", "came")

    def __enter__(self) -> None:
        self.handler: object = None
        if threading.get_ident() != _MAIN:  # handlers run in the main thread only
            return
        handler = _getsignal(signal.SIGINT)
        if not callable(handler):  # ignored, or the kernel's default: nothing runs
            return
        self.handler = handler
        self.came: list[FrameType | None] = []
        _setsignal(signal.SIGINT, lambda _, frame: self.came.append(frame))

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        handler = self.handler
        if not callable(handler):
            return
        _setsignal(signal.SIGINT, handler)
        if self.came:
            handler(signal.SIGINT, self.came[0])


held_back = _HeldBack
"""``with held_back(): ...``: Ctrl-C held back while a command starts."""
