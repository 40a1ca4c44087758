"""The arguments of ``python -m PKG broker`` (nothing here imports the broker or a
server, so the package's command line pays nothing for them)."""

from __future__ import annotations

import argparse

from ..edge.logs import add_log_arguments
from ..edge.settings import DEFAULT_HOST, ENV_PREFIX, parse_address, positive_int

DEFAULT_PORT = 8100


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
    parser.add_argument(
        "--check-start",
        action="store_true",
        help="do all that starting does (check the environment, start every MCP "
        "server and list its tools), then stop them and exit, listening nowhere: 0 "
        "when the broker would start, 2 when it would not (what mcigen serve runs "
        "before it swaps a rebuilt package in)",
    )
    parser.add_argument("--reload", nargs=0, action=_Moved, help=argparse.SUPPRESS)


class _Moved(argparse.Action):
    """An option that is the compiler's now: a pointer to it, not "unrecognized
    arguments"."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        parser.error(
            "--reload is the compiler's: mcigen serve SCHEMA -o DIR --reload -- "
            "broker [ADDR] ..."
        )
