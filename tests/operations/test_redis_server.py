"""The ``redis-server`` the tests start dies with the test process, even one
killed by SIGKILL: a killed run leaves no server behind."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

STARTER = """
import sys
from pathlib import Path
from tests.operations.redis_server import redis_server
with redis_server(Path(sys.argv[1])) as (_, process):
    print(process.pid, flush=True)
    sys.stdin.read()
"""


def test_a_redis_server_dies_with_the_killed_process_that_started_it(
    tmp_path: Path,
) -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER, str(tmp_path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert starter.stdout is not None
    server = int(starter.stdout.readline())
    exited = os.pidfd_open(server)
    try:
        starter.kill()
        starter.wait()
        ready, _, _ = select.select([exited], [], [], 20)
        assert ready, "the redis-server outlived the process that started it"
    finally:
        os.close(exited)
        with suppress(ProcessLookupError):
            os.kill(server, signal.SIGKILL)
