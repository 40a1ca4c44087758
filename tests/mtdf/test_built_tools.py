"""MTDF tools written here, built once: nested ``default``, shells given hostile
values, path escapes, timeouts, schema-less leaves, reserved inputs."""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.errors import ToolInputError
from mcigen_runtime.executors.started import StartedCommand, watch_commands
from mcigen_runtime.limits import limited
from mcigen_runtime.registry import registry
from mcigen_runtime.results import ToolResult

from mcigen.frontend.mtdf import mtdf_tools

from .conftest import build_folder
from .support import call, printed

HOSTILE = "; touch PWNED #"


def _sub(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": f"Run {name}"} | fields


def _positional(name: str, type: str = "string", **fields: Any) -> dict[str, Any]:
    return {"name": name, "type": type} | fields


TOOLS: dict[str, dict[str, Any]] = {
    "nest": {
        "name": "nest",
        "description": "Nested subcommands",
        "command": "echo-args",
        "subcommand": [
            _sub(
                "parent",
                options=[{"name": "parent-only", "type": "boolean"}],
                subcommand=[
                    _sub("default", options=[{"name": "own", "type": "boolean"}]),
                    _sub("child", positional_args=[_positional("x")]),
                ],
            )
        ],
    },
    "shells": {
        "name": "shells",
        "description": "Shell commands",
        "command": "/bin/sh",
        "subcommand": [_sub("echo", positional_args=[_positional("text")])],
    },
    "bash": {
        "name": "bash-run",
        "description": "bash -c",
        "command": "bash -c",
        "subcommand": [_sub("default", positional_args=[_positional("script")])],
    },
    "spliced": {
        "name": "spliced",
        "description": "A value after a literal word of a bash -c script",
        "command": "bash -c printf %s",
        "subcommand": [_sub("default", positional_args=[_positional("text")])],
    },
    "slow": {
        "name": "slow",
        "description": "Sleeps",
        "command": "sleep",
        "timeout_seconds": 1,
        "subcommand": [_sub("default", positional_args=[_positional("seconds")])],
    },
    "plain": {
        "name": "plain",
        "description": "A leaf with no schema",
        "command": "echo-args",
        "allow_raw_args": True,
        "subcommand": [_sub("hello"), _sub("other")],
    },
    "seed": {
        "name": "seed",
        "description": "Seed-guide keywords",
        "command": "echo-args",
        "subcommand": [
            _sub(
                "default",
                options=[
                    {"name": "level", "type": "string", "enum": ["low", "high"]},
                    {"name": "ids", "type": "array", "maxItems": 2},
                ],
            )
        ],
    },
    "spawn": {
        "name": "spawn",
        "description": "Starts a child that outlives it, then sleeps",
        "command": "spawner",
        "timeout_seconds": 1,
    },
    "bare": {
        "name": "bare",
        "description": "No subcommands",
        "command": "echo-args",
        "allow_raw_args": True,
    },
    "files": {
        "name": "files",
        "description": "A file argument after a path",
        "command": "echo-args",
        "subcommand": [
            _sub(
                "send",
                options=[
                    {"name": "body", "type": "string", "file_arg": True},
                    {"name": "target", "type": "string", "format": "path"},
                ],
            )
        ],
    },
    "where": {
        "name": "where",
        "description": "Reads a symlink",
        "command": "readlink",
        "subcommand": [_sub("default", positional_args=[_positional("link")])],
    },
    "twin": {
        "name": "twin",
        "description": "A positional named as an option",
        "command": "echo-args",
        "subcommand": [
            _sub(
                "default",
                options=[{"name": "x", "type": "boolean"}],
                positional_args=[_positional("x")],
            )
        ],
    },
}


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("tools")
    for file, tool in TOOLS.items():
        (folder / f"{file}.json").write_text(json.dumps(tool, indent=2))
    yield from build_folder(folder, tmp_path_factory.mktemp("built") / "own")


def test_a_nested_default_is_named_after_its_parent(own: str, workspace: Path) -> None:
    assert printed(call(own, "nest_parent", own=True))["argv"] == [
        "echo-args",
        "parent",
        "--own",
    ]
    assert printed(call(own, "nest_parent_child", x="1"))["argv"] == [
        "echo-args",
        "parent",
        "child",
        "1",
    ]


def test_row_87_a_nested_default_runs_its_own_node(own: str, workspace: Path) -> None:
    # Ahma runs the parent's node: it would read parent-only and drop own
    arguments = {"parent-only": True, "own": True}
    assert printed(call(own, "nest_parent", **arguments))["argv"] == [
        "echo-args",
        "parent",
        "--own",
    ]


def test_row_82_a_value_is_one_word_of_an_sh_script(own: str, workspace: Path) -> None:
    for value in (HOSTILE, "$(touch PWNED)", "`touch PWNED`", "*", "a  b"):
        result = call(own, "shells_echo", text=value)
        assert (result.isError, result.text) == (False, f"{value}\n")
    assert not (workspace / "PWNED").exists()


def test_row_82_a_value_spliced_after_bash_c_words_is_one_word(
    own: str, workspace: Path
) -> None:
    for value in (HOSTILE, "$(touch PWNED)", "`touch PWNED`", "*", "a  b"):
        result = call(own, "spliced", text=value)
        assert (result.isError, result.text) == (False, value)
    assert not (workspace / "PWNED").exists()


def test_a_shell_tools_script_operand_is_the_script(own: str, workspace: Path) -> None:
    result = call(own, "bash-run", script="echo hi | tr a-z A-Z")
    assert (result.isError, result.text) == (False, "HI\n")
    # Ahma's 2>&1 ends the script: its last command's stderr comes on stdout
    result = call(own, "bash-run", script="true; cd no-such-dir")
    assert result.isError
    assert result.text.startswith("Command failed with exit code 1: stderr: , ")
    assert "cd: no-such-dir: No such file or directory" in result.text


def test_a_failing_commands_stdout_reaches_the_text(own: str, workspace: Path) -> None:
    result = call(own, "bash-run", script="echo out; echo err >&2; exit 3")
    assert (result.isError, result.text) == (
        True,
        "Command failed with exit code 3: stderr: err\n, stdout: out\n",
    )


def test_a_failing_commands_text_is_bounded(own: str, workspace: Path) -> None:
    with limited(cli_output=1000):
        result = call(own, "bash-run", script="printf %100000s x; exit 1")
    assert result.isError
    assert "passed the cli_output limit of 1000 bytes" in result.text
    assert len(result.text) < 1500


def test_row_90_the_tools_timeout_is_the_default(own: str, workspace: Path) -> None:
    result = call(own, "slow", seconds="30")
    assert result.isError
    assert "timed out after 1 seconds" in result.text
    result = call(own, "slow", seconds="30", timeout_seconds=2)
    assert "timed out after 2 seconds" in result.text
    with pytest.raises(ToolInputError) as raised:
        call(own, "slow", seconds="1", timeout_seconds=1.5)
    assert raised.value.field == "timeout_seconds"


def test_row_88_only_declared_inputs_reach_the_command_line(
    own: str, workspace: Path
) -> None:
    arguments = {"subcommand": "hello", "x": "1", "flag": True, "n": 2.5}
    assert printed(call(own, "plain_hello", **arguments, args=["a", 2, ""]))[
        "argv"
    ] == ["echo-args", "hello", "a", "2", ""]
    with pytest.raises(ToolInputError) as raised:
        call(own, "plain_hello", args="a b")
    assert raised.value.field == "args"


def test_row_102_args_are_refused_unless_the_tool_file_allows_them(
    own: str, workspace: Path
) -> None:
    for words in (["--output=/elsewhere"], ["a"], [""]):
        with pytest.raises(ToolInputError) as raised:
            call(own, "nest_parent", own=True, args=words)
        assert raised.value.field == "args"
    assert printed(call(own, "nest_parent", args=[]))["argv"] == ["echo-args", "parent"]
    with pytest.raises(ToolInputError) as raised:
        call(own, "nest_parent_child", x="--output=/elsewhere")
    assert raised.value.field == "x"


def test_paths_escaping_the_working_directory_are_refused(
    own: str, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    (workspace / "out").symlink_to(temp)
    for escape in ("../x", "/etc/passwd", "out/x", "sub/../../x"):
        result = call(own, "files_send", target=escape, body="text")
        assert result.isError, escape
        assert "is outside the working directory" in result.text
    assert not list(temp.iterdir())  # the file argument's file is gone
    inside = printed(call(own, "files_send", target="sub/../in"))["argv"]
    assert inside == ["echo-args", "send", "--target", f"{workspace}/in"]


def test_a_missing_working_directory_is_an_error_result(
    own: str, workspace: Path
) -> None:
    result = call(own, "plain_hello", working_directory="nowhere")
    assert result.isError
    assert result.text == 'Working directory "nowhere" is not a directory'


def test_a_current_directory_reached_by_a_symlink_is_the_sandbox_root_resolved(
    own: str, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "sub").mkdir()
    link = tmp_path / "link"
    link.symlink_to(workspace)
    monkeypatch.chdir(link)
    assert printed(call(own, "plain_hello"))["cwd"] == str(workspace)
    inside = call(own, "plain_hello", working_directory=f"{workspace}/sub")
    assert printed(inside)["cwd"] == f"{workspace}/sub"
    with pytest.raises(ToolInputError) as raised:
        call(own, "plain_hello", working_directory=str(tmp_path))
    assert raised.value.field == "working_directory"
    assert f'outside the sandbox root "{workspace}"' in str(raised.value)


def test_the_default_working_directory_follows_the_current_one_and_is_told(
    own: str, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The current directory is opened as it is each call, never remembered, and a
    watcher of the call is told it resolved, as the command sees it."""
    told: list[StartedCommand] = []

    def watched() -> dict[str, Any]:
        def calling() -> ToolResult:
            watch_commands(told.append)
            return call(own, "plain_hello")

        return printed(contextvars.copy_context().run(calling))

    assert watched()["cwd"] == str(workspace)
    other = workspace / "other"
    other.mkdir()
    link = tmp_path / "to-other"
    link.symlink_to(other)
    monkeypatch.chdir(link)
    assert watched()["cwd"] == str(other)
    assert [command.working_directory for command in told] == [
        str(workspace),
        str(other),
    ]


def test_a_deleted_current_directory_is_where_a_default_call_runs(
    own: str, workspace: Path
) -> None:
    """As ``subprocess.run`` does: the command starts in the current directory as
    it is, removed or not (the kernel names it ``… (deleted)``), sync and async;
    a working directory other than the default cannot lie in it, and says why."""
    workspace.rmdir()
    expected = f"{workspace} (deleted)\n"
    assert call(own, "where", link="/proc/self/cwd").text == expected
    awaited = asyncio.run(
        registry(own).call_async("where", {"link": "/proc/self/cwd"}, os.environ)
    )
    assert (awaited.isError, awaited.text) == (False, expected)
    for elsewhere in ("sub", str(workspace.parent)):
        result = call(own, "where", link="/proc/self/cwd", working_directory=elsewhere)
        assert result.isError
        assert result.text == (
            f'Working directory "{elsewhere}": the current directory, the sandbox '
            "root, no longer exists"
        )


def test_row_84_seed_guide_keywords_are_enforced(own: str, workspace: Path) -> None:
    assert printed(call(own, "seed", level="high", ids=["1", "2"]))["argv"] == [
        "echo-args",
        "--ids",
        "1",
        "--ids",
        "2",
        "--level",
        "high",
    ]
    for wrong, field in (
        ({"level": "mid"}, "level"),
        ({"ids": ["1", "2", "3"]}, "ids"),
    ):
        with pytest.raises(ToolInputError) as raised:
            call(own, "seed", **wrong)
        assert raised.value.field == field


_SPAWNER = f"""#!{sys.executable}
import pathlib, subprocess, time
child = subprocess.Popen(["sleep", "60"])
pathlib.Path("child.pid").write_text(str(child.pid))
time.sleep(60)
"""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_row_83_a_timeout_kills_the_process_group(own: str, workspace: Path) -> None:
    spawner = Path(os.environ["PATH"].split(os.pathsep)[0]) / "spawner"
    spawner.write_text(_SPAWNER)
    spawner.chmod(0o755)
    result = call(own, "spawn")
    assert result.isError
    assert "timed out after 1 seconds" in result.text
    child = int((workspace / "child.pid").read_text())
    deadline = time.monotonic() + 2
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _running(child)


def test_row_92_tools_come_in_file_name_order(tmp_path: Path) -> None:
    for file, tool in (("z.json", "zeta"), ("a.json", "alpha")):
        document = {"name": tool, "description": "T", "command": "true"}
        (tmp_path / file).write_text(json.dumps(document))
    tools, _ = mtdf_tools(tmp_path)
    assert [tool.name for tool in tools] == ["alpha", "zeta"]


def test_row_85_a_tool_without_subcommands_runs_its_command(
    own: str, workspace: Path
) -> None:
    assert printed(call(own, "bare", args=["x"]))["argv"] == ["echo-args", "x"]


def test_a_positional_named_as_an_option_is_the_operand_as_in_ahma(
    own: str, workspace: Path
) -> None:
    """AHMA-SEMANTICS §4 and §6: the positional's property replaces the option's,
    and the key reaches the command line only as the operand."""
    assert printed(call(own, "twin", x="val"))["argv"] == ["echo-args", "val"]
    assert registry(own).find("twin").input_schema["properties"]["x"] == {  # type: ignore[index]
        "type": "string"
    }
