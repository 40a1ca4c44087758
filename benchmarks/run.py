"""mcigen against mci-py and hand-written Python, in one run: the suite of issue 7.

    make bench              (.venv/bin/python benchmarks/run.py)          10-20 minutes
    make bench-quick        (.venv/bin/python benchmarks/run.py --quick)  ~ 2 minutes

Prints one table (per-call time, cold start, build time and memory, throughput under
concurrency, import cost; each with mci-py's figure from the same run, the ratio, a
hand-written floor where one applies and whether the target of issue 7 is met) and
writes benchmarks/results.json. See benchmarks/README.md for what each row measures.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import (  # noqa: E402
    adapters,
    build,
    calls,
    client_start,
    cold_start,
    concurrency,
    imports,
    report,
    schemas,
    serving,
)
from benchmarks.http_server import BenchServer  # noqa: E402
from benchmarks.paths import PYTHON, RESULTS, oracle_python  # noqa: E402
from benchmarks.timing import Budget, Stats  # noqa: E402

SECTIONS = (
    "calls",
    "adapters",
    "cold",
    "client",
    "build",
    "concurrency",
    "imports",
    "serving",
)
ORDER = (
    "per call",
    adapters.SECTION,
    "cold start",
    client_start.SECTION,
    "build",
    "concurrency",
    "import (-X importtime)",
    serving.SECTION,
)


@dataclass(frozen=True)
class Mode:
    name: str
    call: Budget
    concurrency: concurrency.Plan
    imports_runs: int
    cold_runs: int
    builds: dict[int, tuple[int, int, float]]
    """Tools -> (cold runs, rebuilds, seconds per kind): see :class:`build.Plan`."""
    template_runs: int
    """Cold builds of the one large template (:func:`build.template_row`)."""
    budget: float
    """Seconds the whole run may take; the largest builds get what is left."""
    serving: serving.Plan


FULL = Mode(
    "full",
    Budget(run_seconds=0.15, repeat=7, max_seconds=5.0),
    concurrency.Plan(seconds=1.5, runs=3),
    imports_runs=5,
    cold_runs=9,
    builds={10: (3, 3, 15), 100: (3, 3, 30), 1000: (1, 3, 60), 5000: (1, 1, 0)},
    template_runs=3,
    budget=570,
    serving=serving.FULL,
)
QUICK = Mode(
    "quick",
    Budget(run_seconds=0.05, repeat=3, max_seconds=0.5),
    concurrency.Plan(seconds=0.5, runs=1),
    imports_runs=2,
    cold_runs=2,
    builds={10: (1, 1, 10), 100: (1, 1, 20)},
    template_runs=1,
    budget=150,
    serving=serving.QUICK,
)

COLD_START_RESERVE = 40.0
"""Seconds kept back from the last build for the cold-start row of its package."""


class Log:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def __call__(self, message: str) -> None:
        print(f"[{self.elapsed:5.0f} s] {message}", file=sys.stderr, flush=True)


def _failed(section: str, log: Log, error: Exception) -> list[report.Row]:
    """The row that shows a failure in the table instead of ending the run."""
    lines = str(error).strip().splitlines() or [""]
    log(f"{section}: FAILED: {str(error)[-2000:]}")
    note = f"{type(error).__name__}: {lines[-1]}"[:200]
    return [report.Row(section, "FAILED", "s", None, note=note)]


def _guard(
    section: str,
    log: Log,
    measure: Callable[[], list[report.Row] | report.Row],
) -> list[report.Row]:
    """The rows ``measure`` returns, or one saying why it failed."""
    try:
        rows = measure()
    except Exception as error:  # noqa: BLE001 - a failure is a row, not the end
        return _failed(section, log, error)
    return rows if isinstance(rows, list) else [rows]


def _call_package(server: BenchServer, work: Path) -> Path:
    schemas.write(schemas.call_schema(server.base), work / "bench.mci.json")
    subprocess.run(
        [
            str(PYTHON),
            "-m",
            "mcigen",
            "build",
            str(work / "bench.mci.json"),
            "-o",
            str(work / calls.PACKAGE),
        ],
        check=True,
        capture_output=True,
    )
    return work


def _mci_py_version(mci_py: Path) -> str:
    done = subprocess.run(
        [
            str(mci_py),
            "-c",
            "import importlib.metadata as m; print(m.version('mci-py'))",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "?"


def _sizes(mode: Mode, chosen: str | None) -> dict[int, tuple[int, int, float]]:
    if not chosen:
        return mode.builds
    known = {**FULL.builds, **mode.builds}
    return {int(n): known.get(int(n), (1, 1, 0)) for n in chosen.split(",")}


def _scale_rows(
    mode: Mode,
    sizes: dict[int, tuple[int, int, float]],
    mci_py: Path,
    log: Log,
    floor: Stats | None,
    unmeasured: str,
    root: Path,
) -> list[report.Row]:
    """Build each size (in ``root``), then, given the start's ``floor``, time a
    cold start of what was built; the last size's builds get whatever the time budget
    leaves, minus the cold start's share."""
    rows: list[report.Row] = []
    cold = floor is not None
    for tools, (runs, rebuilds, seconds) in sorted(sizes.items()):
        deadline = log.started + mode.budget - (COLD_START_RESERVE if cold else 0)
        plan = build.Plan(runs, rebuilds, seconds or mode.budget, deadline)
        try:
            built = build.measure_size(root, tools, plan, log)
        except Exception as error:  # noqa: BLE001 - a failure is a row, not the end
            rows += _failed("build", log, error)
            continue
        rows += build.rows(built)
        if floor is not None:
            rows += _guard(
                "cold start",
                log,
                functools.partial(
                    cold_start.measure_size, built, mci_py, mode.cold_runs, floor, log
                ),
            )
    for tools in sorted(set(FULL.builds) - set(sizes)):
        missing = build.Built(tools, Path(), Path(), "", skipped=unmeasured)
        rows.extend(build.rows(missing))
        if cold:
            rows.append(cold_start.missing(tools, unmeasured))
    return rows


