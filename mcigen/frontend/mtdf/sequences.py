"""Sequences (AHMA-SEMANTICS §8.6): each listed tool whose node holds a
``sequence`` gets its steps resolved to the listed tools they run.

A tool-level sequence names each step's tool; a subcommand's sequence runs
subcommands of its own tool (Ahma ignores the step's ``tool`` there too). A step
runs the tool Ahma lists for that subcommand path, so ``nextest_run`` and names
with ``_`` work, and ``sandboxed_shell default`` runs Ahma's built-in shell; a
step may not run a sequence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ... import ir
from ...diagnostics import Diagnostics, quoted
from ..source import SourceDocument
from .flatten import MtdfTool

DEFAULT_STEP_DELAY_MS = 100
_DEFAULT = "default"
_NESTED = f"_{_DEFAULT}"

Fields = Mapping[str, object]


def resolve_sequences(
    files: list[tuple[SourceDocument, list[MtdfTool]]],
    diagnostics: Diagnostics,
    built_in: str,
) -> list[MtdfTool]:
    """Every listed tool of ``files``, in order, a sequence given its resolved
    steps, which may run them and the tool ``built_in`` (Ahma's shell); every
    step that runs nothing listed reported into ``diagnostics``."""
    nodes: dict[str, Fields] = {built_in: {}}
    nodes.update(
        (tool.name, node_at(doc.data, tool.pointer))
        for doc, tools in files
        for tool in tools
    )
    sequences = {name for name, node in nodes.items() if "sequence" in node}
    resolved: list[MtdfTool] = []
    for doc, tools in files:
        for tool in tools:
            node = nodes[tool.name]
            if tool.name in sequences:
                file_tool = node_at(doc.data, "")
                execution = _sequence(
                    doc, tool, node, file_tool, nodes, sequences, diagnostics
                )
                tool = replace(tool, sequence=execution)
            resolved.append(tool)
    return resolved


def _sequence(
    doc: SourceDocument,
    tool: MtdfTool,
    node: Fields,
    file_tool: Fields,
    listed: Mapping[str, Fields],
    sequences: set[str],
    diagnostics: Diagnostics,
) -> ir.SequenceExecution:
    steps = []
    entries = node.get("sequence")
    for index, step in enumerate(entries if isinstance(entries, list) else ()):
        pointer = f"{tool.pointer}/sequence/{index}"
        step_tool = str(step["tool"]) if tool.pointer == "" else str(file_tool["name"])
        subcommand = str(step["subcommand"])
        target = _listed_name(step_tool, subcommand, listed)
        problem = _problem(step_tool, subcommand, target, listed, sequences)
        if problem is not None:
            diagnostics.error(doc.location(f"{pointer}/subcommand"), problem)
            continue
        steps.append(
            ir.SequenceStep(
                tool=target,
                label=f"{step_tool} {subcommand}",
                skip_message=_skip_message(
                    step_tool if tool.pointer == "" else None, subcommand, step
                ),
                args=dict(step.get("args") or {}),
                skip_if_file_exists=_text(step, "skip_if_file_exists"),
                skip_if_file_missing=_text(step, "skip_if_file_missing"),
            )
        )
    delay = node.get("step_delay_ms", file_tool.get("step_delay_ms"))
    timeout = tool.timeout_seconds
    return ir.SequenceExecution(
        steps=tuple(steps),
        step_delay_ms=delay if isinstance(delay, int) else DEFAULT_STEP_DELAY_MS,
        defaults={} if timeout is None else {"timeout_seconds": timeout},
    )


def _problem(
    step_tool: str,
    subcommand: str,
    target: str,
    listed: Mapping[str, Fields],
    sequences: set[str],
) -> str | None:
    if target not in listed:
        return (
            f"this step runs subcommand {quoted(subcommand)} of tool {quoted(step_tool)}, "
            f"but no tool {quoted(target)} is listed (a disabled or missing subcommand?)"
        )
    if target in sequences:
        return f"this step runs {quoted(target)}, itself a sequence; a step runs one command"
    return None


def _listed_name(tool: str, subcommand: str, listed: Mapping[str, Fields]) -> str:
    """The name Ahma lists for ``subcommand`` (a ``_`` path) of ``tool``: the
    path as it stands, else with a ``default`` collapsed into its parent."""
    exact = f"{tool}_{subcommand}"
    if exact in listed or not (subcommand == _DEFAULT or subcommand.endswith(_NESTED)):
        return exact
    return (
        tool if subcommand == _DEFAULT else f"{tool}_{subcommand.removesuffix(_NESTED)}"
    )


def node_at(data: object, pointer: str) -> Fields:
    """The object at ``pointer`` (made of ``subcommand`` keys and indexes)."""
    node = data
    for part in pointer.split("/")[1:]:
        if isinstance(node, list):
            node = node[int(part)]
        elif isinstance(node, dict):
            node = node[part]
    assert isinstance(node, dict)
    return node


def _skip_message(tool: str | None, subcommand: str, step: Fields) -> str:
    """Ahma's line for a skipped step: a tool-level sequence's step named by its
    tool (``tool``), a subcommand's sequence's by its subcommand; the description
    in brackets when there is one."""
    named = f"Sequence step '{tool}'"
    if tool is None:
        named = f"Subcommand sequence step '{subcommand}'"
    description = _text(step, "description")
    about = f" ({description})" if description else ""
    return f"{named}{about} skipped due to environment override."


def _text(step: Fields, key: str) -> str | None:
    value = step.get(key)
    return value if isinstance(value, str) else None
