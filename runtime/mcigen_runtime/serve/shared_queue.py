"""SAQ's Redis queue, each write of a job's record a compare-and-set (a Lua script,
or WATCH, then MULTI): once a cancel is written, nothing writes over it.

SAQ writes a job's record whole, from the copy its writer holds: a worker's touch
(a read, then a write), its finish, the sweep's abort of the job it saw in a
snapshot, a cancel's abort of the copy it read. One that read the record before a
cancel and wrote it after undid the cancel: the operation read as running again,
or completed, or failed (swept). Here each write decides on the record as it is
when it is written:

- an abort (a cancel, the sweep, a stopping process) applies only to a job not
  finished nor aborting, and takes it off the queue's lists in the same
  transaction (the sweep saw an aborting job still on the active list);
- an update (the worker's start and touches) writes only a job not finished,
  and keeps an aborting job's status and reason;
- a finish of a job being aborted writes it aborted, with the abort's reason, and
  a job that has finished is not finished again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from redis.exceptions import WatchError
from saq.job import TERMINAL_STATUSES, Job, Status
from saq.queue.redis import RedisQueue

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


class GuardedQueue(RedisQueue):
    """A :class:`saq.queue.redis.RedisQueue` whose cancels are never lost."""

    _update_script: AsyncScript | None = None

    async def abort(self, job: Job, error: str, ttl: float = 5) -> None:
        await self.abort_unfinished(job, error, ttl)

    async def abort_unfinished(self, job: Job, error: str, ttl: float = 5) -> bool:
        """Abort ``job`` (then its copy is the record written) unless its record
        says it has finished or is being aborted; whether it was aborted."""
        aborted: list[Job] = []

        def aborting(stored: Job | None) -> Writes | None:
            if stored is None or stored.status not in UNFINISHED:
                return None
            stored.status, stored.error = Status.ABORTING, error
            aborted[:] = [stored]
            record = self.serialize(stored)

            def writes(pipe: Pipeline) -> None:
                pipe.lrem(self._queued, 0, job.id)
                pipe.zrem(self._incomplete, job.id)
                pipe.lrem(self._active, 0, job.id)
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
