"""Which files an MTDF path names (AHMA-SEMANTICS §1), and whether a path holds MTDF."""

from __future__ import annotations

from pathlib import Path

from ..top_level import top_level_keys

TOOL_FILE_SUFFIX = ".json"
GUIDANCE_FILE = "tool_guidance.json"
"""Guidance blocks beside the tool files (the older MTDF guide), not a tool."""


def tool_files(path: Path) -> list[Path]:
    """The tool files at ``path``: the file itself, or a folder's top-level ``*.json``
    files by name. A folder holding ``.ahma/`` stands for it, and ``.ahma/tools``
    (the older layout) for its parent, as in Ahma."""
    if not path.is_dir():
        return [path]
    folder = tools_folder(path)
    return sorted(  # raises OSError for a folder it cannot list
        entry
        for entry in folder.iterdir()
        if entry.suffix == TOOL_FILE_SUFFIX
        and entry.name != GUIDANCE_FILE
        and entry.is_file()
    )


def tools_folder(path: Path) -> Path:
    if path.name == "tools" and path.parent.name == ".ahma":
        return path.parent
    if (path / ".ahma").is_dir():
        return path / ".ahma"
    return path


def holds_mtdf(path: Path) -> bool:
    """Whether ``path`` is an MTDF tool file (a top-level object with ``command``
    and no ``schemaVersion``) or a folder holding at least one."""
    try:
        return any(_is_tool_file(file) for file in tool_files(path))
    except OSError:
        return False


def _is_tool_file(path: Path) -> bool:
    if path.suffix != TOOL_FILE_SUFFIX:
        return False
    keys = top_level_keys(path)
    return keys is not None and "command" in keys and "schemaVersion" not in keys
