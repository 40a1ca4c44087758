"""The arguments of ``python -m PKG serve``, which ``mcigen serve INPUT [ARG ...]``
checks its ARGs against before it builds (nothing here imports a server)."""

from __future__ import annotations

import argparse

from ..edge.settings import add_serve_arguments


def add_env_file_option(parser: argparse.ArgumentParser) -> None:
    """``--no-env-file``, of every command that runs tools."""
    parser.add_argument(
        "--no-env-file",
        dest="env_files",
        action="store_false",
        help="do not read .env.mci or .env in the current directory (they set what "
        "the environment does not)",
    )


def add_package_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Every argument of ``serve``."""
    add_env_file_option(parser)
    add_serve_arguments(parser)
