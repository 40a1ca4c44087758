"""A cli tool's call is bounded (issue 14, groups 1 and 5), with real processes.

Of stdout and of stderr the last ``cli_output`` bytes are kept and the command is
stopped as soon as one passes them (``yes`` took 1.5 GB in 3 s); a NUL byte in the
command line is an error result (it was a traceback); and a call ends at its
deadline whatever holds its output: a child that left the process group (``setsid
sleep 30 &``) held a 1 s call for 30 s and was left running, and the async twin
then failed with ``Event loop is closed``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..conftest import built_package, schema_of, write_schema
from ..oracle import run_oracle
from ..sleepers import gone, own_length, sleepers
from .support import built_from_tools

PY = sys.executable
MIB = 1 << 20

# One sleeper length for each test (tests/sleepers.py): a clean-up must not kill
# another test's sleepers.
ESCAPED, HELD, CANCELLED, ROW54, SILENT = (
    own_length(s) for s in (977, 976, 975, 974, 973)
)

TOOLS: list[dict[str, Any]] = [
    {"name": "flood", "execution": {"type": "cli", "command": "yes"}},
    {
        "name": "burst",
        "description": "50 bytes on stderr, 5000 and 'END' on stdout, then a nap",
        "execution": {
            "type": "cli",
            "command": PY,
            "args": [
                "-c",
                "import os, time; os.write(2, b'e' * 50 + b'\\n'); "
                "os.write(1, b'x' * 5000 + b'END\\n'); time.sleep(30)",
            ],
        },
    },
    {
        "name": "errorBurst",
        "execution": {
            "type": "cli",
            "command": PY,
            "args": [
                "-c",
                "import os, time; os.write(2, ('é' * 3000 + 'LAST\\n').encode()); "
                "time.sleep(30)",
            ],
        },
    },
    {
        "name": "run",
        "inputSchema": {
            "type": "object",
            "properties": {"command": {"type": "string"}, "arg": {"type": "string"}},
            "required": ["command", "arg"],
        },
        "execution": {
            "type": "cli",
            "command": "{{props.command}}",
            "args": ["{{props.arg}}"],
        },
    },
    {
        "name": "escape",
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": ["-c", f"setsid sleep {ESCAPED} & echo started"],
            "timeout_ms": 500,
        },
    },
    {
        "name": "held",
        "description": "exits at once, but an escaped child keeps stderr open",
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": ["-c", f"setsid sleep {HELD} >/dev/null & echo done"],
            "timeout_ms": 500,
        },
    },
    {
        "name": "quietThenExit",
        "description": "closes its output, runs on a while, exits 3",
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": ["-c", "exec >&- 2>&-; sleep 0.3; exit 3"],
        },
    },
    {
        "name": "quietPastDeadline",
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": ["-c", f"exec >&- 2>&-; exec sleep {SILENT}"],
            "timeout_ms": 500,
        },
    },
    {
        "name": "pidAndSleep",
        "inputSchema": {
            "type": "object",
            "properties": {"pidfile": {"type": "string"}},
            "required": ["pidfile"],
        },
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": [
                "-c",
                f'echo $$ > "$0"; exec sleep {CANCELLED}',
                "{{props.pidfile}}",
            ],
        },
    },
]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    yield from built_from_tools(tmp_path_factory, "clibounds", TOOLS)


@pytest.fixture(autouse=True)
def no_sleeper_left() -> Iterator[None]:
    yield
    for marker in (ESCAPED, HELD, CANCELLED, ROW54):  # whatever a failed test left
        for pid in sleepers(marker):
            os.kill(pid, 9)


def _in_own_process(package: ModuleType, script: str, *python: str) -> str:
    """What ``script`` prints in a fresh interpreter that has imported the package
    as ``p``; it must leave nothing on stderr."""
    done = subprocess.run(
        [PY, *python, "-c", f"import {package.__name__} as p\n{script}"],
        cwd=Path(package.__path__[0]).parent,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stderr == ""
    return done.stdout


def test_a_flood_keeps_the_last_10_mib_and_memory_stays_flat(
    package: ModuleType,
) -> None:
    """``yes`` until the default limit, in a process of its own to read its peak RSS."""
    printed = _in_own_process(
        package,
        "import json\n"
        # VmHWM, the peak of this process's own memory: ru_maxrss would also count
        # the pytest process it was forked from, as exec keeps the old high mark
        "def peak_mib():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1]) // 1024\n"
        "r = p.flood()\n"
        "m = r.metadata\n"
        "print(json.dumps([r.isError, r.text.partition(\"\\n\")[0], m['stdout_bytes'],"
        " m['stdout_truncated_bytes'], m['exit_code'],"
        " peak_mib()]))\n",
    )
    is_error, first_line, kept, dropped, code, peak_mib = json.loads(printed)
    # stopped by SIGTERM, which `yes` does not ignore: no SIGKILL was needed
    assert (is_error, kept, dropped > 0, code) == (True, 10 * MIB, True, -15)
    assert first_line == (
        "Command stopped: its stdout passed the cli_output limit of 10485760 bytes. "
        f"Kept at most the last 10485760 bytes of each (dropped: {dropped} bytes of stdout, "
        "0 of stderr); its stdout follows."
    )
    assert peak_mib < 200  # the output it kept, twice (bytes and text), and Python


def test_the_tail_is_kept_and_the_command_stopped_at_a_call_limit(
    package: ModuleType,
) -> None:
    limited = importlib.import_module("mcigen_runtime.limits").limited
    started = time.monotonic()
    with limited(cli_output=1000):
        result = package.burst()
    assert time.monotonic() - started < 20  # stopped at the limit, not after its nap
    assert result.isError
    metadata = result.metadata
    assert metadata["stdout"] == "x" * 996 + "END\n"
    assert metadata["stdout_truncated_bytes"] == 5004 - 1000
    assert metadata["stderr_truncated_bytes"] == 0
    assert metadata["stderr"] == "e" * 50 + "\n"
    assert result.text.endswith("its stdout follows.\n" + "x" * 996 + "END\n")


def test_a_cut_stderr_starts_on_a_whole_character(package: ModuleType) -> None:
    limited = importlib.import_module("mcigen_runtime.limits").limited
    with limited(cli_output=101):  # 'é' is two bytes: the cut splits one
        result = package.error_burst()
    assert result.text.startswith("Command stopped: its stderr passed")
    assert result.metadata["stderr"] == "é" * 48 + "LAST\n"
    assert result.metadata["stderr_truncated_bytes"] == 6005 - 101


def test_the_package_limit_and_the_clients_apply(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, schema_of(TOOLS[1]), "limit.mci.json")
    with built_package(
        schema, tmp_path / "clilimitpkg", "--limit", "cli_output=2000"
    ) as package:
        assert package.burst().metadata["stdout_truncated_bytes"] == 5004 - 2000
        client = package.Client(limits={"cli_output": 4000})
        result = client.execute("burst").result
        assert result.metadata["stdout_truncated_bytes"] == 5004 - 4000


@pytest.mark.parametrize(
    ("command", "arg", "message"),
    [
        ("echo", "a\0b", "Refused: argument 1 holds a NUL byte"),
        ("ec\0ho", "a", "Refused: the command holds a NUL byte"),
    ],
)
def test_a_nul_byte_is_an_error_result_sync_and_async(
    package: ModuleType, command: str, arg: str, message: str
) -> None:
    for result in (
        package.run(command=command, arg=arg),
        asyncio.run(package.run_async(command=command, arg=arg)),
    ):
        assert result.isError
        assert result.text.startswith(message)


def test_a_nul_byte_in_the_clients_env_is_an_error_result(package: ModuleType) -> None:
    client = package.Client(env_vars={"BAD": "a\0b"})
    result = client.execute("run", {"command": "true", "arg": "x"}).result
    assert (result.isError, result.text) == (
        True,
        "Cannot start the command: embedded null byte",
    )


def test_an_escaped_child_cannot_hold_the_call_sync(package: ModuleType) -> None:
    started = time.monotonic()
    result = package.escape()
    assert time.monotonic() - started < 10  # not the sleeper's 977 s or more
    _assert_killed_escapee(result, ESCAPED)


def test_an_escaped_child_cannot_hold_the_call_async(package: ModuleType) -> None:
    results = asyncio.run(_twice(package))
    for result in results:
        _assert_killed_escapee(result, ESCAPED)


async def _twice(package: ModuleType) -> list[Any]:
    return list(await asyncio.gather(package.escape_async(), package.escape_async()))


def _assert_killed_escapee(result: Any, sleeper: str) -> None:
    assert result.isError
    assert result.text.startswith(
        "Command '['sh', '-c', 'setsid sleep "
        f"{sleeper} & echo started']' timed out after 0.5 seconds: it exited with "
        "code 0, but processes it started kept its output open; killed 1 process(es) "
        "that had left its process group and still held its output (pid "
    )
    assert gone(result.metadata["killed_pids"])


def test_a_child_holding_only_stderr_is_found_too(package: ModuleType) -> None:
    result = package.held()
    assert "killed 1 process(es)" in result.text
    assert gone(result.metadata["killed_pids"])


def test_the_async_twin_leaves_no_loop_error_behind(package: ModuleType) -> None:
    """In a process of its own: the loop closes while an escaped child lives on.

    Debug mode's report of a step over 0.1 s is a timing, not a loop error: a
    loaded machine stretches any step past it (the runner's import is off the
    loop, `test_lazy_imports` holds that). The twin is read before the loop runs,
    as ``from PKG import tool_async`` reads it."""
    printed = _in_own_process(
        package,
        "import asyncio, gc\n"
        "escape = p.escape_async\n"
        "async def main():\n"
        "    asyncio.get_running_loop().slow_callback_duration = 3600\n"
        "    return await escape()\n"
        "print(asyncio.run(main()).isError)\n"
        "gc.collect()\n",
        "-X",
        "dev",
    )
    assert printed == "True\n"
    assert gone(sleepers(ESCAPED))


def test_a_command_that_closes_its_output_is_waited_for_until_its_exit(
    package: ModuleType,
) -> None:
    """Its exit, seen after its pipes close, ends the call, sync and async; at its
    deadline it is killed like any other."""

    async def both() -> list[Any]:
        return [
            await package.quiet_then_exit_async(),
            await package.quiet_past_deadline_async(),
        ]

    sync = [package.quiet_then_exit(), package.quiet_past_deadline()]
    for exited, overran in (sync, asyncio.run(both())):
        assert exited.isError
        assert exited.metadata["exit_code"] == 3
        assert overran.isError
        assert overran.text == (
            f"Command '['sh', '-c', 'exec >&- 2>&-; exec sleep {SILENT}']' timed out "
            "after 0.5 seconds"
        )
    assert gone(sleepers(SILENT))


def test_a_cancelled_async_call_kills_its_command(
    package: ModuleType, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pid"

    async def cancel_while_running() -> None:
        task = asyncio.ensure_future(package.pid_and_sleep_async(pidfile=str(pidfile)))
        while not pidfile.exists() or not pidfile.read_text().strip():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_while_running())
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped


def test_without_a_pidfd_the_bounds_hold(package: ModuleType) -> None:
    """Where the system has no pidfd (not Linux, an old kernel), the exit is waited
    for once the pipes close: quick calls, deadlines and escapees still work."""
    printed = _in_own_process(
        package,
        "import asyncio, os\n"
        "del os.pidfd_open\n"
        "async def both():\n"
        "    return [await p.run_async(command='echo', arg='hi'),"
        " await p.escape_async()]\n"
        "for r in [p.run(command='echo', arg='hi'), p.escape(), *asyncio.run(both())]:\n"
        "    print(r.isError, r.text.splitlines()[0])\n",
    )
    lines = printed.splitlines()
    assert lines[0] == lines[2] == "False hi"
    for line in lines[1], lines[3]:
        assert line.startswith(
            f"True Command '['sh', '-c', 'setsid sleep {ESCAPED} & echo started']' timed "
            "out after 0.5 seconds: it exited with code 0, but processes it started "
            "kept its output open; killed 1 process(es)"
        )
    assert gone(sleepers(ESCAPED))


def test_many_calls_at_once_leave_no_descriptor_process_or_thread(
    package: ModuleType,
) -> None:
    """Quick calls, floods stopped at their limit and escapes killed at their
    deadline, from threads and tasks at once: every one gets its own result."""
    limited = importlib.import_module("mcigen_runtime.limits").limited
    fds, threads = len(os.listdir("/proc/self/fd")), threading.active_count()

    def mixed(index: int) -> tuple[bool, str]:
        if index % 8 == 0:
            result = package.escape()
        elif index % 4 == 0:
            with limited(cli_output=4096):
                result = package.flood()
        else:
            result = package.run(command="echo", arg=str(index))
        return result.isError, result.text.splitlines()[0][:16]

    async def flood() -> Any:
        with limited(cli_output=4096):
            return await package.flood_async()

    async def tasks() -> list[Any]:
        return list(
            await asyncio.gather(
                *(package.run_async(command="echo", arg=str(i)) for i in range(40)),
                package.escape_async(),
                flood(),
            )
        )

    with ThreadPoolExecutor(8) as pool:
        in_threads = list(pool.map(mixed, range(48)))
        in_tasks = pool.submit(asyncio.run, tasks()).result()
    for index, (is_error, first) in enumerate(in_threads):
        if index % 8 == 0:
            assert (is_error, first) == (True, "Command '['sh', ")
        elif index % 4 == 0:
            assert (is_error, first) == (True, "Command stopped:")
        else:
            assert (is_error, first) == (False, str(index))
    assert [r.text for r in in_tasks[:40]] == [f"{i}\n" for i in range(40)]
    assert "killed 1 process(es)" in in_tasks[40].text
    assert in_tasks[41].metadata["stdout"] == "y\n" * 2048
    assert gone(sleepers(ESCAPED))
    assert len(os.listdir("/proc/self/fd")) == fds
    assert threading.active_count() == threads


def test_a_command_that_cannot_start_leaves_no_descriptor(
    package: ModuleType,
) -> None:
    """The runner makes the output pipes itself: a program that is not found
    is an error result, sync and async, and both pipes are closed."""
    fds = len(os.listdir("/proc/self/fd"))
    missing = "mcigen-no-such-program"
    results = [package.run(command=missing, arg="x") for _ in range(5)]
    results.append(asyncio.run(package.run_async(command=missing, arg="x")))
    for result in results:
        assert result.isError
        assert missing in result.text
    assert len(os.listdir("/proc/self/fd")) == fds


def test_rows53_to_55_both_sides(tmp_path: Path) -> None:
    """mci-py keeps all output, leaves an escaped child running, and reports a NUL
    byte as Python's ``embedded null byte``."""
    tools = [
        {
            "name": "big",
            "execution": {
                "type": "cli",
                "command": PY,
                "args": ["-c", "import os; os.write(1, b'x' * 5000 + b'END\\n')"],
            },
        },
        {
            "name": "escapeRow",
            "execution": {
                "type": "cli",
                "command": "sh",
                "args": ["-c", f"setsid sleep {ROW54} & echo started"],
                "timeout_ms": 500,
            },
        },
        TOOLS[3],
    ]
    schema = write_schema(tmp_path, schema_of(*tools), "rows.mci.json")
    nul = {"command": "echo", "arg": "a\0b"}
    calls = [("big", {}), ("escapeRow", {}), ("run", nul)]
    try:
        big, escaped, refused = (
            answer["result"]
            for answer in run_oracle(
                schema, [{"tool": t, "props": p, "env": {}} for t, p in calls]
            )
        )
        assert len(sleepers(ROW54)) == 1  # mci-py left it running
    finally:
        for pid in sleepers(ROW54):
            os.kill(pid, 9)
    assert big["content"][0]["text"] == "x" * 5000 + "END\n"
    assert escaped["content"][0]["text"] == (
        f"Command '['sh', '-c', 'setsid sleep {ROW54} & echo started']' timed out "
        "after 1 seconds"
    )
    assert refused["content"][0]["text"] == "embedded null byte"
    with built_package(
        schema, tmp_path / "clirows", "--limit", "cli_output=1000"
    ) as package:
        ours = package.big()
        assert ours.isError and ours.metadata["stdout"] == "x" * 996 + "END\n"
        escaped_ours = package.escape_row()
        assert "killed 1 process(es)" in escaped_ours.text
        assert gone(escaped_ours.metadata["killed_pids"])
        assert package.run(**nul).text.startswith("Refused: argument 1 holds a NUL")
