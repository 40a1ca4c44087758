"""Shared measuring: per-call timing in a subprocess, wall time and peak memory of a command.

Every figure comes from a fresh subprocess, so one row's imports, caches and garbage
never leak into the next, and the mcigen and mci-py interpreters can differ.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Stats:
    """The median of repeated measurements, with the lowest and highest seen."""

    median: float
    low: float
    high: float
    runs: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Stats:
        if not values:
            raise ValueError("no measurements")
        return cls(statistics.median(values), min(values), max(values), len(values))

    @property
    def spread(self) -> float:
        """(highest - lowest) / median: 0.1 means the runs spanned 10% of the median."""
        return (self.high - self.low) / self.median if self.median else 0.0

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "spread": self.spread}


@dataclass(frozen=True)
class Budget:
    """How long to time one group of calls: each run lasts at least ``run_seconds``;
    at most ``repeat`` rounds, fewer when they would take more than ``max_seconds``
    (never fewer than 3)."""

    run_seconds: float
    repeat: int
    max_seconds: float


_WORKER = """
import asyncio, json, os, resource, sys, time
reply = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # whatever the code under test prints goes to stderr
namespace = {}
loops = {}
runner = None

def get_runner():
    global runner
    if runner is None:
        runner = asyncio.Runner()
    return runner

namespace["_runner"] = get_runner

def children_cpu():
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime

def run(key, n):
    loop_fn, is_async = loops[key]
    cpu, children = time.process_time(), children_cpu()
    start = time.perf_counter()
    if is_async:
        runner.run(loop_fn(n))
    else:
        loop_fn(n)
    return {
        "seconds": time.perf_counter() - start,
        "cpu": time.process_time() - cpu,
        "children": children_cpu() - children,
    }

try:
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "setup":
            exec(request["setup"], namespace)
            for key, (call, is_async) in request["calls"].items():
                head = "async def _loop(_n):" if is_async else "def _loop(_n):"
                body = ("await " if is_async else "") + call
                exec(f"{head}\\n    for _ in range(_n):\\n        {body}\\n", namespace)
                loops[key] = (namespace.pop("_loop"), is_async)
                if is_async:
                    get_runner()
            answer = {}
        else:
            answer = run(request["key"], request["number"])
        reply.write(json.dumps(answer) + "\\n")
        reply.flush()
finally:
    if runner is not None:
        runner.close()
