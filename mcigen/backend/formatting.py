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
- what black still has to format is spread over every core.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path

import black
from black.mode import TargetVersion

from . import build_cache, shapes

_MODE = black.Mode(
    target_versions={TargetVersion.PY311}, line_length=shapes.LINE_LENGTH
)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_PARALLEL_FROM = 200
"""Fewer pieces than this are formatted in this process (a pool costs ~0.2 s)."""
_EARLY_WORKERS_FROM = 100
"""Tools from which a build forks its workers before it emits anything."""

_workers: ProcessPoolExecutor | None = None


@contextmanager
def early_workers(tools: int) -> Iterator[None]:
    """Around the emission of a package of ``tools`` tools: when it is large, the
    processes that run black are forked first, while this process is small. A
    worker forked at the end of a large build would start as a copy of everything
    the build holds (its page tables count it all, and its garbage collector
    touches, and so copies, much of it)."""
    global _workers
    if tools < _EARLY_WORKERS_FROM or (os.cpu_count() or 1) < 2:
        yield
        return
    _workers = ProcessPoolExecutor(os.cpu_count())
    _workers.submit(int).result()  # forks every worker now
    try:
        yield
    finally:
        _workers.shutdown()
        _workers = None


def format_modules(sources: list[str]) -> list[str]:
    """Every module of a package, formatted, its pieces cached and spread over cores.

    The cache maps a text to black's output for it, and a module's output is that of
    its pieces joined: a module that did not change comes from the cache whole, and
    only a changed one is cut."""
    cache = build_cache.cache_dir(f"black-{version('black')}")
    done = _cached(cache, sources)
    pieces = {source: _pieces(source) for source in sources if source not in done}
    formatted = _format_pieces(cache, {p for module in pieces.values() for p in module})
    for source, module in pieces.items():
        done[source] = "\n\n".join(formatted[piece] for piece in module)
        build_cache.write(cache, _key(source), done[source])
    return [done[source] for source in sources]


def _cached(cache: Path | None, texts: Iterable[str]) -> dict[str, str]:
    found = {text: build_cache.read(cache, _key(text)) for text in texts}
    return {text: output for text, output in found.items() if output is not None}


def _format_pieces(cache: Path | None, pieces: Iterable[str]) -> dict[str, str]:
    done = _cached(cache, pieces)
    missing = sorted(piece for piece in pieces if piece not in done)
    for piece, result in _format_by_shape(missing).items():
        done[piece] = result
        build_cache.write(cache, _key(piece), result)
    return done


def _format_by_shape(pieces: list[str]) -> dict[str, str]:
    """black on one piece of every shape (``shapes.py``), its output carried over to
    the others; black on any piece whose output cannot be carried over."""
    groups: dict[shapes.Shape, list[tuple[str, shapes.Split]]] = {}
    for piece in pieces:
        split = shapes.split(piece)
        groups.setdefault(split.shape(), []).append((piece, split))
    formatted = _black_all([members[0][0] for members in groups.values()])
    unsure = []
    for (first, first_split), *others in groups.values():
        output = shapes.split_output(formatted[first], first_split)
        for piece, split in others:
            result = shapes.transplant(output, first_split, split)
            if result is None:
                unsure.append(piece)
            else:
                formatted[piece] = result
    formatted.update(_black_all(unsure))
    return formatted


def _black_all(pieces: list[str]) -> dict[str, str]:
    workers = min(os.cpu_count() or 1, len(pieces) // _PARALLEL_FROM)
    if workers > 1 and _workers is not None:
        results = list(_workers.map(_black, pieces, chunksize=64))
    elif workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_black, pieces, chunksize=64))
    else:
        results = [_black(piece) for piece in pieces]
    return dict(zip(pieces, results, strict=True))


def _black(piece: str) -> str:
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
