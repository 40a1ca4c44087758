"""Real MCP servers for the tests: the toy server, over stdio or Streamable HTTP; a
server listing any tools; a hostile one answering JSON nested very deep; one for
the bounds of a call (hung, huge and crashing tools); one answering structured
content, images and sounds; one answering every kind of content and reporting
progress; one whose listing never ends; one whose tools must be called as tasks."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

TOY_SERVER = Path(__file__).resolve().parent / "toy_server.py"
LISTED_SERVER = Path(__file__).resolve().parent / "listed_server.py"
DEEP_SERVER = Path(__file__).resolve().parent / "deep_server.py"
BOUNDS_SERVER = Path(__file__).resolve().parent / "bounds_server.py"
MEDIA_SERVER = Path(__file__).resolve().parent / "media_server.py"
CONTENT_SERVER = Path(__file__).resolve().parent / "content_server.py"
PAGING_SERVER = Path(__file__).resolve().parent / "paging_server.py"
TASKS_SERVER = Path(__file__).resolve().parent / "tasks_server.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_listening(
    process: subprocess.Popen[Any],
    port: int,
    timeout: float = 20,
    said: Callable[[], str] | None = None,
) -> None:
    """Return once 127.0.0.1:``port`` accepts connections; fail if ``process`` exits
    first or ``timeout`` seconds pass, with what it wrote to stderr: ``said()``,
    else what its stderr pipe holds (read without waiting for more)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            status = process.poll()
            if status is None and time.monotonic() <= deadline:
                time.sleep(0.05)
                continue
            what = (
                f"exited with status {status}"
                if status is not None
                else f"did not listen on port {port} within {timeout:g} s"
            )
            told = said() if said is not None else _piped(process)
            raise RuntimeError(f"the server {what}; its stderr: {told}") from None


SAID = 8192
"""The most of a server's stderr a failure to start shows: its end."""


def _piped(process: subprocess.Popen[Any]) -> str:
    """The end of what ``process``'s stderr pipe holds now; a process still
    running (or a child of it) may hold it open, so nothing waits for its end."""
    if process.stderr is None:
        return "(not piped)"
    descriptor = process.stderr.fileno()
    os.set_blocking(descriptor, False)
    held = b""
    while True:
        try:
            chunk = os.read(descriptor, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        held = (held + chunk)[-SAID:]
    return repr(held.decode(errors="replace"))


def written(stream: IO[bytes]) -> Callable[[], str]:
    """The end of what a process wrote to ``stream`` (a file, not a pipe: a
    process that writes much to it never waits for a reader) so far, for a
    failure's message."""

    def said() -> str:
        stream.seek(0, os.SEEK_END)
        stream.seek(max(0, stream.tell() - SAID))
        return repr(stream.read().decode(errors="replace"))

    return said


@contextmanager
def listening(
    argv: list[str],
    port: int,
    stop: int = signal.SIGTERM,
    timeout: float = 20,
    **popen: Any,
) -> Iterator[subprocess.Popen[bytes]]:
    """``argv`` (a server) in a session of its own until the block ends, once it
    listens on ``port``; then ``stop`` to its session (SIGKILL if it lingers). Its
    stdout is dropped and its stderr written to a temporary file, shown if it
    fails to start (a file, not a pipe: a server that writes much to it never
    waits for a reader), unless ``popen`` says otherwise."""
    with ExitStack() as stack:
        said = None
        if "stderr" not in popen:
            errors = stack.enter_context(tempfile.TemporaryFile())
            popen["stderr"], said = errors, written(errors)
        popen = {"stdout": subprocess.DEVNULL, **popen}
        process = subprocess.Popen(argv, start_new_session=True, **popen)
        try:
            wait_until_listening(process, port, timeout, said)
            yield process
        finally:
            end_session(process, stop)
            if process.stderr is not None:
                process.stderr.close()


def end_session(process: subprocess.Popen[bytes], stop: int = signal.SIGTERM) -> None:
    """Send ``stop`` to the session ``process`` leads, if it still runs, and wait
    for it; SIGKILL if it has not ended within 20 seconds."""
    if process.poll() is None:
        os.killpg(process.pid, stop)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()


@contextmanager
def toy_http_server() -> Iterator[str]:
    """Run the toy server over Streamable HTTP on a free port; yields its /mcp URL."""
    with http_server(TOY_SERVER, "http") as url:
        yield url


@contextmanager
def http_server(
    script: Path, mode: str, *args: str, port: int | None = None
) -> Iterator[str]:
    """Run ``script MODE PORT ARGS`` (a free port unless given) until the block
    ends; yields its /mcp URL."""
    port = port or free_port()
    argv = [sys.executable, str(script), mode, str(port), *args]
    with listening(argv, port, stop=signal.SIGKILL):
        yield f"http://127.0.0.1:{port}/mcp"
