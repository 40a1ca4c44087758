"""Formatting a module piece by piece gives exactly what black gives for the whole."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import black
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcigen import backend
from mcigen.backend import formatting, fstring_masks, workers
from mcigen.pipeline import CompileOptions, compile_schema
from mcigen.planner import McpAccess, McpMode

from .conftest import ROOT

OFFLINE = CompileOptions(mcp=McpAccess(McpMode.OFFLINE))

R = TypeVar("R")

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
    pieces, _ = compile_schema(schema, tmp_path / "p", "p", OFFLINE)
    monkeypatch.setattr(
        backend, "format_modules", lambda sources, known: [_whole(s) for s in sources]
    )
    whole, _ = compile_schema(schema, tmp_path / "p", "p", OFFLINE)
    assert pieces is not None and pieces == whole


def test_cached_pieces_are_reused_and_give_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(tmp_path / "cache"))
    first = formatting.format_modules([MESSY])
    entries = list((tmp_path / "cache").glob("black-*/*"))
    pieces = len(formatting._pieces(MESSY))
    assert len(entries) == pieces + 1  # and the module
    calls: list[str] = []
    monkeypatch.setattr(formatting, "_black", _spy(formatting._black, calls))
    assert formatting.format_modules([MESSY]) == first
    assert calls == []


def test_only_a_changed_module_is_cut_and_only_its_changed_piece_formatted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(tmp_path / "cache"))
    changed = MESSY.replace("return str(a)+b", "return str(a)+b+'!'")
    formatting.format_modules([MESSY, "x = 1\n"])
    cut: list[str] = []
    formatted: list[str] = []
    monkeypatch.setattr(formatting, "_pieces", _spy(formatting._pieces, cut))
    monkeypatch.setattr(formatting, "_black", _spy(formatting._black, formatted))
    assert formatting.format_modules([changed, "x = 1\n"]) == [
        _whole(changed),
        "x = 1\n",
    ]
    assert cut == [changed]
    assert formatted == [p for p in formatting._pieces(changed) if "'!'" in p]


def _spy(function: Callable[[str], R], calls: list[str]) -> Callable[[str], R]:
    def spied(text: str) -> R:
        calls.append(text)
        return function(text)

    return spied


def test_workers_forked_before_a_large_build_format_as_black_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Enough pieces of distinct shapes to go to the worker processes, forked up
    front as a build of many tools forks them: each piece is black's output."""
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    source = "\n".join(
        f"def {'f' * (i % 60 + 1)}_{i}(x = {i}):\n  return {{ 'k' : x*{i} }}\n"
        for i in range(450)
    )
    with workers.early_workers(tools=1000):
        assert workers.pool() is not None
        formatted = formatting.format_modules([source])
    assert workers.pool() is None
    assert formatted == [black.format_str(source, mode=formatting._MODE)]


def test_f_strings_are_put_back_only_where_they_provably_were() -> None:
    """black gets ``f"{a}"`` as ``"{a}_"`` (``fstring_masks``); an output whose
    masks moved, changed places or changed the code is not used (plain black
    runs instead), whatever formatted it."""
    piece = 'x = g(f"{a}", f"{b}", "{a}_")\n'
    assert fstring_masks.formatted(piece, _whole) == _whole(piece)

    def swapped(text: str) -> str:
        return _whole(text).replace('"{a}_", "{b}_"', '"{b}_", "{a}_"', 1)

    def moved_into_a_string(text: str) -> str:
        return _whole(text).replace('"{b}_", "{a}_"', '"{b}_ \\"{a}_\\"", "{a}_"')

    def another_statement(text: str) -> str:
        return _whole(text) + 'y = "{a}_"\n'

    def another_call(text: str) -> str:  # every string in its place
        return _whole(text).replace("g(", "h(")

    for formatter in (swapped, moved_into_a_string, another_statement, another_call):
        assert fstring_masks.formatted(piece, formatter) is None


_SNIPPETS = [
    'x = f"{a}"\n',
    "y = f'{b!r:>{w}}' + rf\"\\d{c}\" + Fr'{d}'\n",
    'z = (\n    f"""{e}\n"""\n    f"{g}"\n)\n',
    "# a comment with f\"quotes\" and f'more'\n",
    's = "f" + "a f\\" quote" + \'if"\'\n',
    "if f'{h}':\n    pass\n",
    'def f(v=f"{i}"):\n    return f"{v}" f"{{}}"\n',
    "@dec(f'{j}')\nclass C:\n    k = f'{{{l}}}'\n",
    'u = f"{m:{n}}" if f"{o}" else f"{p}"\n',
    'w = f"{q}"  # f"{r}"\n',
    'f = 1\nt = f\nv = [f, "f"]\n',
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_SNIPPETS), min_size=1, max_size=12))
def test_statements_span_the_lines_python_parses_them_on(snippets: list[str]) -> None:
    """The statements ``_pieces`` cuts at are found with f-strings read as plain
    strings (Python 3.11): each spans the lines it spans to Python's own parse."""
    source = "\n".join(snippets)

    def spans(statements: list[ast.stmt]) -> list[tuple[object, ...]]:
        return [
            (
                type(node).__name__,
                node.lineno,
                node.end_lineno,
                *(d.lineno for d in getattr(node, "decorator_list", ())),
            )
            for node in statements
        ]

    assert spans(formatting._statements(source)) == spans(ast.parse(source).body)
    assert formatting.format_modules([source]) == [_whole(source)]


