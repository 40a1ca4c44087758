"""Hostile strings in every name, description, command word, flag name, alias and
file flag of MTDF tool files: the build succeeds or fails with located
diagnostics, never an exception; the package imports without running any of it;
names and descriptions come back byte for byte; and a call puts each flag name
and value on the command line as exactly the word it is. Hostile strings in a
call's ``args`` are refused unless the tool file allows them, and then are each
one word that runs nothing."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from mcigen_runtime.errors import ToolInputError
from mcigen_runtime.registry import registry

from mcigen.frontend.formats import MTDF
from mcigen.output import write_package
from mcigen.pipeline import CompileOptions, compile_schema

from .support import BUILDS, every_module_imported, importable_from
from .test_hostile_strings_property import hostile

no_nul = hostile.map(lambda text: text.replace("\x00", ""))
"""What a command line can hold (execve refuses NUL)."""
word = no_nul.map(lambda text: "".join(c for c in text if not c.isspace()))
"""A command word: the file's ``command`` is split on whitespace (where Python and
Ahma differ is tested in ``test_mtdf_tools.py``)."""
NOT_OPTIONS = {"flag", "args", "working_directory", "execution_mode", "timeout_seconds"}
"""The boolean option every tool here has, and the inputs Ahma reads itself."""


@st.composite
def hostile_tool_files(draw: st.DrawFn) -> list[dict[str, Any]]:
    tools = []
    for index in range(draw(st.integers(1, 2))):
        names = draw(
            st.lists(
                no_nul.filter(lambda name: name and name not in NOT_OPTIONS),
                min_size=1,
                max_size=3,
                unique=True,
            )
        )
        options = [
            {"name": name, "type": "string", "description": draw(hostile)}
            for name in names
        ]
        options.append({"name": "flag", "type": "boolean", "alias": draw(word) + "w"})
        sub = {
            "name": draw(word) + "x",
            "description": draw(hostile.filter(str.strip)),
            "synchronous": True,
            "options": options,
        }
        tools.append(
            {
                "name": f"t{index}" + draw(word),
                "description": draw(hostile.filter(str.strip)),
                # printf prints each argument after its format on a line of its own
                "command": f"printf %s\\n {draw(word)}".strip(),
                "subcommand": [sub],
            }
        )
    return tools


_COUNTER = itertools.count()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with importable_from(tmp_path_factory.mktemp("hostile-mtdf")) as directory:
        yield directory


@settings(BUILDS, max_examples=100)
@given(tools=hostile_tool_files(), value=no_nul.filter(bool))
def test_hostile_tool_files_are_data(
    workspace: Path, tools: list[dict[str, Any]], value: str
) -> None:
    package = f"hostile_mtdf_{next(_COUNTER)}"
    folder = workspace / f"{package}_files"
    folder.mkdir()
    for index, tool in enumerate(tools):
        (folder / f"{index}.json").write_text(json.dumps(tool), encoding="utf-8")
    files, diagnostics = compile_schema(
        folder, workspace / package, package, CompileOptions(source_format=MTDF)
    )
    event("refused" if files is None else "built")
    if files is None:
        assert diagnostics.has_errors
        for diagnostic in diagnostics.items:
            assert diagnostic.location.line >= 1 and diagnostic.location.column >= 1
        return
    write_package(files, workspace / package, package)
    with every_module_imported(package):
        shell, *entries = registry(package).tools
        assert shell.name == "sandboxed_shell"  # Ahma's built-in, listed first
        assert len(entries) == len(tools)
        for entry, tool in zip(entries, tools, strict=True):
            sub = tool["subcommand"][0]
            assert entry.name == f"{tool['name']}_{sub['name']}"
            assert entry.description is not None
            assert entry.description.endswith(sub["description"])
            option = sub["options"][0]
            result = registry(package).call(
                entry.name, {option["name"]: value, "flag": True}, os.environ
            )
            expected = [
                *tool["command"].split()[2:],
                sub["name"],
                *_argv(sub["options"], option["name"], value),
            ]
            printed = "".join(f"{item}\n" for item in expected)
            # a cli tool's output is read as text, with universal newlines
            universal = printed.replace("\r\n", "\n").replace("\r", "\n")
            assert (result.isError, result.text) == (False, universal)


def _flag(name: str, value: str) -> list[str]:
    return [name if name.startswith("-") else f"--{name}", value]


def _argv(options: list[dict[str, Any]], given: str, value: str) -> list[str]:
    """The options as Ahma orders them: by name; the boolean as its alias."""
    argv: list[str] = []
    for option in sorted(options, key=lambda o: o["name"]):
        if option["type"] == "boolean":
            argv.append(f"-{option['alias']}")
        elif option["name"] == given:
            argv += _flag(given, value)
    return argv


_ARGS_TOOLS: dict[str, dict[str, Any]] = {
    "strict": {  # would leave a file behind if it ever ran
        "name": "strict",
        "description": "Touches a marker",
        "command": "touch strict-ran",
        "synchronous": True,
    },
    "operand": {
        "name": "operand",
        "description": "Prints its operand",
        "command": "printf %s\\n",
        "synchronous": True,
        "subcommand": [
            {
                "name": "default",
                "description": "Print text",
                "positional_args": [{"name": "text", "type": "string"}],
            }
        ],
    },
    "raw": {
        "name": "raw",
        "description": "Prints its words",
        "command": "printf %s\\n",
        "synchronous": True,
        "allow_raw_args": True,
    },
    "raw_shell": {
        "name": "raw_shell",
        "description": "Prints its words through a shell",
        "command": "/bin/sh printf %s\\n",
        "synchronous": True,
        "allow_raw_args": True,
    },
}


@pytest.fixture(scope="module")
def args_package(workspace: Path) -> Iterator[str]:
    folder = workspace / "args_files"
    folder.mkdir()
    for name, tool in _ARGS_TOOLS.items():
        (folder / f"{name}.json").write_text(json.dumps(tool), encoding="utf-8")
    files, diagnostics = compile_schema(
        folder, workspace / "args_pkg", "args_pkg", CompileOptions(source_format=MTDF)
    )
    assert files is not None, diagnostics.items
    write_package(files, workspace / "args_pkg", "args_pkg")
    with every_module_imported("args_pkg"):
        yield "args_pkg"


@settings(BUILDS, max_examples=60)
@given(words=st.lists(no_nul, min_size=1, max_size=4))
def test_hostile_args_never_become_options_or_commands(
    args_package: str,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    words: list[str],
) -> None:
    """A call's ``args`` never reach a tool whose file does not allow them (refused
    naming ``args``, nothing run); where allowed, each is exactly one argv word,
    and nothing it holds runs, through a shell either. As an operand's value, a
    string is refused when it starts with ``-`` and is one word otherwise."""
    monkeypatch.chdir(workspace)
    tools = registry(args_package)
    with pytest.raises(ToolInputError) as raised:
        tools.call("strict", {"args": words}, os.environ)
    assert raised.value.field == "args"
    assert not (workspace / "strict-ran").exists()
    printed = "".join(f"{word}\n" for word in words)
    universal = printed.replace("\r\n", "\n").replace("\r", "\n")
    for name in ("raw", "raw_shell"):
        result = tools.call(name, {"args": words}, os.environ)
        assert (result.isError, result.text) == (False, universal), name
    for word in words:  # an operand: a value, or refused when it reads as an option
        if word.startswith("-"):
            with pytest.raises(ToolInputError) as raised:
                tools.call("operand", {"text": word}, os.environ)
            assert raised.value.field == "text"
        elif word:
            result = tools.call("operand", {"text": word}, os.environ)
            universal = f"{word}\n".replace("\r\n", "\n").replace("\r", "\n")
            assert (result.isError, result.text) == (False, universal)
    assert not any(p.name == "PWNED" for p in workspace.iterdir())
