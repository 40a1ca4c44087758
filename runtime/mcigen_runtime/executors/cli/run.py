"""Running the command of a cli tool: argv as a list (never a shell), sync or async.

Every call is bounded. It ends at its deadline whatever still holds the output
pipes: the command's process group is killed, and so is every process that left
the group but kept the pipes open (see :mod:`mcigen_runtime.executors.cli.survivors`). Of stdout and of
stderr the last ``cli_output`` bytes are kept (see :mod:`mcigen_runtime.limits`); a command whose
output passes that is stopped at once. A command line holding a NUL byte, or an
option where a property fills an operand, does not run (see :mod:`mcigen_runtime.executors.cli.args`).
Output is decoded as UTF-8 with universal newlines, and results carry mci-py's
message and metadata; an MTDF tool's failing command is told as Ahma tells it,
stdout included.
"""

from __future__ import annotations

import os
import re
import select
import shlex
import time
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ...limits import active
from ...path_policy import current_path
from ...results import ToolResult, error_result, text_result
from ..child_env import child_env
from ..running import ended_because, spawning
from ..started import command_starting, commands_watched
from .args import refusal
from .argv import remove_files
from .call import CliCall
from .interrupts import held_back
from .process import Running, spawn
from .wakeup import drain, woken_by_signals

if TYPE_CHECKING:
    import asyncio

DRY_RUN: ContextVar[bool] = ContextVar("mcigen_cli_dry_run", default=False)
"""Set: a call says what it would run (its argv and working directory) in a
result, and runs nothing (``python -m PKG call --dry-run``, ``describe``)."""
_HELD_PATH = re.compile(r"^/proc/self/fd/(\d+)(/.*)?$")

_EXIT_POLL_S = 0.001
"""Where no pidfd tells the exit, how often a runner looks for it once the pipes
have closed."""


def _start(call: CliCall) -> Running | ToolResult:
    try:
        refused = refusal(call.argv, call.operands)
        if refused is not None:
            return error_result(refused)
        if commands_watched():
            command_starting(call.argv[0], _where(call), call.timeout_s)
        # the start lock is held until the command is tracked: stopping every
        # command from another thread (a server's shutdown) waits, then stops it too
        with spawning:
            ending = ended_because()
            if ending is not None:
                return error_result(f"Command '{call.argv}' was not started: {ending}")
            started = spawn(
                call.argv,
                call.cwd,
                child_env(call.env, call.env_mode, call.pass_env),
                held=call.cwd.held if call.cwd is not None else (),
                confined_to=_confinement(call),
            )
            return Running(started, call.timeout_s, active(call.limits).cli_output)
    except OSError as error:
        return error_result(str(error))
    except ValueError as error:  # a NUL byte or an '=' in the environment
        return error_result(f"Cannot start the command: {error}")
    finally:
        if call.cwd is not None:
            call.cwd.close()


def _where(call: CliCall) -> str:
    """The path of the directory the command starts in, to tell."""
    return call.cwd.path if call.cwd is not None else current_path()


def _confinement(call: CliCall) -> tuple[str, ...] | None:
    if call.confined_to is not None or call.cwd is None:
        return call.confined_to
    return call.cwd.confined_to


def run_cli(call: CliCall) -> ToolResult:
    try:
        return _dry_run(call) if DRY_RUN.get() else _run(call)
    finally:
        if call.temp_files:
            remove_files(call.temp_files)


def _dry_run(call: CliCall) -> ToolResult:
    """What the call would run, and where: what ``_start`` would refuse is
    refused; a path operand held as a descriptor is shown by its path."""
    refused = refusal(call.argv, call.operands)
    if refused is not None:
        return error_result(refused)
    where = os.path.normpath(_where(call))
    argv = [_shown(word) for word in call.argv]
    metadata = {
        "dry_run": True,
        "argv": argv,
        "cwd": where,
        "timeout_s": call.timeout_s,
    }
    return text_result(f"in {where}: {shlex.join(argv)}", metadata)


def _shown(word: str) -> str:
    held = _HELD_PATH.match(word)
    if held is None:
        return word
    try:
        return os.readlink(f"/proc/self/fd/{held.group(1)}") + (held.group(2) or "")
    except OSError:
        return word


def _run(call: CliCall) -> ToolResult:
    run = None
    try:
        with held_back():
            started = _start(call)
            if isinstance(started, ToolResult):
                return started
            run = started
        with woken_by_signals() as signalled:
            _wait(run, signalled)
        if run.exit_fd is None:  # no pidfd: wait for the exit now
            while not run.over_limit and run.exit_code() is None and run.left() > 0:
                time.sleep(_EXIT_POLL_S)
    except BaseException:
        if run is not None:
            run.stop()
        raise
    code = run.ended()
    if code is not None:
        return _outcome(call, run, code, None)
    code = run.exit_code()
    return _outcome(call, run, code, run.stop())


def _wait(run: Running, signalled: int | None) -> None:
    """Read the command's output until it is done or its deadline has passed;
    return early when ``signalled`` is readable, so that the signal's handler runs."""
    poller = select.poll()
    for fd in run.waiting:
        poller.register(fd, select.POLLIN)
    if signalled is not None:
        poller.register(signalled, select.POLLIN)
    while not run.done and (left := run.left()) > 0:
        for fd, _ in poller.poll(left * 1000):
            if fd == signalled:
                drain(fd)
                continue
            run.ready(fd)
            if fd not in run.waiting:
                poller.unregister(fd)


