"""The arguments of ``python -m PKG broker`` (nothing here imports the broker or a
server, so the package's command line pays nothing for them)."""

from __future__ import annotations

import argparse
import os

from ..edge.logs import add_log_arguments
from ..edge.settings import (
    DEFAULT_HOST,
    ENV_PREFIX,
    add_sandbox_arguments,
    parse_address,
    positive_int,
)

DEFAULT_PORT = 8100
_CONFIG_SUFFIXES = (".json", ".yaml", ".yml")


def add_broker_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``broker`` (needs no MCP import)."""
    parser.add_argument(
        "address",
        nargs="?",
        type=parse_address,
        default=(DEFAULT_HOST, DEFAULT_PORT),
        metavar="ADDR",
        help=f"HOST:PORT, :PORT or PORT to listen on (default {DEFAULT_HOST}:{DEFAULT_PORT})",
    )
    parser.add_argument(
        "secret",
        nargs="?",
        metavar="SECRET",
        help="require 'Authorization: Bearer SECRET' on every request (default: "
        f"${ENV_PREFIX}SECRET, which keeps it out of the process list)",
    )
    add_broker_options(parser)
    parser.add_argument(
        "--check-start",
        action="store_true",
        help="do all that starting does (check the environment, start every MCP "
        "server and list its tools), then stop them and exit, listening nowhere: 0 "
        "when the broker would start, 2 when it would not (what mcigen serve runs "
        "before it swaps a rebuilt package in)",
    )
    parser.add_argument("--reload", nargs=0, action=_Moved, help=argparse.SUPPRESS)


def add_broker_options(parser: argparse.ArgumentParser) -> None:
    """The options ``mcigen broker`` passes on to ``broker`` as they were given
    (:func:`broker_options_argv`)."""
    parser.add_argument(
        "--max-output-chars",
        type=positive_int,
        metavar="N",
        help="cut meta_call answers to N characters (a tool's own max_output_chars "
        "wins)",
    )
    parser.add_argument(
        "--dump-tree",
        action="store_true",
        help="print the tree (paths, types, summaries) and exit",
    )
    add_log_arguments(parser)
    parser.add_argument(
        "--ignore-broken-tool",
        action="store_true",
        help="leave out, with a warning, the tools of an MCP server that fails to "
        "start, instead of not starting",
    )
    add_sandbox_arguments(parser)


def broker_options_argv(args: argparse.Namespace) -> list[str]:
    """The options of :func:`add_broker_options` in ``args``, as arguments again."""
    argv = [f"--log-level={args.log_level}", f"--log-format={args.log_format}"]
    if args.log_arguments:
        argv.append("--log-arguments")
    if args.max_output_chars is not None:
        argv.append(f"--max-output-chars={args.max_output_chars}")
    if args.dump_tree:
        argv.append("--dump-tree")
    if args.ignore_broken_tool:
        argv.append("--ignore-broken-tool")
    if args.no_sandbox:
        argv.append("--no-sandbox")
    argv += [f"--sandbox-scope={scope}" for scope in args.sandbox_scopes or ()]
    return argv


def names_a_config(secret: str) -> bool:
    """Whether the SECRET given is rather the path of a config (pyMCPBroker's
    command line takes one in its place): an existing path, or a name ending in
    .json, .yaml or .yml."""
    return secret.lower().endswith(_CONFIG_SUFFIXES) or os.path.lexists(secret)


class _Moved(argparse.Action):
    """An option that is the compiler's now: a pointer to it, not "unrecognized
    arguments"."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        parser.error(
            "--reload is the compiler's: mcigen broker ADDR CONFIG [SECRET] --reload "
            "(or mcigen serve SCHEMA -o DIR --reload -- broker [ADDR] ...)"
        )
