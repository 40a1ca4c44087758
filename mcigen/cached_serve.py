"""``mcigen broker ADDR CONFIG [SECRET] [OPTIONS]`` and ``mcigen serve INPUT
[ARG ...]``: the input compiled through the build cache (``package_cache``, as
``MCIClient`` compiles a schema), then its package's server run as a child
process, ``python -m PKG broker ADDR [SECRET] [OPTIONS]`` or ``python -m PKG
serve ARG...``.

For a pyMCPBroker user that is their old command with one word changed; for an
MCP client, a config that names the schema itself. The first start with given
inputs builds (its warnings on stderr; an MTDF folder's tool file that does not
load is left out, as Ahma does); every later one takes the package from the cache.
A build that fails prints why and starts nothing (exit status 1). ``serve`` reads
the environment files beside the input (``.env.mci``, ``.env``, as mcix does) under
the process's environment, unless ``--no-env-file``.

With ``--reload``, every change of the input builds again and restarts the server
on the new package; a broker that would not start on it is not swapped in (as
``mcigen serve -o DIR --reload``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mcigen_runtime.app.broker_arguments import (
    add_broker_options,
    broker_options_argv,
    names_a_config,
)
from mcigen_runtime.app.serve_arguments import add_package_serve_arguments
from mcigen_runtime.edge.settings import parse_address
from mcigen_runtime.env_files import load_env_files

from .diagnostics import Diagnostics
from .exit_status import usage_error
from .package_cache import BuildFailed, Compiling, package_for
from .serve_command import (
    FORMS,
    RELOAD_HELP,
    USAGE_ERROR,
    Watch,
    say,
    start_server,
    supervised,
    would_start,
)
from .server_process import BuiltPackage

EXIT_BUILD_FAILED = 1
_OUTPUT_OPTIONS = ("-o", "--output")
_HELP = (["-h"], ["--help"])
_RELOAD = "--reload"
"""mcigen's own among ``serve INPUT``'s arguments: the package's serve has none."""
NO_ENV_FILE = "--no-env-file"
"""The package's serve option that also keeps the schema's environment files unread."""


def add_broker_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    broker = commands.add_parser(
        "broker",
        help="pyMCPBroker's command line: compile CONFIG (through the build cache) "
        "and serve it over pyMCPBroker's HTTP API",
        description="python -m pyMCPBroker ADDR CONFIG [SECRET] with one word "
        "changed: CONFIG is compiled once into the build cache, then served as "
        "python -m PKG broker ADDR [SECRET] serves it.",
    )
    broker.add_argument(
        "address", type=_address, metavar="ADDR", help="HOST:PORT, :PORT or PORT"
    )
    broker.add_argument(
        "schema",
        metavar="CONFIG",
        help="a pyMCPBroker config (or any input mcigen reads)",
    )
    broker.add_argument(
        "secret",
        nargs="?",
        metavar="SECRET",
        help="require 'Authorization: Bearer SECRET' on every request (default: "
        "$MCIGEN_SECRET, which keeps it out of the process list)",
    )
    add_broker_options(broker)
    broker.add_argument(
        "--reload",
        action="store_true",
        help="build again when CONFIG changes, and restart the broker when the new "
        "one starts (needs the extra mcigen[watch])",
    )
    broker.set_defaults(
        run=_broker, source_format=None, skip_invalid=False, command="broker"
    )


