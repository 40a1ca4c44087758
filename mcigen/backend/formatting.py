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
- what black still has to format goes to it in black's shape where that is cheap
  to guess (``preshape.py``: black formats a text twice when its first pass
  changes it), spread over every core, its f-strings given
  to it as plain strings where that is shown to change nothing
  (``fstring_masks.py``: black parses an f-string's fields only to leave it as
  it was); with the build's early workers, a module's new shapes go to them as soon
  as it is cut, so black runs while the next module is rendered and cut (``_Batch``).
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

import black
from black.mode import TargetVersion

from .. import build_cache
from . import fstring_masks, preshape, shapes, workers

_MODE = black.Mode(
    target_versions={TargetVersion.PY311}, line_length=shapes.LINE_LENGTH
)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_PARALLEL_FROM = 200
"""Fewer pieces than this are formatted in this process (a pool costs ~0.2 s), unless
the build forked its workers already (``workers.early_workers``)."""


def format_modules(
    sources: list[str], known: Mapping[str, str] | None = None
) -> list[str]:
    """Every module of a package, formatted, its pieces cached and spread over cores.

    The cache maps a text to black's output for it, and a module's output is that of
    its pieces joined: a module that did not change comes from the cache whole, and
    only a changed one is cut. ``known`` holds modules and pieces formatted already
    (:func:`formatted_ahead`)."""
    known = known or {}
    tails = known.tails if isinstance(known, Ahead) else {}
    batch = _Batch(_cache(), known)
    done, pieces = _handed_in(batch, sources, known, tails)
    _join(batch, done, pieces, batch.formatted())
    return [done[source] for source in sources]


class Ahead(dict[str, str]):
    """black's output for the modules and pieces formatted ahead, by text; and
    ``tails``: the pieces of each draft but its head, by the text they are cut from
    (the draft after its head), so that the final module need not be parsed again
    (:func:`_pieces_after_draft`)."""

    def __init__(self, formatted: Mapping[str, str], tails: dict[str, list[str]]):
        super().__init__(formatted)
        self.tails = tails


def formatted_ahead(modules: list[str], drafts: list[str]) -> Ahead:
    """black's output for each of ``modules`` and for every piece of ``drafts``,
    formatted ahead while the rest of the package is made. A draft is a module whose
    head (its first piece: docstring, imports, ``__all__``) is not the final one yet:
    its head is left out."""
    batch = _Batch(_cache(), {})
    done, pieces = _handed_in(batch, modules, {}, {})
    tails = {}
    for draft in drafts:
        head, *rest = _pieces(draft)
        if rest and draft.startswith(head):
            tails[draft[len(head) :]] = rest
        batch.add(rest)
    formatted = batch.formatted()
    _join(batch, done, pieces, formatted)
    return Ahead({**formatted, **done}, tails)


