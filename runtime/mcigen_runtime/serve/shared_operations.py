"""Operations shared by every process of a server through Redis, as the jobs of a
SAQ queue (``MCIGEN_OPERATIONS_URL=redis://HOST:PORT/DB``, with
``mcigen-runtime[redis]``); the in-process table of ``operations`` is the default.

Each server process runs a SAQ worker on its own event loop, beside the server. A
call that goes on in the background is enqueued as a job whose key is the
operation's id, and whichever process's worker takes it runs the tool; ``status``,
``await`` and ``cancel`` read and abort jobs through Redis, from any process.

- A job is tried once (SAQ's ``retries=1``). SAQ re-enqueues a job whose worker
  stops while it runs; such a job is not run again but fails at once
  (:data:`STOPPED`), so no call is ever silently run twice.
- A running job touches its record every :data:`TOUCH_S`; SAQ's sweep (in every
  worker, one of them every :data:`SWEEP_S`) aborts a job untouched for
  :data:`HEARTBEAT_S`, as when its process was killed, and it reads as failed.
- A cancel aborts the job; the worker running it cancels its task (stopping its
  command's process group) within a second. Every write of a job is a
  compare-and-set (:mod:`.shared_queue`): a cancel that answered OK is never
  written over, so the operation reads ``Cancelled``, with its reason, whatever
  its worker, its command or a sweep did meanwhile.
- Each caller's operations are listed in a Redis list of their ids (the newest
  :data:`~.operations.KEEP_FINISHED`), and jobs are kept
  :data:`~.operations.KEEP_FOR_S` after they finish.

``saq`` and ``redis`` are imported only when the backend is built.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ToolInputError
from ..executors.started import StartedCommand, watch_commands
from ..manifest import ToolEntry
from ..registry import Registry
from ..results import ToolResult, error_result
from .operations import KEEP_FINISHED, KEEP_FOR_S, Caller, State, new_id

if TYPE_CHECKING:
    from saq import Job, Worker
    from saq.job import Status
    from saq.types import Context

    from .shared_queue import GuardedQueue

OPERATIONS_URL = "MCIGEN_OPERATIONS_URL"
"""The variable that names the Redis server whose operations a server shares."""

FUNCTION = "mcigen_operation"
TOUCH_S = 1.0
HEARTBEAT_S = 5
SWEEP_S = 2
CONCURRENCY = 16
"""How many operations one process runs at once (more wait, queued)."""

STOPPED = "the server process that ran it stopped"
SWEPT = f"swept: {STOPPED}"


class SharedOperation:
    """What this process knows of one shared operation: a copy of its job,
    refreshed by :meth:`finished_within` (the attributes of ``Operation``)."""

    def __init__(self, store: SharedOperations, job: Job) -> None:
        self._store = store
        self._job = job
        kwargs = job.kwargs or {}
        self.id: str = job.key
        self.tool: str = kwargs["tool"]
        self.caller: Caller = kwargs["caller"]
        self.arguments: dict[str, Any] = kwargs["arguments"]
        self.started_at = job.queued / 1000
        self.started = self.started_at
        """Wall-clock seconds (so :meth:`wall_clock` is the identity)."""
        self.first_waited: float | None = None

    @property
    def ended(self) -> float | None:
        return self._job.completed / 1000 if self._job.completed else None

    @property
    def command(self) -> StartedCommand | None:
        command = self._job.meta.get("command")
        return None if command is None else StartedCommand(**command)

    @property
    def cancel_reason(self) -> str | None:
        if not _cancelled(self._job):
            return None
        return self._job.error or "cancelled by the caller"

    def status(self) -> State:
        if self._unfinished():
            return "running"
        if self.cancel_reason is not None:
            return "cancelled"
        result = self.result()
        return "failed" if result is None or result.isError else "completed"

    def result(self) -> ToolResult | None:
        from saq.job import Status

        job = self._job
        if self._unfinished():
            return None
        if self.cancel_reason is not None:
            return error_result(
                f"operation {self.id} ({self.tool}) was cancelled: {self.cancel_reason}"
            )
        if job.status == Status.COMPLETE and isinstance(job.result, dict):
            return ToolResult.model_validate(job.result)
        if _lost(job):
            return error_result(f"operation {self.id} ({self.tool}) failed: {STOPPED}")
        return error_result(f"tool '{self.tool}' failed unexpectedly")

    def _unfinished(self) -> bool:
        """Whether the job is yet to end: queued, running, or being given up by a
        sweep that will queue it again."""
        from .shared_queue import UNFINISHED

        return self._job.status in UNFINISHED or self._store.queue.runs_again(self._job)

    def wall_clock(self, moment: float) -> float:
        return moment

    async def finished_within(self, timeout: float | None) -> bool:
        if self.first_waited is None:
            self.first_waited = time.time()
        if self.status() == "running":
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._store.until_finished(self._job), timeout)
            await self.refresh()
        return self.status() != "running"

    async def refresh(self) -> None:
        job = await self._store.queue.job(self.id)
        if job is not None:
            self._job = job

    def when_done(self, callback: Callable[[], object]) -> None:
        async def wait() -> None:
            await self.finished_within(None)
            callback()

        self._store.keep(asyncio.ensure_future(wait()))

    async def stop(self, reason: str | None = None) -> bool:
        """Cancel the call, in whichever process runs it; False when it had
        already finished."""
        return await self._store.cancel(self, reason or "cancelled by the caller")

    def cancel(self, reason: str | None = None) -> bool:
        """:meth:`stop`, not waited for (from an event loop)."""
        if self.status() != "running":
            return False
        self._store.keep(asyncio.ensure_future(self.stop(reason)))
        return True


def _lost(job: Job) -> bool:
    return job.error in (SWEPT, STOPPED)


def _cancelled(job: Job) -> bool:
    from saq.job import Status

    return job.status in (Status.ABORTING, Status.ABORTED) and not _lost(job)


class SharedOperations:
    """The operations of one package's tools, shared through the Redis at
    ``url`` by every process that serves the package."""

    def __init__(
        self, registry: Registry, url: str, env: Mapping[str, str] | None = None
    ) -> None:
        self.registry = registry
        self.url = url
        self.env = env
        self.name = f"mcigen:{registry.package}"
        self._queue: GuardedQueue | None = None
        self._worker: Worker[Context] | None = None
        self._tasks: set[asyncio.Future[Any]] = set()

    @property
    def queue(self) -> GuardedQueue:
        assert self._queue is not None, "the shared operations are not running"
        return self._queue

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Connect, and run this process's worker until the context ends; its
        running jobs then fail (:data:`STOPPED`), never to run elsewhere."""
        from redis.asyncio import from_url
        from saq import Worker
        from saq.types import PartialTimersDict

        from .shared_queue import GuardedQueue

        queue = GuardedQueue(
            from_url(self.url), name=self.name, swept_error_message=SWEPT
        )
        await queue.connect()
        worker = Worker(
            queue,
            [(FUNCTION, self._run)],
            concurrency=CONCURRENCY,
            timers=PartialTimersDict(
                schedule=1, worker_info=10, sweep=SWEEP_S, abort=1
            ),
            cancellation_hard_deadline_s=5.0,
        )
        worker.SIGNALS = []  # the server's own handlers stop it
        self._queue, self._worker = queue, worker
        task = asyncio.ensure_future(worker.start())
        try:
            yield
        finally:
            for job in list(worker.job_task_contexts):
                await queue.abort(job, error=STOPPED)
            await worker.abort(0)
            await worker.stop()
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            await queue.disconnect()

    def keep(self, task: asyncio.Future[Any]) -> None:
        """Hold ``task`` until it is done (the loop keeps only weak references)."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start_async(
        self, entry: ToolEntry, arguments: Mapping[str, Any], caller: Caller
    ) -> SharedOperation:
        """Enqueue the call as ``caller``'s operation. Cancelled before it returns,
        it still enqueues it, then cancels it: no one has its id (the job may be in
        Redis already, its enqueue sent, the answer not yet read)."""
        starting = asyncio.ensure_future(self._enqueued(entry, arguments, caller))
        try:
            return await asyncio.shield(starting)
        except asyncio.CancelledError:
            self.keep(asyncio.ensure_future(self._abandoned(starting)))
            raise

    async def _abandoned(self, starting: asyncio.Future[SharedOperation]) -> None:
        """Cancel the operation of a start whose caller went away, once enqueued."""
        try:
            operation = await starting
        except Exception:  # its enqueue failed: nothing runs
            return
        await operation.stop("the call was cancelled")

    async def _enqueued(
        self, entry: ToolEntry, arguments: Mapping[str, Any], caller: Caller
    ) -> SharedOperation:
        op_id = new_id()
        job = await self.queue.enqueue(
            FUNCTION,
            key=op_id,
            timeout=0,
            heartbeat=HEARTBEAT_S,
            retries=1,
            ttl=int(KEEP_FOR_S),
            tool=entry.name,
            arguments=dict(arguments),
            caller=caller,
        )
        assert job is not None, f"operation id {op_id} taken"
        if caller is not None:
            listed = self._listed_key(caller)
            redis = self._redis()
            await redis.lpush(listed, op_id)
            await redis.ltrim(listed, 0, KEEP_FINISHED - 1)
            await redis.expire(listed, int(KEEP_FOR_S))
        return SharedOperation(self, job)

    async def find_async(self, op_id: str, caller: Caller) -> SharedOperation | None:
        job = await self.queue.job(op_id)
        if job is None or (job.kwargs or {}).get("caller") != caller:
            return None
        return SharedOperation(self, job)

    async def listed_async(self, caller: Caller) -> list[SharedOperation]:
        if caller is None:
            return []
        ids = await self._redis().lrange(self._listed_key(caller), 0, -1)
        jobs = await self.queue.jobs(i.decode() for i in reversed(ids))
        return [SharedOperation(self, job) for job in jobs if job is not None]

    async def until_finished(self, job: Job) -> None:
        """Return once ``job`` has finished, or a cancel has written it aborting
        (its worker may have died: none would finish it), told by Redis or seen
        by polling (a sweep of a dead process's job is told to no listener). A
        sweep's abort is not an end: the job may be queued again."""
        from saq.job import TERMINAL_STATUSES

        from .shared_queue import UNFINISHED

        def moved_on(_key: str, status: Status) -> bool:
            return status not in UNFINISHED

        while True:
            await job.refresh()
            if job.status in TERMINAL_STATUSES or _cancelled(job):
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await self.queue.listen([job.key], moved_on, 1.0)

    async def cancel(self, operation: SharedOperation, reason: str) -> bool:
        if await self.queue.abort_unfinished(operation._job, reason):
            return True
        await operation.refresh()
        return False

    def _redis(self) -> Any:
        return self.queue.redis

    def _listed_key(self, caller: str) -> str:
        digest = hashlib.sha256(caller.encode()).hexdigest()[:32]
        return f"{self.name}:caller:{digest}"

    async def _run(
        self,
        ctx: Context,
        *,
        tool: str,
        arguments: dict[str, Any],
        caller: Caller,
    ) -> dict[str, Any]:
        """The job: the tool's call, touching its record as it runs."""
        import os

        job = ctx["job"]
        if job.attempts > 1:  # re-enqueued after its process stopped
            return error_result(
                f"operation {job.key} ({tool}) failed: {STOPPED}"
            ).model_dump(mode="json")

        def started(command: StartedCommand) -> None:
            job.meta["command"] = {
                "program": command.program,
                "working_directory": command.working_directory,
                "timeout_s": command.timeout_s,
            }

        async def touch() -> None:
            while True:
                await asyncio.sleep(TOUCH_S)
                await job.update()

        watch_commands(started)
        toucher = asyncio.ensure_future(touch())
        env = os.environ if self.env is None else self.env
        try:
            result = await self.registry.call_async(tool, arguments, env)
        except ToolInputError as error:
            result = error_result(str(error))
        finally:
            toucher.cancel()
        return result.model_dump(mode="json")
