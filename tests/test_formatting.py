"""Formatting a module piece by piece gives exactly what black gives for the whole."""

from __future__ import annotations

from pathlib import Path

import black
import pytest

from mcigen import backend
from mcigen.backend import formatting
from mcigen.pipeline import compile_schema
from mcigen.planner import McpMode

from .conftest import ROOT

MESSY = '''"""A module."""
from __future__ import annotations
import os
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from x import y
CONSTANT = {"a":1,
  "b":[1,2,3]}
# a comment above a function
def f( a:int,b :str="x" )->str:
    return str(a)+b
@staticmethod
# between decorator and def
def g(): pass
class C( object ):
    x=1
    def m(self): return self.x
TABLE = {
  "f": f,
}
"""What TABLE holds."""
async def h():
    await something( )
'''


def _whole(source: str) -> str:
    return black.format_str(source, mode=formatting._MODE)


def test_a_messy_module_formats_as_black_formats_it() -> None:
    assert formatting.format_modules([MESSY]) == [_whole(MESSY)]


@pytest.mark.parametrize(
    "example",
    ["greetings.mci.yaml", "incident_digest.mci.yaml", "weather_api.mci.yaml"],
)
def test_generated_packages_are_the_same_bytes(
    example: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    schema = ROOT / "examples" / example
    pieces, _ = compile_schema(schema, tmp_path / "p", "p", mcp_mode=McpMode.OFFLINE)
    monkeypatch.setattr(
        backend, "format_modules", lambda sources: [_whole(s) for s in sources]
    )
    whole, _ = compile_schema(schema, tmp_path / "p", "p", mcp_mode=McpMode.OFFLINE)
    assert pieces is not None and pieces == whole


def test_cached_pieces_are_reused_and_give_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(tmp_path / "cache"))
    first = formatting.format_modules([MESSY])
    entries = sorted((tmp_path / "cache").rglob("*"))
    assert len([p for p in entries if p.is_file()]) == len(formatting._pieces(MESSY))
    calls: list[str] = []
    monkeypatch.setattr(formatting, "_black", lambda piece: calls.append(piece) or "")
    assert formatting.format_modules([MESSY]) == first
    assert calls == []