def _handed_in(
    batch: _Batch,
    sources: list[str],
    known: Mapping[str, str],
    tails: Mapping[str, list[str]],
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The modules of ``sources`` formatted already (in ``known`` or the cache), and
    the pieces of the others, each module cut once and its pieces handed to
    ``batch``."""
    done = {source: known[source] for source in sources if source in known}
    done.update(_cached(batch.cache, (s for s in sources if s not in done)))
    pieces: dict[str, list[str]] = {}
    for source in sources:
        if source not in done and source not in pieces:
            pieces[source] = _pieces_after_draft(source, tails) or _pieces(source)
            batch.add(pieces[source])
    return done, pieces


def _join(
    batch: _Batch,
    done: dict[str, str],
    pieces: Mapping[str, list[str]],
    formatted: Mapping[str, str],
) -> None:
    """Each cut module of ``pieces`` put together from its ``formatted`` pieces,
    into ``done`` and the batch's cache."""
    for source, module in pieces.items():
        done[source] = _joined(formatted, module)
        build_cache.write(batch.cache, _key(source), done[source])


def _pieces_after_draft(source: str, tails: Mapping[str, list[str]]) -> list[str]:
    """``_pieces(source)`` for a module that ends as a draft does after its head
    (``tails``), parsing only what comes before; [] when none does, or when it
    cannot be shown to give the same pieces.

    The draft's text after its head starts with a top-level definition (its comment
    lines with it), where ``_pieces`` cut the draft. If the text before it in
    ``source`` is whole statements (it parses on its own and ends a line) whose last
    line is not a comment, then ``source``'s statements are those followed by the
    draft's, line for line, and ``_pieces`` cuts ``source`` there too, and after it
    where it cut the draft."""
    for tail, rest in tails.items():
        if not source.endswith(tail) or len(source) == len(tail):
            continue
        before = source[: -len(tail)]
        lines = before.splitlines()
        if (
            not before.endswith("\n")
            or len(lines) != before.count("\n")  # no other line breaks
            or lines[-1].lstrip().startswith("#")
            or not _starts_a_definition(tail)
        ):
            return []
        try:
            return [*_pieces(before), *rest]
        except SyntaxError:
            return []
    return []


def _starts_a_definition(text: str) -> bool:
    """Whether ``text`` starts with a top-level definition (or its decorator), after
    comment lines only: ``_pieces`` cuts before those comments."""
    for line in text.splitlines():
        if not line.lstrip().startswith("#"):
            return line.startswith(("def ", "async def ", "class ", "@"))
    return False


def _joined(formatted: Mapping[str, str], pieces: list[str]) -> str:
    return "\n\n".join(formatted[piece] for piece in pieces)


def _cache() -> Path | None:
    return build_cache.tool_cache_dir("black")


def _cached(cache: Path | None, texts: Iterable[str]) -> dict[str, str]:
    found = {text: build_cache.read(cache, _key(text)) for text in texts}
    return {text: output for text, output in found.items() if output is not None}


_Member = tuple[str, shapes.Split]
"""A piece and its split."""
_SENT_AT_ONCE = 16
"""Stand-ins a worker gets in one task: enough to make a task's cost small against
black's, few enough that both workers share the work."""


class _Batch:
    """The pieces of a build, handed in as its modules are cut: black formats a
    stand-in for every shape (``shapes.py``: one piece of the shape, its docstrings
    cut short) and its output is carried over to the shape's pieces; black formats
    any piece whose output cannot be carried over. With the build's workers
    (``workers.early_workers``), a stand-in goes to them as soon as its piece is
    handed in, so black runs while this process cuts and splits the next module."""

    def __init__(self, cache: Path | None, known: Mapping[str, str]) -> None:
        self.cache = cache
        self._known = known
        self._done: dict[str, str] = {}
        self._handed: set[str] = set()
        """The pieces to format (each once)."""
        self._shapes: dict[shapes.Shape, list[_Member]] = {}
        self._stand_ins: list[tuple[tuple[str, shapes.Split], list[_Member]]] = []
        self._unsent = 0
        """The stand-ins at the end of ``_stand_ins`` not given to a worker yet."""
        self._sent: list[Future[list[str]]] = []

    def add(self, pieces: Iterable[str]) -> None:
        for piece in pieces:
            if piece in self._done or piece in self._handed:
                continue
            found = self._known.get(piece)
            if found is None:
                found = build_cache.read(self.cache, _key(piece))
            if found is not None:
                self._done[piece] = found
                continue
            self._handed.add(piece)
            split = shapes.split(piece)
            members = self._shapes.setdefault(split.shape(), [])
            if not members:
                self._stand_ins.append((shapes.stand_in(split), members))
                self._unsent += 1
            else:  # its shape's skeleton held once: a large build has thousands
                split = shapes.Split(
                    members[0][1].skeleton,
                    split.units,
                    split.lengths,
                    split.whole_docstrings,
                )
            members.append((piece, split))
        pool = workers.pool()
        if pool is not None:
            self._send(pool, _SENT_AT_ONCE)

    def _send(self, pool: ProcessPoolExecutor, least: int) -> None:
        while self._unsent >= least and self._unsent:
            first = len(self._stand_ins) - self._unsent
            chunk = self._stand_ins[first : first + _SENT_AT_ONCE]
            texts = [text for (text, _), _ in chunk]
            self._sent.append(pool.submit(_black_each, texts))
            self._unsent -= len(chunk)

    def formatted(self) -> dict[str, str]:
        """black's output for every piece handed in (newly formatted ones written
        to the cache)."""
        pool = workers.pool()
        if pool is not None:
            self._send(pool, 1)
        outputs = [output for sent in self._sent for output in sent.result()]
        waiting = self._stand_ins[len(outputs) :]
        rest = _black_all([text for (text, _), _ in waiting])
        outputs += [rest[text] for (text, _), _ in waiting]
        unsure = []
        for ((_, standing), members), output in zip(
            self._stand_ins, outputs, strict=True
        ):
            split_output = shapes.split_output(output, standing)
            for piece, split in members:
                result = shapes.transplant(split_output, standing, split)
                if result is None:
                    unsure.append(piece)
                else:
                    self._done[piece] = result
        self._done.update(_black_all(unsure))
        for _, members in self._stand_ins:
            for piece, _ in members:
                build_cache.write(self.cache, _key(piece), self._done[piece])
        return self._done


def _black_all(pieces: list[str]) -> dict[str, str]:
    early = workers.pool()
    processes = min(os.cpu_count() or 1, len(pieces) // _PARALLEL_FROM)
    if early is not None and len(pieces) > 1:
        # A few chunks per worker: one of them may still be making the models.
        chunk = max(1, len(pieces) // (8 * (os.cpu_count() or 1)))
        results = list(early.map(_black, pieces, chunksize=min(chunk, 64)))
    elif processes > 1:
        with ProcessPoolExecutor(processes) as pool:
            results = list(pool.map(_black, pieces, chunksize=64))
    else:
        results = [_black(piece) for piece in pieces]
    return dict(zip(pieces, results, strict=True))


def _black_each(pieces: list[str]) -> list[str]:
    return [_black(piece) for piece in pieces]


def _black(piece: str) -> str:
    piece = preshape.preshaped(piece)
    masked = fstring_masks.formatted(piece, _plain_black)
    return _plain_black(piece) if masked is None else masked


def _plain_black(piece: str) -> str:
    return black.format_str(piece, mode=_MODE)


def _pieces(source: str) -> list[str]:
    """``source`` cut before and after every top-level definition (its decorators
    and the comment lines right above it go with it)."""
    lines = source.splitlines(keepends=True)
    cuts: set[int] = set()
    for node in _statements(source):
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


_F_PREFIX = re.compile(r"(?<!\w)f(?=[\"'])")
"""The ``f`` of an f-string that has no other prefix letter (and any ``f`` right
before a quote inside a string or a comment, which changes nothing that matters)."""


def _statements(source: str) -> list[ast.stmt]:
    """The top-level statements of ``source``, their lines as Python parses them.

    Python 3.11's tokenizer reads an f-string as it reads a plain string: the same
    characters make one string token whatever the prefix, so with ``f"`` spelled
    ``u"`` every statement spans the same lines, and the parser does not parse the
    f-strings' fields (on a 50,000-placeholder template, 0.5 s of a 0.51 s parse).
    Python 3.12 tokenizes inside f-strings, so there the source is parsed as it is.
    """
    if sys.version_info < (3, 12):
        try:
            return ast.parse(_F_PREFIX.sub("u", source)).body
        except SyntaxError:  # as the source itself would fail, or not: parse it
            pass
    return ast.parse(source).body


def _key(piece: str) -> str:
    return build_cache.key_of(repr(_MODE), piece)
