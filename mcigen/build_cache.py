"""A cache on disk of what a build computes from its exact inputs: formatted code,
generated models. Entries are keyed by a hash of everything that determines them,
so a cached answer is the answer; a build with an empty cache gives the same bytes.

Entries of one version of mcigen's code are kept apart from another's.
Where: ``$MCIGEN_CACHE_DIR`` (empty: no cache), else ``$XDG_CACHE_HOME/mcigen``,
else ``~/.cache/mcigen``. Safe for concurrent builds: entries are written
atomically; an unreadable entry is a miss.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import cache
from pathlib import Path

from .templates_location import templates_dir


def cache_dir(kind: str) -> Path | None:
    """The directory of one kind of entry; None (no cache) when it cannot be made."""
    configured = os.environ.get("MCIGEN_CACHE_DIR")
    if configured is not None:
        base = Path(configured) if configured else None
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "mcigen"
    if base is None:
        return None
    directory = base / f"{kind}-{_code_fingerprint()}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return directory


@cache
def _code_fingerprint() -> str:
    """A hash of mcigen's own code and templates: an entry made by another version
    of the compiler is never taken for this one's answer."""
    root = Path(__file__).resolve().parent
    sources = sorted([*root.rglob("*.py"), *templates_dir().rglob("*.jinja")])
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def key_of(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


def read(directory: Path | None, key: str) -> str | None:
    if directory is None:
        return None
    try:
        return (directory / key).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def write(directory: Path | None, key: str, text: str) -> None:
    if directory is None:
        return
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".entry-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, directory / key)
    except OSError:
        return
