"""What a call to an MTDF tool can reach (issue 29): a call's ``args`` reach the
command only when its tool file allows them, the working directory lies in the
sandbox root, and a ``format: path`` value is given to the command as the very
descriptor checked, so a folder swapped for a symlink meanwhile reads nothing
outside. Real programs (tar, grep, cat, cp), no stubs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.errors import ToolInputError

from ..mtdf.conftest import build_folder
from ..mtdf.support import EXAMPLES, call

SECRET = "TOPSECRET"

TOOLS: dict[str, dict[str, Any]] = {
    "show": {
        "name": "show",
        "description": "Print files",
        "command": "cat",
        "synchronous": True,
        "subcommand": [
            {
                "name": "default",
                "description": "Print the given files",
                "positional_args": [
                    {"name": "files", "type": "array", "format": "path"}
                ],
            }
        ],
    },
    "copy": {
        "name": "copy",
        "description": "Copy a file",
        "command": "cp",
        "synchronous": True,
        "subcommand": [
            {
                "name": "default",
                "description": "Copy source to target",
                "positional_args": [
                    {"name": "source", "type": "string", "format": "path"},
                    {"name": "target", "type": "string", "format": "path"},
                ],
            }
        ],
    },
}


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from build_folder(EXAMPLES, tmp_path_factory.mktemp("built") / "examples")


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("tools")
    for name, tool in TOOLS.items():
        (folder / f"{name}.json").write_text(json.dumps(tool), encoding="utf-8")
    yield from build_folder(folder, tmp_path_factory.mktemp("built") / "confined")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current directory, the sandbox root: ``x.txt`` in it, and beside it a
    folder ``outside`` holding ``secret.txt``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET}\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "x.txt").write_text("x\n")
    monkeypatch.delenv("MCIGEN_BASE_DIR", raising=False)
    monkeypatch.chdir(root)
    return root


def test_args_cannot_make_tar_run_a_command(examples: str, root: Path) -> None:
    """The example's archive tool appended ``args`` as given: tar ran the command."""
    run = ["--checkpoint=1", "--checkpoint-action=exec=touch PWNED"]
    with pytest.raises(ToolInputError) as raised:
        call(examples, "archive", file="a.tar", paths=["x.txt"], args=run)
    assert raised.value.field == "args"
    assert "allow_raw_args" in str(raised.value)
    assert sorted(p.name for p in root.iterdir()) == ["x.txt"]


def test_args_cannot_name_a_file_outside(examples: str, root: Path) -> None:
    """A word of ``args`` that is not an option is a path no check sees."""
    outside = str(root.parent / "outside" / "secret.txt")
    with pytest.raises(ToolInputError) as raised:
        call(examples, "search", regexp=".", paths=["x.txt"], args=[outside])
    assert raised.value.field == "args"
    assert not call(examples, "search", regexp="x", paths=["x.txt"], args=[]).isError


@pytest.mark.parametrize("where", ["/", "..", "../outside", "link", "{outside}"])
def test_a_working_directory_outside_the_sandbox_root_is_refused(
    examples: str, root: Path, where: str
) -> None:
    outside = root.parent / "outside"
    (root / "link").symlink_to(outside)
    where = where.format(outside=outside)
    with pytest.raises(ToolInputError) as raised:
        call(
            examples,
            "search",
            regexp=SECRET,
            paths=["secret.txt", "outside/secret.txt"],
            working_directory=where,
        )
    assert raised.value.field == "working_directory"
    assert f'Path "{where}" is outside the sandbox root "{root}"' in str(raised.value)


def test_the_working_directory_is_taken_against_the_base_directory(
    examples: str, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "found.txt").write_text("needle\n")
    monkeypatch.chdir(root.parent / "outside")
    monkeypatch.setenv("MCIGEN_BASE_DIR", str(root))
    found = call(
        examples,
        "search",
        regexp="needle",
        paths=["found.txt"],
        working_directory="sub",
    )
    assert (found.isError, found.text) == (False, "needle\n")
    with pytest.raises(ToolInputError):  # the current directory is outside now
        call(
            examples,
            "search",
            regexp=SECRET,
            paths=["secret.txt"],
            working_directory=os.getcwd(),
        )


_SWAPPER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
at = os.open(sys.argv[1], os.O_DIRECTORY | os.O_PATH)
print("swapping", flush=True)
while True:  # renameat2(RENAME_EXCHANGE): the two names swap at once
    if libc.renameat2(at, b"d", at, b"d.swap", 2) != 0:
        sys.exit(f"renameat2: {os.strerror(ctypes.get_errno())}")
"""


def test_a_path_operand_is_given_as_the_descriptor_checked(
    own: str, root: Path
) -> None:
    """Another process swaps the folder ``d`` with a symlink to ``outside`` and
    back, each swap at once, while the tool prints ``d/secret.txt``: the secret
    outside never appears (checked by name and opened later by cat, it leaked
    dozens of times in a few seconds)."""
    (root / "d").mkdir()
    (root / "d" / "secret.txt").write_text("inside\n")
    (root / "d.swap").symlink_to(root.parent / "outside")
    assert call(own, "show", files=["d/secret.txt"]).text == "inside\n"
    swapper = subprocess.Popen(
        [sys.executable, "-c", _SWAPPER, str(root)], stdout=subprocess.PIPE, text=True
    )
    seen: dict[str, int] = {"inside": 0, "leaked": 0, "refused": 0}
    try:
        assert swapper.stdout is not None
        assert swapper.stdout.readline() == "swapping\n"
        deadline = time.monotonic() + 3
        for _ in range(500):
            if time.monotonic() > deadline:
                break
            text = call(own, "show", files=["d/secret.txt"]).text
            if SECRET in text:
                seen["leaked"] += 1
            elif text == "inside\n":
                seen["inside"] += 1
            else:
                seen["refused"] += 1
        assert swapper.poll() is None  # it swapped all along
    finally:
        swapper.kill()
        swapper.wait()
    assert seen["leaked"] == 0, seen
    assert seen["refused"] > 0, seen


def test_a_path_not_there_yet_is_created_in_its_opened_folder(
    own: str, root: Path
) -> None:
    copied = call(own, "copy", source="x.txt", target="y.txt")
    assert not copied.isError, copied.text
    assert (root / "y.txt").read_text() == "x\n"
    (root / "w.txt").write_text("w\n")
    assert not call(own, "copy", source="w.txt", target="y.txt").isError  # overwritten
    assert (root / "y.txt").read_text() == "w\n"
    (root / "d").mkdir()
    assert not call(own, "copy", source="x.txt", target="d/new/../z.txt").isError
    assert (root / "d" / "z.txt").read_text() == "x\n"
    missing = call(own, "copy", source="x.txt", target="nowhere/z.txt")
    assert missing.isError
    assert "No such file or directory" in missing.text
    escaped = call(own, "copy", source="x.txt", target="../outside/z.txt")
    assert escaped.isError
    assert 'Path "../outside/z.txt" is outside the working directory' in escaped.text
    assert sorted(p.name for p in root.parent.joinpath("outside").iterdir()) == [
        "secret.txt"
    ]


def test_a_call_keeps_no_descriptor_open(own: str, root: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        assert not call(own, "show", files=["x.txt", "x.txt"]).isError
        refused = call(own, "show", files=["x.txt", "../outside/secret.txt"])
        assert refused.isError and SECRET not in refused.text
    assert len(os.listdir("/proc/self/fd")) == before
