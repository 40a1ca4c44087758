"""The changes of a build's input, as ``mcigen serve --reload`` and ``mcigen build
--watch`` wait for them, with ``watchfiles`` (mcigen's optional extra ``watch``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

MISSING = "{} needs watchfiles, which is not installed: pip install 'mcigen[watch]'"

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

    def owners(path: str) -> frozenset[int]:
        """The inputs ``path`` is part of: the file itself, or a file under a folder
        but not under its output (a DIR inside the folder would have every build
        start the next one)."""
        changed = Path(path)
        return frozenset(
            index
            for index, (source, output) in enumerate(watched)
            if changed == source
            or (
                source.is_dir()
                and changed.is_relative_to(source)
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
        recursive=any(source.is_dir() for source, _ in watched),
    ):
        yield frozenset().union(*(owners(path) for _, path in changes))
