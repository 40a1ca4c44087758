"""The helpers that start the tests' servers say why one did not start, in its own
words from its stderr, and never wait on that stderr: a server that failed made
its test time out or fail without a reason, and one writing much to stderr
stopped until someone read it."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest

from .mcp_servers import free_port, http_server, listening
from .test_stdio_calls import build_calls, initialize, served

WARMING_UP = """\
import signal, sys
print("still warming up", file=sys.stderr, flush=True)
signal.pause()
"""

CHATTY = """\
import signal, socket, sys
sys.stderr.write("x" * (1 << 20))
sys.stderr.flush()
listener = socket.socket()
listener.bind(("127.0.0.1", int(sys.argv[1])))
listener.listen()
signal.pause()
"""


def test_a_server_that_exits_at_once_says_why(tmp_path: Path) -> None:
    script = tmp_path / "refusing.py"
    script.write_text('import sys\nsys.exit("no licence for " + sys.argv[1])\n')
    with pytest.raises(RuntimeError) as failed:
        with http_server(script, "http"):
            pass
    assert "exited with status 1" in str(failed.value)
    assert "no licence for http" in str(failed.value)


def test_a_server_that_never_listens_says_what_it_wrote() -> None:
    argv = [sys.executable, "-c", WARMING_UP]
    with pytest.raises(RuntimeError) as failed:
        with listening(argv, free_port(), timeout=1):
            pass
    assert "did not listen on port" in str(failed.value)
    assert "still warming up" in str(failed.value)


def test_a_server_writing_much_to_stderr_is_not_held_up() -> None:
    port = free_port()
    with listening([sys.executable, "-c", CHATTY, str(port)], port) as process:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        assert process.poll() is None


def test_a_stdio_server_that_ends_at_once_says_why(tmp_path: Path) -> None:
    """A stdio server (``test_stdio_calls.served``) whose package cannot load:
    waiting for its answer fails with its traceback, where it said only that the
    server had ended."""
    built = build_calls(tmp_path)
    (built / "calls" / "manifest.json").write_text("{", "utf-8")
    with served(built) as server:
        server.send(initialize("2025-06-18"))
        with pytest.raises(AssertionError) as failed:
            server.answers(1)
    assert "the server ended after 0 answers" in str(failed.value)
    assert "EOF while parsing" in str(failed.value)


def test_a_stdio_server_that_does_not_end_says_what_it_wrote(tmp_path: Path) -> None:
    """Waiting for a stdio server's end (``Served.ended``) that does not come
    fails with the end of its stderr, where it said only that it timed out."""
    with served(tmp_path, [sys.executable, "-c", WARMING_UP]) as server:
        deadline = time.monotonic() + 60
        while "still warming up" not in server.log():
            assert time.monotonic() < deadline, "the server never wrote"
            time.sleep(0.02)
        with pytest.raises(AssertionError) as failed:
            server.ended(timeout=0.1)
    assert "the server still ran after 0.1 s" in str(failed.value)
    assert "still warming up" in str(failed.value)
