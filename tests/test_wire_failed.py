"""The end of a stdio server whose wire failed (``serve/wire_failed.py``): answers
that can no longer be written, where the client's lines come from a terminal,
and where stdout fails otherwise than by a closed pipe; a socket wire the client
reset; stdin or stdout not open at all; real processes."""

from __future__ import annotations

import fcntl
import os
import platform
import pty
import select
import socket
import subprocess
import sys
import termios
import time
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.edge.closed_pipe import EXIT_PIPE_CLOSED

from .mcp_servers import written
from .sleepers import started
from .test_stdio_calls import SERVE, Served, build_calls, call, initialize, line, served
from .test_stdio_start import INITIALIZED


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_calls(tmp_path_factory.mktemp("closed"))


def test_a_server_reading_a_terminal_ends_as_soon_as_stdout_closes(
    built: Path,
) -> None:
    """``python -m calls serve | head -2`` typed in a terminal: once ``head`` has
    gone, the next answer cannot be written, and the server exits 141 then, not
    once the terminal sends another line (its stdin read had waited in a worker
    thread, which the end of the connection waited for)."""
    with on_a_terminal(built, stdout=subprocess.PIPE) as server:
        server.write(initialize("2025-06-18"), INITIALIZED)
        server.write(call(2, "echo", {"name": "a"}))
        assert len(server.served.answers(2)) == 2
        assert server.process.stdout is not None
        server.process.stdout.close()
        server.write(call(3, "echo", {"name": "b"}))
        log = server.served.ended()  # the terminal says nothing more meanwhile
    assert server.process.returncode == EXIT_PIPE_CLOSED, log
    assert "tool=echo outcome=unsent " in log, log
    assert "Traceback" not in log, log


READ = {"x86_64": 0, "aarch64": 63}.get(platform.machine())
"""The number of the ``read`` system call here (``/proc/PID/syscall``)."""


@pytest.mark.parametrize(
    ("early", "answered"),
    [
        pytest.param(
            "1",
            False,
            id="reading",
            marks=pytest.mark.skipif(
                READ is None, reason="read's system call number unknown here"
            ),
        ),
        pytest.param("1", True, id="early"),
        pytest.param("0", True, id="sdk"),
    ],
)
def test_a_terminal_that_closes_is_the_end_of_stdin(
    built: Path, early: str, answered: bool
) -> None:
    """The client's terminal (stdin and stdout, a pty) closes with nothing in
    flight, while the server waits in a read of it before its first line, or
    once it answered ``initialize`` (the early answers', or the SDK's): the end
    of stdin, exit 0 and no ERROR line, as when a pipe's writer closes (POSIX
    reads a hung-up terminal as its end). A read waiting when the terminal
    closed failed with ``EIO`` (Linux), and the server said "stdin cannot be
    read" and exited 1."""
    with on_a_terminal(built, MCIGEN_STDIO_EARLY=early) as server:
        if answered:
            server.write(initialize("2025-06-18"), INITIALIZED)
            assert b'"id":1' in _answer(server.master)
        else:
            _waiting_in_read(server.process.pid)
        server.hang_up()
        log = server.served.ended()
    assert server.process.returncode == 0, log
    assert "ERROR" not in log and "Traceback" not in log, log


def test_a_terminal_that_closes_during_a_call_is_a_client_gone(built: Path) -> None:
    """The client's terminal closes while a call runs: stdin ends, and its
    answer cannot be written (``EIO``, a hung-up terminal's ``EPIPE``): the
    server ends as when a client closed both its pipes, exit 141 and an INFO
    line, the call's line ``unsent``. Before, "stdout cannot be written" was an
    ERROR, exit 1."""
    with on_a_terminal(built) as server:
        server.write(initialize("2025-06-18"), INITIALIZED)
        assert b'"id":1' in _answer(server.master)
        length = f"1.{os.getpid()}"  # a second, this test's own
        server.write(call(2, "nap", {"name": length}))
        assert started(length), server.served.log()
        server.hang_up()
        log = server.served.ended()
    assert server.process.returncode == EXIT_PIPE_CLOSED, log
    assert "tool=nap outcome=unsent " in log, log
    assert (
        "INFO mcigen_runtime.serve.wire_failed: the client closed its end of stdout "
        "([Errno 5] Input/output error): stopped reading; exiting"
    ) in log, log
    assert "ERROR" not in log and "Traceback" not in log, log


