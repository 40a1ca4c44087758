"""How ``python -m PKG serve`` ends, so that no command it started outlives it.

While a server runs, every command a call started is tracked (see
:mod:`mcigen_runtime.executors.running`); stopping one sends SIGTERM to its process group and SIGKILL
after a short grace.

- A cancelled call (``notifications/cancelled``, an HTTP client that disconnects,
  see :mod:`mcigen_runtime.edge.lifecycle`) stops its command at once.
- stdio: when stdin closes, the server answers the requests it read (the calls
  run to their end; see ``serve.stdio_eof``) and exits. SIGTERM, SIGHUP and SIGINT
  (:func:`exit_on_signals`) stop every command and close the sessions to upstream
  MCP servers, then end the process by that same signal: the thread that reads
  stdin cannot be interrupted, and would otherwise hold the process until the
  client writes or closes stdin. A client that closes stdout ends the server at
  the first answer that cannot be written: reading stops, the calls in flight are
  cancelled (their commands stopped), exit 141 (``serve.wire_failed``).
- HTTP (:func:`run_uvicorn`): SIGTERM, SIGINT and SIGHUP stop every command as
  uvicorn's graceful shutdown starts, so calls in flight end at once with an error
  result saying so (a call that would start a command then does not start it), and
  the server exits as soon as they are answered.
- At interpreter exit every command still running is stopped.
- On Linux a server also adopts what its commands leave behind and stops it with
  them, and a server killed outright (SIGKILL) takes each command's own process
  along (:func:`~mcigen_runtime.executors.running.contain`).
"""

from __future__ import annotations

import os
import signal
import sys
from importlib.util import resolve_name
from typing import TYPE_CHECKING

from ..executors.running import contain, stop_all, stop_all_soon

if TYPE_CHECKING:
    import socket
    from collections.abc import Callable
    from types import FrameType

    import uvicorn

SHUTTING_DOWN = "the server is shutting down"
"""Why the calls in flight at shutdown end with an error result."""


def exit_on_signals() -> None:
    """On SIGTERM, SIGHUP or SIGINT: stop every command, close the MCP sessions,
    and end the process by that signal. Call it from the running event loop."""
    import asyncio

    contain()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        loop.add_signal_handler(sig, _exit_by, sig)


def exit_on_signals_meanwhile() -> None:
    """As :func:`exit_on_signals`, until an event loop runs (no command has
    started yet: a stdio server answering while the SDK loads)."""
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _exit_by_handler)


def _exit_by_handler(sig: int, frame: FrameType | None) -> None:
    _exit_by(sig)


def _exit_by(sig: int) -> None:
    stop_all(SHUTTING_DOWN, for_good=True)
    sessions = sys.modules.get(resolve_name("..executors.mcp.calls", __package__))
    if sessions is not None:
        sessions.close_mcp_sessions()
    sys.stderr.flush()
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)


def run_uvicorn(
    config: uvicorn.Config,
    sockets: list[socket.socket] | None = None,
    serving: Callable[[], None] | None = None,
) -> int:
    """Serve ``config`` with uvicorn (on ``sockets`` when given) until a signal ends
    it, calling ``serving`` once it serves; every command still running is stopped
    as shutdown starts. The exit status: 130 after SIGINT (uvicorn raises it again
    once it has shut down), else 0."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            stop_all_soon(SHUTTING_DOWN)
            super().handle_exit(sig, frame)

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started and serving is not None:
                serving()

    contain()
    server = Server(config)
    signal.signal(signal.SIGHUP, server.handle_exit)  # a closed terminal, too
    try:
        server.run(sockets)
    except KeyboardInterrupt:
        return 130
    return 0
