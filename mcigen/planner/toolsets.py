"""Toolsets: the tool files a schema pulls in from its library directory.

A reference ``name`` is looked up, in order, as the directory ``{lib}/{name}/`` (every
``*.mci.json``, ``*.mci.yaml`` and ``*.mci.yml`` in it, sorted), the file
``{lib}/{name}``, then ``{lib}/{name}.mci.json``, ``.mci.yaml``, ``.mci.yml``. Each
file is read by the frontend as a toolset file; its tools are filtered as the
reference says and remember which toolset they came from.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from .. import ir
from ..diagnostics import Diagnostics, did_you_mean, quoted
from ..frontend.mci import load_schema
from .contained import UnusableName, path_inside
from .filters import apply_filter

TOOLSET_SUFFIXES = (".mci.json", ".mci.yaml", ".mci.yml")


def library_path(schema_path: Path, schema: ir.Schema) -> Path:
    """The library directory as the user would write it: relative paths stay relative."""
    return Path(os.path.normpath(schema_path.parent / schema.library_dir))


def load_toolsets(
    schema: ir.Schema, library: Path, whitespace: str, diagnostics: Diagnostics
) -> list[ir.Tool]:
    """The tools of every toolset the schema references, filtered, in reference order."""
    if not schema.toolsets:
        return []
    if not library.is_dir():
        problem = (
            "is not a directory; set 'libraryDir' to one"
            if library.exists()
            else "does not exist; set 'libraryDir' or create it"
        )
        diagnostics.error(
            schema.toolsets[0].location,
            f"library directory {quoted(schema.library_dir)} ({library}) {problem}",
        )
        return []
    tools: list[ir.Tool] = []
    for ref in schema.toolsets:
        files = _toolset_files(library, ref, diagnostics)
        loaded = _load_files(files, whitespace, diagnostics)
        if loaded is None:
            continue
        kept = apply_filter(
            loaded, ref.filter, ref.filter_value, ref.location, diagnostics
        )
        tools.extend(
            dataclasses.replace(tool, toolset=ref.name, origin="toolset")
            for tool in kept
        )
    return tools


def _toolset_files(
    library: Path, ref: ir.ToolsetRef, diagnostics: Diagnostics
) -> list[Path]:
    try:
        return _find_toolset_files(library, ref, diagnostics)
    except UnusableName as problem:
        diagnostics.error(ref.name_location, f"toolset name refused: {problem}")
        return []


def _find_toolset_files(
    library: Path, ref: ir.ToolsetRef, diagnostics: Diagnostics
) -> list[Path]:
    directory = path_inside(library, ref.name)
    if directory.is_dir():
        files = [
            path_inside(directory, path.name)
            for path in sorted(directory.iterdir())
            # whatever each is: one that is no file cannot be read, as in mci-py
            if path.name.endswith(TOOLSET_SUFFIXES)
        ]
        if not files:
            diagnostics.error(
                ref.location,
                f"toolset directory {quoted(directory)} holds no "
                f"{', '.join('*' + s for s in TOOLSET_SUFFIXES)} files",
            )
        return files
    for candidate in (directory, *_with_suffixes(library, ref.name)):
        if candidate.is_file():
            return [candidate]
    diagnostics.error(
        ref.location,
        f"toolset {quoted(ref.name)} not found in {quoted(library)}: looked for a directory "
        f"{quoted(ref.name + '/')}, a file {quoted(ref.name)} and {quoted(ref.name)} with "
        f"{', '.join(TOOLSET_SUFFIXES)}{did_you_mean(ref.name, _toolset_names(library))}",
    )
    return []


def _with_suffixes(library: Path, name: str) -> list[Path]:
    return [path_inside(library, f"{name}{suffix}") for suffix in TOOLSET_SUFFIXES]


def _toolset_names(library: Path) -> list[str]:
    """What a reference could have meant: directories and toolset files, unsuffixed."""
    names = []
    for path in library.iterdir():
        stem = next(
            (path.name[: -len(s)] for s in TOOLSET_SUFFIXES if path.name.endswith(s)),
            path.name,
        )
        names.append(stem)
    return sorted(names)


def _load_files(
    files: Sequence[Path], whitespace: str, diagnostics: Diagnostics
) -> list[ir.Tool] | None:
    """The tools of all files, or None when any of them has errors.

    Files of one directory must share a schema version; with "1.0" the only version
    there is, the frontend's version check already guarantees it.
    """
    if not files:
        return None
    tools: list[ir.Tool] = []
    failed = False
    for path in files:
        toolset, found = load_schema(path, toolset_file=True, whitespace=whitespace)
        diagnostics.extend(found.items)
        if toolset is None:
            failed = True
        else:
            tools.extend(toolset.tools)
    return None if failed else tools
