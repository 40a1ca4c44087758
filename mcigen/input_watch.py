"""The changes of a build's input, as ``mcigen serve --reload`` and ``mcigen build
--watch`` wait for them, with ``watchfiles`` (mcigen's optional extra ``watch``).

A project's input is also what it carries (``_data/``, see
``backend/project_data.py``): after each build, the files the project holds there
and the folders they lie in (a file added to a carried folder is one more file to
carry). A folder holding only carried files may hold others: a change there
rebuilds for nothing, which costs a build, never a stale project.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

MISSING = "{} needs watchfiles, which is not installed: pip install watchfiles"

IDLE_MS = 500
"""How often, without a change, the watch hands control back to its caller."""

Watched = tuple[Path, Path | None]
"""An input (a file, or a folder of them) and the output built from it, if any."""


class WatchUnavailable(Exception):
    """watchfiles cannot be imported."""


def input_changes(
    source: Path, output: Path | None, stop: threading.Event
) -> Iterator[bool]:
    """Until ``stop`` is set: True after each change to ``source`` (a file, or any
    file under a folder but ``output``), False after every :data:`IDLE_MS`
    without one. Raises :class:`WatchUnavailable` at once, not on the first
    ``next``."""
    changes = inputs_changes([(source, output)], stop, "--reload")
    return (bool(changed) for changed in changes)


def inputs_changes(
    watched: Sequence[Watched], stop: threading.Event, option: str
) -> Iterator[frozenset[int]]:
    """:func:`input_changes` of several inputs at once: after each change, the
    indices in ``watched`` of the inputs that changed; after :data:`IDLE_MS`
    without one, an empty set. ``option``: what asked for it, as
    :class:`WatchUnavailable` names it."""
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        raise WatchUnavailable(MISSING.format(option)) from None
    absolute = [
        (source.absolute(), None if output is None else output.absolute())
        for source, output in watched
    ]
    return _changes(absolute, stop)


def _changes(watched: list[Watched], stop: threading.Event) -> Iterator[frozenset[int]]:
    from watchfiles import Change, DefaultFilter, watch

    kept = DefaultFilter()  # not editors' swap files, not caches
    carried = [_carried(source, output) for source, output in watched]

    def owners(path: str) -> frozenset[int]:
        """The inputs ``path`` is part of: the file itself, a file under a folder
        but not under its output (a DIR inside the folder would have every build
        start the next one), or a file the input's project carries."""
        changed = Path(path)
        return frozenset(
            index
            for index, (source, output) in enumerate(watched)
            if changed == source
            or (
                (source.is_dir() or _under(changed, carried[index]))
                and changed.is_relative_to(source if source.is_dir() else source.parent)
                and not (output is not None and changed.is_relative_to(output))
                and kept(Change.added, path)
            )
        )

    # a file's folder, not the file: an editor that saves by renaming a new file
    # over the old one would leave a watch on the file watching nothing
    folders = {source if source.is_dir() else source.parent for source, _ in watched}
    for changes in watch(
        *folders,
        watch_filter=lambda change, path: bool(owners(path)),
        stop_event=stop,
        rust_timeout=IDLE_MS,
        yield_on_timeout=True,
        recursive=any(source.is_dir() for source, _ in watched) or any(carried),
    ):
        changed = frozenset().union(*(owners(path) for _, path in changes))
        yield changed
        for index in changed:  # built again by now: it may carry other files
            carried[index] = _carried(*watched[index])


def _carried(source: Path, output: Path | None) -> frozenset[Path]:
    """Where the files the project built from ``source`` into ``output`` carries
    came from, and the folders they lie in; nothing for an input that is no
    file or a build that is no project."""
    # late: the build before this one has loaded the backend already
    from .backend.project_data import DATA_DIR

    if output is None or source.is_dir():
        return frozenset()
    found: set[Path] = set()
    for data in output.glob(f"*/{DATA_DIR}"):
        for path in data.rglob("*"):
            if path.is_file():
                origin = source.parent / path.relative_to(data)
                found.update((origin, origin.parent))
    found.discard(source.parent)  # the folder of the schema itself, when it
    # carries a file of that folder: other files there are not input
    return frozenset(found)


def _under(path: Path, carried: frozenset[Path]) -> bool:
    """Whether ``path`` is a carried file, or lies in a carried folder."""
    return path in carried or any(parent in carried for parent in path.parents)
