"""``mcigen serve SCHEMA -o DIR [BUILD OPTIONS] [--reload] -- COMMAND [ARG ...]``:
build the package as ``mcigen build`` does (for a folder of MTDF tool files, with
``--skip-invalid``: as Ahma, it leaves out a file that does not load, saying why on
stderr), then run its server, ``python -m PKG
COMMAND ARG...`` (``serve`` or ``broker``), as a child process.

With ``--reload``, every change of SCHEMA rebuilds the package, into a staging
directory; a ``broker`` is then checked to start there (``--check-start``: its
variables set, its MCP servers started). Only a package that builds (and starts)
replaces DIR; then the server is stopped as SIGTERM stops it (calls in flight are
answered first), waited for, and started again on the new package. A build that
fails, or a broker that would not start, prints why and leaves the server running
the package as it was; so does anything else that goes wrong in a rebuild (the
watch goes on).

mcigen ends when the server ends, with its exit status; SIGTERM, SIGINT (Ctrl-C)
and SIGHUP stop the server first.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from .diagnostics import printable
from .input_watch import WatchUnavailable, input_changes
from .output import OutputError, read_package, write_package
from .server_process import BuiltPackage, ServerProcess, start_problem
from .supervisor import Supervisor

Build = Callable[[argparse.Namespace, Path], int]
"""``mcigen build``'s work: ``(args, SCHEMA)`` to an exit status, diagnostics printed."""

USAGE_ERROR = 2
"""The exit status of a usage error, as everywhere in mcigen's command line."""
RELOAD_HELP = (
    "watch SCHEMA (a file, or every file of an MTDF folder); on a change, rebuild, "
    "and restart the server when the build succeeds (needs the extra mcigen[watch])"
)
FORMS = (
    "mcigen serve SCHEMA [ARG ...] serves it through the build cache; "
    "mcigen serve SCHEMA -o DIR [BUILD OPTIONS] -- COMMAND [ARG ...] builds it to "
    "DIR first"
)
"""The two command lines of ``serve``, for a usage error."""


def add_serve_arguments(parser: argparse.ArgumentParser, build: Build) -> None:
    """``serve``'s own arguments (the build's are ``build``'s)."""
    parser.add_argument("--reload", action="store_true", help=RELOAD_HELP)
    parser.add_argument(
        "package_command",
        metavar="COMMAND",
        help="after '--', the package's command: serve or broker",
    )
    parser.add_argument(
        "package_args",
        nargs="*",
        default=[],
        metavar="ARG",
        help="its arguments: serve's (--http ADDR, --broker, ...) or broker's (ADDR, "
        "--log-level LEVEL, ...)",
    )
    parser.set_defaults(run=partial(serve, build=build), check=False)


def serve(args: argparse.Namespace, schema: Path, build: Build) -> int:
    """Build, run the server until it ends (rebuilding it on change with
    ``--reload``); the build's exit status if it failed, else the server's."""
    output = Path(args.output)
    # a folder is served as Ahma serves it: a tool file that does not load is left out
    args.skip_invalid = args.skip_invalid or schema.is_dir()
    return supervised(
        Watch(schema, output) if args.reload else None,
        partial(build, args, schema),
        partial(_start, output, args),
        partial(_staged_rebuild, args, schema, build),
    )


@dataclass(frozen=True)
class Watch:
    source: Path
    ignored: Path | None
    """A directory inside ``source`` whose changes are not the input's."""


def supervised(
    watch: Watch | None,
    build: Callable[[], int],
    start: Callable[[], ServerProcess],
    rebuild: Callable[[], bool],
) -> int:
    """``build``, then the server ``start`` starts, run until it ends; with a
    ``watch``, ``rebuild`` on every change, the server restarted when it says so.
    The build's exit status if it failed, else the server's."""
    supervisor = Supervisor(start)
    try:
        changes = (
            None
            if watch is None
            else input_changes(watch.source, watch.ignored, supervisor.stopping)
        )
    except WatchUnavailable as error:
        say(f"error: {error}")
        return USAGE_ERROR
    status = build()
    if status != 0:
        return status
    with supervisor.running() as server:
        if changes is None or watch is None:
            server.process.wait()
        else:
            rebuild_on_change(changes, rebuild, supervisor, watch.source)
    return supervisor.exit_status() or 0


def _start(output: Path, args: argparse.Namespace) -> ServerProcess:
    package = BuiltPackage.at(output, args.project)
    return start_server(package, [args.package_command, *args.package_args])


def start_server(package: BuiltPackage, command: list[str]) -> ServerProcess:
    """``python -m PKG COMMAND ARG...`` started, and said so."""
    server = ServerProcess(package, command)
    # the command only: its arguments may hold the broker's secret
    say(f"started python -m {package.name} {command[0]} (pid {server.pid})")
    return server


def rebuild_on_change(
    changes: Iterator[bool],
    rebuild: Callable[[], bool],
    supervisor: Supervisor,
    schema: Path,
) -> None:
    """Until a stop signal, or the server's own end."""
    for changed in changes:
        if supervisor.exit_status() is not None:
            return
        if not changed:
            continue
        say(f"{schema} changed: rebuilding")
        try:
            replaced = rebuild()
        except Exception as error:  # a rebuild's failure never ends the watch
            say(f"rebuilding from {schema} failed: {type(error).__name__}: {error}")
            replaced = False
        if not replaced:
            say("still serving the package as it was")
            continue
        say("rebuilt: restarting the server")
        supervisor.restart()


def _staged_rebuild(args: argparse.Namespace, schema: Path, build: Build) -> bool:
    """Build into a staging directory and, when the server is a broker, check it
    starts there; only then put the package in DIR. Whether it was."""
    output = Path(args.output)
    with tempfile.TemporaryDirectory(prefix="mcigen-reload-") as root:
        # the same base name: the same package name, when --name does not give one
        staged = Path(root) / output.resolve().name
        if build(argparse.Namespace(**{**vars(args), "output": str(staged)}), schema):
            say("the build failed")
            return False
        package = BuiltPackage.at(staged, args.project)
        if not would_start(package, [args.package_command, *args.package_args]):
            return False
        try:
            write_package(read_package(staged), output, package.name)
        except OutputError as error:
            say(f"error: {error}")
            return False
    return True


def would_start(package: BuiltPackage, command: list[str]) -> bool:
    """Whether the server ``command`` runs would start on ``package``: a broker is
    checked to (``--check-start``), saying why not; any other server is taken to."""
    problem = start_problem(package, command) if command[0] == "broker" else None
    if problem is not None:
        say(f"the rebuilt broker does not start ({problem})")
    return problem is None


def say(message: str) -> None:
    print(printable(f"mcigen: {message}"), file=sys.stderr, flush=True)
