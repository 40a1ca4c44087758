"""The MTDF frontend: Ahma's tool files (MCP Tool Definition Format), read and checked.

    tools, diagnostics = mtdf_tools(Path(".ahma"))  # the tools Ahma lists

Every problem of every file comes back at once, in file order; none is raised.
"""

from __future__ import annotations

from pathlib import Path

from ...diagnostics import Diagnostics, Location
from ..context import Context
from ..source import SourceDocument, read_source
from .flatten import MtdfParameter, MtdfTool, flatten_tool
from .layout import TOOL_FILE_SUFFIX, holds_mtdf, tool_files, tools_folder
from .names import check_unique_names
from .rules import check_rules
from .sequences import resolve_sequences
from .shape import check_shape
from .shell_tool import SHELL_TOOL
from .tool_guidance import guidance_blocks

__all__ = ["MtdfParameter", "MtdfTool", "holds_mtdf", "mtdf_tools"]


def mtdf_tools(path: Path) -> tuple[list[MtdfTool], Diagnostics]:
    """The tools Ahma lists for the files at ``path``, in file order (its
    built-in ``sandboxed_shell`` aside, which steps may run), and every
    problem of the files and of ``tool_guidance.json`` beside them; no tools
    when there is an error."""
    tool_docs, diagnostics = _read_checked(path)
    folder = tools_folder(path) if path.is_dir() else path.parent
    blocks = guidance_blocks(folder, diagnostics)
    if diagnostics.has_errors:
        return [], Diagnostics(diagnostics.sorted())
    files = [
        (doc, flatten_tool(_fields(doc), blocks, doc.location)) for doc in tool_docs
    ]
    tools = resolve_sequences(files, diagnostics, built_in=SHELL_TOOL)
    diagnostics = Diagnostics(diagnostics.sorted())
    return ([] if diagnostics.has_errors else tools), diagnostics


def _fields(doc: SourceDocument) -> dict[str, object]:
    assert isinstance(doc.data, dict)  # _check_file keeps only objects
    return doc.data


def _read_checked(path: Path) -> tuple[list[SourceDocument], Diagnostics]:
    """Every tool file's data and every problem found in them."""
    diagnostics = Diagnostics()
    try:
        files = tool_files(path)
    except OSError as error:
        diagnostics.error(
            Location(str(path), 1, 1),
            f"cannot read the folder: {error.strerror or error}",
        )
        return [], diagnostics
    if not files:
        diagnostics.error(
            Location(str(path), 1, 1), "the folder holds no MTDF tool files (*.json)"
        )
    names: list[tuple[str, Location]] = []
    tool_docs: list[SourceDocument] = []
    for file in files:
        checked, name = _check_file(file, diagnostics)
        tool_docs += [checked] if checked is not None else []
        names += name
    check_unique_names(names, diagnostics)
    return tool_docs, diagnostics


def _check_file(
    file: Path, diagnostics: Diagnostics
) -> tuple[SourceDocument | None, list[tuple[str, Location]]]:
    """Check one tool file into ``diagnostics``; the file when it holds an
    object, and its tool's name and where it is."""
    display = str(file)
    if file.suffix != TOOL_FILE_SUFFIX:
        diagnostics.error(
            Location(display, 1, 1), "an MTDF tool file is JSON and ends in .json"
        )
        return None, []
    doc, reading = read_source(file, display)
    diagnostics.extend(reading.items)
    if doc is None:
        return None, []
    ctx = Context(doc, diagnostics)
    try:
        check_shape(ctx)
        check_rules(ctx)
    except RecursionError:
        diagnostics.error(Location(display, 1, 1), "tool file is nested too deeply")
    tool = doc.data
    if not isinstance(tool, dict):
        return None, []
    name = tool.get("name")
    located = [(name, doc.location("/name"))] if isinstance(name, str) and name else []
    return doc, located
