"""What a command line may not hold: checked before a command starts.

A NUL byte cannot be passed to a program at all. A value that starts with ``-`` in
an argument that a property fills whole (``"args": ["-l", "{{props.file}}"]``) is
read by most commands as an option: ``file='--files0-from=/elsewhere'`` makes
``wc`` read a list of files the path policy never saw. Such values are refused
unless the argument follows a ``--`` in ``args``, the property is a number (a
negative number is a value), or the schema allows them (``allowOptionLikeArgs``).
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple


class Operand(NamedTuple):
    """An argument a property fills whole."""

    position: int
    """Its index in argv."""
    name: str
    """The property's name."""
    numeric: bool
    """Whether the property is a number (a negative number is a value)."""


@functools.cache
def _number() -> re.Pattern[str]:
    """A negative number, compiled by the first command line that holds an
    option-like numeric operand (not by every tool module that names the face)."""
    return re.compile(r"-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|-inf|-nan")


_SHOWN = 80
"""How many characters of a refused value the message quotes."""


def refusal(argv: list[str], operands: tuple[Operand, ...]) -> str | None:
    """Why the command line ``argv`` may not run, or None."""
    for index, argument in enumerate(argv):
        if "\0" in argument:
            what = "the command" if index == 0 else f"argument {index}"
            return f"Refused: {what} holds a NUL byte, which no command line can carry"
    for index, name, numeric in operands:
        value = argv[index]
        if not value.startswith("-") or (numeric and _number().fullmatch(value)):
            continue
        shown = value if len(value) <= _SHOWN else value[:_SHOWN] + "…"
        return (
            f"Refused: '{name}' is {shown!r}, which starts with '-': {argv[0]!r} "
            f"would read argument {index} as an option rather than as the value "
            f"of '{name}'. Values starting with '-' are refused here unless the "
            "tool's args put '--' before it or its cli execution sets "
            '"allowOptionLikeArgs": true'
        )
    return None
