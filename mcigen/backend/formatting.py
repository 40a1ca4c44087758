"""black, applied to every emitted Python file.

black costs about 0.3 ms a line, and a group module of a thousand tools has tens of
thousands of lines. So a module is cut at its top-level functions and classes, each
piece is formatted on its own, and the pieces are joined with the two blank lines
black puts around top-level definitions: the same bytes as formatting the whole
file (``tests/test_formatting.py`` holds the two equal), but

- a piece already formatted by an earlier build comes from the build cache
  (``build_cache.py``; keyed by the piece, black's version and mode), so a rebuild
  after changing one tool formats one tool;
- of the pieces not in the cache, black formats one of every shape
  (``shapes.py``: the same code but for names and words, as the functions of
  similar tools are) and its output is carried over to the others;
- what black still has to format is spread over every core, its f-strings given
  to it as plain strings where that is shown to change nothing
  (``fstring_masks.py``: black parses an f-string's fields only to leave it as
  it was).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import black
from black.mode import TargetVersion

from .. import build_cache
from . import fstring_masks, shapes, workers

_MODE = black.Mode(
    target_versions={TargetVersion.PY311}, line_length=shapes.LINE_LENGTH
)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_PARALLEL_FROM = 200
"""Fewer pieces than this are formatted in this process (a pool costs ~0.2 s)."""


def format_modules(
    sources: list[str], known: Mapping[str, str] | None = None
) -> list[str]:
    """Every module of a package, formatted, its pieces cached and spread over cores.

    The cache maps a text to black's output for it, and a module's output is that of
    its pieces joined: a module that did not change comes from the cache whole, and
    only a changed one is cut. ``known`` holds pieces formatted already
    (:func:`formatted_pieces`)."""
    cache = _cache()
    done = _cached(cache, sources)
    pieces = {source: _pieces(source) for source in sources if source not in done}
    every = {p for module in pieces.values() for p in module}
    formatted = _format_pieces(cache, every, known or {})
    for source, module in pieces.items():
        done[source] = "\n\n".join(formatted[piece] for piece in module)
        build_cache.write(cache, _key(source), done[source])
    return [done[source] for source in sources]


def formatted_pieces(drafts: list[str]) -> dict[str, str]:
    """black's output for every piece of ``drafts``: modules but for some pieces
    not made yet, formatted ahead while those are made."""
    every = {piece for draft in drafts for piece in _pieces(draft)}
    return _format_pieces(_cache(), every, {})


def _cache() -> Path | None:
    return build_cache.tool_cache_dir("black")


def _cached(cache: Path | None, texts: Iterable[str]) -> dict[str, str]:
    found = {text: build_cache.read(cache, _key(text)) for text in texts}
    return {text: output for text, output in found.items() if output is not None}


def _format_pieces(
    cache: Path | None, pieces: set[str], known: Mapping[str, str]
) -> dict[str, str]:
    done = {piece: known[piece] for piece in pieces if piece in known}
    done.update(_cached(cache, (piece for piece in pieces if piece not in done)))
    missing = sorted(piece for piece in pieces if piece not in done)
    for piece, result in _format_by_shape(missing).items():
        done[piece] = result
        build_cache.write(cache, _key(piece), result)
    return done


def _format_by_shape(pieces: list[str]) -> dict[str, str]:
    """black on a stand-in for every shape (``shapes.py``: one piece of the shape,
    its docstrings cut short), its output carried over to the pieces; black on any
    piece whose output cannot be carried over."""
    groups: dict[shapes.Shape, list[tuple[str, shapes.Split]]] = {}
    for piece in pieces:
        split = shapes.split(piece)
        groups.setdefault(split.shape(), []).append((piece, split))
    stand_ins = [shapes.stand_in(members[0][1]) for members in groups.values()]
    outputs = _black_all([text for text, _ in stand_ins])
    formatted: dict[str, str] = {}
    unsure = []
    for (text, standing), members in zip(stand_ins, groups.values(), strict=True):
        output = shapes.split_output(outputs[text], standing)
        for piece, split in members:
            result = shapes.transplant(output, standing, split)
            if result is None:
                unsure.append(piece)
            else:
                formatted[piece] = result
    formatted.update(_black_all(unsure))
    return formatted


def _black_all(pieces: list[str]) -> dict[str, str]:
    processes = min(os.cpu_count() or 1, len(pieces) // _PARALLEL_FROM)
    early = workers.pool()
    if processes > 1 and early is not None:
        results = list(early.map(_black, pieces, chunksize=64))
    elif processes > 1:
        with ProcessPoolExecutor(processes) as pool:
            results = list(pool.map(_black, pieces, chunksize=64))
    else:
        results = [_black(piece) for piece in pieces]
    return dict(zip(pieces, results, strict=True))


def _black(piece: str) -> str:
    masked = fstring_masks.formatted(piece, _plain_black)
    return _plain_black(piece) if masked is None else masked


def _plain_black(piece: str) -> str:
    return black.format_str(piece, mode=_MODE)


def _pieces(source: str) -> list[str]:
    """``source`` cut before and after every top-level definition (its decorators
    and the comment lines right above it go with it)."""
    lines = source.splitlines(keepends=True)
    cuts: set[int] = set()
    for node in ast.parse(source).body:
        if isinstance(node, _DEFINITIONS):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
            while first > 0 and lines[first - 1].lstrip().startswith("#"):
                first -= 1
            cuts.update((first, node.end_lineno or node.lineno))
    bounds = sorted(cut for cut in cuts if 0 < cut < len(lines))
    pieces = []
    for start, end in zip([0, *bounds], [*bounds, len(lines)], strict=True):
        piece = "".join(lines[start:end])
        if piece.strip():
            pieces.append(piece)
    return pieces or [source]


def _key(piece: str) -> str:
    return build_cache.key_of(repr(_MODE), piece)
