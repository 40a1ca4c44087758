"""``mcigen build --watch``: every build once, then each build again whenever its
input changes (with the watcher ``serve --reload`` uses), until SIGINT (Ctrl-C) or
SIGTERM. A build that fails says why and the watch goes on; the package it would
have replaced stays as it was (a build writes only when it succeeds)."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType

from .diagnostics import printable
from .input_watch import Watched, WatchUnavailable, inputs_changes

USAGE_ERROR = 2
_STOPPING = (signal.SIGINT, signal.SIGTERM)


def watch_builds(watched: Sequence[Watched], build: Callable[[int], int]) -> int:
    """``build(index)`` builds the input ``watched[index]``; 0 once stopped."""
    stop = threading.Event()

    def stopping(signum: int, frame: FrameType | None) -> None:
        stop.set()

    try:
        changes = inputs_changes(watched, stop, "--watch")
    except WatchUnavailable as error:
        _say(f"error: {error}")
        return USAGE_ERROR
    previous = {number: signal.signal(number, stopping) for number in _STOPPING}
    try:
        for index in range(len(watched)):
            build(index)
        announced = False
        for changed in changes:
            if not announced:  # the first idle turn: the watch is set up by now
                inputs = ", ".join(dict.fromkeys(str(source) for source, _ in watched))
                _say(f"watching {inputs} (Ctrl-C stops)")
                announced = True
            for index in sorted(changed):
                _say(f"{watched[index][0]} changed: rebuilding")
                build(index)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return 0


def _say(message: str) -> None:
    print(printable(f"mcigen: {message}"), file=sys.stderr, flush=True)
