"""The stdio server's reader of the client's lines (``serve/stdio_lines.py``): the
lines ``TextIOWrapper`` (what the SDK reads with) gives for the same bytes, however
the bytes arrive, read from the event loop or blocking, from a pipe or a file."""

from __future__ import annotations

import asyncio
import io
import os
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcigen_runtime.serve.stdio_lines import WireLines

PIECES = [
    b'{"a": 1}\n',
    b"\r\n",
    b"\r",
    b"\n",
    b"caf\xc3\xa9",
    b"\xe2\x82",  # the start of a three-byte character
    b"\xac",
    b"\xff\xfe",  # no UTF-8
    b"\xf0\x9f\x98",
    b"x" * 70_000,  # longer than one read
    b"\x00\x1f\x85\xe2\x80\xa8",  # NEL and U+2028 end no line here
    b'"\\u2028"',
]


def sdk_lines(data: bytes) -> list[str]:
    """The lines the SDK's ``TextIOWrapper`` reads from ``data``."""
    wrapper = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    return list(iter(wrapper.readline, ""))


def pipe_with(chunks: list[bytes]) -> int:
    """The read end of a pipe a thread writes ``chunks`` to, one write each."""
    reader, writer = os.pipe()

    def write() -> None:
        for chunk in chunks:
            os.write(writer, chunk)
        os.close(writer)

    threading.Thread(target=write, daemon=True).start()
    return reader


async def read_all(lines: WireLines) -> list[str]:
    return [line async for line in lines]


chunkings = st.lists(st.sampled_from(PIECES), max_size=12).flatmap(
    lambda pieces: st.tuples(
        st.just(b"".join(pieces)),
        st.lists(st.integers(1, 80_000), max_size=8),
    )
)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    chunks, start = [], 0
    for cut in sorted({c % (len(data) + 1) for c in cuts}):
        chunks.append(data[start:cut])
        start = cut
    chunks.append(data[start:])
    return [chunk for chunk in chunks if chunk]


@settings(max_examples=60, deadline=None)
@given(chunkings)
def test_the_loop_reads_the_lines_the_sdk_reads(case: tuple[bytes, list[int]]) -> None:
    data, cuts = case
    fd = pipe_with(split(data, cuts))
    try:
        assert asyncio.run(read_all(WireLines(fd))) == sdk_lines(data)
    finally:
        os.close(fd)


@settings(max_examples=30, deadline=None)
@given(chunkings)
def test_blocking_reads_then_the_loop_lose_nothing(
    case: tuple[bytes, list[int]],
) -> None:
    """The early answers read some lines blocking, then the SDK's reader the rest."""
    data, cuts = case
    fd = pipe_with(split(data, cuts))
    try:
        lines = WireLines(fd)
        first = [lines.readline(), lines.readline()]
        rest = asyncio.run(read_all(lines))
        assert [line for line in first if line] + rest == sdk_lines(data)
    finally:
        os.close(fd)


@settings(max_examples=30, deadline=None)
@given(chunkings, st.integers(0, 3))
def test_lines_read_ahead_and_handed_back_are_read_first(
    case: tuple[bytes, list[int]], ahead: int
) -> None:
    """The early answers read lines blocking and hand them back (``unread``): the
    SDK's reader gets them first, then the rest, as the wire holds them, though
    the wire's later lines may already be read into the buffer."""
    data, cuts = case
    fd = pipe_with(split(data, cuts))
    try:
        lines = WireLines(fd)
        first = [line for line in (lines.readline() for _ in range(ahead)) if line]
        lines.unread(first)
        assert asyncio.run(read_all(lines)) == sdk_lines(data)
    finally:
        os.close(fd)


def test_a_file_is_read_in_a_worker_thread(tmp_path: Path) -> None:
    """A regular file cannot be waited on by the loop (epoll refuses it)."""
    data = b"".join(PIECES)
    path = tmp_path / "lines"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert asyncio.run(read_all(WireLines(fd))) == sdk_lines(data)
    finally:
        os.close(fd)


def test_a_non_blocking_wire_is_waited_for() -> None:
    """Another holder of the pipe may have made it non-blocking."""
    reader, writer = os.pipe()
    os.set_blocking(reader, False)
    lines = WireLines(reader)
    timer = threading.Timer(0.05, lambda: os.write(writer, b"late\n"))
    timer.start()
    try:
        assert lines.readline() == "late\n"
        os.write(writer, b"later\n")
        assert asyncio.run(lines.areadline()) == "later\n"
    finally:
        timer.join()
        os.close(writer)
        os.close(reader)


@pytest.mark.parametrize("tail", [b"", b"no newline", b"\r"])
def test_the_end_of_the_wire(tail: bytes) -> None:
    fd = pipe_with([b"one\n", tail])
    try:
        lines = WireLines(fd)
        said = asyncio.run(read_all(lines))
        assert said == sdk_lines(b"one\n" + tail)
        assert lines.readline() == ""
    finally:
        os.close(fd)
