"""The MTDF frontend: Ahma's tool files (MCP Tool Definition Format), read and checked.

    tools, diagnostics = mtdf_tools(Path(".ahma"))  # the tools Ahma lists

Every problem of every file comes back at once, in file order; none is raised.
With ``skip_invalid``, a tool file with an error is left out, as Ahma's loader
leaves out a file it cannot read, and its problems come back as warnings.
"""

from __future__ import annotations

from pathlib import Path

from ...diagnostics import Diagnostic, Diagnostics, Level, Location
from ..context import Context
from ..source import SourceDocument, read_source
from .command_lines import check_command_lines
from .flatten import MtdfParameter, MtdfTool, flatten_tool
from .layout import TOOL_FILE_SUFFIX, holds_mtdf, tool_files, tools_folder
from .names import check_unique_names, check_unique_tools
from .rules import check_rules
from .sequences import resolve_sequences
from .shape import check_shape
from .shell_tool import SHELL_TOOL
from .tool_guidance import guidance_blocks

__all__ = ["MtdfParameter", "MtdfTool", "holds_mtdf", "mtdf_tools"]


def mtdf_tools(
    path: Path, skip_invalid: bool = False
) -> tuple[list[MtdfTool], Diagnostics]:
    """The tools Ahma lists for the files at ``path``, in file order (its
    built-in ``sandboxed_shell`` aside, which steps may run), and every
    problem of the files and of ``tool_guidance.json`` beside them; no tools
    when there is an error."""
    diagnostics = Diagnostics()
    files = _listed_files(path, diagnostics)
    folder = tools_folder(path) if path.is_dir() else path.parent
    blocks = guidance_blocks(folder, diagnostics)
    skipped: list[Diagnostic] = []
    loading = files
    while True:
        tools, found = _tools_of(loading, blocks)
        invalid = _invalid_files(found, loading) if skip_invalid else set()
        if not invalid:
            break
        skipped += [_as_warning(d) for d in found.items if d.location.file in invalid]
        loading = [file for file in loading if str(file) not in invalid]
    diagnostics.extend(found.items)
    if skipped:
        diagnostics.extend(skipped)
        _summarise_skipped(path, len(files), len(files) - len(loading), diagnostics)
    diagnostics = Diagnostics(diagnostics.sorted())
    return ([] if diagnostics.has_errors else tools), diagnostics


def _tools_of(
    files: list[Path], blocks: dict[str, str]
) -> tuple[list[MtdfTool], Diagnostics]:
    """The tools listed for ``files`` and every problem found in them."""
    diagnostics = Diagnostics()
    names: list[tuple[str, Location]] = []
    tool_docs: list[SourceDocument] = []
    for file in files:
        checked, name = _check_file(file, diagnostics)
        tool_docs += [checked] if checked is not None else []
        names += name
    check_unique_names(names, diagnostics)
    if diagnostics.has_errors:
        return [], diagnostics
    listed = []
    for doc in tool_docs:
        tools = flatten_tool(_fields(doc), blocks, doc.location)
        check_unique_tools(tools, diagnostics)
        check_command_lines(doc, tools, diagnostics)
        listed.append((doc, tools))
    if diagnostics.has_errors:
        return [], diagnostics
    return resolve_sequences(listed, diagnostics, built_in=SHELL_TOOL), diagnostics


def _invalid_files(found: Diagnostics, files: list[Path]) -> set[str]:
    """The tool files among ``files`` that an error is located in."""
    errors = {d.location.file for d in found.items if d.level is Level.ERROR}
    return errors & {str(file) for file in files}


def _as_warning(diagnostic: Diagnostic) -> Diagnostic:
    return Diagnostic(Level.WARNING, diagnostic.location, diagnostic.message)


def _summarise_skipped(
    path: Path, total: int, skipped: int, diagnostics: Diagnostics
) -> None:
    where = Location(str(path), 1, 1)
    if skipped == total:
        diagnostics.error(where, f"none of the {total} tool files loads")
        return
    diagnostics.warning(
        where,
        f"tool files skipped, as they do not load: {skipped} of {total} (their "
        "problems are the warnings here)",
    )


def _fields(doc: SourceDocument) -> dict[str, object]:
    assert isinstance(doc.data, dict)  # _check_file keeps only objects
    return doc.data


def _listed_files(path: Path, diagnostics: Diagnostics) -> list[Path]:
    """The tool files at ``path``; a folder that cannot be read or holds none is
    an error."""
    try:
        files = tool_files(path)
    except OSError as error:
        diagnostics.error(
            Location(str(path), 1, 1),
            f"cannot read the folder: {error.strerror or error}",
        )
        return []
    if not files:
        diagnostics.error(
            Location(str(path), 1, 1), "the folder holds no MTDF tool files (*.json)"
        )
    return files


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
