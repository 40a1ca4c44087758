"""The one server ``mcigen serve`` runs at a time: restarted on demand, and stopped
with mcigen, whichever way mcigen is told to stop."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from .server_process import ServerProcess

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class Supervisor:
    def __init__(self, start: Callable[[], ServerProcess]) -> None:
        self._start = start
        self.stopping = threading.Event()
        """Set by a stop signal: start nothing more, watch nothing more."""
        self.server: ServerProcess | None = None

    @contextmanager
    def running(self) -> Iterator[ServerProcess]:
        """The server started, with the stop signals sent on to it; on leaving,
        stopped (and waited for) whatever happened."""
        previous = {
            sig: signal.signal(sig, self._on_stop_signal) for sig in STOP_SIGNALS
        }
        try:
            self.server = self._start()
            yield self.server
        finally:
            if self.server is not None:
                self.server.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def restart(self) -> None:
        """Stop the server, wait for it, and start a new one (unless a stop signal
        came meanwhile)."""
        assert self.server is not None, "restart() inside running()"
        self.server.stop()
        if not self.stopping.is_set():
            self.server = self._start()

    def exit_status(self) -> int | None:
        return None if self.server is None else self.server.exit_status()

    def _on_stop_signal(self, signum: int, frame: FrameType | None) -> None:
        # A terminal's Ctrl-C reaches the server too (one process group); a second
        # SIGTERM on top of it does no harm.
        self.stopping.set()
        if self.server is not None:
            self.server.terminate()