def cached_serve_args(argv: list[str]) -> argparse.Namespace | None:
    """``serve INPUT [--reload] [ARG ...]`` without ``-o``: what ``mcigen serve``
    runs through the build cache, ARG passed on to ``python -m PKG serve``; None
    for any other command line (``serve SCHEMA -o DIR ... -- COMMAND``, ``serve
    --help``). A command line of neither form, or ARGs the package's ``serve``
    would refuse, exit 2 before anything is built, as argparse exits (``--help``
    among the ARGs prints theirs and exits 0)."""
    if not argv or argv[0] != "serve":
        return None
    before_dashes = argv[1 : argv.index("--")] if "--" in argv else argv[1:]
    if any(_names_output(arg) for arg in before_dashes) or argv[1:2] in _HELP:
        return None
    if len(argv) < 2:
        raise SystemExit(usage_error(f"serve needs SCHEMA: {FORMS}"))
    if argv[1].startswith("-"):
        raise SystemExit(
            usage_error(
                f"serve takes SCHEMA first, before any option ({argv[1]!r} came "
                f"first): {FORMS}"
            )
        )
    server_args = [arg for arg in argv[2:] if arg != _RELOAD]
    _server_arguments(argv[1]).parse_args(server_args)
    return argparse.Namespace(
        command="serve",
        schema=argv[1],
        server_args=server_args,
        reload=len(server_args) < len(argv[2:]),
        source_format=None,
        skip_invalid=False,
        run=_serve,
    )


def _server_arguments(schema: str) -> argparse.ArgumentParser:
    """``python -m PKG serve``'s arguments under the name the user gave them (the
    cached package's is a hash), with mcigen's ``--reload`` in the help."""
    parser = argparse.ArgumentParser(
        prog=f"mcigen serve {schema}",
        description="SCHEMA compiled through the build cache, then served as "
        "python -m PKG serve ARG... serves it; these are the ARGs.",
        epilog=f"--reload (mcigen's own, anywhere among the arguments): {RELOAD_HELP}",
    )
    add_package_serve_arguments(parser)
    return parser


def _names_output(arg: str) -> bool:
    return arg in _OUTPUT_OPTIONS or arg.startswith(("--output=", "-o"))


def _address(text: str) -> str:
    parse_address(text)  # refused as it would be by python -m PKG broker
    return text


def _broker(args: argparse.Namespace, schema: Path) -> int:
    if args.secret is not None and names_a_config(args.secret):
        say(
            f"error: the secret {args.secret!r} is a file or a config's name, not a "
            f"secret: mcigen broker ADDR CONFIG [SECRET] serves one config, "
            f"{str(schema)!r} here"
        )
        return USAGE_ERROR
    secret = [] if args.secret is None else [args.secret]
    command = ["broker", args.address, *secret, *broker_options_argv(args)]
    return _serve_cached(schema, args.source_format.name, command, args.reload)


def _serve(args: argparse.Namespace, schema: Path) -> int:
    command = ["serve", *args.server_args]
    if NO_ENV_FILE not in args.server_args:
        # as mcix run reads them: beside the schema (the server reads its own
        # directory's too, under these)
        load_env_files(schema if schema.is_dir() else schema.parent)
    return _serve_cached(schema, args.source_format.name, command, args.reload)


def _serve_cached(
    schema: Path, source_format: str, command: list[str], reload: bool
) -> int:
    compiling = Compiling(source_format, on_build=_report)
    current: list[BuiltPackage] = []

    def build() -> int:
        package = _built(schema, compiling)
        if package is None:
            return EXIT_BUILD_FAILED
        current.append(package)
        return 0

    def rebuild() -> bool:
        package = _built(schema, compiling)
        if package is None or not would_start(package, command):
            return False
        current.append(package)
        return True

    return supervised(
        Watch(schema, None) if reload else None,
        build,
        lambda: start_server(current[-1], command),
        rebuild,
    )


def _built(schema: Path, compiling: Compiling) -> BuiltPackage | None:
    """The package of ``schema`` from the build cache (built now when it is not
    there); None once why not is said."""
    try:
        cached = package_for(schema, True, os.environ, compiling)
    except BuildFailed as failure:
        _report(failure.diagnostics)
        return None
    except OSError as error:
        say(f"error: cannot read {schema}: {error}")
        return None
    return BuiltPackage(cached.name, cached.directory.parent)


def _report(diagnostics: Diagnostics) -> None:
    if diagnostics.items:
        print(diagnostics.render(), file=sys.stderr)
