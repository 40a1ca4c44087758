"""The end of a stdio server whose answers can no longer be written
(``serve/stdout_closed.py``), where the client's lines come from a terminal, and
where stdout fails otherwise than by a closed pipe; real processes."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import tty
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.edge.closed_pipe import EXIT_PIPE_CLOSED

from .conftest import package_env
from .test_serve_edge import read_lines
from .test_stdio_calls import build_calls, call, initialize
from .test_stdio_start import INITIALIZED


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_calls(tmp_path_factory.mktemp("closed"))


def line(message: Any) -> bytes:
    return (json.dumps(message) + "\n").encode()


def test_a_server_reading_a_terminal_ends_as_soon_as_stdout_closes(
    built: Path,
) -> None:
    """``python -m calls serve | head -2`` typed in a terminal: once ``head`` has
    gone, the next answer cannot be written, and the server exits 141 then, not
    once the terminal sends another line (its stdin read had waited in a worker
    thread, which the end of the connection waited for)."""
    terminal, its_end = pty.openpty()
    tty.setraw(its_end)  # the lines as written: no echo, no line editing
    process = subprocess.Popen(
        [sys.executable, "-m", "calls", "serve"],
        cwd=built,
        env=package_env(built),
        stdin=its_end,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(its_end)
    assert process.stdout is not None and process.stderr is not None
    try:
        for message in (initialize("2025-06-18"), INITIALIZED):
            os.write(terminal, line(message))
        os.write(terminal, line(call(2, "echo", {"name": "a"})))
        assert len(read_lines(process.stdout, 2, timeout=120)) == 2
        process.stdout.close()
        os.write(terminal, line(call(3, "echo", {"name": "b"})))
        process.wait(timeout=60)  # the terminal says nothing more meanwhile
    finally:
        process.kill()
        os.close(terminal)
    log = process.stderr.read().decode()
    assert process.returncode == EXIT_PIPE_CLOSED, log
    assert "tool=echo outcome=unsent " in log, log
    assert "Traceback" not in log, log


@pytest.mark.parametrize("early", ["1", "0"])
def test_a_stdout_that_cannot_be_written_otherwise_ends_the_server_with_exit_1(
    built: Path, early: str
) -> None:
    """stdout is ``/dev/full`` (every write fails, ``ENOSPC``): the first answer,
    whoever writes it (the early answers, or the SDK), ends the server with one
    ERROR line and exit 1, no traceback, stdin left open."""
    with open("/dev/full", "wb") as full:
        process = subprocess.Popen(
            [sys.executable, "-m", "calls", "serve"],
            cwd=built,
            env=package_env(built, MCIGEN_STDIO_EARLY=early),
            stdin=subprocess.PIPE,
            stdout=full,
            stderr=subprocess.PIPE,
        )
    assert process.stdin is not None and process.stderr is not None
    try:
        process.stdin.write(line(initialize("2025-06-18")))
        process.stdin.flush()
        process.wait(timeout=120)
    finally:
        process.kill()
        process.stdin.close()
    log = process.stderr.read().decode()
    assert process.returncode == 1, log
    errors = [said for said in log.splitlines() if said.startswith("ERROR")]
    assert errors == [
        "ERROR mcigen_runtime.serve.stdout_closed: stdout cannot be written "
        "([Errno 28] No space left on device): stopped reading; exiting"
    ], log
    assert "Traceback" not in log and "Exception ignored" not in log, log
