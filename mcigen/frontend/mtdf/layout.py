"""Which files an MTDF path names (AHMA-SEMANTICS §1), and whether a path holds MTDF."""

from __future__ import annotations

from pathlib import Path

from ..top_level import top_level_keys

TOOL_FILE_SUFFIX = ".json"
AHMA_FOLDER = ".ahma"
OTHER_FORMATS_MARKS = frozenset({"schemaVersion", "tree"})
"""Top-level keys of an MCI schema and of a broker config: a file holding one in
a folder is not taken for a broken tool file."""
GUIDANCE_FILE = "tool_guidance.json"
"""Guidance blocks beside the tool files (the older MTDF guide), not a tool."""


def tool_files(path: Path) -> list[Path]:
    """The tool files at ``path``: the file itself, or a folder's top-level ``*.json``
    entries by name, whatever they are (Ahma tries to read each; a symbolic link to
    nothing, a folder or a FIFO is a file that does not load, not none). A folder
    holding ``.ahma/`` stands for it, and ``.ahma/tools`` (the older layout) for
    its parent, as in Ahma."""
    if not path.is_dir():
        return [path]
    folder = tools_folder(path)
    return sorted(  # raises OSError for a folder it cannot list
        entry
        for entry in folder.iterdir()
        if entry.suffix == TOOL_FILE_SUFFIX and entry.name != GUIDANCE_FILE
    )


def tools_folder(path: Path) -> Path:
    if path.name == "tools" and path.parent.name == AHMA_FOLDER:
        return path.parent
    if (path / AHMA_FOLDER).is_dir():
        return path / AHMA_FOLDER
    return path


def holds_mtdf(path: Path) -> bool:
    """Whether ``path`` is MTDF: a folder holding a ``*.json`` file that is not
    another format's (Ahma loads every one; one it cannot load is a tool file
    with problems), a ``*.json`` file in an ``.ahma`` folder, or a file holding
    a top-level object with ``command`` and no ``schemaVersion``."""
    try:
        if path.is_dir():
            return any(_may_be_tool_file(file) for file in tool_files(path))
    except OSError:
        return False
    return _in_ahma_folder(path) or _is_tool_file(path)


def _may_be_tool_file(path: Path) -> bool:
    keys = top_level_keys(path)
    return keys is None or "command" in keys or not keys & OTHER_FORMATS_MARKS


def _in_ahma_folder(path: Path) -> bool:
    folder = path.parent
    if folder.name == "tools":
        folder = folder.parent
    return path.suffix == TOOL_FILE_SUFFIX and folder.name == AHMA_FOLDER


def _is_tool_file(path: Path) -> bool:
    if path.suffix != TOOL_FILE_SUFFIX:
        return False
    keys = top_level_keys(path)
    return keys is not None and "command" in keys and "schemaVersion" not in keys
