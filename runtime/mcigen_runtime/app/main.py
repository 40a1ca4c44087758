"""The command line every generated package offers through ``python -m``:

    list                          a table: name, type, group, tags, one-line description
    describe TOOL [INPUT]         signature, docstring and input schema; for a cli
                                  or MTDF tool given INPUT, what it would run, where
    call TOOL [INPUT] [--raw] [--dry-run]
                                  INPUT: --json '{..}' and/or --arg key=value ...
    serve [--http HOST:PORT] ...  the tools as an MCP server
    broker [ADDR] [SECRET] ...    the broker's meta-tools over pyMCPBroker's HTTP API
    doctor                        whether the programs and variables the tools need are here
    config [--http URL]           the MCP client configuration that starts this package

``call`` prints the text result (the whole result as JSON with ``--raw``) and exits 1
when the result is an error. Problems with the command (an unknown tool, input the
tool refuses) are one line on stderr and exit 2, never a traceback. The commands
that run tools first read the current directory's environment files
(``.env.mci``, ``.env``; see :mod:`.environment`) unless ``--no-env-file``. Output cut short
by its reader (``list | head``) ends the command quietly, with exit 141, as a
command killed by SIGPIPE ends.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import sys
from typing import Any

from ..edge.closed_pipe import EXIT_PIPE_CLOSED, quiet_stdout
from ..edge.settings import filters_of, select_tools
from ..errors import ToolInputError
from ..extras import MissingExtraError
from ..manifest import ToolEntry
from ..printable import printable, printable_indented_json, printable_lines
from ..registry import Registry, UnknownToolError, registry
from .broker_arguments import add_broker_arguments
from .client_config import client_config
from .environment import (
    load_current_env_files,
    package_variables,
    report_variables,
    tool_variable_lines,
    warn_unset,
)
from .serve_arguments import add_env_file_option, add_package_serve_arguments
from .table import format_table

EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A problem with the command line, reported as one line."""


def main(package: str, argv: list[str]) -> int:
    args = _parser(package).parse_args(argv)
    args.command_line = list(argv)  # what serve's workers are started with
    tools = registry(package)
    if getattr(args, "env_files", False):
        load_current_env_files()
    try:
        code: int = args.run(tools, args)
        if sys.stdout is not None:  # None: started with fd 1 closed
            sys.stdout.flush()
    except UnknownToolError as error:
        said = f"error: {error.args[0]} ({_nearest(package, tools, error.name)})"
        print(printable(said), file=sys.stderr)
        return EXIT_USAGE
    except (UsageError, ToolInputError, MissingExtraError) as error:
        message = error.args[0] if error.args else str(error)
        print(printable(f"error: {message}"), file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        quiet_stdout()
        return EXIT_PIPE_CLOSED
    return code


def _nearest(package: str, tools: Registry, name: str) -> str:
    """What to say of an unknown tool ``name``: the package's nearest, else where
    its tools are listed."""
    import difflib  # late: only a misspelt name reads it

    names = [entry.name for entry in tools.tools]
    near = difflib.get_close_matches(name, names, n=1)
    return (
        f"did you mean {near[0]!r}?" if near else f"python -m {package} list lists them"
    )


def _parser(package: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"python -m {package}")
    commands = parser.add_subparsers(dest="command", required=True)
    env_files = argparse.ArgumentParser(add_help=False)
    add_env_file_option(env_files)
    commands.add_parser("list", help="list the tools").set_defaults(run=_list)
    describe = commands.add_parser(
        "describe",
        help="show how to call a tool (and, given input, what a cli or MTDF tool "
        "would run, where)",
        parents=[env_files],
    )
    _input_arguments(describe)
    describe.set_defaults(run=_describe)
    call = commands.add_parser(
        "call", help="call a tool and print its result", parents=[env_files]
    )
    _input_arguments(call)
    call.add_argument(
        "--raw", action="store_true", help="print the whole result as JSON"
    )
    call.add_argument(
        "--dry-run",
        action="store_true",
        help="cli and MTDF tools: print the command line and working directory the "
        "call would run, and run nothing",
    )
    call.set_defaults(run=_call)
    serve = commands.add_parser("serve", help="serve the tools over MCP")
    add_package_serve_arguments(serve)
    serve.set_defaults(run=lambda tools, args: _serve(package, args))
    broker = commands.add_parser(
        "broker",
        help="serve meta_tree, meta_desc and meta_call over pyMCPBroker's HTTP API",
        parents=[env_files],
    )
    add_broker_arguments(broker)
    broker.set_defaults(run=lambda tools, args: _broker(package, args))
    doctor = commands.add_parser(
        "doctor",
        help="run the tools' availability checks and look for the environment "
        "variables they need (exit 1: something missing)",
        parents=[env_files],
    )
    doctor.set_defaults(run=_doctor)
    config = commands.add_parser(
        "config",
        help="print the MCP client configuration (mcpServers) that starts this "
        "package with this Python",
    )
    config.add_argument(
        "--http",
        metavar="URL",
        help="the configuration of a client that reaches the package served at URL "
        "(python -m PKG serve --http ...) instead of starting it",
    )
    config.set_defaults(run=lambda tools, args: _config(package, tools, args))
    return parser


def _input_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tool", help="the tool's MCI name or Python name")
    parser.add_argument("--json", help="the tool's input as a JSON object")
    parser.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="one input property (repeatable); VALUE is JSON unless the property "
        "is a string",
    )


