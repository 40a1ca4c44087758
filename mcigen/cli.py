"""``mcigen build | serve | broker | check | list | envs``: the compiler's command
line.

It imports only what the chosen command needs: ``--version``, ``--help`` and a
usage error load none of the compiler, ``serve INPUT`` and ``broker`` load only
the readers of the input's format until the build cache misses, and the commands
of :mod:`.compile_commands` load the rest when they run."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcigen_runtime.edge.closed_pipe import EXIT_PIPE_CLOSED, quiet_stdout
from mcigen_runtime.templating.parser import WHITESPACE_MODES

from .build_watch import watch_builds
from .cached_serve import add_broker_command, cached_serve_args
from .diagnostics import printable
from .envs_command import add_envs_arguments
from .exit_status import EXIT_ERRORS, EXIT_INTERNAL, usage_error
from .frontend.format_names import FORMAT_NAMES
from .input_file import not_regular
from .mcp_mode import McpMode
from .policy_options import add_policy_options
from .project_config import (
    PYPROJECT,
    ConfigError,
    configured_builds,
    find_pyproject,
)
from .serve_command import add_serve_arguments
from .tool_listing import FORMATS as LISTING_FORMATS

if TYPE_CHECKING:
    from .frontend.formats import Format

Run = Callable[[argparse.Namespace, Path], int]
"""A command's work: ``(args, SCHEMA)`` to an exit status."""
DEBUG_VARIABLE = "MCIGEN_DEBUG"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = cached_serve_args(argv) or _parser().parse_args(argv)
    if args.schema is None:
        return _configured(args, argv)
    if args.command == "build" and args.output is None:
        return usage_error(
            "build needs -o DIR with a SCHEMA (without one, it builds what "
            "[tool.mcigen] in pyproject.toml configures)"
        )
    schema = Path(args.schema)
    if not schema.exists():
        return usage_error(f"no such schema file: {schema}")
    try:
        return _run(args, schema)
    except BrokenPipeError:  # `mcigen list ... | head`
        quiet_stdout()
        return EXIT_PIPE_CLOSED
    except Exception as error:  # the last line of defence: a bug, not the schema's
        if os.environ.get(DEBUG_VARIABLE):
            raise
        _report_internal_error(error)
        return EXIT_INTERNAL


def _run(args: argparse.Namespace, schema: Path) -> int:
    """The chosen command on ``schema``, read in its format."""
    # late: the formats' readers load only once there is an input to read
    from .frontend.formats import FORMATS, format_named, recognise

    named = args.source_format
    source_format = format_named(named) if named else recognise(schema)
    if source_format.folder_holds is None and not schema.is_file():
        return usage_error(_not_one_file(schema, source_format, FORMATS))
    if args.skip_invalid and source_format.folder_holds is None:
        return usage_error(
            f"--skip-invalid leaves out tool files of an MTDF folder, "
            f"and {schema} is {source_format.label}"
        )
    args.source_format = source_format
    exit_code: int = args.run(args, schema)
    return exit_code


def _not_one_file(
    schema: Path, source_format: Format, formats: tuple[Format, ...]
) -> str:
    if not schema.is_dir():
        return f"cannot read {schema}: {not_regular(schema)}"
    holding = " or ".join(known.folder_holds for known in formats if known.folder_holds)
    return (
        f"{schema} is a folder holding no {holding}, "
        f"and {source_format.label} is one file"
    )


def _compiling(command: str) -> Run:
    """The function ``command`` of :mod:`.compile_commands`, which is imported
    only when it runs."""

    def run(args: argparse.Namespace, schema: Path) -> int:
        # late: the compiler loads for the commands that compile, not for the others
        from . import compile_commands

        chosen: Run = getattr(compile_commands, command)
        return chosen(args, schema)

    return run


_build = _compiling("build")


def _report_internal_error(error: Exception) -> None:
    print(
        printable(f"mcigen: internal error: {type(error).__name__}: {error}"),
        f"mcigen: this is a bug in mcigen, not in the schema; nothing was written. "
        f"Run again with {DEBUG_VARIABLE}=1 to see where it happened, and report it.",
        sep="\n",
        file=sys.stderr,
    )


