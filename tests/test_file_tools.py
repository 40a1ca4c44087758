"""File tools: templated paths, the path policy against real files and symlinks,
contents rendered with the template language, and mci-py's results where it is right."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .conftest import built_package, run_mcigen
from .oracle import run_oracle

TOOLS: list[dict[str, Any]] = [
    {
        "name": "readDoc",
        "inputSchema": {
            "type": "object",
            "properties": {"file": {"type": "string"}, "name": {"type": "string"}},
            "required": ["file"],
        },
        "execution": {"type": "file", "path": "./docs/{{props.file}}"},
    },
    {
        "name": "readRaw",
        "execution": {
            "type": "file",
            "path": "docs/hello.txt",
            "enableTemplating": False,
        },
    },
    {
        "name": "readShared",
        "execution": {"type": "file", "path": "../shared/{{props.file}}"},
    },
    {
        "name": "readSharedAllowed",
        "directoryAllowList": ["../shared"],
        "execution": {"type": "file", "path": "../shared/{{props.file}}"},
    },
    {
        "name": "readAnything",
        "enableAnyPaths": True,
        "execution": {"type": "file", "path": "{{props.path}}"},
    },
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """project/ holds the schema and docs/; shared/ and secret/ lie beside it."""
    project = tmp_path / "project"
    (project / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "shared").mkdir()
    (tmp_path / "secret").mkdir()
    (project / "docs" / "hello.txt").write_text(
        "Hello {{props.name | 'you'}}!\n", "utf-8"
    )
    (project / "docs" / "list.txt").write_text(
        "@foreach(x in props.items)- {{x}}\n@endforeach", "utf-8"
    )
    (project / "docs" / "bad.txt").write_text("line\n  @if(props.a) no end\n", "utf-8")
    (project / "docs" / "latin1.txt").write_bytes(b"caf\xe9")
    (tmp_path / "shared" / "note.txt").write_text("shared {{props.file}}", "utf-8")
    (tmp_path / "secret" / "key.txt").write_text("top secret", "utf-8")
    (project / "docs" / "escape.txt").symlink_to(tmp_path / "secret" / "key.txt")
    (project / "docs" / "inside.txt").symlink_to(project / "docs" / "hello.txt")
    (project / "docs" / "secret_dir").symlink_to(
        tmp_path / "secret", target_is_directory=True
    )
    schema = project / "files.mci.json"
    schema.write_text(json.dumps({"schemaVersion": "1.0", "tools": TOOLS}), "utf-8")
    return project


@pytest.fixture
def package(tree: Path, tmp_path: Path) -> Iterator[ModuleType]:
    with built_package(
        tree / "files.mci.json", tmp_path / "build" / "filepkg"
    ) as package:
        yield package


def _text(package: ModuleType, tool: str, **props: Any) -> tuple[bool, str]:
    result = getattr(package, tool)(**props)
    return result.isError, result.text


def test_contents_are_rendered_with_the_template_language(
    package: ModuleType, tree: Path
) -> None:
    assert _text(package, "read_doc", file="hello.txt", name="Ann") == (
        False,
        "Hello Ann!\n",
    )
    assert _text(package, "read_doc", file="hello.txt") == (False, "Hello you!\n")
    invoke = importlib.import_module("filepkg.tools.main").INVOKERS["readAnything"]
    result = invoke({"path": str(tree / "docs" / "list.txt"), "items": [1, "b"]}, {})
    assert result.text == "- 1\n- b\n"


class _CountingExecutor(ThreadPoolExecutor):
    submitted = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        self.submitted += 1
        return super().submit(*args, **kwargs)


def _async_text(package: ModuleType, tool: str, **props: Any) -> tuple[bool, str, int]:
    """The async twin's result, and how many calls it handed to a worker thread."""
    executor = _CountingExecutor(1)

    async def call() -> Any:
        asyncio.get_running_loop().set_default_executor(executor)
        return await getattr(package, tool + "_async")(**props)

    result = asyncio.run(call())
    return result.isError, result.text, executor.submitted


def test_async_twins_read_files_in_a_thread_and_render_compiled_ones_on_the_loop(
    package: ModuleType, tree: Path
) -> None:
    hello = tree / "docs" / "hello.txt"
    assert _async_text(package, "read_doc", file="hello.txt", name="A") == (
        False,
        "Hello A!\n",
        1,
    )
    assert _async_text(package, "read_doc", file="hello.txt", name="B") == (
        False,
        "Hello B!\n",
        0,
    )
    hello.write_text("Bye {{props.name}}, edited", "utf-8")
    os.utime(hello, ns=(0, 10**9))  # a new version even within the clock's tick
    assert _async_text(package, "read_doc", file="hello.txt", name="C") == (
        False,
        "Bye C, edited",
        1,
    )
    assert _async_text(package, "read_raw") == (False, "Bye {{props.name}}, edited", 1)
    assert _async_text(package, "read_doc", file="nope.txt") == (
        True,
        "File not found: ./docs/nope.txt",
        0,
    )


