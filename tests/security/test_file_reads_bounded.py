"""File reads are bounded (issue 14, group 1): a file larger than the ``file_size``
limit, a FIFO, a device and a NUL byte in a path are error results, never a
read of everything, a blocked call or a traceback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from ..conftest import run_mcigen, write_schema
from ..oracle import run_oracle
from .path_tools import cli_tool, file_tool, package_of
from .support import every_module_imported, importable_from

MIB = 1 << 20
TOOLS = [
    file_tool("readRaw", "data/{{props.name}}", templating=False),
    file_tool("readRendered", "data/{{props.name}}"),
    file_tool("readAny", "{{props.name}}", enableAnyPaths=True),
    cli_tool("listIn", ["ls"], "{{props.name}}"),
    cli_tool("listAnywhere", ["ls"], "{{props.name}}", enableAnyPaths=True),
]


def too_large(shown: str, holds: str, limit: int) -> str:
    return (
        f"File too large: {shown} holds {holds} bytes, over the file_size limit of "
        f"{limit:,} bytes (mcigen build --limit, limited() or Client(limits=...) "
        "set it)"
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Read only by the tests: one package serves them all."""
    data = tmp_path_factory.mktemp("bounded") / "project" / "data"
    data.mkdir(parents=True)
    with open(data / "huge.bin", "wb") as huge:
        huge.truncate(64 * MIB)  # sparse: no disk, but 64 MiB for whoever reads it
    (data / "kib.txt").write_text("k" * 1024, "utf-8")
    (data / "over.txt").write_text("o" * 1025 + "{{props.name}}", "utf-8")
    os.mkfifo(data / "fifo")
    return data.parent


@pytest.fixture(scope="module")
def package(project: Path) -> Iterator[ModuleType]:
    with package_of(project, TOOLS) as package:
        yield package


def test_a_file_over_the_limit_is_refused_unread(package: ModuleType) -> None:
    for tool in (package.read_raw, package.read_rendered):
        result = tool(name="huge.bin")
        assert result.isError
        assert result.text == too_large("data/huge.bin", "67,108,864", 10 * MIB)


def test_the_limit_is_set_per_call_and_per_client(package: ModuleType) -> None:
    from pkg.client import limited

    with limited(file_size=1024):
        assert package.read_raw(name="kib.txt").text == "k" * 1024
        refused = package.read_rendered(name="over.txt")
        assert refused.text == too_large("data/over.txt", "1,039", 1024)
    client = package.Client(limits={"file_size": 1000})
    result = client.execute("readRaw", {"name": "kib.txt"}).result
    assert (result.isError, result.text) == (
        True,
        too_large("data/kib.txt", "1,024", 1000),
    )


def test_row48_the_package_limit_refuses_what_mci_py_reads_whole(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = {"schemaVersion": "1.0", "tools": TOOLS[:1]}
    schema = write_schema(project, document, "small.mci.json")
    monkeypatch.chdir(project)  # where mci-py opens relative paths (row 16)
    call = {"tool": "readRaw", "props": {"name": "over.txt"}, "env": {}}
    (theirs,) = run_oracle(schema, [call])
    assert theirs["result"]["content"][0]["text"] == "o" * 1025 + "{{props.name}}"
    limit = ("--limit", "file_size=1KiB")
    built = run_mcigen("build", schema, "-o", project / "small", *limit)
    assert built.returncode == 0, built.stderr
    with importable_from(project), every_module_imported("small") as small:
        assert small.read_raw(name="kib.txt").text == "k" * 1024
        assert small.read_raw(name="over.txt").text == too_large(
            "data/over.txt", "1,039", 1024
        )


def test_a_file_growing_past_the_limit_while_read_is_refused(
    package: ModuleType,
) -> None:
    """Files under /proc say they hold 0 bytes and hold more: the read stops at
    the limit all the same."""
    from pkg.client import limited

    with limited(file_size=100):
        result = package.read_any(name="/proc/self/status")
    assert (result.isError, result.text) == (
        True,
        too_large("/proc/self/status", "more", 100),
    )


def test_fifos_and_devices_are_refused_without_blocking(package: ModuleType) -> None:
    assert package.read_raw(name="fifo").text == "Path is not a file: data/fifo"
    assert package.read_any(name="/dev/zero").text == "Path is not a file: /dev/zero"


def test_a_nul_byte_in_a_path_is_an_error_result_as_in_mci_py(
    package: ModuleType, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)  # where mci-py opens relative paths (row 16)
    calls = [("readRaw", "a\x00b"), ("readAny", "/a\x00b"), ("listIn", "a\x00b")]
    theirs = run_oracle(
        project / "tools.mci.json",
        [{"tool": tool, "props": {"name": name}, "env": {}} for tool, name in calls],
    )
    client = package.Client()
    for (tool, name), oracle in zip(calls, theirs, strict=True):
        ours = client.execute(tool, {"name": name}).result
        assert ours.model_dump(mode="json") == oracle["result"], tool
    assert package.read_raw(name="a\x00b").text == "embedded null byte"
    assert package.read_any(name="/a\x00b").text == "File not found: /a\x00b"
    assert package.list_anywhere(name="/a\x00b").text == "embedded null byte"


def test_a_directory_that_cannot_be_opened_is_named_as_the_schema_gave_it(
    package: ModuleType,
) -> None:
    """As mci-py names it (tests/test_cli_tools.py compares with mci-py)."""
    assert package.list_in(name="data/./nope").text == (
        "[Errno 2] No such file or directory: 'data/./nope'"
    )
    assert package.list_in(name="data/kib.txt").text == (
        "[Errno 20] Not a directory: 'data/kib.txt'"
    )
