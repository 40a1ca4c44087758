"""A schema may not grow past MCIGEN_MAX_DOCUMENT_CHARS characters once YAML aliases
are expanded; the error is at the alias that crossed the limit, and nothing is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import run_mcigen, schema_of, text_tool, write_schema
from ..frontend.support import position

BIG = 200_000


def _fan_out(tools: int) -> str:
    """One 200 KB string, aliased as the description of every tool."""
    lines = ['schemaVersion: "1.0"', "tools:"]
    for index in range(tools):
        description = f'&big "{"a" * BIG}"' if index == 0 else "*big"
        lines += [
            f"  - name: t{index}",
            f"    description: {description}",
            "    execution: {type: text, text: hi}",
        ]
    return "\n".join(lines) + "\n"


def test_an_alias_fan_out_is_refused_at_the_alias_that_crossed(tmp_path: Path) -> None:
    text = _fan_out(300)
    schema = tmp_path / "fan.mci.yaml"
    schema.write_text(text)
    result = run_mcigen("build", schema, "-o", tmp_path / "out")
    # 16 MiB hold 83 copies of the string and the original: the 83rd alias crosses.
    crossing = -1
    for _ in range(83):
        crossing = text.index("*big", crossing + 1)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{schema}:{position(text, crossing)}: error: the document grows past "
        "16777216 characters here (MCIGEN_MAX_DOCUMENT_CHARS sets the limit)",
        "1 error, 0 warnings",
    ]
    assert not (tmp_path / "out").exists()


def test_a_long_description_under_the_limit_is_accepted(tmp_path: Path) -> None:
    # The whole build of this schema takes ~14 s (black formats the 8 MB docstring),
    # so only the frontend and planner run here: the limit is theirs.
    description = "lorem ipsum " * (8 * 1024 * 1024 // 12)
    schema = tmp_path / "long.mci.yaml"
    schema.write_text(_fan_out(1).replace("a" * BIG, description))
    result = run_mcigen("check", schema)
    assert (result.returncode, result.stderr) == (0, "")


def test_the_limit_holds_json_by_its_length_and_can_be_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = write_schema(tmp_path, schema_of(text_tool("t", "x" * 200)))
    text = schema.read_text()
    monkeypatch.setenv("MCIGEN_MAX_DOCUMENT_CHARS", "100")
    result = run_mcigen("check", schema)
    assert result.stderr.splitlines()[0] == (
        f"{schema}:{position(text, 100)}: error: the document grows past 100 "
        "characters here (MCIGEN_MAX_DOCUMENT_CHARS sets the limit)"
    )
    monkeypatch.setenv("MCIGEN_MAX_DOCUMENT_CHARS", "many")
    result = run_mcigen("check", schema)
    assert result.stderr.splitlines()[0] == (
        f"{schema}:1:1: error: MCIGEN_MAX_DOCUMENT_CHARS must be a positive number "
        "of characters, got 'many'"
    )
