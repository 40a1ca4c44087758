"""A cache on disk of what a build computes from its exact inputs: formatted code,
generated models. Entries are keyed by a hash of everything that determines them,
so a cached answer is the answer; a build with an empty cache gives the same bytes.

Entries of one version of mcigen's code are kept apart from another's.
Where: ``$MCIGEN_CACHE_DIR`` (empty: no cache), else ``$XDG_CACHE_HOME/mcigen``,
else ``~/.cache/mcigen``. Safe for concurrent builds: entries are written
atomically; an unreadable entry is a miss. A cache another user could have written
(``cache_trust``) is not used, and the user is told so once: a build without
cache takes longer and gives the same bytes, as one with it does. What mcigen
creates there is private (directories 0700, files 0600). An entry no build has
used for a month is removed (``cache_pruning``).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from mcigen_runtime.json_reading import parsed

from . import cache_trust
from .cache_pruning import mark_used, prune_now_and_then
from .templates_location import templates_dir

_told: set[tuple[Path, str]] = set()
_unwritten = 0
"""How many ``unwritten()`` blocks are open: while any is, the cache is read and
nothing is written or made. A module global, not a context variable, so that the
build's forked workers (``backend.workers``) see it too."""


@contextmanager
def unwritten() -> Iterator[None]:
    """Within: entries are read, but no entry or directory is written
    (``MCIClient(validating=True)`` writes nothing)."""
    global _unwritten
    _unwritten += 1
    try:
        yield
    finally:
        _unwritten -= 1


def cache_dir(kind: str) -> Path | None:
    """The directory of one kind of entry; None (no cache) when it cannot be made
    or may not be trusted."""
    base = _configured_base()
    if base is None:
        return None
    try:
        base = base.resolve(strict=True) if _unwritten else _made_private(base)
        problem = cache_trust.directory_problem(base)
        if problem is None and not _unwritten:
            prune_now_and_then(base)
        if problem is None:
            directory = base / f"{kind}-{_code_fingerprint(base)}"
            if not _unwritten:
                directory.mkdir(mode=0o700, exist_ok=True)
            problem = cache_trust.owned_problem(directory, directory.lstat())
    except OSError:  # unwritten, a missing directory is one
        return None
    if problem is not None:
        _tell_untrusted(base, problem)
        return None
    return directory


def tool_cache_dir(distribution: str) -> Path | None:
    """The directory of entries made by an installed tool, keyed by its version."""
    return cache_dir(f"{distribution}-{_installed_version(distribution)}")


@cache
def _installed_version(distribution: str) -> str:
    # Reading a distribution's metadata parses its METADATA file: ~10 ms a build.
    from importlib.metadata import version  # late: slow to import, rarely needed

    return version(distribution)


