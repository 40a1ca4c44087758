"""black formats two pieces of one shape alike: the output for one, with the other's
names and words put in, is black's output for the other."""

from __future__ import annotations

import keyword
import random
import string
from collections.abc import Callable
from pathlib import Path

import black
import pytest

from mcigen import backend
from mcigen.backend import formatting, shapes
from mcigen.pipeline import CompileOptions, compile_schema
from mcigen.planner import McpAccess, McpMode

from .conftest import ROOT

TRICKY = '''
def tool_00001(*, name: str, count: int = 1, mode: Literal["short", "long"] | None = None) -> ToolResult:
    """Greets someone: 'quoted' and "double" words, a "last word"."""
    out.append(f"Hello {value_1} from tool 12 {d['key']}")
    message = 'it is "fine"' + "plain words here" + r"raw words"
    return _text_result("".join(out), some_really_long_keyword_argument_name=another_name_of_some_length)


class Tool00001Input(BaseModel):
    """Line one.

        Indented more.
    Trailing spaces here.
    """

    name: StrictStr = Field(..., description="Who to greet, with a rather long description")
    match = case = type = _ = 1
'''.replace("here.\n", "here.   \n")


def _pieces(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Tricky code, the golden tool modules and the unformatted modules of two
    examples, cut into pieces."""
    sources = [TRICKY]
    for path in sorted((ROOT / "golden").glob("*/tools/*.py")):
        sources.append(path.read_text("utf-8"))
    with monkeypatch.context() as patched:
        patched.setattr(backend, "format_modules", _keeping(sources))
        for example in ("runbooks.mci.json", "workspace.mci.yaml"):
            compile_schema(
                ROOT / "examples" / example,
                tmp_path,
                "p",
                CompileOptions(mcp=McpAccess(McpMode.OFFLINE)),
            )
    return [piece for source in sources for piece in formatting._pieces(source)]


def _keeping(sources: list[str]) -> Callable[[list[str], object], list[str]]:
    def keep(raw: list[str], known: object) -> list[str]:
        sources.extend(raw)
        return raw

    return keep


def _variant(piece: str, rng: random.Random) -> str:
    """``piece`` with every unit replaced, consistently, by another of its length and
    character classes: the same shape, other names and words."""
    split = shapes.split(piece)
    renamed: dict[str, str] = {}
    for unit in split.units:
        while unit not in renamed:
            candidate = "".join(_like(c, rng) for c in unit)
            if _usable(candidate) and candidate not in renamed.values():
                renamed[unit] = candidate
    parts = [split.skeleton[0]]
    for unit, between in zip(split.units, split.skeleton[1:], strict=True):
        parts += [renamed[unit], between]
    return "".join(parts)


def _like(char: str, rng: random.Random) -> str:
    if char.isdigit():
        return rng.choice(string.digits)
    if char.isalpha():
        return rng.choice(string.ascii_letters)
    return char


def _usable(name: str) -> bool:
    return not keyword.iskeyword(name) and not keyword.issoftkeyword(name)


def _black(source: str) -> str:
    return black.format_str(source, mode=formatting._MODE)


def test_the_units_are_names_and_words_of_plain_strings() -> None:
    split = shapes.split(
        'def f(a, b="x y1"):  # note\n    return rb"\\n" if a else None\n'
    )
    assert split.units == ("f", "a", "b", "x y1", "a")
    assert split.skeleton[-2] == '"):  # note\n    return rb"\\n" if '


def test_output_whose_units_black_changed_is_not_transplanted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one, other = shapes.split("x = 'a b'\n"), shapes.split("y = 'c d'\n")
    assert one.shape() == other.shape()
    assert shapes.transplant(shapes.split("x = 'a B'\n"), one, other) is None
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    monkeypatch.setattr(shapes, "transplant", lambda *args: None)
    sources = ["x = 'a b'\n", "y = 'c d'\n"]
    assert formatting.format_modules(sources) == [_black(s) for s in sources]


def test_pieces_of_one_shape_are_formatted_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    sources = [f"def tool_{i:03d}( x ):\n  return 'tool {i:03d}'\n" for i in range(30)]
    calls: list[str] = []

    def black_once(piece: str) -> str:
        calls.append(piece)
        return _black(piece)

    monkeypatch.setattr(formatting, "_black", black_once)
    assert formatting.format_modules(sources) == [_black(s) for s in sources]
    assert len(calls) == 1


def _redocumented(piece: str, rng: random.Random) -> str:
    """``piece`` with every whole docstring replaced by other settled text of
    another length (more or fewer lines and words): the same shape."""
    split = shapes.split(piece)
    parts = [split.skeleton[0]]
    for unit, length, between in zip(
        split.units, split.lengths, split.skeleton[1:], strict=True
    ):
        parts += [_other_docstring(unit, rng) if length == 0 else unit, between]
    return "".join(parts)


def _other_docstring(body: str, rng: random.Random) -> str:
    def words(most: int) -> str:
        return " ".join(
            "".join(
                rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 9))
            )
            for _ in range(rng.randint(1, most))
        )

    if "\n" not in body:
        return words(30).capitalize() + "."
    indent = body.rsplit("\n", 1)[1]
    lines = [f"{indent}{words(20)}" for _ in range(rng.randint(1, 6))]
    return words(12).capitalize() + ".\n\n" + "\n".join(lines) + "\n" + indent


Variant = Callable[[str, random.Random], str]


@pytest.mark.parametrize(
    ("make_variant", "seed"),
    [(_variant, 1), (_variant, 2), (_redocumented, 3), (_redocumented, 4)],
    ids=["renamed-1", "renamed-2", "redocumented-3", "redocumented-4"],
)
def test_a_variant_formats_as_its_original_transplanted(
    make_variant: Variant, seed: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Other names and words of the same lengths, or other docstrings of any
    length: the same shape, and black's output for the original, with the
    variant's units put in, is black's output for the variant."""
    rng = random.Random(seed)
    pieces = _pieces(monkeypatch, tmp_path)
    assert len(pieces) > 100
    changed = 0
    for piece in pieces:
        variant = make_variant(piece, rng)
        original, varied = shapes.split(piece), shapes.split(variant)
        assert varied.shape() == original.shape()
        output = shapes.split_output(_black(piece), original)
        assert shapes.transplant(output, original, varied) == _black(variant), variant
        changed += variant != piece
    assert changed > 20  # (the examples' generated docstrings are whole units)
