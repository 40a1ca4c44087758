"""The gate the shared store's tests put in front of Redis (``redis_gate``) closes
the connections its clients left open and ends quietly: it printed "Exception
ignored in: <coroutine object RedisGate._serve …>" and "Task was destroyed but
it is pending!" once collected, the connections' tasks left pending in a loop
that had stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CLOSING = """
import gc, socket, sys
from tests.operations.redis_gate import redis_gate
with redis_gate(sys.argv[1]) as gate:
    client = socket.create_connection(("127.0.0.1", gate.port), timeout=60)
    client.sendall(b"*1\\r\\n$4\\r\\nPING\\r\\n")
    assert client.recv(100) == b"+PONG\\r\\n"
del gate
gc.collect()
assert client.recv(100) == b"", "the gate left its client's connection open"
"""


def test_closing_the_gate_ends_its_open_connections_quietly(redis_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CLOSING, redis_url],
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr.decode() == ""
