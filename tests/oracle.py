"""The compatibility oracle: the real mci-py, in a virtual environment of its own.

mci-py 1.2 needs ``mcp<2`` (it says so nowhere), so it cannot share the test environment; the venv is
created once under ``.cache/oracle`` and reused by later runs.

Two ways in: :func:`run_oracle` starts a process for one batch of calls;
:class:`OracleSession` (or the shared :func:`oracle_session`) keeps one process alive
for many requests, so that mci-py's slow import is paid once.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import select
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
    """The oracle's interpreter, installed first if need be. Test workers run at
    once (pytest-xdist), so the install is guarded by a file lock."""
    python = ORACLE_DIR / "bin" / "python"
    stamp = ORACLE_DIR / ".installed"
    wanted = " ".join(REQUIREMENTS)
    if stamp.is_file() and stamp.read_text() == wanted:
        return python
    ORACLE_DIR.parent.mkdir(parents=True, exist_ok=True)
    with open(ORACLE_DIR.parent / "oracle.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not stamp.is_file() or stamp.read_text() != wanted:
            _install(python)
            stamp.write_text(wanted)
    return python


def _install(python: Path) -> None:
    """A new oracle venv at ``python``, given the requirements; a failure shows
    the installer's output."""
    venv.create(ORACLE_DIR, with_pip=uv() is None, clear=True)
    done = subprocess.run(
        installer(python) + ["--quiet", *REQUIREMENTS],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"the oracle could not be installed: {done.stderr}")


def uv() -> Path | None:
    """The test venv's uv (``make install`` puts it there): a tenth of pip's time."""
    uv = Path(sys.executable).with_name("uv")
    return uv if uv.is_file() else None


def installer(python: Path) -> list[str]:
    """The command that installs into ``python``'s environment: uv, else its pip."""
    uv_binary = uv()
    if uv_binary is None:
        return [str(python), "-m", "pip", "install"]
    links = os.environ.get("PIP_FIND_LINKS")  # uv reads no pip configuration
    found = ["--find-links", links] if links else []
    return [str(uv_binary), "pip", "install", "--python", str(python), *found]


def run_oracle(
    schema: Path, calls: list[dict[str, Any]], *, shared_client: bool = False
) -> list[dict[str, Any]]:
    """mci-py's answer to each call: {"result": ...} or {"exception": ...}.

    Each call gets a fresh client, unless ``shared_client`` (to show mci-py's state)."""
    request = {"schema": str(schema), "calls": calls, "shared_client": shared_client}
    done = subprocess.run(
        [str(oracle_python()), str(DRIVER)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise RuntimeError("the mci-py oracle failed")
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    return answers


def answers_within(
    schema: Path, calls: list[tuple[str, dict[str, Any], float]]
) -> list[dict[str, Any] | None]:
    """mci-py's answers to (tool, props, seconds) calls in turn, through one oracle
    process: None for a call not answered within its seconds (the calls after it
    are not made)."""
    oracle = subprocess.Popen(
        [str(oracle_python()), str(DRIVER), "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert oracle.stdin is not None and oracle.stdout is not None
    answers: list[dict[str, Any] | None] = []
    try:
        for tool, props, wait in calls:
            call = {"op": "call", "schema": str(schema), "tool": tool, "props": props}
            oracle.stdin.write(json.dumps(call) + "\n")
            oracle.stdin.flush()
            ready, _, _ = select.select([oracle.stdout], [], [], wait)
            if not ready:
                answers.append(None)
                break
            answers.append(json.loads(oracle.stdout.readline()))
    finally:
        oracle.kill()
        oracle.wait()
    return answers


class OracleError(RuntimeError):
    """The persistent oracle process failed or did not understand a request."""


class OracleSession:
    """One long-lived mci-py process answering requests one at a time.

    Importing mci-py costs ~0.6 s; a session pays it once, however many calls follow.
    Every call still runs through a fresh ``MCIClient`` inside the driver.
    """

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = subprocess.Popen(
            [str(oracle_python()), str(DRIVER), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # mci-py's own complaints go straight to the test's stderr
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        process = self._process
        if process is None or process.poll() is not None:
            raise OracleError("the mci-py oracle process is not running")
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        line = process.stdout.readline()
        if not line:
            raise OracleError(
                f"the mci-py oracle exited (code {process.wait()}) without answering"
            )
        answer: dict[str, Any] = json.loads(line)
        if "protocol_error" in answer:
            raise OracleError(answer["protocol_error"])
        return answer

    def call(
        self,
        schema: Path | str,
        tool: str,
        props: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """mci-py's answer to one call: {"result": ...} or {"exception": ...}."""
        return self._ask(
            {
                "op": "call",
                "schema": str(schema),
                "tool": tool,
                "props": props or {},
                "env": env or {},
            }
        )

    def batch(
        self, schema: Path | str, calls: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Like :func:`run_oracle`, without starting a process."""
        answers: list[dict[str, Any]] = self._ask(
            {"op": "batch", "schema": str(schema), "calls": calls}
        )["answers"]
        return answers

    def render(
        self,
        text: str,
        props: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """mci-py's answer for a text tool whose text is ``text`` (no inputSchema)."""
        return self._ask(
            {"op": "render", "text": text, "props": props or {}, "env": env or {}}
        )

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        assert process.stdin is not None and process.stdout is not None
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()

    def __enter__(self) -> OracleSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_shared: OracleSession | None = None


def oracle_session() -> OracleSession:
    """The process-wide shared session, started on first use, closed at exit."""
    global _shared
    if (
        _shared is None
        or _shared._process is None
        or _shared._process.poll() is not None
    ):
        _shared = OracleSession()
        atexit.register(_shared.close)
    return _shared
