"""SAQ's Redis queue, each write of a job's record a compare-and-set (a Lua script,
or WATCH, then MULTI): once a cancel is written, nothing writes over it.

SAQ writes a job's record whole, from the copy its writer holds: a worker's touch
(a read, then a write), its finish, the sweep's abort of the job it saw in a
snapshot, a cancel's abort of the copy it read. One that read the record before a
cancel and wrote it after undid the cancel: the operation read as running again,
or completed, or failed (swept). Here each write decides on the record as it is
when it is written:

- an abort (a cancel, the sweep, a stopping process) applies only to a job not
  finished nor aborting (but for one a sweep will queue again: a cancel takes it
  over, and the sweep ends it instead), and takes it off the queue in the same
  transaction; a
  job taken by a worker stays on the active list until it is finished, so that
  the sweep finishes it if its worker has died (else it stayed aborting for
  ever);
- an update (the worker's start and touches) writes only a job not finished,
  and keeps an aborting job's status and reason;
- a finish of a job being aborted writes it aborted, with the abort's reason, and
  a job that has finished is not finished again.

The sweep takes a running or aborting job for a dead worker's once it is
untouched for its heartbeat, and a job on the active list that is not written
active only once it has been seen so for the job's heartbeat: a worker writes
the job it took off the queue active a round trip later, longer on a loaded
machine, and SAQ's sweep took it at once (the operation read failed, "the server
process that ran it stopped", and ran a second time, re-enqueued).

Beyond SAQ's public API, this relies on its Redis layout (a job's record, JSON
with its ``status``, at ``job.id``, that status published on the channel of the
same name; the lists ``_queued`` and ``_active``, the sorted set ``_incomplete``,
the ``_sweep`` key, ``job.abort_id``), on the private ``_update`` and ``_finish``
that its ``update`` and ``finish`` write through, and on ``_op_sem``; the worker
(:mod:`.shared_operations`) on ``Worker.job_task_contexts`` and ``SIGNALS``. Hence
the pin ``<0.27``: the operations' tests pass with 0.26.0 and 0.26.4, the newest
release on 2026-11-28. Run ``tests/operations`` against a newer one before
widening it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from redis.exceptions import WatchError
from saq.job import TERMINAL_STATUSES, Job, Status
from saq.queue.redis import RedisQueue
from saq.utils import now

if TYPE_CHECKING:
    from redis.asyncio.client import Pipeline
    from redis.commands.core import AsyncScript

UNFINISHED = (Status.NEW, Status.QUEUED, Status.ACTIVE)

Writes = Callable[["Pipeline"], None]
"""Queues a transaction's writes on its pipeline."""


_IS_ABORTING = 2
_UPDATE_UNFINISHED = """
local stored = redis.call('GET', KEYS[1])
if not stored then return 0 end
local status = cjson.decode(stored)['status']
if status == 'aborting' then return 2 end
if status ~= 'new' and status ~= 'queued' and status ~= 'active' then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PUBLISH', KEYS[1], ARGV[2])
return 1
"""
"""Write the job (ARGV[1]) if it has not finished nor is aborting (1); else 0, or
2 when it is aborting. One round trip: the worker's start is one (SAQ's sweep
takes a job dequeued but not yet written active for a dead worker's)."""


_UNCLAIMED_LONG = """
local now = tonumber(redis.call('TIME')[1])
redis.call('SET', KEYS[1], now, 'NX', 'EX', ARGV[1])
if now - tonumber(redis.call('GET', KEYS[1])) < tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
"""
"""Whether a sweep first saw the job of the key KEYS[1] taken but not written
active ARGV[2] seconds ago or more, by Redis's clock (then the key is deleted, so
that the job, re-enqueued, starts afresh; else it is kept ARGV[1] seconds)."""

_UNCLAIMED_KEPT_S = 60
"""How much longer than its heartbeat a sweep remembers when it first saw a job
not written active (sweeps come every few seconds)."""


