"""``read_input`` reads a regular file whole, up to its bound, whatever size the
file says it has."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcigen.input_file import InputRefused, read_input


def test_a_file_of_the_bound_is_read_and_one_byte_more_is_refused(
    tmp_path: Path,
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_bytes(b"x" * 100_000)
    assert read_input(schema, 100_000) == b"x" * 100_000
    with pytest.raises(InputRefused, match="more than 99999 bytes"):
        read_input(schema, 99_999)


def test_a_file_that_says_it_is_empty_is_read_to_its_end() -> None:
    # /proc's files have a size of 0 and contents all the same
    version = Path("/proc/version")
    if not version.exists():
        pytest.skip("no /proc")
    assert version.stat().st_size == 0
    assert read_input(version, 1 << 20) == version.read_bytes()
