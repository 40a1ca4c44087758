"""The environment variables a package's tools read, as its command line shows
them: ``describe`` under a tool, ``doctor`` with the ones unset here, ``serve`` and
``broker`` as a warning at start for each required one that is unset, ``config``
as placeholders in the client configuration.

Before a command runs, the environment files of the current directory
(:mod:`..env_files`) fill in what the process's environment does not set, unless
``--no-env-file``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..env_files import load_env_files
from ..manifest import EnvUse, ToolEntry
from ..printable import printable


@dataclass(frozen=True)
class Variable:
    """A variable as the package uses it."""

    name: str
    required: bool
    """Whether some tool's call fails without it."""
    readers: tuple[tuple[str, tuple[str, ...]], ...]
    """What reads it (a tool's name) and where (the tool's fields), one per tool."""

    @property
    def uses(self) -> tuple[str, ...]:
        """Each reader as the command line shows it: ``getWeather (auth)``."""
        return tuple(
            f"{reader} ({', '.join(fields)})" if fields else reader
            for reader, fields in self.readers
        )


def package_variables(entries: Iterable[ToolEntry]) -> list[Variable]:
    """Every variable some tool reads, sorted by name."""
    return variables_of((entry.name, entry.env) for entry in entries)


def variables_of(readers: Iterable[tuple[str, Iterable[EnvUse]]]) -> list[Variable]:
    """Every variable the readers (a tool's name, or what else reads variables,
    with what it reads) read, sorted by name."""
    required: dict[str, bool] = {}
    read: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for reader, env in readers:
        for use in env:
            required[use.name] = required.get(use.name, False) or use.required
            read.setdefault(use.name, []).append((reader, use.fields))
    return [Variable(name, required[name], tuple(read[name])) for name in sorted(read)]


def why_missing(name: str, environ: Mapping[str, str]) -> str | None:
    """Why ``name`` gives the tools no value here, or None when it does: unset, or
    still the ``${NAME}`` placeholder a pasted client configuration holds."""
    if name not in environ:
        return "is not set"
    if environ[name] == f"${{{name}}}":
        return f"still holds the placeholder '${{{name}}}' of the client configuration"
    return None


def tool_variable_lines(entry: ToolEntry) -> list[str]:
    """What ``describe`` shows of a tool's variables."""
    return [
        printable(
            f"  {use.name}  {'required' if use.required else 'optional'}, "
            f"in {', '.join(use.fields)}"
            f"{'' if use.name in os.environ else ' (unset here)'}"
        )
        for use in entry.env
    ]


def report_variables(variables: list[Variable], out: TextIO) -> int:
    """``doctor``'s lines for the variables, each one line whatever the names hold
    (see ``printable``); the number of required ones missing."""
    missing = 0
    for variable in variables:
        kind = "required" if variable.required else "optional"
        why = why_missing(variable.name, os.environ)
        if why is None:
            print(printable(f"ok       ${variable.name} ({kind})"), file=out)
            continue
        missing += variable.required
        label = "MISSING " if variable.required else "unset   "
        lines = [f"{label} ${variable.name} ({kind})"]
        if why != "is not set":
            lines.append(f"  value:   {why}")
        lines.append(f"  read by: {'; '.join(variable.uses)}")
        for line in lines:
            print(printable(line), file=out)
    return missing


def warn_unset(package: str, entries: Iterable[ToolEntry], out: TextIO) -> None:
    """One warning line for each required variable that gives no value here."""
    for variable in package_variables(entries):
        why = why_missing(variable.name, os.environ)
        if variable.required and why is not None:
            print(
                printable(
                    f"python -m {package}: warning: ${variable.name} {why}; "
                    f"these calls will fail: {'; '.join(variable.uses)}"
                ),
                file=out,
                flush=True,
            )


def load_current_env_files() -> list[Path]:
    """Fill in the process's environment from the current directory's files."""
    return load_env_files(Path.cwd())
