"""A started command as both runners drive it: its pipes, what is kept of them, its
exit and its deadline.

A runner waits until every descriptor in ``waiting`` is ready and hands it to
:meth:`Running.ready`, until the command is :attr:`~Running.done` or its deadline
passes. On Linux the command's exit is one of those descriptors (a pidfd), so no
runner polls for it with sleeps; elsewhere it is waited for once the pipes close.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping

from ...landlock import LandlockUnavailable, write_confinement
from ..deadline import allowed
from ..running import child_setup, disown, end, forget, reap_adopted, spawning, track
from .output import Tail
from .survivors import group_alive, kill_holders, pipe_names

_CHUNK = 1 << 16
"""Bytes read from a pipe at a time."""

_DRAIN_CHUNKS = 16
"""At most this many chunks are read from a pipe once its writers are killed (a
pipe holds 64 KiB unless its writer made it larger)."""

_REAP_S = 0.5
"""How long a killed command may take to be reaped before it is left to
``subprocess``'s own clean-up (only a process stuck in the kernel takes that long)."""


class Started:
    """A command just started, and the read ends of its stdout and stderr pipes."""

    __slots__ = ("process", "stdout", "stderr")

    def __init__(self, process: subprocess.Popen[bytes], stdout: int, stderr: int):
        self.process = process
        self.stdout = stdout
        self.stderr = stderr


def spawn(
    argv: list[str],
    cwd: os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    held: tuple[int, ...] = (),
    confined_to: tuple[str, ...] | None = None,
) -> Started:
    """Start a command as both runners do (no input, output piped, in a session
    of its own, so that a timeout kills its children too), in a server so that it
    dies with it (see :func:`mcigen_runtime.executors.running.contain`), keeping
    open the descriptors ``held`` (its checked path operands), and, unless
    ``confined_to`` is None, able to write only beneath those directories (see
    :mod:`mcigen_runtime.landlock`). :class:`OSError` saying why when it cannot
    start, or cannot be confined.

    The pipes are made here and given to ``Popen`` as descriptors: with
    ``subprocess.PIPE`` it wraps each read end in a buffered file (a ``fstat``,
    an ``ioctl`` and a ``lseek`` each) that the runners never read through,
    ~50,000 instructions a call."""
    out_read, out_write = os.pipe2(os.O_CLOEXEC)
    err_read, err_write = os.pipe2(os.O_CLOEXEC)
    try:
        process = _popen(argv, cwd, env, held, confined_to, (out_write, err_write))
    except BaseException:
        os.close(out_read)
        os.close(err_read)
        raise
    finally:
        os.close(out_write)
        os.close(err_write)
    return Started(process, out_read, err_read)


def _popen(
    argv: list[str],
    cwd: os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    held: tuple[int, ...],
    confined_to: tuple[str, ...] | None,
    outputs: tuple[int, int],
) -> subprocess.Popen[bytes]:
    """The command started, writing to the pipes' write ends ``outputs``."""
    confinement = None
    try:
        if confined_to is not None:
            confinement = write_confinement(confined_to)
        with spawning as started:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=outputs[0],
                stderr=outputs[1],
                cwd=cwd,
                env=env,
                pass_fds=held,
                start_new_session=True,
                preexec_fn=child_setup(confinement.apply if confinement else None),
            )
            started(process.pid)
    except LandlockUnavailable as error:
        raise OSError(f"Cannot confine the command to its sandbox: {error}") from None
    except subprocess.SubprocessError as error:  # preexec_fn failed in the child
        raise OSError(f"Cannot prepare the command to start: {error}") from None
    finally:
        if confinement is not None:
            confinement.close()
    return process


