"""File tools and cli working directories hold under races (issue 14, group 2).

A thread swaps a directory inside the schema's directory with a symlink to a
directory outside it (``renameat2(RENAME_EXCHANGE)``), thousands of times a second,
while file and cli tools are called in a loop: what was read, and where the command
ran, is checked on the opened descriptor, so no call ever sees the outside.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mcigen.atomic_exchange import exchange

from .path_tools import cli_tool, file_tool, package_of

SECONDS = 1.0
"""How long each race runs."""

TOOLS = [
    file_tool("readRaw", "data/{{props.name}}", templating=False),
    file_tool("readRendered", "data/{{props.name}}"),
    cli_tool("catMarker", ["cat", "marker"], "data/{{props.name}}"),
]


@pytest.fixture
def package(tmp_path: Path) -> Iterator[ModuleType]:
    """project/data/sub holds "inside" files, project/data/link is a symlink to
    outside/, which holds "OUTSIDE" ones; data/plain is a file, data/fifo a FIFO."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "data" / "sub").mkdir(parents=True)
    outside.mkdir()
    for directory, text in ((project / "data" / "sub", "inside"), (outside, "OUTSIDE")):
        (directory / "marker").write_text(text, "utf-8")
        (directory / "page.txt").write_text(text + " {{props.name}}", "utf-8")
    (project / "data" / "link").symlink_to(outside, target_is_directory=True)
    (project / "data" / "plain").write_text("plain", "utf-8")
    os.mkfifo(project / "data" / "fifo")
    if not exchange(project / "data" / "sub", project / "data" / "link"):
        pytest.skip("this system cannot exchange two paths atomically")
    exchange(project / "data" / "sub", project / "data" / "link")  # back again
    with package_of(project, TOOLS) as package:
        yield package


@contextmanager
def swapping(first: Path, second: Path) -> Iterator[list[int]]:
    """``first`` and ``second`` exchanged over and over until the block ends; the
    list holds the number of exchanges then."""
    stop = threading.Event()
    count = [0]

    def swap() -> None:
        while not stop.is_set():
            exchange(first, second)
            count[0] += 1

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    try:
        yield count
    finally:
        stop.set()
        thread.join()


def outcomes(call: Callable[[], Any]) -> Counter[str]:
    """How often each result text (errors as "error") came back in SECONDS of calls."""
    seen: Counter[str] = Counter()
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        result = call()
        seen["error" if result.isError else result.text] += 1
    return seen


def test_file_tools_never_read_outside_while_a_directory_is_swapped(
    package: ModuleType, tmp_path: Path
) -> None:
    data = tmp_path / "project" / "data"
    with swapping(data / "sub", data / "link") as swaps:
        raw = outcomes(lambda: package.read_raw(name="sub/marker"))
        rendered = outcomes(lambda: package.read_rendered(name="sub/page.txt"))
    assert swaps[0] > 1000
    assert set(raw) == {"inside", "error"}, raw
    assert set(rendered) == {"inside sub/page.txt", "error"}, rendered


def test_commands_never_start_outside_while_their_directory_is_swapped(
    package: ModuleType, tmp_path: Path
) -> None:
    data = tmp_path / "project" / "data"

    async def async_call() -> Any:
        return await package.cat_marker_async(name="sub")

    with swapping(data / "sub", data / "link") as swaps:
        plain = outcomes(lambda: package.cat_marker(name="sub"))
        awaited = outcomes(lambda: asyncio.run(async_call()))
    assert swaps[0] > 1000
    assert set(plain) == {"inside", "error"}, plain
    assert set(awaited) == {"inside", "error"}, awaited


def test_a_fifo_swapped_in_never_holds_a_call(
    package: ModuleType, tmp_path: Path
) -> None:
    """Between the check by name (a regular file) and the open, the name may come
    to hold a FIFO without a writer: it is opened without blocking and refused."""
    data = tmp_path / "project" / "data"
    seen: list[Counter[str]] = []
    calls = threading.Thread(
        target=lambda: seen.append(outcomes(lambda: package.read_raw(name="plain"))),
        daemon=True,
    )
    with swapping(data / "plain", data / "fifo"):
        calls.start()
        calls.join(SECONDS + 30)
    assert not calls.is_alive(), "a call blocked on the FIFO"
    assert set(seen[0]) == {"plain", "error"}, seen
