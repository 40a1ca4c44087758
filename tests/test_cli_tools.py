"""CLI tools against real processes: argv never through a shell, flags, cwd under the
path policy, exit codes and timeouts, sync and async, and mci-py's results."""

from __future__ import annotations

import asyncio
import contextvars
import importlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import pytest
from mcigen_runtime.executors.cli.run import DRY_RUN
from mcigen_runtime.executors.started import StartedCommand, watch_commands
from mcigen_runtime.results import ToolResult

from .conftest import built_package
from .oracle import run_oracle
from .sleepers import gone, own_length, sleepers

PY = sys.executable
# The slow tool's sleeps, found by their length (tests/sleepers.py).
SLEEPER = own_length(973)
TOOLS: list[dict[str, Any]] = [
    {
        "name": "grepLines",
        "inputSchema": {
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "file": {"type": "string"},
                "ignore_case": {"type": "boolean"},
                "max": {"type": "integer"},
            },
            "required": ["pattern", "file"],
        },
        "execution": {
            "type": "cli",
            "command": "grep",
            "args": ["-n", "{{props.pattern}}", "{{props.file}}"],
            "flags": {
                "-i": {"from": "props.ignore_case", "type": "boolean"},
                "-m": {"from": "props.max", "type": "value"},
            },
            "cwd": "./work",
        },
    },
    {
        "name": "showArgs",
        "execution": {
            "type": "cli",
            "command": PY,
            "args": [
                "-c",
                "import sys; print(sys.argv[1:])",
                "{{props.a}}",
                "{{props.b | 'dflt'}}",
            ],
            "allowOptionLikeArgs": True,  # python -c passes what follows as argv
        },
    },
    {
        "name": "failing",
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": ["-c", "echo out; echo err >&2; exit 3"],
        },
    },
    {
        "name": "sleepy",
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": ["-c", f"sleep {SLEEPER} & sleep {SLEEPER}; echo never"],
            "timeout_ms": 400,
        },
    },
    {
        "name": "noSuchCommand",
        "execution": {"type": "cli", "command": "mcigen-no-such-command"},
    },
    {
        "name": "escape",
        "execution": {"type": "cli", "command": "pwd", "cwd": "{{props.dir}}"},
    },
    {
        "name": "where",
        "execution": {"type": "cli", "command": "readlink", "args": ["/proc/self/cwd"]},
    },
    {
        "name": "crlf",
        "execution": {"type": "cli", "command": "printf", "args": ["a\\r\\nb\\r"]},
    },
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "work").mkdir(parents=True)
    (project / "work" / "f.txt").write_text("alpha\nBeta\nbeta\n", "utf-8")
    (project / "cli.mci.json").write_text(
        json.dumps({"schemaVersion": "1.0", "tools": TOOLS}), "utf-8"
    )
    return project


@pytest.fixture
def package(project: Path, tmp_path: Path) -> Iterator[ModuleType]:
    with built_package(
        project / "cli.mci.json", tmp_path / "build" / "clipkg_tools"
    ) as package:
        yield package


