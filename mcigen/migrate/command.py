"""``mcigen migrate SCHEMA PATH... --package NAME [--diff]``: each Python file under
the paths rewritten (or its diff printed), what stays reported with its place."""

from __future__ import annotations

import difflib
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import libcst as cst

from ..diagnostics import printable
from .module import Migrated, migrate_module
from .targets import Target

_SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})


def migrate_paths(
    paths: list[Path],
    schema: Path,
    package: str,
    tools: Mapping[str, Target],
    diff_only: bool,
) -> int:
    """Rewrite (or, with ``diff_only``, show) every file; 1 when a file could not
    be read or parsed, else 0."""
    failed = files_changed = rewritten = left = 0
    for path in _python_files(paths):
        try:
            source = path.read_bytes()
            if b"MCIClient" not in source:  # no client, nothing to rewrite: not parsed
                continue
            migrated = migrate_module(source, package, schema, tools)
        except OSError as error:
            _say(f"{path}: error: cannot read it: {error.strerror}")
            failed += 1
            continue
        except cst.ParserSyntaxError as error:
            _say(
                f"{path}:{error.raw_line}:{error.raw_column + 1}: error: {error.message}"
            )
            failed += 1
            continue
        for alone in migrated.left:
            _say(
                f"{path}:{alone.line}:{alone.column}: note: left unchanged: {alone.why}"
            )
        left += len(migrated.left)
        if migrated.code == source:
            continue
        files_changed += 1
        rewritten += migrated.rewritten
        if diff_only:
            sys.stdout.write(_diff(path, source, migrated))
        else:
            _replace(path, migrated.code)
    verb = "would rewrite" if diff_only else "rewrote"
    _say(
        f"migrate: {verb} {rewritten} call(s) in {files_changed} file(s); "
        f"{left} left unchanged"
    )
    return 1 if failed else 0


def _python_files(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            for folder, subfolders, files in os.walk(path):
                subfolders[:] = sorted(
                    name
                    for name in subfolders
                    if not name.startswith(".") and name not in _SKIPPED_FOLDERS
                )
                yield from (
                    Path(folder, name) for name in sorted(files) if name.endswith(".py")
                )
        else:
            yield path


def _diff(path: Path, before: bytes, migrated: Migrated) -> str:
    return "".join(
        difflib.unified_diff(
            before.decode(migrated.encoding).splitlines(keepends=True),
            migrated.code.decode(migrated.encoding).splitlines(keepends=True),
            f"a/{path}",
            f"b/{path}",
        )
    )


def _replace(path: Path, code: bytes) -> None:
    """Write ``code`` over ``path`` whole or not at all, keeping its mode."""
    mode = path.stat().st_mode
    handle, staged = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(code)
        os.chmod(staged, mode)
        os.replace(staged, path)
    except BaseException:
        os.unlink(staged)
        raise


def _say(text: str) -> None:
    print(printable(text), file=sys.stderr)
