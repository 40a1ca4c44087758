"""``python -m mcigen ARGS`` as a real process in a session of its own, what it
writes read line by line as it comes, so that a test waits on a line."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Literal

PATIENCE = 120.0
"""How long a build or a restart may take before a test gives up on it (not a
timing assertion: a slow machine only waits longer)."""


class McigenProcess:
    """``python -m mcigen ARGS`` in ``cwd``, in a session of its own; the lines it
    writes to ``stream`` (stdout: stderr too; stderr: stdout dropped)."""

    def __init__(
        self, cwd: Path, *args: str, stream: Literal["stdout", "stderr"]
    ) -> None:
        merged = stream == "stdout"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcigen", *args],
            cwd=cwd,
            stdout=subprocess.PIPE if merged else subprocess.DEVNULL,
            stderr=subprocess.STDOUT if merged else subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self._arrived = threading.Condition()
        threading.Thread(
            target=self._read, args=(getattr(self.process, stream),), daemon=True
        ).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._arrived:
                self.lines.append(line.rstrip("\n"))
                self._arrived.notify_all()

    def line(self, pattern: str, after: int = 0) -> tuple[int, re.Match[str]]:
        """The first line from index ``after`` on that ``pattern`` matches (waiting
        for it): its index and the match."""

        def found() -> tuple[int, re.Match[str]] | None:
            for index in range(after, len(self.lines)):
                match = re.search(pattern, self.lines[index])
                if match:
                    return index, match
            return None

        with self._arrived:
            hit = self._arrived.wait_for(
                lambda: found() or self.process.poll() is not None, PATIENCE
            )
            result = found()
        assert result, f"no line matching {pattern!r} (exit: {hit}):\n" + self.log
        return result

    def count(self, pattern: str, times: int) -> None:
        """Wait until ``times`` lines have matched ``pattern``."""
        index = -1
        for _ in range(times):
            index = self.line(pattern, after=index + 1)[0]

    @property
    def log(self) -> str:
        return "\n".join(self.lines)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Send ``sig`` to mcigen alone; its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(PATIENCE)
        finally:
            self.kill()

    def kill(self) -> None:
        """SIGKILL to its whole session, if mcigen still runs."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
