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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
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


@contextmanager
def held_back() -> Iterator[None]:
    """Around a command's start: SIGINT's handler runs after it, if it came."""
    if threading.get_ident() != _MAIN:  # handlers run in the main thread only
        yield
        return
    handler = _getsignal(signal.SIGINT)
    if not callable(handler):  # ignored, or the kernel's default: nothing runs
        yield
        return
    came: list[FrameType | None] = []
    _setsignal(signal.SIGINT, lambda _, frame: came.append(frame))
    try:
        yield
    finally:
        _setsignal(signal.SIGINT, handler)
        if came:
            handler(signal.SIGINT, came[0])
