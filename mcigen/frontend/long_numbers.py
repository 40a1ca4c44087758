"""Integers too long to read: Python refuses to convert more than
``sys.get_int_max_str_digits()`` digits (a guard against quadratic conversion), so
the readers turn that refusal into a located syntax error."""

from __future__ import annotations

import re
import sys

from .parsed import SourceSyntaxError

MAX_DIGITS = sys.get_int_max_str_digits() or 4300
_LONG_DIGITS = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")


def is_too_long(error: ValueError) -> bool:
    return "integer string conversion" in str(error)


def too_long_number(text: str) -> SourceSyntaxError:
    """The error for ``text``, placed at its first run of too many digits."""
    found = _LONG_DIGITS.search(text)
    return SourceSyntaxError(
        f"a number has more than {MAX_DIGITS} digits; write it as a string",
        found.start() if found else 0,
    )
