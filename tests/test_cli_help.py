"""``mcigen --version`` and ``--help``: the version comes from the installed
distribution, and every option and argument of every command, mcigen's and a
generated package's (``python -m PKG``), says what it is."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version

import pytest
from mcigen_runtime.app.main import _parser as package_parser

from mcigen.cli import _parser


def _parsers(
    parser: argparse.ArgumentParser, path: str
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, subparser in action.choices.items():
                yield from _parsers(subparser, f"{path} {name}")


def test_mcigen_version_prints_the_installed_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mcigen", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout == f"mcigen {version('mcigen')}\n"


@pytest.mark.parametrize(
    ("name", "parser"),
    [("mcigen", _parser()), ("python -m pkg", package_parser("pkg"))],
    ids=["mcigen", "package"],
)
def test_every_option_of_every_command_has_help_text(
    name: str, parser: argparse.ArgumentParser
) -> None:
    missing = []
    for path, command in _parsers(parser, name):
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                missing += [
                    f"{path} {choice.dest}"
                    for choice in action._choices_actions
                    if not choice.help
                ]
            elif not action.help:
                missing.append(
                    f"{path} {'/'.join(action.option_strings) or action.dest}"
                )
    assert missing == []
