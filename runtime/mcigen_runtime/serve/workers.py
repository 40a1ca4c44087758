"""``serve --http ADDR --workers N``: N worker processes, each a whole server, and
the process that started them supervising them.

- Each worker binds ADDR itself with ``SO_REUSEPORT``, so the kernel hands each new
  connection to one worker's listening socket (by a hash of its addresses), rather
  than the worker that wakes first taking every connection waiting on a socket they
  share (uvicorn's ``--workers``).
- Each worker is a session of its own: where the kernel shares CPU time between
  sessions (``sched_autogroup``), N workers get N shares, not one between them.
- Each worker keeps what a one-process server does: its commands in its own cgroup
  with its own warden (``executors.warden``), its bounds, its Host/Origin and
  Bearer checks. The HTTP transport is stateless, so any worker answers any request
  of a client, whichever connection it comes on (``http``); background operations
  are shared through Redis or refused (``operation_tools.refused_under_workers``),
  and progressive disclosure lists every tool (a reveal would be one worker's).
- Linux only (elsewhere ``SO_REUSEPORT`` does not spread connections).
- The supervisor checks that ADDR is free, starts the workers and waits until each
  serves. SIGTERM, SIGINT (Ctrl-C) and SIGHUP are passed to every worker, which
  shuts down as a one-process server does; the supervisor waits for all of them,
  then ends as a one-process server does (exit status 130 after SIGINT, else by
  the signal). A worker that dies after it served is
  reported and replaced; one that ends before it serves (a start-up error) stops
  them all, and the supervisor exits with 1. A worker dies with the supervisor
  (``PR_SET_PDEATHSIG``: SIGTERM), SIGKILL included.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import socket
import subprocess
from collections.abc import Mapping, MutableMapping, Sequence
from types import FrameType

from ..executors import orphans

logger = logging.getLogger(__name__)

WORKER = "MCIGEN_HTTP_WORKER"
"""Set in a worker's environment: ``INDEX/COUNT/READY_FD/SUPERVISOR_PID``."""

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

EXIT_FAILED = 1


@dataclasses.dataclass(frozen=True)
class WorkerRole:
    """What a worker process is told by its supervisor."""

    index: int
    count: int
    ready_fd: int
    supervisor: int

    def follow_supervisor(self) -> None:
        """Get SIGTERM when the supervisor dies (SIGTERM now if it already has);
        keep the pipe to it from the commands this worker starts."""
        os.set_inheritable(self.ready_fd, False)
        orphans.signal_at_parent_death(self.supervisor, signal.SIGTERM)

    def ready(self) -> None:
        """Tell the supervisor this worker serves."""
        try:
            os.write(self.ready_fd, b"1")
            os.close(self.ready_fd)
        except OSError:  # the supervisor is gone: its death signal comes
            pass


def worker_role(env: Mapping[str, str]) -> WorkerRole | None:
    """The role :data:`WORKER` gives this process; None in any other process."""
    text = env.get(WORKER)
    if not text:
        return None
    try:
        index, count, ready_fd, supervisor = (int(part) for part in text.split("/"))
    except ValueError:
        return None
    return WorkerRole(index, count, ready_fd, supervisor)


def claim_worker_role(env: MutableMapping[str, str]) -> WorkerRole | None:
    """:func:`worker_role`, taken out of ``env`` (``os.environ``): the commands a
    worker starts, a ``serve`` among them, are no workers."""
    role = worker_role(env)
    env.pop(WORKER, None)
    return role


def listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address of ``host`` at ``port`` with ``SO_REUSEPORT``
    (as uvicorn binds them, ``localhost`` on both loopbacks); raises ``OSError``."""
    return _bound(host, port, reuse_port=True)


def address_free(host: str, port: int) -> None:
    """Raise ``OSError`` when something listens at ``host:port`` already: a server
    that also set ``SO_REUSEPORT`` (an earlier ``serve --workers`` of the same user)
    would otherwise share the port with the workers."""
    for sock in _bound(host, port, reuse_port=False):
        sock.close()


def _bound(host: str, port: int, reuse_port: bool) -> list[socket.socket]:
    """Sockets bound to every address of ``host`` at ``port``; raises ``OSError``
    (none left open) when one cannot be bound."""
    found = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(
            (family, kind, proto, "", address)
            for family, kind, proto, _, address in found
        ):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def supervise(command: Sequence[str], count: int) -> int:
    """Run ``command`` (a ``serve --http`` of this package) as ``count`` workers
    until a stop signal, as the module docs say; the exit status."""
    return _Supervisor(list(command), count).run()


class _Supervisor:
    def __init__(self, command: list[str], count: int) -> None:
        self.command = command
        self.count = count
        self.workers: dict[int, tuple[int, subprocess.Popen[bytes]]] = {}
        """pid -> (index, process), of the workers not yet reaped."""
        self.stopped_by: int | None = None
        self.failed = False
        """Whether a worker ended before it served (and all were stopped)."""

    def run(self) -> int:
        for sig in STOP_SIGNALS:
            signal.signal(sig, self._stop)
        starting = [self._spawn(index) for index in range(1, self.count + 1)]
        if all([self._serves(*started) for started in starting if started]):
            if self.stopped_by is None:
                pids = ", ".join(str(pid) for pid in self.workers)
                logger.info("serving with %d workers (pids %s)", self.count, pids)
        while self.workers:
            pid, status = os.wait()
            index, process = self.workers.pop(pid)
            process.returncode = os.waitstatus_to_exitcode(status)
            if self.stopped_by is None:
                logger.warning(
                    "worker %d (pid %d) %s; starting another",
                    index,
                    pid,
                    _ended(process.returncode),
                )
                started = self._spawn(index)
                if started and self._serves(*started):
                    logger.info("worker %d (pid %d) serves", index, started[0])
        if self.failed:
            return EXIT_FAILED
        if self.stopped_by == signal.SIGINT:
            return 130
        if self.stopped_by is not None:  # ends by it, as a one-process server does
            signal.signal(self.stopped_by, signal.SIG_DFL)
            signal.raise_signal(self.stopped_by)
        return 0

    def _spawn(self, index: int) -> tuple[int, int] | None:
        """Start worker ``index``: its pid and the end of the pipe on which it
        says it serves; None (and every worker stopped) if it cannot start."""
        read_end, write_end = os.pipe()
        role = f"{index}/{self.count}/{write_end}/{os.getpid()}"
        try:
            process = subprocess.Popen(
                self.command,
                env={**os.environ, WORKER: role},
                pass_fds=(write_end,),
                start_new_session=True,
            )
        except OSError as error:
            os.close(read_end)
            logger.error("worker %d could not be started: %s", index, error)
            self._fail()
            return None
        finally:
            os.close(write_end)
        self.workers[process.pid] = (index, process)
        if self.stopped_by is not None:  # the signal came before it was known
            os.kill(process.pid, self.stopped_by)
        return process.pid, read_end

    def _serves(self, pid: int, read_end: int) -> bool:
        """Wait until the worker ``pid`` serves, or ends; whether it serves. One
        that ends first, unless the workers are being stopped, stops them all."""
        with os.fdopen(read_end, "rb") as ready:
            serves = ready.read(1) == b"1"
        if not serves and self.stopped_by is None:
            index = self.workers[pid][0]
            logger.error("worker %d (pid %d) ended before it served", index, pid)
            self._fail()
        return serves

    def _fail(self) -> None:
        self.failed = True
        self._stop(signal.SIGTERM, None)

    def _stop(self, sig: int, frame: FrameType | None) -> None:
        if self.stopped_by is None:
            self.stopped_by = sig
        for pid in self.workers:  # not reaped yet: the pid is still the worker's
            os.kill(pid, sig)


def _ended(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"
