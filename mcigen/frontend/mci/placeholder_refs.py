"""Warnings for template paths, and cli flags' ``from`` paths, that refer to
something that cannot exist.

A root other than ``props``, ``input``, ``env`` or a loop variable in scope never
resolves, and neither does a property the tool's inputSchema does not declare
(undeclared properties are dropped before templating, in mci-py and here alike).
Both still run (the lookup fails, falls back, or compares as text at call time), so
they are warnings, located at the path in the string.
"""

from __future__ import annotations

import re
from typing import Any

from mcigen_runtime.templating.syntax import PathRef, references

from ...diagnostics import quoted
from ..context import At, Context

ROOTS = ("props", "input", "env")
WARNINGS_PER_TEMPLATE = 20
"""Warnings listed for one template: locating each costs a walk of the string, and
thousands of them help no one."""
_TOOL_POINTER = re.compile(r"^/tools/(\d+)/")


def check_placeholder_references(ctx: Context) -> None:
    tools = ctx.doc.data.get("tools") if isinstance(ctx.doc.data, dict) else None
    if isinstance(tools, list):
        for index, tool in enumerate(tools):
            _check_flag_sources(ctx, f"/tools/{index}", tool)
    for pointer, template in ctx.templates.items():
        match = _TOOL_POINTER.match(pointer)
        if not match or not isinstance(tools, list):
            continue
        declared = _declared_properties(tools[int(match.group(1))])
        text = ctx.template_texts[pointer]
        found = 0
        for reference in references(template.nodes):
            if reference.path.root in reference.bound:
                continue
            problem = _problem(reference.path, declared)
            if not problem:
                continue
            found += 1
            if found <= WARNINGS_PER_TEMPLATE:
                where = ctx.doc.string_location(pointer, text, reference.path.offset)
                ctx.diagnostics.warning(where, f"{quoted(reference.label)}: {problem}")
        if found > WARNINGS_PER_TEMPLATE:
            ctx.diagnostics.warning(
                ctx.doc.location(pointer),
                f"{found - WARNINGS_PER_TEMPLATE} more paths in this template never "
                f"resolve; only the first {WARNINGS_PER_TEMPLATE} are listed",
            )


def _check_flag_sources(ctx: Context, pointer: str, tool: Any) -> None:
    """A flag whose ``from`` never resolves is never added (mci-py skips it too)."""
    execution = tool.get("execution") if isinstance(tool, dict) else None
    flags = execution.get("flags") if isinstance(execution, dict) else None
    if not isinstance(flags, dict):
        return
    declared = _declared_properties(tool)
    for name, flag in flags.items():
        source = flag.get("from") if isinstance(flag, dict) else None
        if not isinstance(source, str) or not source:
            continue
        problem = _problem(PathRef(tuple(source.split(".")), 0), declared)
        if problem:
            at = At(f"{pointer}/execution", "execution").field("flags").entry(name)
            ctx.warning(
                at.field("from"), f"flag {quoted(name)} is never added: {problem}"
            )


def _declared_properties(tool: Any) -> frozenset[str] | None:
    """The property names a tool declares, or None when it takes any properties."""
    schema = tool.get("inputSchema") if isinstance(tool, dict) else None
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return (
        frozenset(properties) if isinstance(properties, dict) and properties else None
    )


def _problem(path: PathRef, declared: frozenset[str] | None) -> str | None:
    if path.root not in ROOTS:
        return f"{quoted(path.root)} is not one of {', '.join(ROOTS)}, so {quoted(path)} never resolves"
    if path.root != "env" and declared is not None and len(path.parts) > 1:
        name = path.parts[1]
        if name not in declared:
            return (
                f"property {quoted(name)} is not declared in the inputSchema; undeclared "
                f"properties are dropped, so {quoted(path)} never resolves"
            )
    return None
