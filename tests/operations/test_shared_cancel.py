"""A cancel of an operation shared through Redis is never undone by a write that
races it: the server's Redis traffic goes through a gate (``redis_gate``) that
holds one command back, so that the racing write lands exactly where the test
puts it, and the operation must still read ``Cancelled``, with its reason, once
it has ended, and its command must be gone."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis

from ..mcp_servers import free_port
from ..test_serve_lifecycle import gone_within, leader
from .redis_gate import Command, RedisGate, redis_gate
from .test_operations_redis import call, records, serve, started

QUEUE = "mcigen:pkg"
ACTIVE = f"saq:{QUEUE}:active".encode()
SWEEP_LOCK = f"saq:{QUEUE}:sweep"
REASON = "enough"


@dataclass
class Running:
    """A ``slow`` operation running in a server whose Redis traffic is gated."""

    url: str
    gate: RedisGate
    redis: redis.Redis
    id: str
    group: int

    @property
    def key(self) -> bytes:
        return f"saq:job:{QUEUE}:{self.id}".encode()

    def stored(self) -> dict[str, Any]:
        record: bytes | None = self.redis.get(self.key)  # type: ignore[assignment]
        assert record is not None
        stored: dict[str, Any] = json.loads(record)
        return stored

    def cancel(self) -> list[str]:
        return call(self.url, "alice", "cancel", id=self.id, reason=REASON)

    def assert_cancelled(self) -> None:
        assert gone_within(5, self.group)
        [record] = records(call(self.url, "alice", "await", id=self.id))
        assert record["state"] == "Cancelled", record
        assert record["result"] == {"cancelled": True, "reason": REASON}


@pytest.fixture
def running(pkg_dir: Path, tmp_path: Path, redis_url: str) -> Iterator[Running]:
    with ExitStack() as stack:
        gate = stack.enter_context(redis_gate(redis_url))
        url = serve(pkg_dir, free_port(), gate.url, stack)
        direct = stack.enter_context(redis.Redis.from_url(redis_url))
        pidfile = tmp_path / "pid"
        op_id = started(call(url, "alice", "slow", pidfile=str(pidfile), seconds="30"))
        yield Running(url, gate, direct, op_id, leader(pidfile))


def until(condition: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "it did not happen in time"
        time.sleep(0.02)


def named(name: str, *arguments: bytes) -> Callable[[Command], bool]:
    """Matches the command ``name`` whose arguments start with ``arguments``."""
    head = list(arguments)

    def matches(command: Command) -> bool:
        return (
            command[0].upper() == name.encode() and command[1 : 1 + len(head)] == head
        )

    return matches


def test_a_sweep_of_a_cancelled_job_its_worker_is_slow_to_end_leaves_it_cancelled(
    running: Running,
) -> None:
    """A cancelled job stays on the active list until its worker ends it, so that
    a sweep ends it if that worker has died. Here the worker's end is held past
    the job's heartbeat: the sweep takes the job, and ends it cancelled, with the
    cancel's reason (once, a cancel's writes raced a sweep: it read ``Failed``)."""
    held = running.gate.hold(
        lambda c: named("LREM", ACTIVE)(c) and c[-1] == running.key
    )
    assert running.cancel()[0].startswith(f"OK Operation '{running.id}'")
    assert held.caught.wait(30)
    until(lambda: running.stored()["status"] == "aborted", timeout=60)
    held.release()
    running.assert_cancelled()


@pytest.mark.parametrize("meanwhile", ["touched", "exited"])
def test_a_cancel_holds_whatever_happens_before_the_worker_sees_it(
    running: Running, meanwhile: str
) -> None:
    """The worker sees a cancel when it next reads its jobs (every second).
    Before that, its touch read the aborting job and wrote it back without the
    reason; or the command ended, and the job was written completed (``Failed``)."""
    key = running.key
    held = running.gate.hold(lambda c: c[0].upper() == b"MGET" and key in c[1:])
    assert held.caught.wait(30)
    assert running.cancel()[0].startswith(f"OK Operation '{running.id}'")
    if meanwhile == "touched":

        def touch(command: Command) -> bool:  # unguarded, a touch writes the job
            return named("WATCH", key)(command) or named("SET", key)(command)

        running.gate.wait_for_count(touch, running.gate.count(touch) + 2)
    else:
        os.killpg(running.group, signal.SIGKILL)
        until(lambda: running.stored()["status"] not in ("aborting", "active"))
    held.release()
    running.assert_cancelled()


def test_a_touch_written_over_a_cancel_does_not_undo_it(running: Running) -> None:
    """The worker's touch read the job before the cancel and writes it after
    (the job read running again, until a cancel written anew caught it)."""
    key = running.key

    def touch(command: Command) -> bool:  # a script of the job alone, or a write
        return (
            named("EVALSHA")(command)
            and command[2:4] == [b"1", key]
            or named("SET", key)(command)
        )

    held = running.gate.hold(touch)
    assert held.caught.wait(30)
    assert running.cancel()[0].startswith(f"OK Operation '{running.id}'")
    held.release()
    running.assert_cancelled()
    assert running.stored()["status"] == "aborted"
