"""The venvs of the serving rows, created once under ``.cache/bench`` (gitignored)
and reused: mcix (mci-py's CLI, whose ``mcix run`` serves a schema over stdio) and
the floor (the SDK mcigen serves with, at the same version, and nothing else).

mcix 1.1 runs on mci-py 1.2, which needs ``mcp<2`` (it says so nowhere; see
``tests/oracle.py``). A venv that cannot be made (no registry, say) is reported
by :class:`Missing`, and the rows that need it say so.
"""

from __future__ import annotations

import fcntl
import importlib.metadata
import subprocess
import venv
from dataclasses import dataclass
from pathlib import Path

from benchmarks.paths import ROOT

CACHE = ROOT / ".cache" / "bench"
MCIX = ("mcix==1.1.0", "mci-py==1.2", "mcp<2")


def floor_requirements() -> tuple[str, ...]:
    """The SDK, ASGI server and HTTP client of mcigen's venv, at its versions."""
    return tuple(
        f"{name}=={importlib.metadata.version(name)}"
        for name in ("mcp", "uvicorn", "httpx")
    )


@dataclass(frozen=True)
class Missing:
    """Why a venv is not there."""

    reason: str


def _venv(name: str, requirements: tuple[str, ...]) -> Path | Missing:
    """The interpreter of venv ``name`` with ``requirements``, installed first if
    need be (under a file lock: two runs may start at once)."""
    home = CACHE / name
    python = home / "bin" / "python"
    stamp = home / ".installed"
    wanted = " ".join(requirements)
    if stamp.is_file() and stamp.read_text() == wanted:
        return python
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and stamp.read_text() == wanted:
            return python
        try:
            venv.create(home, with_pip=True, clear=True)
        except (OSError, subprocess.CalledProcessError) as error:
            return Missing(f"python -m venv {home}: {error}")
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", *requirements],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines() or ["pip failed"]
            return Missing(f"pip install {wanted}: {lines[-1][:160]}")
        stamp.write_text(wanted)
    return python


def mcix() -> Path | Missing:
    """The ``mcix`` program."""
    python = _venv("mcix", MCIX)
    return python if isinstance(python, Missing) else python.parent / "mcix"


def floor() -> Path | Missing:
    """The floor's interpreter."""
    return _venv("floor", floor_requirements())
