"""MTDF tools lowered to the IR: each listed tool a cli tool whose command line is
built as Ahma HEAD builds it (AHMA-SEMANTICS §6), with the fixes COMPATIBILITY.md
lists (arrays never joined, shell values quoted, input checked before it runs).

    schema, diagnostics = lower_mtdf(Path(".ahma"))
"""

from __future__ import annotations

import os
from pathlib import Path

from mcigen_runtime.serve.bundles import BUNDLE_OF_CONFIG

from ... import ir
from ...diagnostics import Diagnostics, Location
from . import mtdf_tools
from .flatten import MtdfParameter, MtdfTool
from .runtime_keys import (
    EXTRA_ARGS,
    JOINING_SHELL,
    RESERVED,
    TIMEOUT,
    WORKING_DIRECTORY,
)
from .shell_tool import shell_tool
from .words import split_words

SCHEMA_VERSION = "mtdf"
DEFAULT_TIMEOUT_S = 360
"""Ahma's server default (``--timeout``), for tools that set none."""
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
REDIRECT = " 2>&1"
"""What Ahma appends to the script after a shell's ``-c``."""
PATH_FORMAT = "path"
_BACKGROUND = {True: "never", False: "always", None: "unless_asked"}


def lower_mtdf(
    path: Path, skip_invalid: bool = False
) -> tuple[ir.Schema | None, Diagnostics]:
    """The schema of the MTDF tool file or folder at ``path``, Ahma's built-in
    ``sandboxed_shell`` first, as Ahma lists it; None on errors. With
    ``skip_invalid``, the tool files that do not load are left out."""
    tools, diagnostics = mtdf_tools(path, skip_invalid)
    if diagnostics.has_errors:
        return None, diagnostics
    schema = ir.Schema(
        source=path.resolve().name,
        schema_version=SCHEMA_VERSION,
        metadata={},
        tools=tuple(map(lower_tool, [shell_tool(Location(str(path), 1, 1)), *tools])),
    )
    return schema, diagnostics


def lower_tool(tool: MtdfTool) -> ir.Tool:
    return ir.Tool(
        name=tool.name,
        description=tool.description,
        annotations={"title": tool.name},
        tags=(),
        input_schema=dict(tool.input_schema),
        execution=tool.sequence or _execution(tool),
        disabled=False,
        path_policy=ir.PathPolicy(),
        location=tool.location,
        background=_BACKGROUND[tool.synchronous],
        probes=tool.probes,
        bundle=BUNDLE_OF_CONFIG.get(tool.config),
    )


def _execution(tool: MtdfTool) -> ir.CliExecution:
    words = [word for text in tool.command_words for word in split_words(text)]
    program, args = words[0], words[1:]
    flags = _flags(tool)
    script_from: int | None = None
    suffix = ""
    script_operand = None
    if _is_shell(program) and "-c" in args:
        script_from, suffix = args.index("-c") + 2, REDIRECT
        script_operand = _script_operand(flags, script_from == len(args) + 1)
    elif program == JOINING_SHELL:
        args.insert(0, "-c")
        script_from = 2
    return ir.CliExecution(
        command=program,
        args=tuple(args),
        flags=flags,
        cwd=None,
        timeout_ms=(tool.timeout_seconds or DEFAULT_TIMEOUT_S) * 1000,
        allow_option_like_args=True,
        extra_args=EXTRA_ARGS,
        extra_args_allowed=tool.allow_raw_args,
        paths_by_name=tool.paths_by_name,
        working_directory=WORKING_DIRECTORY,
        timeout_property=TIMEOUT,
        script_from=script_from,
        script_suffix=suffix,
        script_operand=script_operand,
        templated=False,
    )


def _script_operand(flags: tuple[ir.CliFlag, ...], ends_at_c: bool) -> str | None:
    """The property that is a shell tool's script, as Ahma runs it: the first
    item after the command's last word, ``-c``, when an operand of one value
    (not a path) fills it (``sandboxed_shell``'s ``command``). A value spliced
    after literal words of the script stays one quoted word of it."""
    first = flags[0] if flags and ends_at_c else None
    if first is None or not first.operand or first.kind != "value" or first.path:
        return None
    return first.source


def _is_shell(program: str) -> bool:
    return os.path.basename(program) in SHELLS


def _flags(tool: MtdfTool) -> tuple[ir.CliFlag, ...]:
    """Operands first with ``positional_args_first``; options in ascending key
    order (the order Ahma's sorted arguments map gives); a positional's name is
    not an option."""
    positional_names = {p.name for p in tool.positionals}
    options = sorted(
        (o for o in tool.options if o.name not in positional_names),
        key=lambda option: option.name,
    )
    operands = [_flag(p, operand=True) for p in tool.positionals]
    named = [_flag(o, operand=False) for o in options]
    ordered = operands + named if tool.positional_args_first else named + operands
    return tuple(flag for flag in ordered if flag.source not in RESERVED)


def _flag(parameter: MtdfParameter, operand: bool) -> ir.CliFlag:
    file_flag = parameter.file_arg and not operand and parameter.type != "array"
    if file_flag:
        kind = "value"
    elif parameter.type in ("boolean", "array"):
        kind = "boolean" if parameter.type == "boolean" else "values"
    else:
        kind = "value"
    name = flag_text(parameter.name)
    if file_flag and parameter.file_flag is not None:
        name = parameter.file_flag
    return ir.CliFlag(
        name=name,
        source=parameter.name,
        kind=kind,
        operand=operand,
        alias=parameter.alias if kind == "boolean" and not file_flag else None,
        path=PATH_FORMAT in (parameter.format, parameter.items_format),
        file_flag=file_flag,
    )


def flag_text(key: str) -> str:
    """Ahma's ``flag(key)``: the key itself when it starts with ``-``."""
    return key if key.startswith("-") else f"--{key}"
