"""The reference MCP servers from npm, installed once under ``.cache/npm-servers``.

``@modelcontextprotocol/server-everything`` and ``@modelcontextprotocol/server-filesystem``
are installed at pinned versions with ``npm install --prefix`` (never through ``npx``) and
started with ``node`` over stdio. Installing is idempotent and guarded by a file lock, so
two pytest processes starting at once do not both run npm in the same directory.

If npm or node is missing, or the install fails, :class:`NpmServersError` is raised: tests
that need these servers fail loudly rather than skip.
"""

from __future__ import annotations

import fcntl
import functools
import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NPM_SERVERS_DIR = ROOT / ".cache" / "npm-servers"

EVERYTHING = "@modelcontextprotocol/server-everything"
FILESYSTEM = "@modelcontextprotocol/server-filesystem"
PACKAGES: dict[str, str] = {
    EVERYTHING: "2026.8.31",
    FILESYSTEM: "2026.8.31",
}


class NpmServersError(RuntimeError):
    """The reference servers could not be installed or located."""


def _package_dir(package: str, directory: Path = NPM_SERVERS_DIR) -> Path:
    return directory / "node_modules" / package


def _read_manifest(
    package: str, directory: Path = NPM_SERVERS_DIR
) -> dict[str, object]:
    path = _package_dir(package, directory) / "package.json"
    try:
        manifest: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest


def _entry_point(package: str, directory: Path = NPM_SERVERS_DIR) -> Path | None:
    """The JavaScript file named by the package's ``bin``, if it is installed."""
    bin_field = _read_manifest(package, directory).get("bin")
    relative: object
    if isinstance(bin_field, str):
        relative = bin_field
    elif isinstance(bin_field, dict) and len(bin_field) >= 1:
        relative = next(iter(bin_field.values()))
    else:
        return None
    if not isinstance(relative, str):
        return None
    entry = _package_dir(package, directory) / relative
    return entry if entry.is_file() else None


def _is_installed(directory: Path = NPM_SERVERS_DIR) -> bool:
    return all(
        _read_manifest(package, directory).get("version") == version
        and _entry_point(package, directory) is not None
        for package, version in PACKAGES.items()
    )


def _run_npm_install(directory: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise NpmServersError(
            "npm is not on PATH: it is needed to install the reference MCP servers "
            f"({', '.join(PACKAGES)}) into {directory}"
        )
    specs = [f"{package}@{version}" for package, version in PACKAGES.items()]
    command = [
        npm,
        "install",
        "--prefix",
        str(directory),
        "--no-audit",
        "--no-fund",
        "--save-exact",
        *specs,
    ]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=600
        )
    except subprocess.TimeoutExpired as error:
        raise NpmServersError(
            f"`{' '.join(command)}` did not finish within {error.timeout} seconds"
        ) from error
    if done.returncode != 0:
        raise NpmServersError(
            f"`{' '.join(command)}` failed with exit status {done.returncode}:\n"
            f"{done.stdout}{done.stderr}"
        )


@functools.cache
def install_npm_servers(directory: Path = NPM_SERVERS_DIR) -> Path:
    """Install the pinned servers into ``directory`` unless already there; return it."""
    if _is_installed(directory):
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".install.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _is_installed(directory):
                _run_npm_install(directory)
            if not _is_installed(directory):
                found = {
                    package: _read_manifest(package, directory).get("version")
                    for package in PACKAGES
                }
                raise NpmServersError(
                    f"npm install finished, but {directory} does not hold the pinned "
                    f"servers {PACKAGES} (found versions {found})"
                )
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return directory


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise NpmServersError(
            "node is not on PATH: it is needed to run the MCP servers"
        )
    return node


def _server_entry(package: str) -> Path:
    directory = install_npm_servers()
    entry = _entry_point(package, directory)
    if entry is None:
        raise NpmServersError(f"{package} has no runnable bin under {directory}")
    return entry


def everything_server_command() -> list[str]:
    """argv that starts server-everything over stdio."""
    return [_node(), str(_server_entry(EVERYTHING)), "stdio"]


def filesystem_server_command(root: Path, *more_roots: Path) -> list[str]:
    """argv that starts server-filesystem over stdio, allowed to touch ``root`` (and
    ``more_roots``) only. The directories must exist."""
    roots = [str(path) for path in (root, *more_roots)]
    return [_node(), str(_server_entry(FILESYSTEM)), *roots]
