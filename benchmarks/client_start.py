"""Row 2b: ``MCIClient`` start, a fresh process that constructs mci-py's client on a
schema mcigen has already compiled, and calls one tool.

For each size the scale schema is written to a directory of its own and
``MCIGEN_CACHE_DIR`` points at a fresh one. The first mcigen process compiles the
schema into that cache (its wall time is kept as ``first_build_s``: a figure, not a
target); once its files are 2 s old (a hit trusts their statuses then, as it
does for any schema cached before), runs of ``from mcigen import MCIClient`` and ``from mcipy import
MCIClient``, each ``MCIClient(schema_file_path=..., env_vars=...)`` and one
``execute`` of ``tool_00000``, alternate. A separate run lists the mcigen modules
the cached path loads: the compiler (``mcigen.pipeline``) must not be among them.
"""

from __future__ import annotations

import json
import os
import statistics
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import schemas
from benchmarks.cache_settling import wait_until_settled
from benchmarks.cold_start import FLOOR, TOOL, process_seconds
from benchmarks.paths import PYTHON
from benchmarks.report import Row
from benchmarks.timing import Stats, run_script, wall

SECTION = "MCIClient start"
SCHEMA = "bench.mci.json"
ENV = {"BENCH_RUN": "1"}
"""The client's ``env_vars``, the same for both."""

COMPILER = "mcigen.pipeline"

MIN_ATTEMPT = 15.0
"""Seconds a first construction needs before the deadline to be started."""

_MODULES = textwrap.dedent("""
    import json, sys
    from mcigen import MCIClient
    client = MCIClient(schema_file_path=sys.argv[1], env_vars=json.loads(sys.argv[2]))
    result = client.execute(sys.argv[3], json.loads(sys.argv[4])).result
    loaded = sorted(m for m in sys.modules if m == "mcigen" or m.startswith("mcigen."))
    print(json.dumps({"mcigen_modules": loaded, "is_error": result.isError}))
    """)


def _argv(python: Path, module: str) -> list[str]:
    code = (
        f"from {module} import MCIClient; "
        f"MCIClient(schema_file_path={SCHEMA!r}, env_vars={ENV!r})"
        f".execute({TOOL!r}, {schemas.SCALE_PROPS!r})"
    )
    return [str(python), "-c", code]


def _row(
    tools: int,
    ours: Stats | None,
    theirs: Stats | None,
    floor: Stats | None,
    note: str,
    extra: dict[str, Any] | None = None,
) -> Row:
    return Row(
        SECTION,
        f"{tools} tools, MCIClient + one call",
        "s",
        ours,
        theirs,
        floor,
        FLOOR if floor else None,
        target="client start" if tools == 1000 else None,
        note=note,
        extra=extra or {},
    )


def _cached_modules(work: Path, env: dict[str, str]) -> list[str]:
    """The mcigen modules a process constructing the client from the cache loads."""
    found = run_script(
        PYTHON,
        _MODULES,
        [SCHEMA, json.dumps(ENV), TOOL, json.dumps(schemas.SCALE_PROPS)],
        cwd=work,
        env=env,
    )
    if found["is_error"]:
        raise RuntimeError(f"{TOOL} returned an error result through MCIClient")
    return list(found["mcigen_modules"])


def measure_size(
    root: Path,
    tools: int,
    mci_py: Path,
    runs: int,
    floor: Stats,
    deadline: float,
    log: Callable[[str], None],
) -> Row:
    """The row of one size; mci-py alone when the first construction (the build)
    cannot finish before ``deadline`` (a ``time.perf_counter()`` value)."""
    log(f"MCIClient start: {tools} tools")
    work = root / f"client{tools}"
    schemas.write(schemas.scale_schema(tools), work / SCHEMA)
    env = {**os.environ, "MCIGEN_CACHE_DIR": str(work / "cache")}
    ours_argv = _argv(PYTHON, "mcigen")
    theirs_argv = _argv(mci_py, "mcipy")
    process_seconds(theirs_argv, work)  # mci-py's files compiled, page cache warm
    left = deadline - time.perf_counter()
    first = None
    if left >= MIN_ATTEMPT:
        first = wall(ours_argv, cwd=work, env=env, timeout=left, sample_memory=False)
    if first is None or first.timed_out:
        theirs = [process_seconds(theirs_argv, work)[0] for _ in range(runs)]
        why = "not started" if first is None else f"stopped after {first.seconds:.0f} s"
        note = f"mcigen not measured: its first construction {why} (time budget)"
        return _row(tools, None, Stats.of(theirs), floor, note)
    if first.returncode != 0:
        raise RuntimeError(f"MCIClient failed to build:\n{first.stderr[-3000:]}")
    # a hit in the 2 s after a build hashes the package's files (their statuses could
    # hide a write in the same clock tick) and the first one past them records the
    # statuses: the row is the client of a schema cached before, not a moment ago
    # (the schema's own status too: the first hit past it remembers the inputs)
    wait_until_settled(work)
    modules = _cached_modules(work, env)
    ours: list[float] = []
    theirs = []
    ours_kib: list[int] = []
    theirs_kib: list[int] = []
    for _ in range(runs):
        seconds, kib = process_seconds(ours_argv, work, env)
        ours.append(seconds)
        ours_kib.append(kib)
        seconds, kib = process_seconds(theirs_argv, work)
        theirs.append(seconds)
        theirs_kib.append(kib)
    no_compiler = COMPILER not in modules
    note = (
        f"first construction (builds into the cache) {first.seconds:.2f} s; "
        f"the cached one loads {len(modules)} mcigen modules, "
        + ("not the compiler" if no_compiler else f"among them {COMPILER}")
    )
    extra = {
        "first_build_s": first.seconds,
        "no_compiler": no_compiler,
        "mcigen_modules": modules,
        "peak_rss_mib": statistics.median(ours_kib) / 1024,
        "mci_py_peak_rss_mib": statistics.median(theirs_kib) / 1024,
    }
    return _row(tools, Stats.of(ours), Stats.of(theirs), floor, note, extra)


def missing(tools: int, why: str) -> Row:
    """The row of a size not measured in this run."""
    return _row(tools, None, None, None, f"not measured: {why}")