"""
"""A process that runs ``setup``, then on request times ``number`` calls of one of its
expressions (awaited, in one event loop kept for the process's life, when async): their
wall time, its own CPU time and that of the children it reaped meanwhile."""


@dataclass(frozen=True)
class Spent:
    """What some calls took: wall seconds, the CPU seconds of the calling process,
    and those of the children it reaped meanwhile (the commands a call ran)."""

    seconds: float
    cpu: float
    children: float


class Worker:
    """One process timing calls: one implementation's setup, one or more expressions.

    Keeping the process means several implementations can be timed in alternation, so
    a burst of load on a noisy machine hits them all alike instead of one row."""

    def __init__(
        self,
        python: Path,
        cwd: Path,
        setup: str,
        calls: Mapping[str, tuple[str, bool]],
    ) -> None:
        """``calls``: key -> (Python expression, whether to await it)."""
        self._stderr = tempfile.TemporaryFile("w+")
        self._process = subprocess.Popen(
            [str(python), "-c", _WORKER],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._ask({"op": "setup", "setup": setup, "calls": dict(calls)})

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            process.wait()
            self._stderr.seek(0)
            raise RuntimeError(
                f"benchmark worker failed:\n{self._stderr.read()[-3000:]}"
            )
        answer: dict[str, Any] = json.loads(line)
        return answer

    def run(self, key: str, number: int) -> float:
        """Seconds taken by ``number`` calls of ``key``."""
        return self.cpu(key, number).seconds

    def cpu(self, key: str, number: int) -> Spent:
        """Wall and CPU seconds of ``number`` calls of ``key``."""
        answer = self._ask({"op": "run", "key": key, "number": number})
        return Spent(answer["seconds"], answer["cpu"], answer["children"])

    def close(self) -> None:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process.stdout.close()
        self._stderr.close()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass(frozen=True)
class CallTiming:
    stats: Stats
    """µs per call."""
    number: int
    """Calls per run."""
    first_us: float
    """The very first call: connections, sessions and template caches start cold."""
    runs: tuple[float, ...] = ()
    """µs per call of each run, in the order taken: the i-th of every expression
    timed together comes from the same round."""


@dataclass(frozen=True)
class Timed:
    """One expression of a worker to time, with its own limits."""

    worker: Worker
    key: str
    warmup: int = 3
    max_runs: int | None = None
    """At most this many runs, even if the others get more."""
    run_seconds: float | None = None
    """Overrides the budget's (0: one call per run)."""
    cpu: bool = False
    """Time by the worker's CPU time instead of the wall clock: for calls that
    use one core and wait for nothing, what another process's load does not
    change."""

    def take(self, number: int) -> float:
        """Seconds that ``number`` calls took."""
        spent = self.worker.cpu(self.key, number)
        return spent.cpu if self.cpu else spent.seconds


def interleave(timed: list[Timed], budget: Budget) -> list[CallTiming]:
    """Time every expression of ``timed`` in rounds, one run of each per round.

    Each gets a first call (reported apart), ``warmup`` calls, and a calibration that
    finds how many calls fill ``run_seconds``; then rounds follow until ``repeat`` runs
    or ``max_seconds``."""
    numbers: list[int] = []
    firsts: list[float] = []
    runs: list[list[float]] = []
    for item in timed:
        firsts.append(item.take(1) * 1e6)
        if item.warmup:
            item.take(item.warmup)
        goal = budget.run_seconds if item.run_seconds is None else item.run_seconds
        number = 1
        while True:
            spent = item.take(number)
            if spent >= goal or number >= 1 << 20:
                break
            number = max(number * 2, int(number * goal / max(spent, 1e-9)) + 1)
        numbers.append(number)
        runs.append([spent / number * 1e6])
    begun = time.perf_counter()
    for _ in range(budget.repeat - 1):
        if (
            min(len(r) for r in runs) >= 3
            and time.perf_counter() - begun > budget.max_seconds
        ):
            break
        for item, number, figures in zip(timed, numbers, runs, strict=True):
            if item.max_runs is None or len(figures) < item.max_runs:
                figures.append(item.take(number) / number * 1e6)
    return [
        CallTiming(Stats.of(figures), number, first, tuple(figures))
        for figures, number, first in zip(runs, numbers, firsts, strict=True)
    ]


def run_script(
    python: Path,
    script: str,
    args: Sequence[str] = (),
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> Any:
    """Run ``script`` with ``python -c`` and parse the last line of its stdout as JSON."""
    done = subprocess.run(
        [str(python), "-c", script, *args],
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark script failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


@dataclass(frozen=True)
class Wall:
    """One run of a command: its wall time and the peak memory of its process tree."""

    seconds: float
    peak_kib: int
    """The larger of the kernel's peak RSS for the process (and any child it waited
    for) and the highest sum of RSS over the whole tree seen by sampling every 50 ms."""
    returncode: int
    timed_out: bool
    stderr: str


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def _tree_rss_kib(root: int) -> int:
    total = 0
    for pid in tree_pids(root):
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * (
                    os.sysconf("SC_PAGE_SIZE") // 1024
                )
        except OSError:
            continue
    return total


def tree_pids(root: int) -> list[int]:
    """``root`` and its live descendants."""
    tree = _children()
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(tree.get(pid, ()))
    return found


def tree_cpu_ns(root: int) -> int:
    """CPU nanoseconds of the live processes of ``root``'s tree so far (see
    :func:`task_cpu_ns`)."""
    return sum(map(task_cpu_ns, tree_pids(root)))


def task_cpu_ns(pid: int) -> int:
    """CPU nanoseconds of ``pid``'s live threads so far (the scheduler's count,
    ``/proc/PID/task/*/schedstat``: exact where ``stat``'s ticks are 10 ms, more
    than a few hundred calls of a server take)."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as stat:
                total += int(stat.read().split()[0])
        except (OSError, IndexError, ValueError):
            continue
    return total


def wall(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    sample_memory: bool = True,
) -> Wall:
    """Run ``argv`` once; its wall time and peak memory (see :class:`Wall`).

    With ``timeout``, a command still running is killed: the figures are then lower
    bounds. ``sample_memory=False`` skips the sampling thread (for short runs, where
    only the kernel's peak RSS and an undisturbed wall time matter).
    """
    start = time.perf_counter()
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=None if env is None else dict(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    sampled = [0]
    stop = threading.Event()
    stderr_parts: list[str] = []
    ended: list[tuple[float, int, Any]] = []

    def sample() -> None:
        while not stop.wait(0.05):
            sampled[0] = max(sampled[0], _tree_rss_kib(process.pid))

    def drain() -> None:
        assert process.stderr is not None
        stderr_parts.append(process.stderr.read())

    def reap() -> None:
        _, status, usage = os.wait4(process.pid, 0)
        ended.append((time.perf_counter(), status, usage))

    threads = [threading.Thread(target=drain)]
    if sample_memory:
        threads.append(threading.Thread(target=sample))
    reaper = threading.Thread(target=reap)
    for thread in (*threads, reaper):
        thread.start()
    reaper.join(timeout)
    timed_out = reaper.is_alive()
    if timed_out:
        sampled[0] = max(sampled[0], _tree_rss_kib(process.pid))
        process.kill()
        reaper.join()
    finished, status, usage = ended[0]
    process.returncode = os.waitstatus_to_exitcode(status)
    stop.set()
    for thread in threads:
        thread.join()
    return Wall(
        finished - start,
        max(int(usage.ru_maxrss), sampled[0]),
        process.returncode,
        timed_out,
        "".join(stderr_parts),
    )
