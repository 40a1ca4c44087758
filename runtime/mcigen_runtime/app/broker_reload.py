"""``python -m PKG broker --reload``: watch the input the package was built from,
and on a change rebuild the package and restart the server on it.

The manifest's ``"build"`` entry says what to watch and how to build (the input's
path relative to the package directory, its format, the package's name, the build
flags that matter). The input (a file, or every file of a folder) is polled about
once a second by modification time, size and SHA-256. On a change::

    python -m mcigen build INPUT -o PKGDIR --name NAME --from FORMAT FLAGS...

A build that succeeds has swapped the new package in: the server shuts down as
it would on SIGTERM (calls in flight are answered first) and the process
re-executes itself, so that it imports the new package and starts again (variables
checked, servers started). A build that fails leaves the old package as it was
(``mcigen build`` never writes a package with errors): its diagnostics are logged
and the old package keeps serving. Files the input refers to (toolset files, MCP
caches) are not watched.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from importlib.util import resolve_name
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .startup import StartupError

if TYPE_CHECKING:
    import uvicorn

logger = logging.getLogger(__name__)

POLL_SECONDS = 1.0

Fingerprint = tuple[tuple[str, int, int, str], ...]


class Watcher:
    """Polls ``source``; on a change runs ``command`` (the rebuild)."""

    def __init__(self, source: Path, command: list[str]) -> None:
        self.source = source
        self.command = command
        self.rebuilt = False
        self._seen = fingerprint(source)
        """The input the package was built from, or the nearest to it seen."""
        self._stop = threading.Event()

    @classmethod
    def for_package(cls, package: str) -> Watcher:
        """The watcher of ``package``'s input. Raises :class:`StartupError` when
        mcigen cannot be imported or the manifest says nothing of the build."""
        if importlib.util.find_spec("mcigen") is None:
            raise StartupError(
                "--reload rebuilds the package with mcigen, which this Python "
                f"({sys.executable}) cannot import: pip install mcigen"
            )
        module = importlib.import_module(package)
        package_dir = Path(str(module.__file__)).resolve().parent
        manifest = json.loads((package_dir / "manifest.json").read_text("utf-8"))
        build: dict[str, Any] | None = manifest.get("build")
        if not build or not build.get("input"):
            raise StartupError(
                "--reload: the manifest does not say what the package was built "
                "from; build it again with this version of mcigen"
            )
        source = (package_dir / build["input"]).resolve()
        flags: list[str] = list(build.get("flags") or ())
        output = package_dir.parent if "--project" in flags else package_dir
        command = [sys.executable, "-m", "mcigen", "build", str(source)]
        command += ["-o", str(output), "--name", build["name"]]
        command += ["--from", build["format"], *flags]
        return cls(source, command)

    def watch(self, server: uvicorn.Server) -> None:
        """Poll in a daemon thread; after a rebuild, tell ``server`` to exit."""

        def stop_server() -> None:
            server.should_exit = True

        thread = threading.Thread(
            target=self._poll, args=(stop_server,), name="reload", daemon=True
        )
        thread.start()

    def _poll(self, stop_server: Callable[[], None]) -> None:
        logger.info("watching %s", self.source)
        while not self._stop.wait(POLL_SECONDS):
            now = fingerprint(self.source)
            if now == self._seen or not now:
                continue
            self._seen = now
            logger.info("%s changed: rebuilding the package", self.source)
            built = subprocess.run(
                self.command, capture_output=True, text=True, check=False
            )
            if built.returncode != 0:
                logger.error(
                    "the rebuild failed (exit %d); still serving the package as it "
                    "was:\n%s",
                    built.returncode,
                    built.stderr.strip(),
                )
                continue
            logger.info("rebuilt: restarting")
            self.rebuilt = True
            stop_server()
            return

    def restart(self) -> None:
        """Re-execute this process as it was started (it never returns)."""
        self._stop.set()
        sessions = sys.modules.get(resolve_name("..executors.mcp.calls", __package__))
        if sessions is not None:
            sessions.close_mcp_sessions()
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])


def fingerprint(source: Path) -> Fingerprint:
    """``(relative path, mtime_ns, size, sha256)`` of the file ``source``, or of
    every file under the folder ``source``; empty when there is none (a file
    being replaced)."""
    files = (
        sorted(p for p in source.rglob("*") if p.is_file())
        if source.is_dir()
        else [source]
    )
    prints = []
    for path in files:
        try:
            status = path.stat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            continue
        name = path.relative_to(source).as_posix() if path != source else ""
        prints.append((name, status.st_mtime_ns, status.st_size, digest))
    return tuple(prints)