class Running:
    """A command started with stdout and stderr piped, in a session of its own."""

    def __init__(self, started: Started, timeout_s: float, limit: int) -> None:
        process = started.process
        self.process = process
        self.timeout_s = allowed(timeout_s)
        """The timeout the command got: its own, cut to the maximum and to what is
        left of an enclosing deadline (a sequence's)."""
        self.deadline = time.monotonic() + self.timeout_s
        self.stdout = Tail(limit)
        self.stderr = Tail(limit)
        self._tails = {started.stdout: self.stdout, started.stderr: self.stderr}
        self._pipes = [started.stdout, started.stderr]
        """The read ends still open."""
        self.exit_fd = _exit_fd(process.pid)
        self.waiting = set(self._tails)
        """The descriptors still to be read to their end (or to signal the exit)."""
        if self.exit_fd is not None:
            self.waiting.add(self.exit_fd)
        self.over_limit = False
        self.killed_outside: list[int] = []
        """The processes that left the group holding its output, killed."""
        self.stopped_because: str | None = None
        """Why every command was stopped while this one ran, if they were."""
        track(self)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    @property
    def done(self) -> bool:
        """All output read and the exit seen (or, without a pidfd, the pipes
        closed), or the output over its limit: nothing more to wait for."""
        return not self.waiting or self.over_limit

    def ready(self, fd: int) -> None:
        """Take what ``fd``, reported ready, has to give."""
        if fd == self.exit_fd:  # it has exited; it is reaped once the call ends
            self.waiting.discard(fd)
            return
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            self.waiting.discard(fd)
        elif self._tails[fd].add(chunk):
            self.over_limit = True

    def exit_code(self) -> int | None:
        """The command's exit code if it has exited. It is not reaped here: until
        it is, its pid, its process group's id, cannot be given to another process,
        so killing that group cannot hit anything else."""
        if self.process.returncode is not None:
            return self.process.returncode
        flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
        try:
            info = os.waitid(os.P_PID, self.process.pid, flags)
        except ChildProcessError:  # reaped by someone else: as subprocess, say 0
            return 0
        if info is None:
            return None
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def ended(self) -> int | None:
        """Once the wait is over: if the command ended by itself within its limits
        (all its output read, its exit seen), its exit code, the command reaped;
        else None, and nothing is done. With a pidfd the exit was seen through it,
        so the command is reaped without asking first whether it has exited."""
        if self.over_limit or self.waiting:
            return None
        if self.exit_fd is None and self.exit_code() is None:  # no pidfd
            return None
        self.reap()
        return self.process.returncode

    def signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            pass

    def group_alive(self) -> bool:
        """Whether a process of the command's group is still alive (not a zombie)."""
        return self.exit_code() is None or group_alive(self.process.pid)

    def kill(self) -> None:
        """SIGKILL to the group and to the processes that left it holding its output."""
        self.signal_group(signal.SIGKILL)
        self.killed_outside += kill_holders(
            pipe_names(list(self._tails)), self.process.pid
        )

    def stop(self) -> list[int]:
        """Stop the command (see :mod:`mcigen_runtime.executors.running`); keep what it wrote before;
        close the pipes; reap it. The pids of the processes killed outside its group."""
        end([self])
        for fd in self.waiting.intersection(self._tails):
            self._drain(fd)
        self.reap(_REAP_S)
        return self.killed_outside

    def reap(self, timeout: float | None = None) -> None:
        """Close the pipes and reap the command, which has exited or been killed."""
        forget(self)
        self.close()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return
        disown(self.process.pid)
        reap_adopted()

    def _drain(self, fd: int) -> None:
        """Read what is in the pipe ``fd`` now, without waiting for more."""
        os.set_blocking(fd, False)
        for _ in range(_DRAIN_CHUNKS):
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                return
            self._tails[fd].add(chunk)

    def close(self) -> None:
        while self._pipes:
            os.close(self._pipes.pop())
        if self.exit_fd is not None:
            os.close(self.exit_fd)
            self.exit_fd = None


def _exit_fd(pid: int) -> int | None:
    """A descriptor that becomes readable when ``pid`` exits, if the system has one."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        return None
    try:
        fd: int = pidfd_open(pid)
    except OSError:  # an old kernel, or a sandbox that forbids it
        return None
    return fd
