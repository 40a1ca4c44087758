"""Row 4: throughput of 16 concurrent callers of one http tool (loopback, keep-alive).

Each figure comes from a fresh process: the callers warm up (a few calls each), wait
at a barrier, then call as fast as they can for a fixed time; calls/s is the number
completed divided by that time. mcigen runs 16 threads calling ``INVOKERS['fetch']``
and 16 asyncio tasks awaiting ``ASYNC_INVOKERS['fetch']``; mci-py runs 16 threads with
one ``MCIClient`` each (it changes its configuration on the first call, so a client
is not shared); the hand-written floor is one pooled httpx client (Client in threads,
AsyncClient in tasks). The server is the benchmarks' own (``http_server.py``: one
asyncio process answering every request with a fixed reply), which still shares the
machine's 2 cores with the callers: the floor shows the ceiling of this setup.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.calls import PACKAGE
from benchmarks.paths import PYTHON
from benchmarks.report import Row
from benchmarks.timing import Stats, run_script

WORKERS = 16

_DRIVER = textwrap.dedent("""
    import asyncio, json, sys, threading, time
    setup, _, mode, workers, seconds, runs = json.loads(sys.argv[1])
    namespace = {}
    exec(setup, namespace)
    make = namespace["make"]   # make() -> one worker's callable (or coroutine function)

    def threaded():
        calls = [0] * workers
        ready = threading.Barrier(workers + 1)
        state = {"go": False, "stop": 0.0}
        def worker(i):
            f = make()
            for _ in range(3):
                f()
            ready.wait()
            while not state["go"]:
                time.sleep(0.001)
            n = 0
            while time.perf_counter() < state["stop"]:
                f()
                n += 1
            calls[i] = n
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
        for t in threads:
            t.start()
        ready.wait()
        start = time.perf_counter()
        state["stop"] = start + seconds
        state["go"] = True
        for t in threads:
            t.join()
        return sum(calls) / (time.perf_counter() - start)

    async def tasks():
        calls = [0] * workers
        fs = [make() for _ in range(workers)]
        await asyncio.gather(*(f() for f in fs for _ in range(3)))
        stop = time.perf_counter() + seconds
        async def worker(i):
            n = 0
            while time.perf_counter() < stop:
                await fs[i]()
                n += 1
            calls[i] = n
        start = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(workers)))
        return sum(calls) / (time.perf_counter() - start)

    figures = []
    if mode == "threads":
        for _ in range(runs):
            figures.append(threaded())
    else:
        async def all_runs():
            for _ in range(runs):
                figures.append(await tasks())
        asyncio.run(all_runs())
    print(json.dumps(figures))
    """)
"""Runs ``setup``, which defines ``make``; each worker gets ``make()`` and calls it
(threads) or awaits it (tasks) in a loop. Prints calls/s for each run."""

_OURS_SYNC = """
import os
from {package}.tools.{group} import INVOKERS
def make():
    f, env = INVOKERS["fetch"], os.environ
    return lambda: f({{}}, env)
"""

_OURS_ASYNC = """
import os
from {package}.tools.{group} import ASYNC_INVOKERS
def make():
    f, env = ASYNC_INVOKERS["fetch"], os.environ
    return lambda: f({{}}, env)
"""

_THEIRS = """
from mcipy import MCIClient
def make():
    c = MCIClient(schema_file_path="bench.mci.json")
    return lambda: c.execute("fetch", {})
"""

_FLOOR_SYNC = """
import httpx
client = httpx.Client()
def make():
    return lambda: client.get({url!r}).text
"""

_FLOOR_ASYNC = """
import httpx
client = httpx.AsyncClient()
def make():
    async def get():
        return (await client.get({url!r})).text
    return get
"""


@dataclass(frozen=True)
class Plan:
    seconds: float
    """How long each run lasts."""
    runs: int


def _throughput(python: Path, work: Path, setup: str, mode: str, plan: Plan) -> float:
    """Calls/s of one run, in a fresh process."""
    figures: list[float] = run_script(
        python,
        _DRIVER,
        [json.dumps([setup, "", mode, WORKERS, plan.seconds, 1])],
        cwd=work,
        timeout=120 + plan.seconds * 4,
    )
    return figures[0]


def measure(
    work: Path, http_base: str, mci_py: Path, plan: Plan, log: Callable[[str], None]
) -> list[Row]:
    """Two rows (threads, tasks); the five variants run in turn, one run each per
    round, so a burst of load on the machine hits them alike."""
    manifest = json.loads((work / PACKAGE / "manifest.json").read_text("utf-8"))
    group = next(t["group"] for t in manifest["tools"] if t["name"] == "fetch")
    url = http_base + "/text"
    variants: dict[str, tuple[Path, str, str]] = {
        "mci-py": (mci_py, _THEIRS, "threads"),
        "threads": (PYTHON, _OURS_SYNC.format(package=PACKAGE, group=group), "threads"),
        "threads floor": (PYTHON, _FLOOR_SYNC.format(url=url), "threads"),
        "tasks": (PYTHON, _OURS_ASYNC.format(package=PACKAGE, group=group), "tasks"),
        "tasks floor": (PYTHON, _FLOOR_ASYNC.format(url=url), "tasks"),
    }
    figures: dict[str, list[float]] = {name: [] for name in variants}
    for round_ in range(plan.runs):
        log(f"concurrency: {WORKERS} callers, round {round_ + 1} of {plan.runs}")
        for name, (python, setup, mode) in variants.items():
            figures[name].append(_throughput(python, work, setup, mode, plan))
    theirs = Stats.of(figures["mci-py"])
    return [
        Row(
            "concurrency",
            f"http, {WORKERS} threads",
            "calls/s",
            Stats.of(figures["threads"]),
            theirs,
            Stats.of(figures["threads floor"]),
            "one pooled httpx Client / AsyncClient",
            note="mci-py: 16 threads, one client each",
        ),
        Row(
            "concurrency",
            f"http, {WORKERS} tasks (async twin)",
            "calls/s",
            Stats.of(figures["tasks"]),
            theirs,
            Stats.of(figures["tasks floor"]),
            "one pooled httpx Client / AsyncClient",
            note="mci-py (no async API): its 16 threads",
        ),
    ]
