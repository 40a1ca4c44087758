"""Running the command of a cli tool: argv as a list (never a shell), sync or async.

A timed-out command is killed with its whole process group. Output is decoded as
UTF-8 with universal newlines, and results carry mci-py's message and metadata.
"""

from __future__ import annotations

import signal
import subprocess
from dataclasses import dataclass
from typing import Any

from .cli_watchdog import kill_group, watch
from .paths import WorkingDirectory
from .results import ToolResult, error_result, text_result


@dataclass(frozen=True, slots=True)
class CliCall:
    argv: list[str]
    cwd: WorkingDirectory | None
    """Opened and checked: the command starts in it; closed once it has started."""
    timeout_s: float


_SPAWN: dict[str, Any] = {
    "stdin": subprocess.DEVNULL,
    "stdout": subprocess.PIPE,
    "stderr": subprocess.PIPE,
    "start_new_session": True,  # its own process group, so a timeout kills children too
}
"""How both runners start a command: no input, output captured, in a new session."""


def run_cli(call: CliCall) -> ToolResult:
    try:
        process = subprocess.Popen(call.argv, cwd=call.cwd, **_SPAWN)
    except OSError as error:
        return error_result(str(error))
    finally:
        if call.cwd is not None:
            call.cwd.close()
    # The watchdog kills the group: communicate(timeout=...) would poll for the exit
    # with sleeps, which costs about a millisecond on every call of a quick command.
    deadline = watch(process.pid, call.timeout_s)
    try:
        stdout, stderr = process.communicate()
    finally:
        deadline.cancel()
    if deadline.fired and process.returncode == -signal.SIGKILL:
        return _timed_out(call)
    return _finish(stdout, stderr, process.returncode)


async def run_cli_async(call: CliCall) -> ToolResult:
    import asyncio  # here: a package that never awaits a command does not load it

    try:
        process = await asyncio.create_subprocess_exec(
            *call.argv, cwd=call.cwd, **_SPAWN
        )
    except OSError as error:
        return error_result(str(error))
    finally:
        if call.cwd is not None:
            call.cwd.close()
    try:
        async with asyncio.timeout(call.timeout_s):  # no task of its own, as wait_for
            stdout, stderr = await process.communicate()
    except TimeoutError:
        kill_group(process.pid)
        await process.wait()
        return _timed_out(call)
    assert process.returncode is not None  # communicate() waited for the exit
    return _finish(stdout, stderr, process.returncode)


def _timed_out(call: CliCall) -> ToolResult:
    return error_result(
        f"Command '{call.argv}' timed out after {call.timeout_s:g} seconds"
    )


def _text(data: bytes) -> str:
    """What ``subprocess.run(..., text=True)`` gives: UTF-8, universal newlines."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _finish(stdout_data: bytes, stderr_data: bytes, code: int) -> ToolResult:
    try:
        stdout, stderr = _text(stdout_data), _text(stderr_data)
    except UnicodeDecodeError as error:
        return error_result(str(error))
    metadata: dict[str, Any] = {
        "exit_code": code,
        "stdout_bytes": len(stdout.encode()),
        "stderr_bytes": len(stderr.encode()),
        "stderr": stderr,
    }
    if code == 0:
        return text_result(stdout, metadata)
    message = f"Command exited with code {code}" + (f": {stderr}" if stderr else "")
    return error_result(message, {**metadata, "stdout": stdout})