def _client_rows(
    mode: Mode,
    sizes: list[int],
    mci_py: Path,
    log: Log,
    floor: Stats,
    unmeasured: str,
    root: Path,
) -> list[report.Row]:
    """``MCIClient`` on a cached schema of each size, each first built into a cache
    of its own within the time budget."""
    rows: list[report.Row] = []
    deadline = log.started + mode.budget
    for tools in sorted(sizes):
        rows += _guard(
            client_start.SECTION,
            log,
            functools.partial(
                client_start.measure_size,
                root,
                tools,
                mci_py,
                mode.cold_runs,
                floor,
                deadline,
                log,
            ),
        )
    for tools in sorted(set(FULL.builds) - set(sizes)):
        rows.append(client_start.missing(tools, unmeasured))
    return rows


def _serving_rows(
    mode: Mode, sizes: list[int], server: BenchServer, log: Log, root: Path
) -> list[report.Row]:
    """Row 7, on the sizes up to 1000 tools; outside the time budget (it runs last)."""
    served = [tools for tools in sizes if tools <= max(serving.LIST_SIZES)]
    try:
        parts = serving.parts(root / "serving", server.base, mode.serving, served, log)
    except Exception as error:  # noqa: BLE001 - a failure is a row, not the end
        return _failed(serving.SECTION, log, error)
    return [row for part in parts for row in _guard(serving.SECTION, log, part)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="a ~2-minute smoke run (10, 100 tools)"
    )
    parser.add_argument(
        "--only", help=f"comma-separated sections to run: {','.join(SECTIONS)}"
    )
    parser.add_argument("--sizes", help="tool counts to build, e.g. 10,100,1000")
    parser.add_argument(
        "--keep", action="store_true", help="keep the built packages and schemas"
    )
    parser.add_argument(
        "--budget", type=float, help="seconds the run may take (default by mode)"
    )
    args = parser.parse_args()
    mode = QUICK if args.quick else FULL
    if args.budget:
        mode = dataclasses.replace(mode, budget=args.budget)
    sections = set(args.only.split(",")) if args.only else set(SECTIONS)
    # the generated packages must be imported from .pyc, as they are once installed
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    log = Log()
    mci_py = oracle_python()
    log(f"{mode.name} run; mci-py at {mci_py}")
    server = BenchServer()
    scratch = Path(tempfile.mkdtemp(prefix="mcigen-bench-"))
    rows: list[report.Row] = []
    try:
        if sections & {"calls", "adapters", "concurrency", "imports"}:
            work = _call_package(server, scratch / "calls")
            if "calls" in sections:
                rows += calls.measure(work, server.base, mci_py, mode.call, log)
            if "adapters" in sections:
                rows += _guard(
                    adapters.SECTION,
                    log,
                    lambda: adapters.measure(work, mode.call, log),
                )
            if "concurrency" in sections:
                rows += _guard(
                    "concurrency",
                    log,
                    lambda: concurrency.measure(
                        work, server.base, mci_py, mode.concurrency, log
                    ),
                )
            if "imports" in sections:
                rows += _guard(
                    "import (-X importtime)",
                    log,
                    lambda: imports.measure(work, mci_py, mode.imports_runs, log),
                )
        sizes = _sizes(mode, args.sizes)
        unmeasured = (
            "not among --sizes"
            if args.sizes
            else f"not in a {mode.name} run (make bench measures it)"
        )
        floor = (
            cold_start.floor(mode.cold_runs) if sections & {"cold", "client"} else None
        )
        if "build" in sections:
            rows += _guard(
                "build",
                log,
                lambda: build.template_row(
                    scratch, mode.template_runs, log.started + mode.budget, log
                ),
            )
        if sections & {"build", "cold"}:
            cold_floor = floor if "cold" in sections else None
            rows += _scale_rows(
                mode, sizes, mci_py, log, cold_floor, unmeasured, scratch
            )
        if "client" in sections and floor is not None:
            rows += _client_rows(
                mode, list(sizes), mci_py, log, floor, unmeasured, scratch
            )
        if "serving" in sections:
            rows += _serving_rows(mode, list(sizes), server, log, scratch)
    finally:
        server.stop()
        if args.keep:
            log(f"kept the packages and schemas in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    rows.sort(key=lambda row: ORDER.index(row.section))
    header = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "mode": mode.name,
        "wall_seconds": log.elapsed,
        "machine": report.machine(),
        "mci_py_version": _mci_py_version(mci_py),
    }
    print(report.table(rows, header))
    report.write_json(RESULTS, rows, header)
    log(f"done; wrote {RESULTS.relative_to(RESULTS.parent.parent)}")


if __name__ == "__main__":
    main()
