"""A built package's server, ``python -m PKG COMMAND ARG...``, as a child process of
``mcigen serve``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .marker import MARKER, marked_package


@dataclass(frozen=True)
class BuiltPackage:
    """Where ``python -m`` finds a package a build wrote."""

    name: str
    parent: Path
    """The directory that holds the package (what goes on ``PYTHONPATH``)."""

    @classmethod
    def at(cls, output: Path, project: bool) -> BuiltPackage:
        """The package a build to ``output`` wrote: ``output`` itself, or the one
        a project's marker names inside it."""
        output = output.resolve()
        if not project:
            return cls(output.name, output.parent)
        name = marked_package((output / MARKER).read_bytes())
        if name is None:
            raise ValueError(f"{output / MARKER} names no package")
        return cls(name, output)


class ServerProcess:
    """``python -m PKG COMMAND ARG...`` with this Python, the package importable,
    and mcigen's standard streams (so a stdio server talks to mcigen's client)."""

    def __init__(self, package: BuiltPackage, command: Sequence[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", package.name, *command], env=_importable(package)
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def exit_status(self) -> int | None:
        """How it ended (None while it runs), as a shell reports it: its exit code,
        or 128 + the signal that ended it."""
        code = self.process.poll()
        return None if code is None else _shell_status(code)

    def terminate(self) -> None:
        """Send SIGTERM (safe in a signal handler: it never waits)."""
        self.process.send_signal(signal.SIGTERM)

    def stop(self) -> int:
        """SIGTERM, then wait until it has exited: the server answers the calls in
        flight as on any SIGTERM. Its exit status."""
        self.terminate()
        return _shell_status(self.process.wait())


CHECK_START_TIMEOUT = 300.0
"""How long a start-up check may take: a broker starts each MCP server within a
minute, but there may be several."""


def start_problem(package: BuiltPackage, command: Sequence[str]) -> str | None:
    """Why ``python -m PKG COMMAND ARG... --check-start`` says the server would
    not start (its exit status, or its taking too long); None when it would. Its
    stdin is closed, so it cannot read mcigen's; its stderr is mcigen's, where it
    says what failed."""
    try:
        done = subprocess.run(
            # -P: not the current directory first, where DIR's old package may be
            [sys.executable, "-P", "-m", package.name, *command, "--check-start"],
            env=_importable(package),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            timeout=CHECK_START_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:  # run() has killed it
        return f"its start-up took more than {CHECK_START_TIMEOUT:g} s"
    status = _shell_status(done.returncode)
    return None if status == 0 else f"exit status {status}"


def _importable(package: BuiltPackage) -> dict[str, str]:
    """mcigen's environment, with the package importable."""
    paths = [str(package.parent), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}


def _shell_status(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode
