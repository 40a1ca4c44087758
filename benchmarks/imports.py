"""Row 5: import cost of the runtime, from ``python -X importtime``.

For importing the package alone, and for importing it and making a first text call and
a first http call: the total import time (the sum of every module's own time, so the
interpreter's start-up imports are included; the baseline ``python -c pass`` shows
them) and the top-level packages that cost the most. mci-py does the same with
``import mcipy`` and ``MCIClient(...).execute``.
"""

from __future__ import annotations

import re
import statistics
import subprocess
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.calls import PACKAGE
from benchmarks.paths import PYTHON
from benchmarks.report import Row
from benchmarks.timing import Stats

_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)")

_CASES = (
    (
        "import the package",
        f"import {PACKAGE}",
        "import mcipy",
    ),
    (
        "import + first text call",
        f"import {PACKAGE}; {PACKAGE}.greet(name='Ann')",
        "from mcipy import MCIClient; "
        "MCIClient(schema_file_path='bench.mci.json').execute('greet', {'name': 'Ann'})",
    ),
    (
        "import + first http call",
        f"import {PACKAGE}; {PACKAGE}.fetch()",
        "from mcipy import MCIClient; "
        "MCIClient(schema_file_path='bench.mci.json').execute('fetch', {})",
    ),
)


def importtime(python: Path, code: str, cwd: Path) -> tuple[float, dict[str, float]]:
    """Total µs of imports, and µs per top-level package (own times summed)."""
    done = subprocess.run(
        [str(python), "-X", "importtime", "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{code!r} failed:\n{done.stderr[-3000:]}")
    by_package: dict[str, float] = defaultdict(float)
    for line in done.stderr.splitlines():
        match = _LINE.match(line)
        if match:
            by_package[match.group(3).split(".")[0]] += float(match.group(1))
    return sum(by_package.values()), dict(by_package)


def _measure(
    variants: list[tuple[Path, str]], cwd: Path, runs: int
) -> list[tuple[Stats, list[Any]]]:
    """Each (python, code): the total over ``runs`` runs, and its ten costliest
    top-level packages (medians). The variants alternate, one run each per round."""
    for python, code in variants:
        importtime(python, code, cwd)  # writes .pyc, warms the page cache
    totals: list[list[float]] = [[] for _ in variants]
    packages: list[dict[str, list[float]]] = [defaultdict(list) for _ in variants]
    for _ in range(runs):
        for index, (python, code) in enumerate(variants):
            total, by_package = importtime(python, code, cwd)
            totals[index].append(total)
            for name, us in by_package.items():
                packages[index][name].append(us)
    out = []
    for index in range(len(variants)):
        top = sorted(
            ((name, statistics.median(v)) for name, v in packages[index].items()),
            key=lambda item: -item[1],
        )
        out.append(
            (Stats.of(totals[index]), [[name, round(us)] for name, us in top[:10]])
        )
    return out


def _top(top: list[Any], count: int = 4) -> str:
    return ", ".join(f"{name} {us / 1000:.0f} ms" for name, us in top[:count])


def measure(
    work: Path, mci_py: Path, runs: int, log: Callable[[str], None]
) -> list[Row]:
    out = []
    for name, ours_code, theirs_code in _CASES:
        log(f"imports: {name}")
        (ours, ours_top), (theirs, theirs_top), (floor, floor_top) = _measure(
            [(PYTHON, ours_code), (mci_py, theirs_code), (PYTHON, "pass")], work, runs
        )
        out.append(
            Row(
                "import (-X importtime)",
                name,
                "us",
                ours,
                theirs,
                floor,
                "python -c pass (start-up imports)",
                note=f"top: {_top(ours_top)} | mci-py: {_top(theirs_top, 3)}",
                extra={
                    "top_packages_us": ours_top,
                    "mci_py_top_packages_us": theirs_top,
                    "interpreter_top_packages_us": floor_top,
                },
            )
        )
    return out