class _InstalledVersion(argparse._VersionAction):
    """``--version``: the installed distribution's, read (importlib.metadata is
    slow to import) only when asked."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        from importlib.metadata import version  # late: only --version reads it

        self.version = f"mcigen {version('mcigen')}"
        super().__call__(parser, namespace, values, option_string)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcigen",
        description="Compile MCI schemas, MTDF tool files and pyMCPBroker configs "
        "into typed Python packages.",
    )
    parser.add_argument("--version", action=_InstalledVersion)
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser(
        "build",
        help="write the package for SCHEMA to DIR (no SCHEMA: the builds "
        "[tool.mcigen] in the nearest pyproject.toml configures)",
    )
    _build_options(build, configurable=True)
    build.add_argument(
        "--check",
        action="store_true",
        help="compare with DIR instead of writing; exit 1 if different",
    )
    build.add_argument(
        "--watch",
        action="store_true",
        help="after building, build again whenever SCHEMA changes, until Ctrl-C "
        "(needs the extra mcigen[watch])",
    )
    build.set_defaults(run=_build)
    serve = commands.add_parser(
        "serve",
        help="build SCHEMA to DIR and run the package's server (with --reload, "
        "rebuilt and restarted when SCHEMA changes); without -o, 'mcigen serve "
        "SCHEMA [ARG ...]' compiles SCHEMA through the build cache and runs "
        "python -m PKG serve ARG...",
        usage="mcigen serve SCHEMA [--reload] [ARG ...]\n"
        "       mcigen serve SCHEMA -o DIR [BUILD OPTIONS] [--reload] -- COMMAND "
        "[ARG ...]",
        description="mcigen serve SCHEMA [ARG ...] (no -o): SCHEMA compiled through "
        "the build cache, served as python -m PKG serve ARG... serves it (stdio, "
        "or --http ADDR; mcigen serve SCHEMA --help lists the ARGs). mcigen serve "
        "SCHEMA -o DIR ... -- COMMAND [ARG ...]: built to DIR, then python -m PKG "
        "COMMAND ARG... run; the options below are this form's.",
    )
    _build_options(serve)
    add_serve_arguments(serve, build=_build)
    add_broker_command(commands)
    check = commands.add_parser(
        "check",
        help="report every problem in SCHEMA that build, given the same options, "
        "would refuse; write nothing. Like build, it starts the MCP servers whose "
        "tools are not cached (saying so on stderr), unless --offline or "
        "--no-connect",
    )
    _build_options(check, check=True, configurable=True)
    check.set_defaults(run=_compiling("check"))
    listing = commands.add_parser("list", help="list the tools SCHEMA resolves to")
    _schema_argument(listing)
    _mcp_options(listing, no_connect=True)
    _skip_invalid_option(listing)
    listing.add_argument(
        "--format",
        choices=LISTING_FORMATS,
        default="table",
        help="a table (default), or the document mcix's 'list --format json|yaml "
        "--verbose' writes to a file, printed on stdout",
    )
    listing.set_defaults(run=_compiling("list_tools"), whitespace="compat")
    envs = commands.add_parser(
        "envs",
        help="list the environment variables SCHEMA's tools and MCP servers read, "
        "and where; --format env writes an example env file",
    )
    _schema_argument(envs)
    _mcp_options(envs, no_connect=True)
    _skip_invalid_option(envs)
    add_envs_arguments(envs)
    envs.set_defaults(run=_compiling("envs"), whitespace="compat")
    migrate = commands.add_parser(
        "migrate",
        help="rewrite Python code that calls SCHEMA's tools through mci-py's "
        "MCIClient.execute into typed calls of the package built from it",
    )
    _schema_argument(migrate)
    migrate.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="a Python file, or a folder whose .py files are rewritten",
    )
    migrate.add_argument(
        "--package",
        required=True,
        help="the import name of the package built from SCHEMA (what the new "
        "calls are imported from)",
    )
    migrate.add_argument(
        "--diff",
        action="store_true",
        help="print the change as a unified diff instead of writing it",
    )
    _mcp_options(migrate, no_connect=True)
    _skip_invalid_option(migrate)
    migrate.set_defaults(run=_compiling("migrate"), whitespace="compat")
    return parser


def _build_options(
    build: argparse.ArgumentParser, *, check: bool = False, configurable: bool = False
) -> None:
    """What ``build`` and ``serve`` take to write a package; with ``check``, what
    ``check`` takes to say whether it would (DIR optional, ``--no-connect``); with
    ``configurable``, SCHEMA is optional (``[tool.mcigen]`` gives the builds)."""
    _schema_argument(build, optional=configurable)
    build.add_argument(
        "-o",
        "--output",
        required=not (check or configurable),
        metavar="DIR",
        help=(
            "where the package would go: its name by default, and what is there "
            "must be mcigen's to replace"
            if check
            else "where to write the package (DIR's basename is its import name "
            "unless --name says otherwise): a new directory, or one an earlier "
            "build wrote, which is replaced whole"
        ),
    )
    build.add_argument(
        "--name", help="import name of the package (default: DIR's basename)"
    )
    build.add_argument(
        "--vendor-runtime",
        action=argparse.BooleanOptionalAction,
        help="copy the runtime into the package (as _runtime/) instead of importing "
        "the mcigen-runtime library: a package with no dependency but pydantic "
        "(and httpx, mcp for http and MCP tools); on by default with --project, "
        "whose dependencies must all be on the package index",
    )
    build.add_argument(
        "--project",
        action="store_true",
        help="write a pip-installable project: DIR/pyproject.toml (name and version "
        "from the schema's metadata, the dependencies the tools need), DIR/README.md "
        "and the package as DIR/NAME (default NAME: DIR's basename, '-' as '_')",
    )
    _whitespace_option(build)
    _skip_invalid_option(build)
    _mcp_options(build, no_connect=check)
    build.add_argument(
        "--strict",
        action="store_true",
        help="fail on warnings too, writing nothing (for CI: a misspelt field "
        "such as 'parms' is a warning)",
    )
    add_policy_options(build)


def _schema_argument(parser: argparse.ArgumentParser, optional: bool = False) -> None:
    parser.add_argument(
        "schema",
        metavar="SCHEMA",
        nargs="?" if optional else None,
        help="an MCI schema file, an MTDF tool file or folder of them (Ahma's), "
        "or a pyMCPBroker config",
    )
    parser.add_argument(
        "--from",
        dest="source_format",
        choices=FORMAT_NAMES,
        help="the format SCHEMA is in (default: recognised: a JSON object with "
        "'command' and no 'schemaVersion' is MTDF, a folder holding one is too; "
        "an object with 'tree' and no 'schemaVersion' is a broker config)",
    )


def _mcp_options(parser: argparse.ArgumentParser, *, no_connect: bool = False) -> None:
    """``no_connect``: offer ``--no-connect`` (not to ``build``: a package needs
    every tool)."""
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument(
        "--offline",
        dest="mcp_mode",
        action="store_const",
        const=McpMode.OFFLINE,
        default=McpMode.CACHE,
        help="never connect to MCP servers: use their caches, even expired ones",
    )
    modes.add_argument(
        "--refresh",
        dest="mcp_mode",
        action="store_const",
        const=McpMode.REFRESH,
        help="fetch every MCP server's tools again and rewrite its cache",
    )
    if no_connect:
        modes.add_argument(
            "--no-connect",
            dest="mcp_mode",
            action="store_const",
            const=McpMode.NO_CONNECT,
            help="start no MCP server and write no cache: use the caches there are, "
            "even expired ones; a server without one is a note, its tools unchecked",
        )


def _whitespace_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--whitespace",
        choices=WHITESPACE_MODES,
        default="compat",
        help="directive whitespace: 'compat' keeps mci-py's output, 'trim' drops "
        "lines holding only a directive",
    )


def _skip_invalid_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--skip-invalid",
        action="store_true",
        help="MTDF folder: leave out each tool file that does not load, as Ahma "
        "does (its problems are printed as warnings), and use the rest "
        "(serve implies it for a folder)",
    )


def _configured(args: argparse.Namespace, argv: list[str]) -> int:
    """``build``/``check`` without SCHEMA: every build ``[tool.mcigen]`` configures,
    each as its own command line followed by the options given here."""
    if args.output is not None:
        return usage_error("-o DIR goes with a SCHEMA")
    try:
        pyproject = find_pyproject(Path.cwd())
        builds = [] if pyproject is None else configured_builds(pyproject)
    except ConfigError as error:
        print(error.diagnostics.render(), file=sys.stderr)
        return EXIT_ERRORS
    if not builds:
        return usage_error(
            f"no SCHEMA given, and no {PYPROJECT} here or above configures a build "
            "in [tool.mcigen]"
        )
    given = [arg for arg in argv if arg != "--watch"]
    given.remove(args.command)

    def run(index: int) -> int:
        return main([args.command, *builds[index].arguments, *given])

    if getattr(args, "watch", False):
        return watch_builds([(b.input, b.output) for b in builds], run)
    return max(run(index) for index in range(len(builds)))