def _configured_base() -> Path | None:
    configured = os.environ.get("MCIGEN_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "mcigen"


def _made_private(base: Path) -> Path:
    """``base`` resolved, made first (0700, as every directory missing above it)
    when missing."""
    for directory in reversed([base, *base.parents]):
        if not directory.exists():
            directory.mkdir(mode=0o700, exist_ok=True)
    return base.resolve(strict=True)


def _tell_untrusted(base: Path, problem: str) -> None:
    """Warn, once per process, that the cache at ``base`` is not used and why."""
    if (base, problem) in _told:
        return
    _told.add((base, problem))
    import logging  # for this warning alone: a cached client's start never loads it

    logging.getLogger("mcigen").warning(
        "mcigen: not using the build cache %s: %s, so another user could have put "
        "code there. Building without it (slower). Fix that directory (chown it to "
        "yourself and chmod go-w it; for a shared one above the cache, chmod +t), or "
        "set MCIGEN_CACHE_DIR to a directory only you can write (empty for none).",
        base,
        problem,
    )


@cache
def _code_fingerprint(base: Path) -> str:
    """A hash of mcigen's own code and templates: an entry made by another version
    of the compiler is never taken for this one's answer. Kept in ``base`` with the
    statuses of the files and folders it was made of (``_CODE``), so that a start
    reads no file of them unless one changed."""
    roots = (str(Path(__file__).resolve().parent), str(templates_dir()))
    memo = base / _CODE
    key = key_of(*roots)
    known = _known_fingerprint(read(memo, key))
    if known is not None:
        return known
    folders, sources = _code_files(*roots)
    folder_statuses = _settled_statuses(folders)  # before listing: an entry added
    listings = {folder: _listing(folder) for folder in folders}
    statuses = _statuses(sources)  # before reading: a write since shows
    digest = hashlib.sha256()
    for source in sources:
        with open(source, "rb") as file:
            digest.update(file.read())
    fingerprint = digest.hexdigest()[:16]
    if statuses is not None and not _unwritten:
        try:
            memo.mkdir(mode=0o700, exist_ok=True)
        except OSError:
            return fingerprint
        memo_record = {
            "fingerprint": fingerprint,
            "listings": listings,
            "folders": folder_statuses,
            **statuses,
        }
        import json

        write(memo, key, json.dumps(memo_record))
    return fingerprint


_CODE = "code"
"""Where ``_code_fingerprint`` keeps the fingerprint with the status of each file
it was made of and what each folder held, with the folder's status when settled. A
file written since has another change time (no write leaves it as it was, and no
process but root's can set it back: git's index relies on the same), a file added,
removed or renamed changes its folder's listing and times (a folder that kept its
times is not listed again), a reinstall makes new inodes: any of them and the files
are read and hashed again. Bytecode is left out: Python writes it as a module is first imported."""
_RACY_NS = 2_000_000_000
"""Change times are kept coarsely (a clock tick of a few ms): statuses this close to
the time they were taken could be those of a file written again within the same
tick, so they are not trusted (git's "racily clean" entries)."""


def _known_fingerprint(text: str | None) -> str | None:
    """The fingerprint of a memo whose every file still has its recorded status and
    every folder its recorded listing."""
    if text is None:
        return None
    try:
        recorded = parsed(text)
        for path, status in recorded["statuses"].items():
            if file_status(os.stat(path)) != status:
                return None
        folders = recorded.get("folders") or {}
        for folder, listing in recorded["listings"].items():
            # an entry added, removed or renamed changes the folder's times: one
            # that kept them is not listed (a listing costs 20 stats)
            unchanged = folders.get(folder) == file_status(os.stat(folder))
            if not unchanged and _listing(folder) != listing:
                return None
        fingerprint = recorded["fingerprint"]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return fingerprint if isinstance(fingerprint, str) else None


def _code_files(code: str, templates: str) -> tuple[list[str], list[str]]:
    """The folders under ``code`` and ``templates`` (which may be one of them) but
    bytecode's, and the sources there, in the order they are hashed."""
    folders: list[str] = []
    sources: list[str] = []
    for root, suffix in ((code, ".py"), (templates, ".jinja")):
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = [name for name in subfolders if name != "__pycache__"]
            folders.append(folder)
            sources += (
                os.path.join(folder, name) for name in names if name.endswith(suffix)
            )
    return folders, sorted(sources, key=lambda path: path.split(os.sep))


def _listing(folder: str) -> list[str]:
    """What ``folder`` holds but bytecode (which comes as modules are first
    imported, and changes the folder's times)."""
    return sorted(name for name in os.listdir(folder) if name != "__pycache__")


def _settled_statuses(folders: list[str]) -> dict[str, list[int]]:
    """Each folder's status, when settled (one that is not, as a folder whose
    bytecode Python has just written, is listed by every start)."""
    taken_ns = time.time_ns()
    statuses = {folder: file_status(os.stat(folder)) for folder in folders}
    return {
        folder: status
        for folder, status in statuses.items()
        if settled(status, taken_ns)
    }


def _statuses(paths: list[str]) -> dict[str, dict[str, list[int]]] | None:
    """Each path's status; None when one changed too recently to be told from a
    later write."""
    taken_ns = time.time_ns()
    statuses = {}
    for path in paths:
        status = file_status(os.stat(path))
        if not settled(status, taken_ns):
            return None
        statuses[path] = status
    return {"statuses": statuses}


def file_status(status: os.stat_result) -> list[int]:
    """What tells a file's or folder's content unchanged without reading it: its
    inode, size, modification and change times (ns). The package cache's entries
    keep it too."""
    return [status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns]


def settled(status: list[int], taken_ns: int) -> bool:
    """Whether the :func:`file_status` ``status``, taken at ``taken_ns`` (or
    later), tells its file unchanged while it is unchanged: its times lie further
    back than a write within their clock tick could hide (see ``_RACY_NS``). A
    status may go on past the four (``package_cache`` adds the device)."""
    return max(status[2], status[3]) <= taken_ns - _RACY_NS


def key_of(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


def read(directory: Path | None, key: str) -> str | None:
    """The text stored under ``key`` in ``directory``; None when there is none, it
    is damaged, or it is not this user's alone."""
    stored = None if directory is None else read_private(directory / key)
    if stored is None:
        return None
    recorded, _, text = stored.partition("\n")
    return text if recorded == _hash(text) else None


def write(directory: Path | None, key: str, text: str) -> None:
    if directory is not None:
        write_private(directory, key, f"{_hash(text)}\n{text}")


def read_private(path: Path) -> str | None:
    """The text of the file at ``path``; None when there is none, or it is not
    this user's alone (a link, another owner, writable by others)."""
    try:
        with open(path, "rb", opener=_without_following) as file:
            status = os.fstat(file.fileno())
            if cache_trust.owned_problem(path, status):
                return None
            if not _unwritten:
                mark_used(file.fileno(), status.st_mtime)
            return file.read().decode("utf-8", "surrogateescape")
    except OSError:
        return None


def write_private(directory: Path, name: str, text: str) -> None:
    """``text`` as the file ``name`` in ``directory``, readable by this user alone
    (0600) and replaced at once; nothing when it cannot be written (a cache only
    saves time) or may not be (``unwritten``)."""
    if _unwritten:
        return
    import tempfile  # here: a cache hit writes nothing, and never loads it

    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".entry-")
        # a path's undecodable bytes (os.fsdecode's surrogates) are written as they were
        with os.fdopen(handle, "w", encoding="utf-8", errors="surrogateescape") as out:
            out.write(text)
        os.replace(temporary, directory / name)
    except OSError:
        return


def _hash(text: str) -> str:
    """What an entry records of its text, so that a damaged one is a miss."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _without_following(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))