def test_a_drafts_head_is_not_formatted_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A draft's head (docstring, imports, ``__all__``) changes once the models are
    made: formatting it ahead is wasted work. Its other pieces, and every piece of
    a module formatted ahead, are black's."""
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    draft = '"""A group."""\nimport os\n__all__ = ["f"]\ndef f( ):\n  return os.sep\n'
    module = "x = {'a':1}\n"
    ahead = formatting.formatted_ahead([module], [draft])
    head, *rest = formatting._pieces(draft)
    assert head not in ahead
    assert all(ahead[piece] == _whole(piece) for piece in rest)
    assert ahead[module] == _whole(module)


def test_a_large_build_is_plain_blacks_bytes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A build of enough tools to fork the workers (models made while the other
    modules are formatted ahead, stand-ins sent as modules are cut) writes what
    plain black on each whole module writes."""
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    tools = [
        {
            "name": f"tool_{i}",
            "description": f"Tool {i} of {'many ' * (i % 7)}tools.",
            "inputSchema": {
                "type": "object",
                "properties": {f"arg_{i % 5}": {"type": "string"}},
                "required": [f"arg_{i % 5}"],
            },
            "execution": {"type": "text", "text": f"{{{{props.arg_{i % 5}}}}} {i}"},
        }
        for i in range(120)
    ]
    schema = tmp_path / "s.mci.json"
    document = {"schemaVersion": "1.0", "metadata": {"name": "s"}, "tools": tools}
    schema.write_text(json.dumps(document), encoding="utf-8")
    pieces, _ = compile_schema(schema, tmp_path / "p", "p", OFFLINE)
    monkeypatch.setattr(
        backend, "format_modules", lambda sources, known: [_whole(s) for s in sources]
    )
    whole, _ = compile_schema(schema, tmp_path / "p", "p", OFFLINE)
    assert pieces is not None and pieces == whole


_HEADS = [
    '"""Doc."""\nimport os\n__all__ = ["f"]\n',
    '"""Doc."""\nimport os\nif TYPE_CHECKING:\n    from m import A\n__all__ = ["A", "f"]\n',
    '"""Doc."""\n__all__ = []\n\n\ndef __getattr__(name):\n    return name\n\n\n',
    '"""Doc."""\nx = 1\n# a comment that ends the head\n',
    '"""Doc."""\ny = (\n    1,\n)\n\n',
    '"""Doc."""\ns = """\n',
]
_TAILS = [
    "def f():\n    return 1\n",
    "# above f\ndef f():\n    pass\n",
    "# above, then a blank line\n\ndef f():\n    pass\n",
    "@dec\nclass C:\n    x = 1\n",
    'def g():\n    return f"{x}"\nZ = 2\n"""What Z is."""\n',
    "\ndef h(): ...\n",
    "z = 3\ndef k(): ...\n",
]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(_HEADS),
    st.sampled_from(_HEADS),
    st.lists(st.sampled_from(_TAILS), min_size=1, max_size=4),
)
def test_a_final_module_is_cut_as_its_draft_was_or_parsed_again(
    draft_head: str, final_head: str, tails: list[str]
) -> None:
    """A final module that ends as its draft does after the draft's head is cut
    without parsing that part again only when that gives ``_pieces``' own cut."""
    tail = "".join(tails)
    draft, final = draft_head + tail, final_head + tail
    try:
        head, *rest = formatting._pieces(draft)
        expected = formatting._pieces(final)
    except SyntaxError:
        return
    known = {draft[len(head) :]: rest} if draft.startswith(head) else {}
    assert formatting._pieces_after_draft(final, known) in ([], expected)


def test_a_final_module_after_its_draft_is_cut_without_parsing_the_rest() -> None:
    draft, final = _HEADS[0] + _TAILS[1], _HEADS[1] + _TAILS[1]
    head, *rest = formatting._pieces(draft)
    after = formatting._pieces_after_draft(final, {draft[len(head) :]: rest})
    assert after == formatting._pieces(final)
    assert after[1:] == rest
