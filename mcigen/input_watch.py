"""The changes of a build's input, as ``mcigen serve --reload`` waits for them, with
``watchfiles`` (mcigen's optional extra ``watch``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from watchfiles import Change

MISSING = (
    "--reload needs watchfiles, which is not installed: pip install 'mcigen[watch]'"
)

IDLE_MS = 500
"""How often, without a change, the watch hands control back to its caller."""


class WatchUnavailable(Exception):
    """watchfiles cannot be imported."""


def input_changes(
    source: Path, output: Path | None, stop: threading.Event
) -> Iterator[bool]:
    """Until ``stop`` is set: True after each change to ``source`` (a file, or any
    file under a folder but ``output``), False after every :data:`IDLE_MS`
    without one. Raises :class:`WatchUnavailable` at once, not on the first
    ``next``."""
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        raise WatchUnavailable(MISSING) from None
    ignored = [] if output is None else [str(output.absolute())]
    return _changes(source.absolute(), ignored, stop)


def _changes(source: Path, ignored: list[str], stop: threading.Event) -> Iterator[bool]:
    from watchfiles import DefaultFilter, watch

    watched: Callable[[Change, str], bool]
    if source.is_dir():
        # a DIR inside the folder would have every build start the next one
        watched = DefaultFilter(ignore_paths=ignored)
        folder, recursive = source, True
    else:
        # the folder, not the file: an editor that saves by renaming a new file
        # over the old one would leave a watch on the file watching nothing
        watched = _the_file(source)
        folder, recursive = source.parent, False
    for changes in watch(
        folder,
        watch_filter=watched,
        stop_event=stop,
        rust_timeout=IDLE_MS,
        yield_on_timeout=True,
        recursive=recursive,
    ):
        yield bool(changes)


def _the_file(source: Path) -> Callable[[Change, str], bool]:
    return lambda change, path: Path(path) == source