def test_args_flags_and_cwd_relative_to_the_schema(
    package: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = package.grep_lines(pattern="beta", file="f.txt", ignore_case=True, max=1)
    assert (result.isError, result.text) == (False, "2:Beta\n")
    assert result.metadata == {
        "exit_code": 0,
        "stdout_bytes": 7,
        "stderr_bytes": 0,
        "stderr": "",
    }
    assert package.grep_lines(pattern="beta", file="f.txt").text == "3:beta\n"


def test_props_are_single_argv_items_never_shell_text(package: ModuleType) -> None:
    hostile = "x; touch pwned $(id) `id` | cat > out"
    assert package.show_args(a=hostile).text == repr([hostile, "dflt"]) + "\n"
    assert package.show_args(a="--help", b="-c").text == "['--help', '-c']\n"


def test_non_zero_exit_is_an_error_result_with_metadata(package: ModuleType) -> None:
    result = package.failing()
    assert (result.isError, result.text) == (True, "Command exited with code 3: err\n")
    assert result.metadata == {
        "exit_code": 3,
        "stdout_bytes": 4,
        "stderr_bytes": 4,
        "stderr": "err\n",
        "stdout": "out\n",
    }


def test_timeout_kills_the_process_and_its_children(package: ModuleType) -> None:
    started = time.monotonic()
    result = package.sleepy()
    assert time.monotonic() - started < 5
    assert result.isError
    assert result.text == (
        f"Command '['sh', '-c', 'sleep {SLEEPER} & sleep {SLEEPER}; echo never']' "
        "timed out after 0.4 seconds"
    )
    assert gone(sleepers(SLEEPER))


def test_each_thread_gets_its_own_deadline(package: ModuleType) -> None:
    """A quick command finishing and a slow one timing out, from many threads at
    once: the quick ones are never killed, the slow one is, and no call leaves a
    thread behind."""
    before = threading.active_count()
    with ThreadPoolExecutor(8) as pool:
        quick = [pool.submit(package.show_args, a=str(i)) for i in range(24)]
        slow = pool.submit(package.sleepy)
        texts = [future.result().text for future in quick]
    assert texts == [f"['{i}', 'dflt']\n" for i in range(24)]
    assert slow.result().isError and "timed out after 0.4 seconds" in slow.result().text
    assert threading.active_count() == before


def test_async_twins_run_without_blocking_each_other(package: ModuleType) -> None:
    async def both() -> list[Any]:
        return list(
            await asyncio.gather(package.sleepy_async(), package.show_args_async(a="x"))
        )

    started = time.monotonic()
    slow, fast = asyncio.run(both())
    assert time.monotonic() - started < 5
    assert slow.isError and "timed out" in slow.text
    assert fast.text == "['x', 'dflt']\n"


def test_missing_command_and_refused_cwd(package: ModuleType, tmp_path: Path) -> None:
    assert package.no_such_command().text == (
        "[Errno 2] No such file or directory: 'mcigen-no-such-command'"
    )
    refused = package.escape(dir=str(tmp_path))
    assert refused.isError
    assert refused.text.endswith(f"unless enableAnyPaths is true. Path: {tmp_path}")
    assert package.escape(dir="work").text.endswith("/project/work\n")


def test_output_has_universal_newlines(package: ModuleType) -> None:
    assert package.crlf().text == "a\nb\n"


def test_a_command_without_cwd_runs_in_a_deleted_current_directory(
    project: Path,
    package: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As mci-py (``subprocess.run``) does, sync and async, and whether the call is
    watched (an operation, the debug log) or not; a dry run names the directory as
    the kernel does."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    expected = f"{gone.resolve()} (deleted)\n"
    result = package.where()
    assert (result.isError, result.text) == (False, expected)
    assert asyncio.run(package.where_async()).text == expected
    told: list[StartedCommand] = []

    def watched() -> ToolResult:
        watch_commands(told.append)
        return cast(ToolResult, package.where())

    assert contextvars.copy_context().run(watched).text == expected
    assert [command.working_directory for command in told] == [expected[:-1]]
    dry = contextvars.copy_context()
    dry.run(DRY_RUN.set, True)
    assert dry.run(package.where).text == f"in {expected[:-1]}: readlink /proc/self/cwd"
    theirs = run_oracle(
        project / "cli.mci.json", [{"tool": "where", "props": {}, "env": {}}]
    )
    assert result.model_dump(mode="json") == theirs[0]["result"]


def test_cli_tools_match_mci_py(
    project: Path, package: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the schema's directory, where mci-py's reading of cwd agrees with ours."""
    monkeypatch.chdir(project)
    calls = [
        ("grepLines", {"pattern": "beta", "file": "f.txt", "ignore_case": True}),
        ("grepLines", {"pattern": "beta", "file": "f.txt", "max": 1}),
        ("grepLines", {"pattern": "zzz", "file": "f.txt"}),
        ("grepLines", {"pattern": "a", "file": "missing.txt"}),
        ("showArgs", {"a": "$(id)", "b": "two words"}),
        ("failing", {}),
        ("crlf", {}),
        ("escape", {"dir": "/"}),
        ("escape", {"dir": "no-such-dir"}),
    ]
    theirs = run_oracle(
        project / "cli.mci.json", [{"tool": t, "props": p, "env": {}} for t, p in calls]
    )
    invokers = importlib.import_module("clipkg_tools.tools.main").INVOKERS
    for (tool, props), oracle in zip(calls, theirs, strict=True):
        assert (
            invokers[tool](props, {}).model_dump(mode="json") == oracle["result"]
        ), tool
