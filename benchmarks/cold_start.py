"""Row 2: cold start, a fresh process that imports the package and calls one tool.

For each size the package built by the build row is used: one first run writes the
``.pyc`` files (its time is kept as ``first_run_s``), then runs of mcigen
(``import benchN; benchN.tool_00000(...)``) and mci-py (``MCIClient(schema_file_path=
...)`` + ``execute``) alternate. The baseline (``FLOOR``) is the least a process returning
a pydantic model pays: the interpreter, pydantic's import and one model class. A separate run checks which modules under ``benchN.tools`` importing the
package loads (none should) and which the call loads.
"""

from __future__ import annotations

import json
import statistics
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

from benchmarks import schemas
from benchmarks.build import Built
from benchmarks.paths import PYTHON
from benchmarks.report import Row
from benchmarks.timing import Stats, run_script, wall

TOOL = "tool_00000"

_MODULES = textwrap.dedent("""
    import importlib, json, sys
    name, function, props = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    def tools():
        return sorted(m for m in sys.modules if m == name + ".tools" or m.startswith(name + ".tools."))
    package = importlib.import_module(name)
    after_import = tools()
    loaded = sorted(m for m in sys.modules if m.startswith(name + "."))
    result = getattr(package, function)(**props)
    print(json.dumps({"after_import": after_import, "after_call": tools(),
                      "package_modules": loaded, "is_error": result.isError}))
    """)


def _ours_argv(built: Built, function: str) -> list[str]:
    props = ", ".join(f"{k}={v!r}" for k, v in schemas.SCALE_PROPS.items())
    return [str(PYTHON), "-c", f"import {built.package} as p; p.{function}({props})"]


def _theirs_argv(mci_py: Path, built: Built) -> list[str]:
    code = (
        "from mcipy import MCIClient; "
        f"MCIClient(schema_file_path={built.schema.name!r})"
        f".execute({TOOL!r}, {schemas.SCALE_PROPS!r})"
    )
    return [str(mci_py), "-c", code]


def process_seconds(
    argv: list[str], cwd: Path, env: Mapping[str, str] | None = None
) -> tuple[float, int]:
    """The wall time and peak RSS (KiB) of one fresh process that must succeed."""
    result = wall(argv, cwd=cwd, env=env, sample_memory=False)
    if result.returncode != 0:
        raise RuntimeError(f"timed process failed: {argv}\n{result.stderr[-3000:]}")
    return result.seconds, result.peak_kib


FLOOR = "pydantic + one model"
_FLOOR_CODE = textwrap.dedent("""
    from pydantic import BaseModel, ConfigDict
    class Result(BaseModel):
        model_config = ConfigDict(defer_build=True)
        text: str
    Result.model_construct(text="x")
    """)
"""mci-py's results are pydantic models, so are ours: any process that returns one
imports pydantic and makes a model class (pydantic's fields, types and
annotated_types come with the first). Its validator is left unbuilt, as ours are."""


def floor(runs: int) -> Stats:
    """The floor of a start: a fresh process of the mcigen venv that makes one
    pydantic model."""
    return Stats.of(
        [
            process_seconds([str(PYTHON), "-c", _FLOOR_CODE], Path.cwd())[0]
            for _ in range(runs)
        ]
    )


def _python_name(built: Built) -> str:
    manifest = json.loads(
        (built.work / built.package / "manifest.json").read_text("utf-8")
    )
    return str(next(t["python_name"] for t in manifest["tools"] if t["name"] == TOOL))


def _mci_py_only(built: Built, mci_py: Path, runs: int, floor: Stats, why: str) -> Row:
    argv = _theirs_argv(mci_py, built)
    process_seconds(argv, built.work)
    theirs = [process_seconds(argv, built.work)[0] for _ in range(runs)]
    return Row(
        "cold start",
        f"{built.tools} tools, import + one call",
        "s",
        None,
        Stats.of(theirs),
        floor,
        FLOOR,
        target="cold start" if built.tools == 1000 else None,
        note=f"mcigen not measured: {why}",
    )


def measure_size(
    built: Built, mci_py: Path, runs: int, floor: Stats, log: Callable[[str], None]
) -> Row:
    """The cold-start row of one size; mci-py alone when the package was not built."""
    log(f"cold start: {built.tools} tools")
    if not built.ok:
        why = (
            "its build was stopped at the time budget"
            if built.cold
            else f"its build was not run ({built.skipped})"
        )
        return _mci_py_only(built, mci_py, runs, floor, why)
    function = _python_name(built)
    ours_argv = _ours_argv(built, function)
    theirs_argv = _theirs_argv(mci_py, built)
    first_s, _ = process_seconds(ours_argv, built.work)
    modules = run_script(
        PYTHON,
        _MODULES,
        [built.package, function, json.dumps(schemas.SCALE_PROPS)],
        cwd=built.work,
    )
    process_seconds(
        theirs_argv, built.work
    )  # mci-py's files are compiled; warm the page cache
    ours: list[float] = []
    theirs: list[float] = []
    ours_kib: list[int] = []
    theirs_kib: list[int] = []
    for _ in range(runs):
        seconds, kib = process_seconds(ours_argv, built.work)
        ours.append(seconds)
        ours_kib.append(kib)
        seconds, kib = process_seconds(theirs_argv, built.work)
        theirs.append(seconds)
        theirs_kib.append(kib)
    clean = not modules["after_import"]
    return Row(
        "cold start",
        f"{built.tools} tools, import + one call",
        "s",
        Stats.of(ours),
        Stats.of(theirs),
        floor,
        FLOOR,
        target="cold start" if built.tools == 1000 else None,
        note=(
            f"first run (writes .pyc) {first_s:.2f} s; import loads "
            + ("no tool module" if clean else f"tool modules {modules['after_import']}")
            + f"; the call loads {', '.join(modules['after_call']) or 'none'}"
        ),
        extra={
            "first_run_s": first_s,
            "no_tool_module": clean,
            "tool_modules_after_import": modules["after_import"],
            "tool_modules_after_call": modules["after_call"],
            "package_modules_after_import": modules["package_modules"],
            "peak_rss_mib": statistics.median(ours_kib) / 1024,
            "mci_py_peak_rss_mib": statistics.median(theirs_kib) / 1024,
        },
    )


def missing(tools: int, why: str) -> Row:
    """The row of a size that was not built at all."""
    return Row(
        "cold start",
        f"{tools} tools, import + one call",
        "s",
        None,
        target="cold start" if tools == 1000 else None,
        note=f"not measured: {why}",
    )