async def run_cli_async(call: CliCall) -> ToolResult:
    try:
        return _dry_run(call) if DRY_RUN.get() else await _run_async(call)
    finally:
        remove_files(call.temp_files)


async def _run_async(call: CliCall) -> ToolResult:
    started = _start(call)
    if isinstance(started, ToolResult):
        return started
    run = started
    try:
        await _until_done(run)
    except BaseException:  # cancelled: nothing of the command outlives the call
        _stop_in_worker(run)
        raise
    code = run.ended()
    if code is not None:
        return _outcome(call, run, code, None)
    code = run.exit_code()
    return _outcome(call, run, code, await _stop_in_worker(run))


def _stop_in_worker(run: Running) -> asyncio.Future[list[int]]:
    """Stop the command in a worker thread, so the event loop runs on through its
    grace; a cancelled call does not wait for it, and the loop's ``asyncio.run``
    does. Where the loop takes no more work (it is closing), stop it here."""
    import asyncio

    loop = asyncio.get_running_loop()
    try:
        return loop.run_in_executor(None, run.stop)
    except RuntimeError:
        done = loop.create_future()
        done.set_result(run.stop())
        return done


async def _until_done(run: Running) -> None:
    """Read the command's output until it is done or its deadline has passed."""
    import asyncio  # here: a package that never awaits a command does not load it

    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()

    def on_ready(fd: int) -> None:
        run.ready(fd)
        if fd not in run.waiting:
            loop.remove_reader(fd)
        if run.done and not finished.done():
            finished.set_result(None)

    for fd in run.waiting:
        loop.add_reader(fd, on_ready, fd)
    try:
        async with asyncio.timeout(max(run.left(), 0)):
            await finished
            while not run.over_limit and run.exit_code() is None:  # no pidfd
                await asyncio.sleep(_EXIT_POLL_S)
    except TimeoutError:
        pass
    finally:
        for fd in run.waiting:
            loop.remove_reader(fd)


def _outcome(
    call: CliCall, run: Running, code: int | None, killed: list[int] | None
) -> ToolResult:
    """The call's result, the command reaped; ``killed`` is None when it ended by
    itself, else the processes stopping it killed outside its group."""
    if run.stopped_because is not None:
        return _stopped(call, run)
    if run.over_limit:
        return _over_limit(run)
    if killed is not None:  # the deadline came first
        return _timed_out(call, run, code, killed)
    assert code is not None
    return _finish(run, code, call.ahma_wording)


def _stopped(call: CliCall, run: Running) -> ToolResult:
    """Every command of the process was stopped (its server is shutting down)."""
    return error_result(
        f"Command '{call.argv}' was stopped: {run.stopped_because}",
        {"exit_code": run.process.returncode},
    )


def _timed_out(
    call: CliCall, run: Running, code: int | None, survivors: list[int]
) -> ToolResult:
    message = (
        f"Command '{call.argv}' timed out after {round(run.timeout_s, 3):g} seconds"
    )
    if code is not None:
        message += (
            f": it exited with code {code}, but processes it started kept its "
            "output open"
        )
    if not survivors:
        return error_result(message)
    pids = ", ".join(map(str, survivors))
    message += (
        f"; killed {len(survivors)} process(es) that had left its process group "
        f"and still held its output (pid {pids})"
    )
    return error_result(message, {"killed_pids": survivors})


def _over_limit(run: Running) -> ToolResult:
    stdout, stderr = run.stdout.text(), run.stderr.text()
    limit = run.stdout.limit
    cut = [
        name
        for name, tail in (("stdout", run.stdout), ("stderr", run.stderr))
        if tail.dropped
    ]
    message = (
        f"Command stopped: its {' and '.join(cut)} passed the cli_output limit of "
        f"{limit} bytes. Kept at most the last {limit} bytes of each (dropped: "
        f"{run.stdout.dropped} bytes of stdout, {run.stderr.dropped} of stderr); "
        "its stdout follows.\n"
    )
    return error_result(
        message + stdout,
        {
            **_metadata(run.process.returncode, stdout, stderr),
            "stdout": stdout,
            "stdout_truncated_bytes": run.stdout.dropped,
            "stderr_truncated_bytes": run.stderr.dropped,
        },
    )


def _metadata(code: int | None, stdout: str, stderr: str) -> dict[str, Any]:
    return {
        "exit_code": code,
        "stdout_bytes": len(stdout.encode()),
        "stderr_bytes": len(stderr.encode()),
        "stderr": stderr,
    }


def _finish(run: Running, code: int, ahma_wording: bool) -> ToolResult:
    try:
        stdout, stderr = run.stdout.text(), run.stderr.text()
    except UnicodeDecodeError as error:
        return error_result(str(error))
    metadata = _metadata(code, stdout, stderr)
    if code == 0:
        return text_result(stdout, metadata)
    if ahma_wording:  # each stream is at most the cli_output limit (see Tail)
        message = (
            f"Command failed with exit code {code}: stderr: {stderr}, stdout: {stdout}"
        )
    else:
        message = f"Command exited with code {code}" + (f": {stderr}" if stderr else "")
    return error_result(message, {**metadata, "stdout": stdout})
