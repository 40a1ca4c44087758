"""The end of a stdio connection whose wire failed: the client closed its end of
stdout (``EPIPE``; ``ECONNRESET`` on a socket; ``EIO`` on a terminal that hung
up), stdout failed otherwise, the
client's lines could not be read (a socket the client reset: ``ECONNRESET``; a
terminal the process may not read: ``EIO``), or stdin or stdout was not open at
all (the server was started with fd 0 or 1 closed: ``<&-``).

No answer can reach the client any more, or no request can come from it, so the
server stops as a client's SIGTERM would have it stop, without the signal: the
side that failed cancels the connection (:class:`ClosedWire`), which stops
reading the client's lines and cancels the calls in flight (a cli call's command
is stopped, process group and all, as for ``notifications/cancelled``); their
lines and those of answers held say ``unsent`` (``edge.logs.HeldCallLines``).
:func:`ended` then logs one line saying so and gives the exit status: 141 when
the client closed its end (its reset read from stdin too: one socket is often
both), as ``python -m PKG list | head`` ends (``edge.closed_pipe``: a status
apart from the end of stdin's 0, where every request read was answered), 1 for
another failure of the wire, and for a wire that was never open
(:func:`not_open`), where the server serves no one. fd 1 is pointed at
``/dev/null`` first, so that Python's flush of ``sys.stdout`` at exit does not
fail on the closed pipe (an ``Exception ignored ... BrokenPipeError`` message).
"""

from __future__ import annotations

import errno
import logging
from typing import TYPE_CHECKING, NamedTuple

import anyio

from ..edge.closed_pipe import EXIT_PIPE_CLOSED, hung_up, quiet_stdout

if TYPE_CHECKING:
    from .stdio_eof import Unanswered

logger = logging.getLogger(__name__)

CLOSED_BY_CLIENT = (BrokenPipeError, ConnectionResetError)

EXIT_WIRE_FAILED = 1


class WireFailed(NamedTuple):
    """How the wire failed."""

    error: OSError
    reading: bool
    """Whether reading the client's lines failed (else writing an answer)."""
    in_flight: int = 0
    """The requests not answered then (their calls are cancelled)."""


class ClosedWire:
    """Whether the wire has failed, and the connection it cancels then."""

    def __init__(self, unanswered: Unanswered) -> None:
        self._unanswered = unanswered
        self.failure: WireFailed | None = None
        """The first failure, reading or writing."""
        self.connection = anyio.CancelScope()
        """Entered around the connection: cancelled once the wire fails."""

    async def failed(self, error: OSError, reading: bool = False) -> None:
        """Note ``error`` (a write's, or a read's), and cancel the connection, the
        task that awaits this with it (this never returns)."""
        if self.failure is None:
            self.failure = WireFailed(error, reading, self._unanswered.count())
        self.connection.cancel()
        await anyio.sleep_forever()


def ended(failure: WireFailed) -> int:
    """Log why the server stops, and the exit status (see the module docs)."""
    error, in_flight = failure.error, failure.in_flight
    fd = 0 if failure.reading else 1
    closed = isinstance(error, CLOSED_BY_CLIENT) or (
        error.errno == errno.EIO and hung_up(fd)
    )
    quiet_stdout()
    stopped = "stopped reading" if not failure.reading else ""
    if in_flight:
        cancelled = f"cancelled the {in_flight} request(s) in flight"
        stopped = f"{stopped}, {cancelled}" if stopped else cancelled
    side = "stdin" if failure.reading else "stdout"
    said = f": {stopped}; exiting" if stopped else "; exiting"
    if closed:
        logger.info("the client closed its end of %s (%s)%s", side, error, said)
        return EXIT_PIPE_CLOSED
    verb = "read" if failure.reading else "written"
    logger.error("%s cannot be %s (%s)%s", side, verb, error, said)
    return EXIT_WIRE_FAILED


def not_open(side: str) -> int:
    """Log that the server's ``side`` (stdin, stdout) is not open, and the exit
    status: with no wire, a stdio server has no client."""
    fd = 0 if side == "stdin" else 1
    logger.error(
        "%s is not open (fd %d is closed): a stdio server serves a client on its "
        "stdin and stdout; exiting",
        side,
        fd,
    )
    return EXIT_WIRE_FAILED
