"""A schema's package, compiled on first use into the build cache and reused by
every later process while its inputs stay the same (what ``MCIClient`` runs).

Entries live in ``build_cache.cache_dir("packages")``, so another version of
mcigen never takes this one's. Under it, a *slot* per schema path and way of
reaching MCP servers holds one entry per *digest* of the exact inputs: the
schema's bytes and every file of its library directory (toolsets, MCP caches),
by name and content. An entry is made whole in a staging directory and renamed
into place, so an entry that exists is complete; a build that fails or is killed
leaves the entries as they were. An entry built from an MCP cache that has since
expired is a miss: the build fetches the tools again.

An entry is imported only as it was stored: its record holds a hash of every file
of the package (bytecode too, which Python would run in place of an intact
module), and an entry with a file changed, added or missing, or not this user's
alone (``cache_trust``), is a miss that the build replaces. The record also keeps
each file's inode, size and times as the build left it, and a hit does not read a
file that still has them (as git's index does: no write to a file leaves its change
time as it was, and no process but root's can set that time); a file without them
(a copied cache), or whose times were within a clock tick of when they were taken
(a write in that tick would not show: ``build_cache.settled``), is hashed, and
the hit that finds it intact once its times are settled records them. Slots are per Python version and optimisation level,
whose bytecode differs.

The inputs' digest is remembered in the slot the same way (``_INPUTS``): a hit
whose schema, library files and folders still have the statuses they had when a
hit last read them does not read them. The hit path reads nothing of the compiler.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from mcigen_runtime.json_reading import parsed
from mcigen_runtime.records import Record

from . import build_cache, cache_trust
from .cache_pruning import mark_used

if TYPE_CHECKING:
    from mcigen_runtime.executors.mcp.calls import McpServerParams

    from .diagnostics import Diagnostics

_ENTRY = "entry.json"
_LIBRARY = "library"
_STAGING_PREFIX = ".build-"
_importing = threading.Lock()
MOST_BYTES = 64 << 20
"""The most of a schema or library file read to key the cache (the build holds
them to its own, smaller, limit)."""


# records, not NamedTuples or frozen dataclasses: those compile methods when made,
# at import, on every cached client's start
class CachedPackage(Record):
    name: str
    directory: Path
    schema: Path
    """The schema it was compiled from, resolved."""

    def __init__(self, name: str, directory: Path, schema: Path) -> None:
        self._set(name=name, directory=directory, schema=schema)


class BuildFailed(Exception):
    """The schema does not compile; ``diagnostics`` say why."""

    def __init__(self, diagnostics: Diagnostics) -> None:
        super().__init__(diagnostics.render())
        self.diagnostics = diagnostics


class Compiling(Record):
    """How ``package_for`` reads its input and what it tells of a build."""

    source_format: str = "mci"
    """The name of the input's format (``mcigen.frontend.formats``); a folder is
    read as Ahma reads it, each tool file that does not load left out."""
    on_build: Callable[[Diagnostics], None] | None = None
    """Given the diagnostics (warnings) of a build that succeeded; a cache hit
    builds nothing, so tells nothing."""
    calls: bool = False
    """Whether this process calls the package's tools next (``MCIClient``): an MCP
    server a build starts to list its tools is left running for those calls, if
    the package calls it; otherwise it is stopped once listed."""

    def __init__(
        self,
        source_format: str = "mci",
        on_build: Callable[[Diagnostics], None] | None = None,
        calls: bool = False,
    ) -> None:
        self._set(source_format=source_format, on_build=on_build, calls=calls)


_MCI = Compiling()


def package_for(
    schema: Path,
    connect: bool,
    environment: Mapping[str, str],
    compiling: Compiling = _MCI,
) -> CachedPackage:
    """The package of ``schema`` (a file, or a folder of MTDF tool files), from the
    cache or built now. Without ``connect`` no MCP server is started and nothing
    is written beside the schema; with it, ``environment`` is what the servers'
    settings read. Raises BuildFailed, or OSError when the schema cannot be read
    (it is not a regular file or a folder, or holds more than 64 MiB)."""
    schema = schema.resolve()
    root = build_cache.cache_dir("packages")
    slot = None if root is None else _slot(root, schema, connect, compiling)
    # a broker config's key holds values of the environment: hashed every time
    remembering = slot is not None and compiling.source_format != "broker"
    if slot is not None and remembering:
        found = _entry(schema, slot, partial(_remembered, slot), expiring=connect)
        if found is not None:
            return found
    # a folder (of MTDF tool files; MCIClient's schema is a file, as mci-py's) is
    # read as a library directory is: every file of it, by name
    from .input_file import read_input

    folder = schema.is_dir() and compiling.source_format != "mci"
    seen = _Seen() if remembering and not folder else None
    if seen is not None:
        seen.add(schema)
    content = b"" if folder else read_input(schema, MOST_BYTES)
    library = _library_dir(schema, content)
    keyed = _keyed(content, compiling.source_format, environment)
    build = partial(_build, schema, keyed, connect=connect, environment=environment)
    if slot is None:  # no cache: a directory of this process's own
        return _build_uncached(build, library, compiling)
    found = _entry(schema, slot, partial(_digest, keyed, seen=seen), expiring=connect)
    if found is not None:
        if seen is not None:
            seen.remember(slot)
        return found
    return _build_cached(slot, build, keyed, library, connect, compiling)


def _slot(root: Path, schema: Path, connect: bool, compiling: Compiling) -> Path:
    """Where the entries of ``schema`` read this way are, under ``root``."""
    return root / build_cache.key_of(
        str(schema),
        "connect" if connect else "check",
        compiling.source_format,
        sys.implementation.cache_tag or "",
        str(sys.flags.optimize),
    )


# shutil and tempfile (with bz2, lzma and random) are imported by a build alone,
# input_file and library_dir by a start that reads the inputs: a cached client's
# start with its inputs remembered loads none of them.


def _build_uncached(
    build: Callable[[Path, Path, Compiling], CachedPackage],
    library: Path,
    compiling: Compiling,
) -> CachedPackage:
    import shutil
    import tempfile

    staging = Path(tempfile.mkdtemp(prefix="mcigen-package-"))
    atexit.register(shutil.rmtree, staging, True)
    return build(staging, library, compiling)


def _build_cached(
    slot: Path,
    build: Callable[[Path, Path, Compiling], CachedPackage],
    keyed: bytes,
    library: Path,
    connect: bool,
    compiling: Compiling,
) -> CachedPackage:
    import shutil
    import tempfile

    slot.mkdir(mode=0o700, exist_ok=True)
    _remove_abandoned_builds(slot)
    staging = Path(tempfile.mkdtemp(dir=slot, prefix=_STAGING_PREFIX))
    try:
        built = build(staging, library, compiling)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return _store(slot, staging, built, keyed, library, connect)


def import_package(package: CachedPackage) -> ModuleType:
    """The package imported under its own name (once per process, whichever
    thread asks first)."""
    with _importing:
        loaded = sys.modules.get(package.name)
        return loaded if loaded is not None else _import(package)


def _import(package: CachedPackage) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        package.name,
        package.directory / "__init__.py",
        submodule_search_locations=[str(package.directory)],
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"no package at {package.directory}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[package.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[package.name]
        raise
    return module


def _entry(
    schema: Path,
    slot: Path,
    digest_of: Callable[[Path], str | None],
    expiring: bool,
) -> CachedPackage | None:
    """The entry of the inputs whose digest ``digest_of`` gives (given the
    library directory the slot's builds read), if there is one, whole and as
    stored (and, when ``expiring``, if no MCP cache it was built from has
    expired)."""
    library = build_cache.read(slot, _LIBRARY) if _users_alone(slot) else None
    digest = None if library is None else digest_of(Path(library))
    if digest is None:
        return None
    entry = slot / digest
    record = build_cache.read_private(entry / _ENTRY) if _users_alone(entry) else None
    recorded = _recorded(record)
    if recorded is None:
        return None
    name, contents, expires = recorded.package, recorded.contents, recorded.expires
    if expiring and expires is not None and _today() >= expires:
        return None
    package = entry / name
    now = _intact(package, contents)
    if now is None:
        return None
    if _settled_since(contents, now):
        build_cache.write_private(entry, _ENTRY, _record(name, now, expires))
    mark_used(entry)
    return CachedPackage(name, package, schema)


def _users_alone(path: Path | str) -> bool:
    try:
        return cache_trust.owned_problem(path, os.lstat(path)) is None
    except OSError:
        return False


Statuses = dict[str, list[int]]
"""The inode, size, modification and change times (ns) of each file, by relative
path (``build_cache.file_status``)."""


class Contents(Record):
    """The files of a package, as an entry's record keeps them."""

    files: dict[str, str]
    """The hash of each file, by relative path."""
    statuses: Statuses
    taken_ns: int
    """A time before the statuses were taken: one is trusted only if it was
    ``build_cache.settled`` then."""

    def __init__(
        self, files: dict[str, str], statuses: Statuses, taken_ns: int
    ) -> None:
        self._set(files=files, statuses=statuses, taken_ns=taken_ns)


class _Record(Record):
    package: str
    contents: Contents
    expires: str | None

    def __init__(self, package: str, contents: Contents, expires: str | None) -> None:
        self._set(package=package, contents=contents, expires=expires)


def _recorded(text: str | None) -> _Record | None:
    """An entry's record: its package's name, its files and its expiry; None if
    damaged."""
    if text is None:
        return None
    try:
        recorded = parsed(text)
        name, files = recorded["package"], recorded["files"]
        expires = recorded["expires"]
        statuses = recorded.get("statuses") or {}
        taken_ns = recorded.get("statuses_ns")
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    if not (isinstance(name, str) and name.isidentifier() and isinstance(files, dict)):
        return None
    expires = expires if isinstance(expires, str) else None
    statuses = statuses if isinstance(statuses, dict) else {}
    taken_ns = taken_ns if type(taken_ns) is int else 0  # no time: none trusted
    return _Record(name, Contents(files, statuses, taken_ns), expires)


def _intact(package: Path, recorded: Contents) -> Contents | None:
    """The files under ``package`` as they are now, when they are the ``recorded``
    ones, each this user's alone and with its recorded hash (or still its recorded
    status, settled when it was taken); None when they are not."""
    if not _users_alone(package):
        return None
    files, statuses, taken_ns = recorded.files, recorded.statuses, recorded.taken_ns
    now = Contents(files, {}, time.time_ns())
    try:
        for relative, path, status in _walk(package):
            if cache_trust.owned_problem(path, status) is not None:
                return None
            if relative is None:  # a folder
                continue
            expected = files.get(relative)
            if expected is None:
                return None
            found = now.statuses[relative] = build_cache.file_status(status)
            if (
                statuses.get(relative) != found
                or not build_cache.settled(found, taken_ns)
            ) and _hash_of(path) != expected:
                return None
    except OSError:
        return None
    return now if len(now.statuses) == len(files) else None


def _settled_since(recorded: Contents, now: Contents) -> bool:
    """Whether ``now`` trusts a file's status that ``recorded`` did not: worth
    recording (a hit that hashed a file the build had just written)."""
    return any(
        build_cache.settled(status, now.taken_ns)
        and not (
            recorded.statuses.get(relative) == status
            and build_cache.settled(status, recorded.taken_ns)
        )
        for relative, status in now.statuses.items()
    )


def _contents(directory: Path) -> Contents | None:
    """The hash and status of every file under ``directory``, by relative path;
    None if it is missing, or anything in it is a link or not this user's alone."""
    if not _users_alone(directory):
        return None
    contents = Contents({}, {}, time.time_ns())
    try:
        for relative, path, status in _walk(directory):
            if cache_trust.owned_problem(path, status) is not None:
                return None
            if relative is not None:
                contents.files[relative] = _hash_of(path)
                contents.statuses[relative] = build_cache.file_status(status)
    except OSError:
        return None
    return contents


def _walk(
    directory: Path | str, below: str = ""
) -> Iterator[tuple[str | None, str, os.stat_result]]:
    """Every file (with its path relative to ``directory``, ``/``-separated) and
    folder (None) under ``directory``, with its ``lstat``; OSError if one cannot be
    listed or read. A link is a file here, never followed (the trust check
    refuses it)."""
    # scandir's entries, paths as strings: os.walk's joins and pathlib's objects
    # were most of the time of this walk, beside the lstat of each entry
    with os.scandir(directory) as entries:
        for entry in entries:
            status = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(status.st_mode):
                yield None, entry.path, status
                yield from _walk(entry.path, f"{below}{entry.name}/")
            else:
                yield f"{below}{entry.name}", entry.path, status


def _hash_of(path: str) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _remove_abandoned_builds(slot: Path) -> None:
    """Staging directories of builds killed more than a day ago."""
    import shutil

    day_ago = time.time() - 86_400
    for staging in slot.glob(f"{_STAGING_PREFIX}*"):
        try:
            if staging.stat().st_mtime < day_ago:
                shutil.rmtree(staging, ignore_errors=True)
        except OSError:
            continue


def _build(
    schema: Path,
    content: bytes,
    staging: Path,
    library: Path,
    compiling: Compiling,
    *,
    connect: bool,
    environment: Mapping[str, str],
) -> CachedPackage:
    """The package compiled into ``staging``, named after its inputs before the
    build (so that no two states of them share a module name in one process)."""
    from .frontend.formats import format_named
    from .pipeline import CompileOptions, compile_schema
    from .planner import McpAccess, McpMode

    name = "mci_" + _digest(content, library)[:16]
    directory = staging / name
    mode = McpMode.CACHE if connect else McpMode.NO_CONNECT
    kept: list[McpServerParams] | None = [] if compiling.calls else None
    options = CompileOptions(
        source_format=format_named(compiling.source_format),
        skip_invalid=schema.is_dir(),
        mcp=McpAccess(mode=mode, environment=environment, kept=kept),
    )
    files = None
    try:
        files, diagnostics = compile_schema(schema, directory, name, options)
    finally:
        if kept:
            _stop_uncalled(kept, files)
    if files is None:
        raise BuildFailed(diagnostics)
    if compiling.on_build is not None:
        compiling.on_build(diagnostics)
    for relative, data in files.items():
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return CachedPackage(name, directory, schema)


def _stop_uncalled(
    kept: list[McpServerParams], files: Mapping[str, bytes] | None
) -> None:
    """Stop each MCP server kept running after its listing that the package does
    not call (a filter left none of its tools), all of them if the build failed."""
    from mcigen_runtime.executors.mcp.calls import stop_listed_session
    from mcigen_runtime.manifest import MANIFEST, read_manifest

    called = set()
    if files is not None:
        called = {server.name for server in read_manifest(files[MANIFEST]).servers}
    for server in kept:
        if server.name not in called:
            stop_listed_session(server)


def _store(
    slot: Path,
    staging: Path,
    built: CachedPackage,
    content: bytes,
    library: Path,
    connect: bool,
) -> CachedPackage:
    """The staged package renamed into its entry, keyed by the inputs as the
    build left them (it may have written MCP caches). An entry of the same inputs
    already there wins (another process made it meanwhile, or its MCP caches
    expired and the build found them still fresh), with the expiry found now."""
    import compileall  # the build's alone: a cached client's start never loads it
    import shutil

    # Bytecode now: a process that may not write it (PYTHONDONTWRITEBYTECODE,
    # common in containers) would otherwise compile the package on every start.
    compileall.compile_dir(built.directory, quiet=2)
    _make_private(built.directory)
    contents = _contents(built.directory)
    if contents is None:  # not stored, so never imported by another process
        atexit.register(shutil.rmtree, staging, True)
        return built
    expires = _earliest_expiry(library) if connect else None
    build_cache.write_private(staging, _ENTRY, _record(built.name, contents, expires))
    build_cache.write(slot, _LIBRARY, str(library))
    entry = slot / _digest(content, library)
    try:
        staging.rename(entry)
    except OSError:
        found = _entry(built.schema, slot, partial(_digest, content), False)
        if found is None:  # a damaged entry: this build replaces it
            shutil.rmtree(entry)
            staging.rename(entry)
            return CachedPackage(built.name, entry / built.name, built.schema)
        shutil.rmtree(staging, ignore_errors=True)
        found_contents = _contents(found.directory)
        build_cache.write_private(
            entry, _ENTRY, _record(found.name, found_contents, expires)
        )
        return found
    return CachedPackage(built.name, entry / built.name, built.schema)


def _make_private(directory: Path) -> None:
    """Directories 0700 and files 0600 under ``directory``, whatever the umask
    made them: the entry is trusted only if no one else may write it."""
    for folder, _, names in os.walk(directory):
        os.chmod(folder, 0o700)
        for name in names:
            os.chmod(os.path.join(folder, name), 0o600)


def _record(package: str, contents: Contents | None, expires: str | None) -> str:
    import json

    return json.dumps(
        {
            "package": package,
            "files": contents and contents.files,
            "expires": expires,
            "statuses": contents and contents.statuses,
            "statuses_ns": contents.taken_ns if contents is not None else 0,
        }
    )


def _library_dir(schema: Path, content: bytes) -> Path:
    """The schema's library directory (the default one when the schema does not
    read: its build says why); a folder's is the folder itself, so that every
    file of it keys the cache. A JSON schema is read without loading yaml."""
    from .library_dir import DEFAULT_LIBRARY_DIR

    if schema.is_dir():
        return schema
    if schema.suffix == ".json" and not _may_name_library(content):
        return Path(os.path.normpath(schema.parent / DEFAULT_LIBRARY_DIR))
    try:
        document = (
            parsed(content) if schema.suffix == ".json" else _yaml_document(content)
        )
        written = str(document.get("libraryDir", DEFAULT_LIBRARY_DIR))
    except (ValueError, AttributeError):
        written = DEFAULT_LIBRARY_DIR
    return Path(os.path.normpath(schema.parent / written))


def _may_name_library(content: bytes) -> bool:
    """Whether a JSON document may hold a ``libraryDir`` key: one that spells it
    neither plainly nor with an escape holds none, and is not parsed (parsing a
    1000-tool schema is a few percent of a cached client's start)."""
    return b"libraryDir" in content or b"\\u" in content


def _yaml_document(content: bytes) -> Any:
    """The YAML document ``content`` holds; a ValueError when it holds none."""
    import yaml

    try:
        return yaml.safe_load(content)
    except yaml.YAMLError as error:
        raise ValueError(str(error)) from None


def _keyed(content: bytes, source_format: str, environment: Mapping[str, str]) -> bytes:
    """What keys the cache besides the library: the input's bytes and, for a
    broker config, whose strings are substituted when it is built
    (``frontend.broker.variables``), the value of every ``${NAME}`` it names
    (hashed with the rest: no value is written)."""
    if source_format != "broker":
        return content
    # a broker config's ``${NAME}``, as ``frontend.broker.variables`` reads it
    # (compiled here: a cached client's start keys an MCI schema, which has none)
    variable = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
    names = sorted(set(variable.findall(content.decode("utf-8", "replace"))))
    values = [f"{name}={environment.get(name)!r}" for name in names]
    return content + b"\0" + "\0".join(values).encode("utf-8", "surrogatepass")


def _digest(content: bytes, library: Path, seen: _Seen | None = None) -> str:
    """A hash of the schema's bytes and of every file under ``library``, by
    name and content; ``seen`` takes the status of each file and folder read."""
    from .input_file import read_input

    digest = hashlib.sha256(content)
    digest.update(os.fsencode(library) + b"\0")
    for path in _files_under(library, seen):
        if seen is not None:
            seen.add(path)
        try:
            data = read_input(path, MOST_BYTES)
        except OSError:
            data = b"unreadable"
            if seen is not None:
                seen.doubt()
        relative = os.fsencode(path.relative_to(library))
        digest.update(b"%d:%s%d:" % (len(relative), relative, len(data)) + data)
    if seen is not None:
        seen.digested(library, digest.hexdigest())
    return digest.hexdigest()


def _files_under(directory: Path, seen: _Seen | None = None) -> list[Path]:
    if seen is not None:
        seen.add_library(directory)
    found: list[Path] = []
    onerror = None if seen is None else seen.doubt
    for folder, subfolders, names in os.walk(directory, onerror=onerror):
        subfolders.sort()
        if seen is not None:
            for name in subfolders:
                seen.add(os.path.join(folder, name))
        found += (Path(folder) / name for name in sorted(names))
    return found


_INPUTS = "inputs"
"""In a slot: the digest of its inputs as a hit last read them, with the status
(``_status``) each file and folder read for it had before it was read, so that a
later start finds the entry without reading the schema and library again
(``_remembered``): git's index trusts the same. A write changes a file's change
time, which no process but root's can set back; a file added, removed or renamed
changes its folder's times; a file replaced is another inode. A status taken
within a clock tick of its times could hide a write in that tick: such inputs
are not remembered (``build_cache.settled``), nor are any that could not all be
read or listed."""
_HEX = frozenset("0123456789abcdef")


def _status(status: os.stat_result) -> list[int]:
    """``build_cache.file_status`` and the device: an input may be anywhere."""
    return [*build_cache.file_status(status), status.st_dev]


class _Seen:
    """The status of each input file and folder, taken before it is read for a
    digest; the library directory when it is missing."""

    def __init__(self) -> None:
        self.taken_ns = time.time_ns()
        self.statuses: dict[str, list[int]] = {}
        self.missing: list[str] = []
        self.doubtful = False
        self.library: str | None = None
        self.digest: str | None = None

    def add(self, path: Path | str) -> None:
        try:
            self.statuses[os.fspath(path)] = _status(os.stat(path))
        except OSError:
            self.doubtful = True

    def add_library(self, directory: Path) -> None:
        """A missing library is not listed (``os.walk`` yields nothing)."""
        if not os.path.exists(directory):
            self.missing.append(os.fspath(directory))
        else:
            self.add(directory)

    def doubt(self, error: OSError | None = None) -> None:
        """An input not read or listed (but a missing library's listing)."""
        if error is None or error.filename not in self.missing:
            self.doubtful = True

    def digested(self, library: Path, digest: str) -> None:
        self.library, self.digest = os.fspath(library), digest

    def remember(self, slot: Path) -> None:
        """The digest and statuses kept in ``slot`` (``_INPUTS``), if every input
        was read and its status settled when taken."""
        settled = all(
            build_cache.settled(status, self.taken_ns)
            for status in self.statuses.values()
        )
        if self.doubtful or self.digest is None or not settled:
            return
        remembered = {
            "digest": self.digest,
            "library": self.library,
            "statuses": self.statuses,
            "missing": self.missing,
            "taken_ns": self.taken_ns,
        }
        import json

        build_cache.write(slot, _INPUTS, json.dumps(remembered))


def _remembered(slot: Path, library: Path) -> str | None:
    """The digest ``slot`` keeps for ``library`` and the inputs as last read
    (``_INPUTS``), if every one of them still has its status, settled when taken,
    and a library then missing still is; None otherwise (the inputs are read)."""
    text = build_cache.read(slot, _INPUTS)
    if text is None:
        return None
    try:
        recorded = parsed(text)
        digest, taken_ns = recorded["digest"], recorded["taken_ns"]
        if recorded["library"] != os.fspath(library) or type(taken_ns) is not int:
            return None
        for path, status in recorded["statuses"].items():
            if not build_cache.settled(status, taken_ns):
                return None
            if _status(os.stat(path)) != status:
                return None
        if any(os.path.exists(path) for path in recorded["missing"]):
            return None
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None
    ok = isinstance(digest, str) and len(digest) == 64 and set(digest) <= _HEX
    return digest if ok else None


def _earliest_expiry(library: Path) -> str | None:
    """The first ``expiresAt`` day among the library's MCP caches."""
    days = []
    for cache in sorted((library / "mcp").glob("*.mci.json")):
        try:
            expires = parsed(cache.read_text(encoding="utf-8")).get("expiresAt")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(expires, str):
            days.append(expires[:10])
    return min(days, default=None)


def _today() -> str:
    return datetime.now(UTC).date().isoformat()
