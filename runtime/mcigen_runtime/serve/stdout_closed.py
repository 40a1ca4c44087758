"""The end of a stdio connection whose answers can no longer be written: the
client closed its end of stdout (``EPIPE``; ``ECONNRESET`` on a socket) or the
wire failed otherwise.

No answer can reach the client any more, so the server stops as a client's
SIGTERM would have it stop, without the signal: the writer that failed cancels
the connection (:class:`ClosedWire`), which stops reading the client's lines and
cancels the calls in flight (a cli call's command is stopped, process group and
all, as for ``notifications/cancelled``); their lines and those of answers held
say ``unsent`` (``edge.logs.HeldCallLines``). :func:`ended` then logs one line
saying so and gives the exit status: 141 when the client closed its end, as
``python -m PKG list | head`` ends (``edge.closed_pipe``: a status apart from the
end of stdin's 0, where every request read was answered), 1 for another failure
of the wire. fd 1 is pointed at ``/dev/null`` first, so that Python's flush of
``sys.stdout`` at exit does not fail on the closed pipe (an ``Exception ignored
... BrokenPipeError`` message).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import anyio

from ..edge.closed_pipe import EXIT_PIPE_CLOSED, quiet_stdout

if TYPE_CHECKING:
    from .stdio_eof import Unanswered

logger = logging.getLogger(__name__)

CLOSED_BY_CLIENT = (BrokenPipeError, ConnectionResetError)


class ClosedWire:
    """Whether the answers' wire has failed, and the connection it cancels then."""

    def __init__(self, unanswered: Unanswered) -> None:
        self._unanswered = unanswered
        self.error: OSError | None = None
        """The first error writing an answer."""
        self.in_flight = 0
        """The requests not answered then (their calls are cancelled)."""
        self.connection = anyio.CancelScope()
        """Entered around the connection: cancelled once the wire fails."""

    async def failed(self, error: OSError) -> None:
        """Note ``error`` (a write's), and cancel the connection, the writer that
        awaits this with it (this never returns)."""
        if self.error is None:
            self.error = error
            self.in_flight = self._unanswered.count()
        self.connection.cancel()
        await anyio.sleep_forever()


def ended(error: OSError, in_flight: int) -> int:
    """Log why the server stops (``in_flight``: the requests it will not answer),
    and the exit status (see the module docs)."""
    quiet_stdout()
    stopped = "stopped reading"
    if in_flight:
        stopped += f", cancelled the {in_flight} request(s) in flight"
    if isinstance(error, CLOSED_BY_CLIENT):
        logger.info(
            "the client closed its end of stdout (%s): %s; exiting", error, stopped
        )
        return EXIT_PIPE_CLOSED
    logger.error("stdout cannot be written (%s): %s; exiting", error, stopped)
    return 1
