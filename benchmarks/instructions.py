"""Instructions per call, counted by callgrind: deterministic on a loaded machine.

    python -m benchmarks.instructions PYTHON SETUP EXPRESSION...

For each expression: the instructions of a process that runs ``SETUP`` and then
evaluates the expression N times (``N`` in the environment, 2000 by default), minus
those of one that evaluates it no times, divided by N (``PYTHONHASHSEED=0``, in the
current directory). Wall-clock figures on a shared machine move by ±40% between
runs; these move by a few instructions. Needs ``valgrind``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path


def count(python: str, setup: str, expression: str, calls: int) -> int:
    """Instructions of a process evaluating ``expression`` ``calls`` times after
    ``setup`` (and three times before, so that first-call caches are warm)."""
    code = (
        f"{setup}\ndef _loop(_n):\n    for _ in range(_n):\n        {expression}\n"
        f"_loop(3)\n_loop({calls})\n"
    )
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
            + [python, "-c", code],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no total")


def per_call(python: str, setup: str, expression: str, calls: int) -> float:
    return (
        count(python, setup, expression, calls) - count(python, setup, expression, 0)
    ) / calls


def main(argv: list[str]) -> None:
    python, setup, *expressions = argv
    calls = int(os.environ.get("N", "2000"))
    for expression in expressions:
        print(f"{per_call(python, setup, expression, calls):10,.0f}  {expression}")


if __name__ == "__main__":
    main(sys.argv[1:])
