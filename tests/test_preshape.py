"""Code put in black's shape before black formats it gives black's own output, and
the pieces of a generated package go to black already in its shape (one pass)."""

from __future__ import annotations

import json
from pathlib import Path

import black
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import schemas
from mcigen.backend import formatting
from mcigen.backend.preshape import preshaped
from mcigen.pipeline import CompileOptions, compile_schema
from mcigen.planner import McpAccess, McpMode

from .conftest import ROOT
from .test_formatting import _spy

OFFLINE = CompileOptions(mcp=McpAccess(McpMode.OFFLINE))


def _black(text: str) -> str:
    return black.format_str(text, mode=formatting._MODE)


def _assert_alike(piece: str) -> None:
    assert _black(preshaped(piece)) == _black(piece), piece


def _pieces_given_to_black(
    schema: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """Every piece a build of ``schema`` hands to black (no cache, no workers)."""
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    given: list[str] = []
    monkeypatch.setattr(formatting, "_black", _spy(formatting._black, given))
    files, _ = compile_schema(schema, tmp_path / "p", "p", OFFLINE)
    assert files is not None
    return given


def _scale_schema(tmp_path: Path, tools: int) -> Path:
    path = tmp_path / "scale.mci.json"
    path.write_text(json.dumps(schemas.scale_schema(tools)), "utf-8")
    return path


@pytest.mark.parametrize(
    "example",
    [
        "greetings.mci.yaml",
        "incident_digest.mci.yaml",
        "weather_api.mci.yaml",
        "release_notes.mci.json",
        "repo_tools.mci.json",
        "runbooks.mci.json",
        "support_replies.mci.json",
        "workspace.mci.yaml",
    ],
)
def test_generated_pieces_format_the_same_preshaped(
    example: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pieces = _pieces_given_to_black(ROOT / "examples" / example, tmp_path, monkeypatch)
    assert pieces
    for piece in pieces:
        _assert_alike(piece)


def test_most_pieces_of_a_large_build_go_to_black_in_its_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """black formats a text twice when its first pass changed it: the model classes,
    the tools' functions and the modules' heads of a generated package are given to
    it as it would give them back, so it formats each once."""
    schema = _scale_schema(tmp_path, 60)
    pieces = _pieces_given_to_black(schema, tmp_path, monkeypatch)
    shaped = [piece for piece in pieces if preshaped(piece) == _black(piece)]
    assert len(pieces) > 100
    assert len(shaped) >= 0.85 * len(pieces)
    for piece in pieces:
        _assert_alike(piece)


_HOSTILE = st.lists(
    st.sampled_from(
        [
            "a",
            "word ",
            " ",
            "'",
            '"',
            "\\",
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            "#",
            ",",
            ":",
            " and ",
            " or ",
            " if ",
            " else ",
            "\t",
            "é",
            "漢",
            "\\n",
            "x" * 30,
        ]
    ),
    max_size=40,
).map("".join)
"""Text for a string's body: quotes, brackets, comments, words black splits
conditions at, escapes, wide and non-ASCII characters, long runs."""


def _name(n: int) -> str:
    return "n" * (n % 40 + 1)


@settings(max_examples=300, deadline=None)
@given(
    _HOSTILE,
    st.integers(0, 80),
    st.sampled_from(["StrictStr", "StrictStr | None", "list[StrictStr] | None"]),
    st.sampled_from(["...", "None", "'default'"]),
)
def test_model_fields_format_the_same_preshaped(
    text: str, length: int, annotation: str, default: str
) -> None:
    _assert_alike(
        f"class {_name(length)}Input(BaseModel):\n"
        f"    {_name(length * 7)}: {annotation} = Field({default}, "
        f"description={text!r})\n"
        f"    mode: Literal['short', {text!r}] | None = None\n"
    )


_OPERAND = st.one_of(
    st.builds(lambda t: f"type(raw.get({t!r})) is not str", _HOSTILE),
    st.builds(lambda t: f"{t!r} in raw", _HOSTILE),
    st.builds(lambda n: f"{_name(n)} is None", st.integers(0, 60)),
    st.builds(lambda t: f"f({t!r}, x) or g", _HOSTILE),
    st.builds(lambda t: f"(a or {t!r} and b)", _HOSTILE),
    st.builds(lambda t: f"(x if {t!r} else y)", _HOSTILE),
    st.just("not done"),
    st.just("x if y else z"),
    st.just("(lambda: 1)()"),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_OPERAND, min_size=1, max_size=6),
    st.lists(st.sampled_from(["and", "or"]), min_size=5, max_size=5),
    st.sampled_from(["if", "elif", "while"]),
    st.integers(0, 2),
)
def test_conditions_format_the_same_preshaped(
    operands: list[str], joins: list[str], keyword: str, depth: int
) -> None:
    condition = operands[0]
    for operand, join in zip(operands[1:], joins, strict=False):
        condition += f" {join} {operand}"
    indent = "    " * depth
    lines = [f"{'    ' * d}if x{d}:" for d in range(depth)]
    if keyword == "elif":
        lines += [f"{indent}if x:", f"{indent}    pass"]
    lines += [f"{indent}{keyword} {condition}:", f"{indent}    pass"]
    piece = "\n".join(lines) + "\n"
    _assert_alike(piece)


@settings(max_examples=300, deadline=None)
@given(
    _HOSTILE,
    st.integers(0, 60),
    st.booleans(),
    st.sampled_from(["ToolResult", "dict[str, Any]"]),
)
def test_signatures_and_calls_format_the_same_preshaped(
    text: str, length: int, is_async: bool, result: str
) -> None:
    prefix = "async " if is_async else ""
    _assert_alike(
        f"{prefix}def {_name(length)}(*, name: str = {text!r}, count: int = 1, "
        f'mode: Literal["short", "long"] | None = None) -> {result}:\n'
        f"    value = call_{_name(length * 3)}(name, {text!r}, count)  # {text}\n"
        f"    return {_name(length * 5)}(value, {text!r}, mode, count)\n"
    )


def test_text_black_reads_otherwise_only_loses_its_empty_lines() -> None:
    assert preshaped("\n\nx = 'a'\n\n") == 'x = "a"\n'
    for odd in ("x = 'é'\n", "x = 'a'\t# tab\n", "x = 'a' + \\\n    'b'\n"):
        assert preshaped(f"\n{odd}\n") == odd
    assert preshaped("\nx = 'a'\r\n") == "\nx = 'a'\r\n"
