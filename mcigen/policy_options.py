"""The build options that set a package's runtime policy: ``--limit NAME=SIZE``
(repeatable), ``--file-env NAME`` (repeatable), ``--cli-env inherit|minimal`` and
``--confine-cli`` (``compile_commands`` makes them the ``ir.RuntimePolicy``).
"""

from __future__ import annotations

import argparse
import re

from mcigen_runtime.limits import NAMES

from .diagnostics import quoted

CLI_ENV_MODES = ("inherit", "minimal")

_SIZE = re.compile(r"(\d+)\s*(|k|ki|kib|m|mi|mib|g|gi|gib)", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def add_policy_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        type=_limit,
        metavar="NAME=SIZE",
        help=f"a call limit of the package ({', '.join(NAMES)}); SIZE in bytes or "
        "with KiB/MiB/GiB; default 10MiB each",
    )
    parser.add_argument(
        "--file-env",
        action="append",
        default=[],
        type=_env_name,
        metavar="NAME",
        help="an environment variable file templates may read besides those the "
        "schema names",
    )
    parser.add_argument(
        "--cli-env",
        choices=CLI_ENV_MODES,
        default="inherit",
        help="what cli tools' commands see when called as functions: the whole "
        "environment (inherit) or PATH, HOME, locale, TZ and TMPDIR only (minimal)",
    )
    parser.add_argument(
        "--confine-cli",
        action="store_true",
        help="MCI cli tools: the kernel (Landlock) lets a command write only beneath "
        "the base directory and the tool's directoryAllowList (and the temporary "
        "directory); a tool with enableAnyPaths is not confined",
    )


def _limit(text: str) -> tuple[str, int]:
    name, _, size = text.partition("=")
    if name not in NAMES:
        raise argparse.ArgumentTypeError(
            f"unknown limit {quoted(name)}; limits are {', '.join(NAMES)}"
        )
    match = _SIZE.fullmatch(size.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"{quoted(size)} is not a size: write bytes, or a number with KiB, MiB or GiB"
        )
    return name, int(match[1]) * _UNITS[match[2][:1].lower()]


def _env_name(text: str) -> str:
    if _ENV_NAME.fullmatch(text) is None:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is not an environment variable name"
        )
    return text
