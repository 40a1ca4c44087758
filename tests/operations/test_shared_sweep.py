"""The sweep of operations shared through Redis takes for lost only the jobs of
processes that stopped: a worker that has taken a job off the queue but, on a
loaded machine, has not yet written it running keeps it; a worker that died
before it did loses it, a heartbeat later, to another process that runs it. The
server's Redis traffic goes through a gate (``redis_gate``) that holds the
worker's write back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path

import redis

from ..conftest import package_env
from ..mcp_servers import free_port, listening
from .background_package import WINDOW
from .redis_gate import Command, RedisGate, redis_gate
from .test_operations_redis import call, records, serve, started
from .test_shared_cancel import SWEEP_LOCK, named, until

JOB = b"saq:job:mcigen:pkg:"


def marks_active(command: Command) -> bool:
    """The worker's first write of a job it took: its record, now ``active``."""
    return (
        command[0].upper() == b"EVALSHA"
        and command[3].startswith(JOB)
        and b'"status": "active"' in command[4]
    )


def test_a_job_taken_but_not_yet_written_active_is_not_swept(
    pkg_dir: Path, tmp_path: Path, redis_url: str
) -> None:
    """The sweep took such a job for a dead worker's at once: the operation read
    ``Failed`` ("the server process that ran it stopped"), then ran a second time,
    re-enqueued, while its worker ran it too (the redis test's flake under load)."""
    with ExitStack() as stack:
        gate = stack.enter_context(redis_gate(redis_url))
        url = serve(pkg_dir, free_port(), gate.url, stack)
        direct = stack.enter_context(redis.Redis.from_url(redis_url))
        held = gate.hold(marks_active)
        op_id = started(
            call(url, "alice", "slow", pidfile=str(tmp_path / "p"), seconds="1")
        )
        assert held.caught.wait(30)
        states = set()

        def swept() -> bool:
            [record] = records(call(url, "alice", "status", id=op_id))
            states.add(record["state"])
            return bool(direct.exists(SWEEP_LOCK))

        for _ in range(2):  # the second sweep starts once the first has ended
            direct.delete(SWEEP_LOCK)
            until(swept)
        held.release()
        assert states == {"InProgress"}
        [done] = records(call(url, "alice", "await", id=op_id))
        assert (done["state"], done["result"]["stdout"]) == ("Completed", "slept\n")


def test_a_job_whose_worker_died_before_writing_it_active_runs_elsewhere(
    pkg_dir: Path, tmp_path: Path, redis_url: str
) -> None:
    with ExitStack() as stack:
        gate = stack.enter_context(redis_gate(redis_url))
        dying = stack.enter_context(server(pkg_dir, gate))
        # its worker waits on the queue first, so it is given the job
        gate.wait_for_count(named("BLMOVE"), 16)
        url = serve(pkg_dir, free_port(), redis_url, stack)
        held = gate.hold(marks_active)
        pidfile = tmp_path / "p"
        op_id = started(call(url, "alice", "slow", pidfile=str(pidfile), seconds="1"))
        assert held.caught.wait(30)
        os.killpg(dying.pid, signal.SIGKILL)
        dying.wait()
        [done] = records(call(url, "alice", "await", id=op_id))
        assert (done["state"], done["result"]["stdout"]) == ("Completed", "slept\n")
        held.release()  # the dead worker's write, let through, finds the job done
        gate.wait_for_count(marks_active, 1)
        [after] = records(call(url, "alice", "status", id=op_id))
        assert (after["state"], after["result"]) == ("Completed", done["result"])


def server(
    pkg_dir: Path, gate: RedisGate
) -> AbstractContextManager[subprocess.Popen[bytes]]:
    """``serve --http`` whose Redis is behind ``gate``."""
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    env = package_env(
        pkg_dir, MCIGEN_BACKGROUND_AFTER=WINDOW, MCIGEN_OPERATIONS_URL=gate.url
    )
    return listening(argv, port, cwd=pkg_dir, env=env)