def test_templating_can_be_switched_off(package: ModuleType) -> None:
    assert _text(package, "read_raw") == (False, "Hello {{props.name | 'you'}}!\n")


def test_relative_paths_are_taken_against_the_schema_directory(
    package: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path / "secret")
    assert _text(package, "read_raw")[0] is False
    assert _text(package, "read_doc", file="sub/../hello.txt", name="B") == (
        False,
        "Hello B!\n",
    )


def test_failures_are_error_results_naming_the_path(
    package: ModuleType, tree: Path
) -> None:
    assert _text(package, "read_doc", file="nope.txt") == (
        True,
        "File not found: ./docs/nope.txt",
    )
    assert _text(package, "read_doc", file="sub") == (
        True,
        "Path is not a file: ./docs/sub",
    )
    assert _text(package, "read_doc", file="latin1.txt") == (
        True,
        "'utf-8' codec can't decode byte 0xe9 in position 3: unexpected end of data",
    )
    bad = tree / "docs" / "bad.txt"
    assert _text(package, "read_doc", file="bad.txt") == (
        True,
        f"{os.path.realpath(bad)}:2:3: '@if' is never closed with '@endif'",
    )


REFUSED = (
    "File path access outside context directory and allow-list is not allowed unless "
    "enableAnyPaths is true. Path: "
)


@pytest.mark.parametrize(
    ("tool", "props", "shown"),
    [
        ("read_doc", {"file": "../../secret/key.txt"}, "./docs/../../secret/key.txt"),
        ("read_doc", {"file": "escape.txt"}, "./docs/escape.txt"),
        ("read_doc", {"file": "secret_dir/key.txt"}, "./docs/secret_dir/key.txt"),
        ("read_shared", {"file": "note.txt"}, "../shared/note.txt"),
        (
            "read_shared_allowed",
            {"file": "../secret/key.txt"},
            "../shared/../secret/key.txt",
        ),
    ],
)
def test_paths_outside_the_allowed_roots_are_refused(
    package: ModuleType, tool: str, props: dict[str, str], shown: str
) -> None:
    assert _text(package, tool, **props) == (True, REFUSED + shown)


def test_allow_list_symlinks_inside_and_any_paths(
    package: ModuleType, tmp_path: Path
) -> None:
    assert _text(package, "read_doc", file="inside.txt", name="L") == (
        False,
        "Hello L!\n",
    )
    assert _text(package, "read_shared_allowed", file="note.txt") == (
        False,
        "shared note.txt",
    )
    secret = str(tmp_path / "secret" / "key.txt")
    assert _text(package, "read_anything", path=secret) == (False, "top secret")


def test_schema_level_policy_and_tool_overrides(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.txt").write_text("outside", "utf-8")
    schema_dir = tmp_path / "s"
    schema_dir.mkdir()
    document = {
        "schemaVersion": "1.0",
        "directoryAllowList": ["../outside"],
        "tools": [
            {
                "name": "viaSchema",
                "execution": {"type": "file", "path": "../outside/o.txt"},
            },
            {
                "name": "ownList",
                "directoryAllowList": ["./nothing"],
                "execution": {"type": "file", "path": "../outside/o.txt"},
            },
        ],
    }
    (schema_dir / "p.mci.json").write_text(json.dumps(document), "utf-8")
    assert (
        run_mcigen(
            "build", schema_dir / "p.mci.json", "-o", tmp_path / "policypkg"
        ).returncode
        == 0
    )
    sys.path.insert(0, str(tmp_path))
    try:
        invokers = importlib.import_module("policypkg.tools.main").INVOKERS
        assert invokers["viaSchema"]({}, {}).text == "outside"
        refused = invokers["ownList"]({}, {})
        assert (refused.isError, refused.text) == (True, REFUSED + "../outside/o.txt")
    finally:
        sys.path.remove(str(tmp_path))


def test_file_tools_match_mci_py(
    tree: Path, package: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mci-py reads relative paths from its working directory (COMPATIBILITY.md), so the
    oracle runs from the schema's directory, where both readings agree."""
    monkeypatch.chdir(tree)
    calls = [
        ("readDoc", {"file": "hello.txt", "name": "Ann"}),
        ("readDoc", {"file": "hello.txt"}),
        ("readDoc", {"file": "list.txt", "items": ["a", 2]}),
        ("readDoc", {"file": "nope.txt"}),
        ("readDoc", {"file": "escape.txt"}),
        ("readDoc", {"file": "../../secret/key.txt"}),
        ("readRaw", {}),
        ("readShared", {"file": "note.txt"}),
        ("readSharedAllowed", {"file": "note.txt"}),
    ]
    theirs = run_oracle(
        tree / "files.mci.json", [{"tool": t, "props": p, "env": {}} for t, p in calls]
    )
    invokers = importlib.import_module("filepkg.tools.main").INVOKERS
    for (tool, props), oracle in zip(calls, theirs, strict=True):
        assert (
            invokers[tool](props, {}).model_dump(mode="json") == oracle["result"]
        ), tool
