"""The compatibility oracle: the real mci-py, in a virtual environment of its own.

mci-py 1.2 needs ``mcp<2`` (it says so nowhere), so it cannot share the test environment; the venv is
created once under ``.cache/oracle`` and reused by later runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ORACLE_DIR = ROOT / ".cache" / "oracle"
MCI_PY = "mci-py==1.2"
REQUIREMENTS = (MCI_PY, "mcp<2")
DRIVER = Path(__file__).resolve().parent / "oracle_driver.py"


def oracle_python() -> Path:
    python = ORACLE_DIR / "bin" / "python"
    stamp = ORACLE_DIR / ".installed"
    if not stamp.is_file() or stamp.read_text() != " ".join(REQUIREMENTS):
        venv.create(ORACLE_DIR, with_pip=True, clear=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", *REQUIREMENTS],
            check=True,
            capture_output=True,
        )
        stamp.write_text(" ".join(REQUIREMENTS))
    return python


def run_oracle(schema: Path, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """mci-py's answer to each call: {"result": ...} or {"exception": ...}."""
    done = subprocess.run(
        [str(oracle_python()), str(DRIVER)],
        input=json.dumps({"schema": str(schema), "calls": calls}),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise RuntimeError("the mci-py oracle failed")
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    return answers
