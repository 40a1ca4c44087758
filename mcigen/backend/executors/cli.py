"""A cli tool's view (``templates/executors/cli.py.jinja``): the statements that
build its command line and working directory, and the keywords of the runtime's
``CliCall`` (``mcigen_runtime.executors.cli``, named as ``_cli``).

A command written as templates (MCI) has each word compiled; one written as literal
words with flags read from the input (MTDF) is built by :mod:`.cli_words`."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcigen_runtime.templating.compiler import compile_text
from mcigen_runtime.templating.parser import parse_template
from mcigen_runtime.templating.syntax import PathRef, Placeholder

from ... import ir
from ..pysource import Code, code, literal
from .cli_words import CliWords, cli_words
from .view import (
    PATH_FAILURES,
    PATH_POLICY,
    RESULTS,
    TEMPLATING,
    Build,
    ExecutorView,
    declared,
    executor_face,
    path_policy,
    present,
)


@dataclass
class CliFlagView:
    name: Code
    parts: Code
    kind: str


@dataclass
class CliView(ExecutorView):
    argv: list[Code] = field(default_factory=list)
    flags: list[CliFlagView] = field(default_factory=list)
    cwd: Code | None = None
    """The working directory's checked path, as an expression."""
    timeout: Code = code("30.0")
    operands: Code | None = None
    """The arguments a property fills whole, as a tuple of ``Operand``."""
    confined_to: Code | None = None
    """Where the command may write (``--confine-cli``), as an expression."""
    pass_env: Code | None = None
    """The schema's ``passEnv``, as an expression; None: nothing passed."""
    words: CliWords | None = None
    """How a command of literal words builds its command line (MTDF); the other
    fields are for templated commands."""


def cli_view(build: Build, execution: ir.CliExecution) -> CliView:
    view = CliView(awaits=True)
    view.imports.add(executor_face("cli"))
    if not execution.templated:
        view.words = cli_words(build.planned.tool.name, execution)
        view.imports.update(
            {
                (PATH_POLICY, "PathRefused as _PathRefused"),
                (RESULTS, "error_result as _error_result"),
            }
        )
        return view
    tool_present = present(build.planned.tool)

    def compiled(text: str, prefix: str) -> Code:
        return view.compile(compile_text(parse_template(text), tool_present, prefix))

    view.argv = [compiled(execution.command, "command")]
    view.argv += [compiled(arg, f"arg_{i}") for i, arg in enumerate(execution.args)]
    if execution.cwd:
        path = compiled(execution.cwd, "cwd")
        view.cwd = code(f"_checked_path({path}, {path_policy(build.planned)})")
        view.base_dir = True
        view.imports.add((PATH_POLICY, "checked_path as _checked_path"))
    if build.confine_cli and not build.planned.path_policy.enable_any_paths:
        allowed = literal(build.planned.path_policy.directory_allow_list)
        view.confined_to = code(f"_writable_directories(_BASE_DIR, {allowed})")
        view.base_dir = True
        view.imports.add((PATH_POLICY, "writable_directories as _writable_directories"))
    view.flags = [
        CliFlagView(
            literal(flag.name), literal(tuple(flag.source.split("."))), flag.kind
        )
        for flag in execution.flags
    ]
    if view.flags:
        view.needs_context = True
        view.imports.add((TEMPLATING, "value_or_none as _value_or_none"))
    view.timeout = literal(
        execution.timeout_ms / 1000 if execution.timeout_ms > 0 else 30.0
    )
    if execution.pass_env is True:
        view.pass_env = code("True")
    elif execution.pass_env:
        view.pass_env = code(f"frozenset({literal(list(execution.pass_env))})")
    operands = _operands(build.planned.tool, execution)
    if operands:
        view.operands = code(
            "("
            + "".join(
                f"_cli.Operand(position={index}, name={literal(name)}, "
                f"numeric={literal(numeric)}), "
                for index, name, numeric in operands
            )
            + ")"
        )
    view.imports.update(PATH_FAILURES)
    return view


def _operands(tool: ir.Tool, execution: ir.CliExecution) -> list[tuple[int, str, bool]]:
    """The arguments before any ``--`` that one placeholder reading a property
    fills whole: (argv index, property, whether it is a number), unless the schema
    allows values that look like options there."""
    if execution.allow_option_like_args:
        return []
    properties = declared(tool)
    operands = []
    for index, arg in enumerate(execution.args, start=1):
        if arg == "--":
            break
        nodes = parse_template(arg).nodes
        if len(nodes) != 1 or not isinstance(nodes[0], Placeholder):
            continue
        paths = [a for a in nodes[0].alternatives if isinstance(a, PathRef)]
        read = next((p for p in paths if p.root in ("props", "input")), None)
        if read is None:
            continue
        name = read.parts[1] if len(read.parts) > 1 else read.root
        schema = properties.get(name) if len(read.parts) == 2 else None
        kind = schema.get("type") if isinstance(schema, dict) else None
        kinds = kind if isinstance(kind, list) else [kind]
        numeric = all(k in ("integer", "number") for k in kinds)
        operands.append((index, name, numeric))
    return operands