def _doctor(tools: Registry, args: argparse.Namespace) -> int:
    variables = package_variables(tools.tools)
    missing = report_variables(variables, sys.stdout)
    if not any(entry.probes for entry in tools.tools):
        if not variables:
            print("No tool of this package has an availability check.")
        else:
            print(f"\n{len(variables)} variable(s): {missing} required unset.")
        return EXIT_TOOL_ERROR if missing else EXIT_OK
    if variables:
        print()
    # imported by name: a vendored runtime carries the doctor (and the cli executor
    # it runs probes with) only when some tool has probes
    doctor = importlib.import_module(f"{__package__}.doctor")
    code: int = doctor.run_doctor(tools, sys.stdout)
    return EXIT_TOOL_ERROR if missing else code


def _config(package: str, tools: Registry, args: argparse.Namespace) -> int:
    variables = package_variables(tools.tools)
    print(client_config(package, variables, args.http))
    optional = [v.name for v in variables if not v.required]
    if optional and args.http is None:
        print(
            printable(
                f"optional, left out of env (add those you want to set): "
                f"{', '.join(optional)}"
            ),
            file=sys.stderr,
        )
    return EXIT_OK


def _serve(package: str, args: argparse.Namespace) -> int:
    from ..serve.server import serve  # here: the other commands load no MCP server
    from ..serve.workers import worker_role

    try:
        served = select_tools(registry(package).tools, filters_of(args))
    except ValueError:  # filters given twice: serve refuses them, saying so
        served = []
    if worker_role(os.environ) is None:  # a worker's supervisor has said it
        warn_unset(package, served, sys.stderr)
    return serve(package, args)


def _broker(package: str, args: argparse.Namespace) -> int:
    from .broker_command import run_broker  # here: the other commands load no server

    if not args.dump_tree:  # which starts nothing
        # the variables of MCP servers are checked at start-up, as errors
        tools = [entry for entry in registry(package).tools if entry.server is None]
        warn_unset(package, tools, sys.stderr)
    return run_broker(package, args)


def _list(tools: Registry, args: argparse.Namespace) -> int:
    rows = [("NAME", "TYPE", "GROUP", "TAGS", "DESCRIPTION")]
    for entry in tools.tools:
        rows.append(
            (entry.name, entry.type, entry.group, ",".join(entry.tags), entry.summary)
        )
    print(format_table(rows))
    return EXIT_OK


