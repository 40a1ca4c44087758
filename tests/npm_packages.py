"""Pinned npm packages, installed once into a directory under ``.cache``.

Packages are installed at pinned versions with ``npm install --prefix`` (never through
``npx``) and started with ``node``. Installing is idempotent and guarded by a file
lock, so two pytest processes starting at once do not both run npm in the same
directory.

If npm or node is missing, or the install fails, :class:`NpmError` is raised: tests
that need these packages fail loudly rather than skip.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

CACHE_DIR = Path(__file__).resolve().parents[1] / ".cache"

_installed: set[Path] = set()
"""The directories found complete in this process."""


class NpmError(RuntimeError):
    """Pinned npm packages could not be installed or located."""


def _package_dir(package: str, directory: Path) -> Path:
    return directory / "node_modules" / package


def _read_manifest(package: str, directory: Path) -> dict[str, object]:
    path = _package_dir(package, directory) / "package.json"
    try:
        manifest: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest


def entry_point(package: str, directory: Path) -> Path | None:
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


def _is_installed(directory: Path, packages: Mapping[str, str]) -> bool:
    """Whether each package is there at its version, with its ``bin`` if it has
    one (a library has none)."""
    manifests = {package: _read_manifest(package, directory) for package in packages}
    return all(
        manifests[package].get("version") == version
        and ("bin" not in manifests[package] or entry_point(package, directory))
        for package, version in packages.items()
    )


def _run_npm_install(directory: Path, packages: Mapping[str, str]) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise NpmError(
            f"npm is not on PATH: it is needed to install {', '.join(packages)} "
            f"into {directory}"
        )
    specs = [f"{package}@{version}" for package, version in packages.items()]
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
        raise NpmError(
            f"`{' '.join(command)}` did not finish within {error.timeout} seconds"
        ) from error
    if done.returncode != 0:
        raise NpmError(
            f"`{' '.join(command)}` failed with exit status {done.returncode}:\n"
            f"{done.stdout}{done.stderr}"
        )


def install_pinned(directory: Path, packages: Mapping[str, str]) -> Path:
    """Install ``packages`` (name -> exact version) into ``directory`` unless already
    there; return it."""
    if directory in _installed or _is_installed(directory, packages):
        _installed.add(directory)
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".install.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _is_installed(directory, packages):
                _run_npm_install(directory, packages)
            if not _is_installed(directory, packages):
                found = {
                    package: _read_manifest(package, directory).get("version")
                    for package in packages
                }
                raise NpmError(
                    f"npm install finished, but {directory} does not hold the pinned "
                    f"packages {dict(packages)} (found versions {found})"
                )
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    _installed.add(directory)
    return directory


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise NpmError("node is not on PATH: it is needed to run npm packages")
    return found


def library_dir(package: str, directory: Path, packages: Mapping[str, str]) -> Path:
    """The directory of the library ``package`` (one of the pinned ``packages`` of
    ``directory``), installing them first if needed."""
    install_pinned(directory, packages)
    return _package_dir(package, directory)


def package_entry(package: str, directory: Path, packages: Mapping[str, str]) -> Path:
    """The entry point of ``package``, one of the pinned ``packages`` of
    ``directory``, installing them first if needed."""
    install_pinned(directory, packages)
    entry = entry_point(package, directory)
    if entry is None:
        raise NpmError(f"{package} has no runnable bin under {directory}")
    return entry
