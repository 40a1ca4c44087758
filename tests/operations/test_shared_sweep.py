"""The sweep of operations shared through Redis takes for lost only the jobs of
processes that stopped: a worker that has taken a job off the queue but, on a
loaded machine, has not yet written it running keeps it; a worker that died
before it did loses it, a heartbeat later, to another process that runs it; a
dead worker's job that a cancel wrote aborting is ended by the sweep. The
server's Redis traffic goes through a gate (``redis_gate``) that holds the
worker's write back, or tells what went through."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import redis
from mcigen_runtime.serve.operations import KEEP_FOR_S
from mcigen_runtime.serve.shared_operations import HEARTBEAT_S

from ..mcp_servers import free_port
from ..test_serve_lifecycle import gone_within, group_alive, leader
from .redis_gate import Command, redis_gate
from .test_operations_redis import call, records, serve, server, started
from .test_shared_cancel import QUEUE, REASON, SWEEP_LOCK, named, until

JOB = b"saq:job:mcigen:pkg:"
QUEUED = f"saq:{QUEUE}:queued".encode()
GIVE_UP_WAIT_S = 5
"""How long a sweep waits for a job it aborts to be ended by its worker (SAQ's
sweep's default ``abort``)."""


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
        dying = stack.enter_context(server(pkg_dir, gate.url, free_port()))
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


@pytest.mark.parametrize("meanwhile", ["status", "cancel"])
def test_a_job_a_sweep_gives_up_to_run_again_is_in_progress_meanwhile(
    pkg_dir: Path, tmp_path: Path, redis_url: str, meanwhile: str
) -> None:
    """The worker that took the job died before it started it: the sweep gives it
    up, waits for its worker to see so (5 s), then queues it again, and another
    process runs it. Meanwhile (the test holds the sweep's write that queues it
    again) it read ``Failed`` ("the server process that ran it stopped"), then
    ``InProgress`` again; a cancel answered that it had already failed, and
    it ran all the same."""
    with ExitStack() as stack:
        gate = stack.enter_context(redis_gate(redis_url))
        dying = stack.enter_context(server(pkg_dir, gate.url, free_port()))
        # its worker waits on the queue first, so it is given the job
        gate.wait_for_count(named("BLMOVE"), 16)
        url = serve(pkg_dir, free_port(), gate.url, stack)
        taken = gate.hold(marks_active)
        pidfile = tmp_path / "p"
        op_id = started(call(url, "alice", "slow", pidfile=str(pidfile), seconds="1"))
        assert taken.caught.wait(30)
        requeue = gate.hold(named("RPUSH", QUEUED, f"saq:job:{QUEUE}:{op_id}".encode()))
        os.killpg(dying.pid, signal.SIGKILL)
        dying.wait()
        assert requeue.caught.wait(60)
        [given_up] = records(call(url, "alice", "status", id=op_id))
        assert (given_up["state"], given_up["result"]) == ("InProgress", None)
        if meanwhile == "cancel":
            cancelled = call(url, "alice", "cancel", id=op_id, reason=REASON)
            assert cancelled[0].startswith(f"OK Operation '{op_id}'"), cancelled
        requeue.release()
        [done] = records(call(url, "alice", "await", id=op_id))
        if meanwhile == "cancel":
            assert (done["state"], done["result"]) == (
                "Cancelled",
                {"cancelled": True, "reason": REASON},
            )
            assert not pidfile.exists()
        else:
            assert (done["state"], done["result"]["stdout"]) == ("Completed", "slept\n")
        taken.release()


def test_an_await_of_a_dead_servers_operation_ends_when_it_is_cancelled(
    pkg_dir: Path, tmp_path: Path, redis_url: str
) -> None:
    """No worker is left to end the job a cancel wrote aborting: the await, which
    waited for the job to end, waited out its limit (360 s), though the operation
    read ``Cancelled`` at once. The test holds the sweep's turn, then lets it come:
    it ends the job (it had left it aborting, without an end, kept for ever)."""
    with ExitStack() as stack:
        direct = stack.enter_context(redis.Redis.from_url(redis_url))
        dying, op_id, group = unswept(pkg_dir, tmp_path, redis_url, stack)
        gate = stack.enter_context(redis_gate(redis_url))
        url = serve(pkg_dir, free_port(), gate.url, stack)
        read = named("GET", f"saq:job:{QUEUE}:{op_id}".encode())
        with ThreadPoolExecutor(1) as pool:
            awaiting = pool.submit(call, url, "alice", "await", id=op_id)
            gate.wait_for_count(read, 2)  # found, then waited for
            os.killpg(dying.pid, signal.SIGKILL)
            dying.wait()
            cancelled = call(url, "alice", "cancel", id=op_id, reason=REASON)
            assert cancelled[0].startswith(f"OK Operation '{op_id}'"), cancelled
            [done] = records(awaiting.result())
        assert done["state"] == "Cancelled", done
        assert done["result"] == {"cancelled": True, "reason": REASON}
        assert done["end_time"] is None
        assert not group_alive(group) or gone_within(5, group)

        direct.delete(SWEEP_LOCK)
        ended: list[dict[str, Any]] = []

        def swept() -> bool:
            ended[:] = records(call(url, "alice", "status", id=op_id))
            return ended[0]["end_time"] is not None

        until(swept)
        assert (ended[0]["state"], ended[0]["result"]) == ("Cancelled", done["result"])
        assert 0 < direct.ttl(f"saq:job:{QUEUE}:{op_id}") <= KEEP_FOR_S


def test_a_sweep_ends_a_dead_servers_cancelled_job_without_waiting(
    pkg_dir: Path, tmp_path: Path, redis_url: str
) -> None:
    """The sweep gave the job, which a cancel had written aborting, the 5 s it
    gives a job it aborts itself to be ended by its worker, though none was left:
    its ``end_time`` came that much later, and so did every lost job's after it.
    The sweep's turn is let come once the job is a dead worker's: by Redis's
    clock, a sweep that waited could not end it until 5 s after that (one that
    does not, within a sweep's period, 2 s)."""
    with ExitStack() as stack:
        direct = stack.enter_context(redis.Redis.from_url(redis_url))
        dying, op_id, group = unswept(pkg_dir, tmp_path, redis_url, stack)
        url = serve(pkg_dir, free_port(), redis_url, stack)
        os.killpg(dying.pid, signal.SIGKILL)
        dying.wait()
        cancelled = call(url, "alice", "cancel", id=op_id, reason=REASON)
        assert cancelled[0].startswith(f"OK Operation '{op_id}'"), cancelled
        key = f"saq:job:{QUEUE}:{op_id}"

        def stored() -> dict[str, Any]:
            record: Any = direct.get(key)
            found: dict[str, Any] = json.loads(record)
            return found

        def stuck() -> bool:  # as the sweep tells a dead worker's job
            seconds, microseconds = direct.time()
            now_ms = seconds * 1000 + microseconds // 1000
            return bool(now_ms - stored()["touched"] > HEARTBEAT_S * 1000)

        until(stuck)
        with direct.pipeline(transaction=True) as pipe:
            _, (seconds, microseconds) = pipe.delete(SWEEP_LOCK).time().execute()
        let_sweep_ms = seconds * 1000 + microseconds // 1000
        until(lambda: stored()["status"] == "aborted")
        assert stored()["completed"] - let_sweep_ms < GIVE_UP_WAIT_S * 1000
        [ended] = records(call(url, "alice", "status", id=op_id))
        assert (ended["state"], ended["result"]) == (
            "Cancelled",
            {"cancelled": True, "reason": REASON},
        )
        assert ended["end_time"] is not None
        assert not group_alive(group) or gone_within(5, group)


def unswept(
    pkg_dir: Path, tmp_path: Path, redis_url: str, stack: ExitStack
) -> tuple[subprocess.Popen[bytes], str, int]:
    """A server sharing operations at ``redis_url`` that runs alice's ``slow``
    operation (30 s), no sweep taking its turn until the test deletes the sweep's
    lock: the server, the operation's id and its command's process group."""
    port = free_port()
    dying = stack.enter_context(server(pkg_dir, redis_url, port))
    pidfile = tmp_path / "p"
    op_id = started(
        call(
            f"http://127.0.0.1:{port}/mcp",
            "alice",
            "slow",
            pidfile=str(pidfile),
            seconds="30",
        )
    )
    group = leader(pidfile)
    with redis.Redis.from_url(redis_url) as direct:
        direct.set(SWEEP_LOCK, 1, ex=600)
    return dying, op_id, group