def _describe(tools: Registry, args: argparse.Namespace) -> int:
    entry = tools.find(args.tool)
    module = importlib.import_module(f"{tools.package}.tools.{entry.group}")
    function = getattr(module, entry.python_name)
    print(f"{entry.python_name}{_signature(function)}")
    print()
    print(printable_lines(inspect.cleandoc(function.__doc__ or "").rstrip()))
    print()
    print("Input schema:")
    print(printable_indented_json(entry.input_schema or {}))
    if entry.output_schema is not None:
        print()
        print("Output schema:")
        print(printable_indented_json(entry.output_schema))
    if entry.env:
        print()
        print("Environment variables:")
        print("\n".join(tool_variable_lines(entry)))
    if entry.type == "cli" and (args.json is not None or args.arg):
        result = _dry_run(tools, entry, _props(entry, args))
        print()
        print("Would run:" if not result.isError else "Would refuse:")
        print(printable(result.text))
    return EXIT_OK


def _signature(function: Any) -> str:
    """The signature as written in the source (annotations are strings there)."""
    signature = inspect.signature(function)
    parts, star = [], False
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        text = parameter.name
        if parameter.kind is parameter.VAR_KEYWORD:
            text = f"**{text}"
        if parameter.annotation is not parameter.empty:
            text += f": {parameter.annotation}"
        if parameter.default is not parameter.empty:
            text += f" = {parameter.default!r}"
        parts.append(text)
    return f"({', '.join(parts)}) -> {signature.return_annotation}"


def _call(tools: Registry, args: argparse.Namespace) -> int:
    entry = tools.find(args.tool)
    props = _props(entry, args)
    if args.dry_run:
        if entry.type != "cli":
            raise UsageError(
                f"--dry-run: '{entry.name}' is a {entry.type} tool; only cli and "
                "MTDF tools run a command to show"
            )
        result = _dry_run(tools, entry, props)
    else:
        result = tools.invoker(entry)(props, os.environ)
    if args.raw:
        print(json.dumps(result.model_dump(), indent=2))
    elif args.dry_run:  # what it would run holds the schema's words: shown as one line
        print(printable(result.text))
    else:  # as the command itself would print it: one line end, not a blank line
        text = result.text
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_TOOL_ERROR if result.isError else EXIT_OK


def _dry_run(tools: Registry, entry: ToolEntry, props: dict[str, Any]) -> Any:
    """The call of a cli tool with ``props``, as it would run: nothing runs."""
    # by name: a vendored runtime carries the cli executor only for cli tools
    runtime = (__package__ or "").rpartition(".")[0]
    dry_run = importlib.import_module(f"{runtime}.executors.cli.run").DRY_RUN
    token = dry_run.set(True)
    try:
        return tools.invoker(entry)(props, os.environ)
    finally:
        dry_run.reset(token)


def _props(entry: ToolEntry, args: argparse.Namespace) -> dict[str, Any]:
    props = _json_props(args.json) if args.json is not None else {}
    for pair in args.arg:
        key, value = _split_pair(pair)
        props[key] = _arg_value(entry, key, value)
    return props


def _json_props(text: str) -> dict[str, Any]:
    try:
        props = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"--json is not valid JSON: {error}") from None
    if not isinstance(props, dict):
        raise UsageError("--json must be a JSON object")
    return props


def _split_pair(pair: str) -> tuple[str, str]:
    key, equals, value = pair.partition("=")
    if not equals or not key:
        raise UsageError(f"--arg takes KEY=VALUE, got '{pair}'")
    return key, value


def _arg_value(entry: ToolEntry, key: str, value: str) -> Any:
    """A string property takes VALUE as it is; any other takes it as JSON (so that
    ``count=3`` is a number and ``tags='["a"]'`` a list), or as text when it is not
    valid JSON."""
    properties = (entry.input_schema or {}).get("properties") or {}
    declared = properties.get(key)
    if isinstance(declared, dict) and declared.get("type") == "string":
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value
