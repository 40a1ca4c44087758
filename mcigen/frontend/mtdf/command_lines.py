"""Listed tools whose command line a build cannot give as Ahma gives it: each is
refused where the file says it, rather than built to run otherwise.

    check_command_lines(doc, tools, diagnostics)
"""

from __future__ import annotations

from collections.abc import Mapping

from ...diagnostics import Diagnostics, quoted
from ..source import SourceDocument
from .flatten import MtdfTool
from .runtime_keys import JOINING_SHELL, RESERVED
from .sequences import node_at
from .words import split_words

PATH_FORMAT = "path"

Fields = Mapping[str, object]


def check_command_lines(
    doc: SourceDocument, tools: list[MtdfTool], diagnostics: Diagnostics
) -> None:
    for tool in tools:
        node = node_at(doc.data, tool.pointer)
        if "sequence" in node:  # its steps run, not its command
            continue
        _check_program(doc, tool, diagnostics)
        _check_parameters(doc, tool.pointer, node, diagnostics)


def _check_program(
    doc: SourceDocument, tool: MtdfTool, diagnostics: Diagnostics
) -> None:
    words = [word for text in tool.command_words for word in split_words(text)]
    if not words:
        diagnostics.error(
            doc.location("/command"),
            f"tool {quoted(tool.name)} has no program: 'command' holds only whitespace "
            "(Ahma fails every call with 'Command must not be empty')",
        )
    elif words == [JOINING_SHELL]:
        diagnostics.error(
            doc.location("/command"),
            f"tool {quoted(tool.name)} runs {JOINING_SHELL} with no words of its own, so "
            "a call's values would be the whole script: Ahma runs them as shell "
            "code, mcigen quotes each; put the program in 'command' "
            f'("{JOINING_SHELL} ls")',
        )


def _check_parameters(
    doc: SourceDocument, pointer: str, node: Fields, diagnostics: Diagnostics
) -> None:
    for kind in ("options", "positional_args"):
        for index, parameter in _objects(node, kind):
            at = f"{pointer}/{kind}/{index}"
            name = parameter.get("name")
            if kind == "options" and _array_file_arg(parameter):
                diagnostics.error(
                    doc.location(f"{at}/file_arg"),
                    f"option {quoted(name)} is an array with 'file_arg': Ahma writes its "
                    "elements joined with spaces into one file; a build does not "
                    "(make it a string option)",
                )
            if _items_path_alone(parameter):
                diagnostics.error(
                    doc.location(f"{at}/items/format"),
                    f"{quoted(name)} has items of format 'path' but is not itself "
                    "'format': 'path': Ahma checks no element, a build would "
                    "check each; give the array 'format': 'path' too",
                )
            if kind == "positional_args" and name in RESERVED:
                diagnostics.error(
                    doc.location(f"{at}/name"),
                    f"positional argument {quoted(name)} is an input key Ahma reads "
                    "itself; rename it",
                )


def _array_file_arg(option: Fields) -> bool:
    return option.get("type") == "array" and option.get("file_arg") is True


def _items_path_alone(parameter: Fields) -> bool:
    items = parameter.get("items")
    return (
        isinstance(items, dict)
        and items.get("format") == PATH_FORMAT
        and parameter.get("format") != PATH_FORMAT
    )


def _objects(node: Fields, key: str) -> list[tuple[int, Fields]]:
    entries = node.get(key)
    if not isinstance(entries, list):
        return []
    return [(i, entry) for i, entry in enumerate(entries) if isinstance(entry, dict)]