@dataclass
class OnATerminal:
    """A server whose stdin (and stdout, unless piped) is a terminal (a pty,
    raw: the lines as written), ``master`` its other side."""

    served: Served
    master: int
    open: bool = True

    @property
    def process(self) -> subprocess.Popen[bytes]:
        return self.served.process

    def write(self, *messages: Any) -> None:
        os.write(self.master, b"".join(line(message) for message in messages))

    def hang_up(self) -> None:
        """Close the master: the terminal goes away."""
        if self.open:
            self.open = False
            os.close(self.master)


@contextmanager
def on_a_terminal(
    built: Path, stdout: int | None = None, **env: str
) -> Iterator[OnATerminal]:
    """``python -m calls serve`` on a terminal, its stdout ``stdout`` if given,
    killed at the end."""
    master, its_end = pty.openpty()
    tty.setraw(its_end)
    wire = {"stdin": its_end, "stdout": its_end if stdout is None else stdout}
    with served(built, popen=wire, **env) as server:
        os.close(its_end)
        terminal = OnATerminal(server, master)
        try:
            yield terminal
        finally:
            server.process.kill()
            server.process.wait()
            terminal.hang_up()


def _waiting_in_read(pid: int) -> None:
    """Once the process ``pid`` (one thread: the early answers' start) waits in
    a ``read``."""
    deadline = time.monotonic() + 120
    while Path(f"/proc/{pid}/syscall").read_text().split()[0] != str(READ):
        assert time.monotonic() < deadline, "the server never waited in a read"
        time.sleep(0.01)


def _answer(terminal: int) -> bytes:
    """The first line the server wrote to its terminal."""
    said = b""
    while not said.endswith(b"\n"):
        assert select.select([terminal], [], [], 120)[0], said
        said += os.read(terminal, 65536)
    return said


@pytest.mark.parametrize("early", ["1", "0"])
def test_a_stdout_that_cannot_be_written_otherwise_ends_the_server_with_exit_1(
    built: Path, early: str
) -> None:
    """stdout is ``/dev/full`` (every write fails, ``ENOSPC``): the first answer,
    whoever writes it (the early answers, or the SDK), ends the server with one
    ERROR line and exit 1, no traceback, stdin left open."""
    with open("/dev/full", "wb") as full:
        full_stdout = {"stdout": full}
        with served(built, popen=full_stdout, MCIGEN_STDIO_EARLY=early) as server:
            server.send(initialize("2025-06-18"))
            _ended_with(
                server,
                "stdout cannot be written ([Errno 28] No space left on device): "
                "stopped reading; exiting",
            )


def _ended_with(server: Served, error: str) -> None:
    """``server`` exits by itself with 1, ``error`` its log's one ERROR line, no
    traceback."""
    log = server.ended()
    assert server.process.returncode == 1, log
    errors = [said for said in log.splitlines() if said.startswith("ERROR")]
    assert errors == [f"ERROR mcigen_runtime.serve.wire_failed: {error}"], log
    assert "Traceback" not in log and "Exception ignored" not in log, log


@pytest.mark.parametrize("command", ["package", "mcigen"])
@pytest.mark.parametrize(
    ("closed", "side", "fd"), [("<&-", "stdin", 0), (">&-", "stdout", 1)]
)
def test_a_server_started_without_stdin_or_stdout_ends_at_once_with_one_line(
    built: Path, command: str, closed: str, side: str, fd: int
) -> None:
    """``python -m calls serve <&-`` (a supervisor that gives its child no stdin),
    or ``>&-``: with no wire there is no client to serve. The server ends with
    one ERROR line and exit 1, before it reads or loads anything more, where it
    ended with an ``AttributeError`` traceback (``sys.stdin`` is None); ``mcigen
    serve`` ends the same."""
    argv = list(SERVE)
    if command == "mcigen":
        argv = [sys.executable, "-m", "mcigen", "serve", "tools.mci.json"]
        argv += ["-o", "calls_served", "--", "serve"]
    with served(built, ["sh", "-c", f'exec "$@" {closed}', "sh", *argv]) as server:
        _ended_with(
            server,
            f"{side} is not open (fd {fd} is closed): a stdio server serves a "
            "client on its stdin and stdout; exiting",
        )