class GuardedQueue(RedisQueue):
    """A :class:`saq.queue.redis.RedisQueue` whose cancels are never lost, nor a
    job its worker is slow to start."""

    _update_script: AsyncScript | None = None
    _unclaimed_script: AsyncScript | None = None

    async def sweep(self, lock: int = 60, abort: float = 5.0) -> list[str]:
        """Take a dead worker's jobs off the active list, as SAQ's sweep does, but a
        job not yet written active only once it has stayed so for its heartbeat."""
        swept = []
        for job_id, record in await self._active_jobs(lock):
            job = self.deserialize(record)
            if job is None:
                await self._forget(job_id)
            elif await self._lost(job):
                await self._give_up(job, abort)
            else:
                continue
            swept.append(job_id)
        return swept

    async def _active_jobs(self, lock: int) -> list[tuple[str, bytes | None]]:
        """The active list's job ids with their records, for the one process that
        takes this sweep's turn (holds the sweep key ``lock`` seconds); none for the
        others. The records are read after the list: a job may have moved on since,
        and each write of a job here decides on its record as it is then."""
        if not await self.redis.set(self._sweep, 1, nx=True, ex=lock):
            return []
        listed = cast("Awaitable[list[bytes]]", self.redis.lrange(self._active, 0, -1))
        job_ids = [raw.decode() for raw in await listed]
        if not job_ids:
            return []
        records: list[bytes | None] = await self.redis.mget(job_ids)
        return list(zip(job_ids, records, strict=True))

    async def _forget(self, job_id: str) -> None:
        """Take a job whose record has expired off the queue's lists."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.lrem(self._active, 0, job_id)
            pipe.zrem(self._incomplete, job_id)
            await pipe.execute()

    async def _give_up(self, job: Job, wait: float) -> None:
        """Abort a lost job, give whatever still runs it ``wait`` seconds to see so,
        then queue it again if it may be retried, else end it aborted. A job already
        aborting (a cancel's keeps its reason) is ended at once: untouched for its
        heartbeat since it was told, nothing runs it that could still answer."""
        reason = self.swept_error_message
        ours = await self.abort_unfinished(job, reason)
        if ours:
            with contextlib.suppress(asyncio.TimeoutError):
                await job.refresh(wait)
        if not (ours and job.retryable and await self._requeue(job)):
            await self.finish(job, Status.ABORTED, error=reason)

    def runs_again(self, job: Job) -> bool:
        """Whether ``job`` is being given up by a sweep that will queue it again
        (its worker died before it started it)."""
        return (
            job.status == Status.ABORTING
            and job.error == self.swept_error_message
            and job.retryable
        )

    async def _requeue(self, job: Job) -> bool:
        """Queue ``job``, which this sweep gave up, again, unless a cancel has
        taken it over meanwhile (then it keeps the cancel's reason); whether it
        did. Its worker, if it still ran it, may have ended it aborted."""

        def requeuing(stored: Job | None) -> Writes | None:
            if stored is None or stored.error != self.swept_error_message:
                return None
            if stored.status not in (Status.ABORTING, Status.ABORTED):
                return None
            job.status, job.error, job.touched = Status.QUEUED, stored.error, now()
            job.started = job.completed = 0
            record = self.serialize(job)

            def writes(pipe: Pipeline) -> None:
                pipe.lrem(self._active, 1, job.id)
                pipe.zadd(self._incomplete, {job.id: job.scheduled})
                pipe.rpush(self._queued, job.id)
                pipe.set(job.id, record)
                pipe.publish(job.id, job.status)

            return writes

        return await self._swap(job, requeuing) is not None

    async def _lost(self, job: Job) -> bool:
        """Whether ``job``, on the active list, is a dead worker's: untouched for its
        heartbeat if it is active or aborting; if it is not yet active, not written
        active since a sweep first saw it, a heartbeat ago."""
        if job.status in TERMINAL_STATUSES:
            return False  # finished since the list was read: its finish took it off
        if job.status not in (Status.NEW, Status.QUEUED):
            return job.stuck
        if not job.heartbeat:
            return True
        if self._unclaimed_script is None:
            self._unclaimed_script = self.redis.register_script(_UNCLAIMED_LONG)
        lost: int = await self._unclaimed_script(
            keys=[self.namespace(f"unclaimed:{job.key}")],
            args=[job.heartbeat + _UNCLAIMED_KEPT_S, job.heartbeat],
            client=self.redis,
        )
        return lost == 1

    async def abort(self, job: Job, error: str, ttl: float = 5) -> None:
        await self.abort_unfinished(job, error, ttl)

    async def abort_unfinished(self, job: Job, error: str, ttl: float = 5) -> bool:
        """Abort ``job`` (then its copy is the record written) unless its record
        says it has finished or is being aborted, other than by a sweep that will
        queue it again (the abort takes it over); whether it was aborted."""
        aborted: list[Job] = []

        def aborting(stored: Job | None) -> Writes | None:
            if stored is None:
                return None
            if stored.status not in UNFINISHED and not self.runs_again(stored):
                return None
            stored.status, stored.error = Status.ABORTING, error
            aborted[:] = [stored]
            record = self.serialize(stored)

            def writes(pipe: Pipeline) -> None:
                pipe.lrem(self._queued, 0, job.id)
                pipe.zrem(self._incomplete, job.id)
                pipe.set(job.id, record)
                pipe.setex(job.abort_id, int(ttl), error)
                pipe.publish(job.id, stored.status)

            return writes

        async with self._op_sem:
            written = await self._swap(job, aborting)
        if written is None:
            return False
        job.replace(aborted[0])
        if written[0]:  # still queued: no worker will finish it
            await self.finish(job, Status.ABORTED, error=error)
            await self.redis.delete(job.abort_id)
        return True

    async def _update(
        self, job: Job, status: Status | None = None, **kwargs: Any
    ) -> None:
        job.status = status or job.status
        if self._update_script is None:
            self._update_script = self.redis.register_script(_UPDATE_UNFINISHED)
        record = self.serialize(job)
        written = await self._update_script(
            keys=[job.id], args=[record, job.status], client=self.redis
        )
        if written != _IS_ABORTING:
            return

        def updating(stored: Job | None) -> Writes | None:
            if stored is None or stored.status not in (*UNFINISHED, Status.ABORTING):
                return None
            if stored.status == Status.ABORTING:
                job.status, job.error = stored.status, stored.error
            record = self.serialize(job)

            def writes(pipe: Pipeline) -> None:
                pipe.set(job.id, record)
                pipe.publish(job.id, job.status)

            return writes

        await self._swap(job, updating)

    async def _finish(
        self,
        job: Job,
        status: Status,
        *,
        result: Any = None,
        error: str | None = None,
    ) -> None:
        def finishing(stored: Job | None) -> Writes | None:
            if stored is not None and stored.status in TERMINAL_STATUSES:
                return None
            if stored is not None and stored.status == Status.ABORTING:
                job.status, job.error, job.result = Status.ABORTED, stored.error, None
            return self._finished(job)

        await self._swap(job, finishing)

    def _finished(self, job: Job) -> Writes:
        """SAQ's own writes of a finished job."""
        record = self.serialize(job)

        def writes(pipe: Pipeline) -> None:
            pipe.lrem(self._active, 1, job.id)
            pipe.zrem(self._incomplete, job.id)
            if job.ttl > 0:
                pipe.setex(job.id, job.ttl, record)
            elif job.ttl == 0:
                pipe.set(job.id, record)
            else:
                pipe.delete(job.id)
            pipe.publish(job.id, job.status)

        return writes

    async def _swap(
        self, job: Job, decide: Callable[[Job | None], Writes | None]
    ) -> list[Any] | None:
        """Make the writes ``decide`` gives for the stored record of ``job`` (none
        when it gives None) in one transaction, unless the record changed since it
        was read: then read it again. The replies to the writes, None if none."""
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(job.id)
                    writes = decide(self.deserialize(await pipe.get(job.id)))
                    if writes is None:
                        return None
                    pipe.multi()  # type: ignore[no-untyped-call]
                    writes(pipe)
                    replies: list[Any] = await pipe.execute()
                    return replies
                except WatchError:
                    continue
