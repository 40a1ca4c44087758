"""Row 3: wall time and peak memory of ``mcigen build`` for N tools, cold and after a
one-tool change; and the cold build of one tool whose template has 50,000
placeholders (:func:`template_row`: build time should grow with template size, no
faster).

A cold build starts from nothing: a fresh directory for the schema, the output and
``XDG_CACHE_HOME``, so no cache of an earlier build can help. The rebuild changes one
tool's description and builds again into the same output directory with the same
cache directory, which is what a developer editing a schema does. Each build is one
``python -m mcigen build`` process; its peak memory is that of its whole process tree
(see :class:`benchmarks.timing.Wall`).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import schemas
from benchmarks.paths import PYTHON
from benchmarks.report import Row
from benchmarks.timing import Stats, Wall, wall


@dataclass(frozen=True)
class Plan:
    """How hard to try for one size: at most ``runs`` cold builds and ``rebuilds``
    rebuilds, each kind stopping early once it has spent ``seconds``. No build runs
    past ``deadline`` (a ``time.perf_counter()`` value): one still running then is
    stopped and reported as a lower bound, and none starts with less than
    ``MIN_ATTEMPT`` seconds left."""

    runs: int
    rebuilds: int
    seconds: float
    deadline: float


MIN_ATTEMPT = 15.0


@dataclass
class Built:
    """What the cold-start row needs: a built package and the schema it came from."""

    tools: int
    work: Path
    schema: Path
    package: str
    cold: list[Wall] = field(default_factory=list)
    rebuilt: list[Wall] = field(default_factory=list)
    skipped: str = ""
    """Why a kind of build was not measured (the time budget), if one was not."""

    @property
    def ok(self) -> bool:
        return bool(self.cold) and all(w.returncode == 0 for w in self.cold)


def package_name(tools: int) -> str:
    return f"bench{tools}"


def _env(work: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CACHE_HOME": str(work / "cache")}


def _build(work: Path, schema: Path, name: str, deadline: float) -> Wall:
    argv = [str(PYTHON), "-m", "mcigen", "build", str(schema), "-o", str(work / name)]
    timeout = deadline - time.perf_counter()
    result = wall(argv, cwd=work, env=_env(work), timeout=timeout)
    if result.returncode != 0 and not result.timed_out:
        raise RuntimeError(f"mcigen build failed:\n{result.stderr[-3000:]}")
    return result


def _fresh(root: Path, tools: int, run: int) -> tuple[Path, Path]:
    work = root / f"build{tools}-{run}"
    if work.exists():
        shutil.rmtree(work)
    schema = schemas.write(schemas.scale_schema(tools), work / "bench.mci.json")
    return work, schema


def _room(plan: Plan, begun: float, last: list[Wall]) -> str:
    """Why another build should not start ("" if it may)."""
    now = time.perf_counter()
    if plan.deadline - now < MIN_ATTEMPT:
        return "the time budget is spent"
    if last and now - begun + last[-1].seconds > plan.seconds:
        return "enough runs for this size"
    return ""


def measure_size(
    root: Path, tools: int, plan: Plan, log: Callable[[str], None]
) -> Built:
    """Cold builds of ``tools`` tools, then rebuilds of the last one; the package of
    the last cold build stays in place for the cold-start row."""
    name = package_name(tools)
    work, schema = _fresh(root, tools, 0)
    built = Built(tools, work, schema, name)
    begun = time.perf_counter()
    for run in range(plan.runs):
        if _room(plan, begun, built.cold):
            if not built.cold:
                built.skipped = _room(plan, begun, built.cold)
                return built
            break
        if run:
            shutil.rmtree(built.work)
            built.work, built.schema = _fresh(root, tools, run)
        log(f"build: {tools} tools, cold #{run + 1}")
        built.cold.append(_build(built.work, built.schema, name, plan.deadline))
        if built.cold[-1].timed_out:
            return built
    schema_now = schemas.scale_schema(tools)
    begun = time.perf_counter()
    for change in range(plan.rebuilds):
        why = _room(plan, begun, built.rebuilt)
        if why:
            if not built.rebuilt:
                built.skipped = why
            break
        schema_now = schemas.touch_one_tool(schema_now, change)
        schemas.write(schema_now, built.schema)
        log(f"build: {tools} tools, one tool changed #{change + 1}")
        built.rebuilt.append(_build(built.work, built.schema, name, plan.deadline))
        if built.rebuilt[-1].timed_out:
            break
    return built


def _stopped_note(walls: list[Wall]) -> str:
    if not any(w.timed_out for w in walls):
        return ""
    return (
        f"stopped after {max(w.seconds for w in walls):.0f} s to keep the run within "
        "its time budget: the figure is a lower bound"
    )


def rows(built: Built) -> list[Row]:
    """Three rows per size: cold build time, rebuild time, peak memory of a cold build."""
    n = built.tools
    cold, rebuilt = built.cold, built.rebuilt
    stopped = any(w.timed_out for w in cold)
    skipped = f"not measured: {built.skipped}"
    return [
        Row(
            "build",
            f"{n} tools, cold",
            "s",
            Stats.of([w.seconds for w in cold]) if cold else None,
            target="build cold" if n == 1000 else None,
            note=_stopped_note(cold) if cold else skipped,
            extra={"timed_out": stopped},
        ),
        Row(
            "build",
            f"{n} tools, one description changed",
            "s",
            Stats.of([w.seconds for w in rebuilt]) if rebuilt else None,
            target="rebuild" if n == 1000 else None,
            note=(
                _stopped_note(rebuilt)
                if rebuilt
                else "not measured: the cold build was stopped" if stopped else skipped
            ),
            extra={
                "timed_out": any(w.timed_out for w in rebuilt),
                "peak_mib": max((w.peak_kib for w in rebuilt), default=0) / 1024,
            },
        ),
        Row(
            "build",
            f"{n} tools, cold, peak memory",
            "MiB",
            Stats.of([w.peak_kib / 1024 for w in cold]) if cold else None,
            target="build memory" if n == 5000 else None,
            note="a lower bound (the build was stopped)" if stopped else "",
            extra={"timed_out": stopped},
        ),
    ]


TEMPLATE_PLACEHOLDERS = 50_000


def template_row(
    root: Path, runs: int, deadline: float, log: Callable[[str], None]
) -> Row:
    """Cold builds of :func:`schemas.template_schema` with
    ``TEMPLATE_PLACEHOLDERS`` placeholders, each in a fresh directory."""
    n = TEMPLATE_PLACEHOLDERS
    walls: list[Wall] = []
    for run in range(runs):
        if deadline - time.perf_counter() < MIN_ATTEMPT:
            break
        work = root / f"template{n}-{run}"
        if work.exists():
            shutil.rmtree(work)
        schema = schemas.write(schemas.template_schema(n), work / "template.mci.json")
        log(f"build: one template of {n} placeholders, cold #{run + 1}")
        walls.append(_build(work, schema, "template", deadline))
        shutil.rmtree(work)
        if walls[-1].timed_out:
            break
    return Row(
        "build",
        f"one template of {n:,} placeholders, cold",
        "s",
        Stats.of([w.seconds for w in walls]) if walls else None,
        target="template build",
        note=(
            _stopped_note(walls) if walls else "not measured: the time budget is spent"
        ),
        extra={"timed_out": any(w.timed_out for w in walls)},
    )