@pytest.mark.parametrize(
    ("early", "calling"), [("1", False), ("0", True)], ids=["early", "sdk"]
)
def test_a_socket_wire_the_client_resets_ends_the_server_with_141(
    built: Path, early: str, calling: bool
) -> None:
    """The server's stdin and stdout are one socket (inetd, socat); the client
    leaves an answer unread and closes it, which resets it: the server's next
    read fails (``ECONNRESET``). Whoever reads then (the early answers, or the
    SDK's transport with a call running) ends the server at once with one line
    and 141, as a client that closed stdout does, the command stopped; before,
    a traceback and exit 1."""
    client, wire = socket.socketpair()
    on_the_socket = {"stdin": wire.fileno(), "stdout": wire.fileno()}
    with client, served(built, popen=on_the_socket, MCIGEN_STDIO_EARLY=early) as server:
        wire.close()
        client.sendall(line(initialize("2025-06-18")))
        if calling:
            client.sendall(line(INITIALIZED) + line(call(2, "nap", {"name": "600"})))
        answered = select.select([client], [], [], 120)[0]  # an answer, left unread
        assert answered, written(server.errors)()
        client.close()
        log = server.ended()
    assert server.process.returncode == EXIT_PIPE_CLOSED, log
    ends = [said for said in log.splitlines() if "wire_failed" in said]
    assert len(ends) == 1, log
    assert ends[0].startswith(
        "INFO mcigen_runtime.serve.wire_failed: the client closed its end of stdin "
        "([Errno 104] Connection reset by peer)"
    ), log
    assert "Traceback" not in log and "Exception ignored" not in log, log


_IN_BACKGROUND = (
    "import signal, subprocess, sys\n"
    "signal.signal(signal.SIGTTIN, signal.SIG_IGN)\n"
    "sys.exit(subprocess.Popen(sys.argv[1:], process_group=0).wait())\n"
)
"""Run the command of ``sys.argv`` in a process group of its own, not the
terminal's, ignoring ``SIGTTIN`` (as ``nohup``, or a group whose shell has
gone): its reads of the terminal fail with ``EIO``."""


def _leading_its_terminal() -> None:
    """In the child: a session of its own, whose terminal is its stdin."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.mark.parametrize("early", ["1", "0"])
def test_a_stdin_that_cannot_be_read_ends_the_server_with_exit_1(
    built: Path, early: str
) -> None:
    """The server reads its terminal from a background process group (``EIO``;
    a line waits there): whoever reads first, the early answers or the SDK's
    transport, ends the server with one ERROR line and exit 1; before, a
    traceback."""
    terminal, its_end = pty.openpty()
    os.write(terminal, line(initialize("2025-06-18")))
    argv = [sys.executable, "-c", _IN_BACKGROUND, *SERVE]
    leading = {"stdin": its_end, "preexec_fn": _leading_its_terminal}
    try:
        with served(built, argv, leading, MCIGEN_STDIO_EARLY=early) as server:
            os.close(its_end)
            _ended_with(
                server, "stdin cannot be read ([Errno 5] Input/output error); exiting"
            )
    finally:
        os.close(terminal)


@pytest.mark.parametrize("early", ["1", "0"])
def test_a_line_over_the_bound_ends_the_server_with_exit_1(
    built: Path, early: str
) -> None:
    """A client whose line never ends (4 MiB, the bound of an HTTP request body,
    and one more character, stdin left open): whoever reads it, the early answers
    or the SDK's transport, ends the server with one ERROR line and exit 1, not
    holding the line as it grows (before, the server waited on)."""
    from mcigen_runtime.serve.stdio_lines import MAX_LINE_CHARS

    with served(built, MCIGEN_STDIO_EARLY=early) as server:
        assert server.process.stdin is not None
        server.send(initialize("2025-06-18"))
        server.process.stdin.write(b"x" * (MAX_LINE_CHARS + 1))
        server.process.stdin.flush()
        _ended_with(
            server,
            f"stdin cannot be read ([Errno 90] a line longer than {MAX_LINE_CHARS} "
            "characters); exiting",
        )
