"""``mcigen envs SCHEMA``: the environment variables SCHEMA's tools and MCP servers
read, each with whether a call needs it and where it is read; ``--format env``
writes them as an example environment file to fill in (``.env.example.mci``, as
mcix names it), every value empty and the optional ones commented out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcigen_runtime.app.environment import Variable, variables_of
from mcigen_runtime.app.table import format_table

from . import ir
from .diagnostics import printable

EXAMPLE_FILE = ".env.example.mci"


def add_envs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        dest="envs_format",
        choices=("table", "env"),
        default="table",
        help="table: print them (the default); env: write an example environment "
        "file, every value empty, to copy to .env.mci and fill in",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        type=Path,
        default=Path(EXAMPLE_FILE),
        help=f"with --format env: the file to write (default: {EXAMPLE_FILE}; "
        "'-': stdout)",
    )


def schema_variables(package: ir.Package) -> list[Variable]:
    """What reads variables: each tool but MCP tools, and each MCP server (for
    the tools it serves)."""
    # late: the backend loads for envs itself, not with the parser on every start
    from .backend.tool_env import server_env, tool_env

    tools = {planned.tool.name: planned.tool.execution for planned in package.tools}
    readers = [
        (name, uses)
        for name, uses in tool_env(package).items()
        if not isinstance(tools[name], ir.McpExecution)
    ]
    readers += [
        (f"mcp server {name}", uses) for name, uses in server_env(package).items()
    ]
    return variables_of(readers)


def run_envs(args: argparse.Namespace, schema: Path, package: ir.Package) -> int:
    variables = schema_variables(package)
    if args.envs_format == "env":
        return _write_example(schema, variables, args.output)
    if not variables:
        print(f"No tool of {printable(str(schema))} reads an environment variable.")
        return 0
    rows = [
        (
            v.name,
            "required" if v.required else "optional",
            "; ".join(v.uses),
        )
        for v in variables
    ]
    print(format_table([("VARIABLE", "NEEDED", "READ BY"), *rows]))
    return 0


def example_text(schema: Path, variables: list[Variable]) -> str:
    lines = [
        f"# The environment variables the tools of {printable(schema.name)} read",
        "# (mcigen envs). Copy this file to .env.mci and fill in the values.",
    ]
    for variable in variables:
        kind = "required" if variable.required else "optional"
        lines += ["", printable(f"# {kind}; read by: {'; '.join(variable.uses)}")]
        # an optional one set empty would hide its fallback: left for the user to add
        comment = "" if variable.required else "# "
        lines.append(printable(f"{comment}{variable.name}="))
    return "\n".join(lines) + "\n"


def _write_example(schema: Path, variables: list[Variable], output: Path) -> int:
    text = example_text(schema, variables)
    if str(output) == "-":
        sys.stdout.write(text)
        return 0
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        print(
            printable(f"mcigen: error: cannot write {output}: {error}"), file=sys.stderr
        )
        return 1
    count = len(variables)
    print(f"wrote {output}: {count} variable{'' if count == 1 else 's'}")
    return 0
