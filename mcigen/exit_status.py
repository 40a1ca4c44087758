"""mcigen's exit statuses, and how its command line refuses a usage."""

from __future__ import annotations

import sys

from .diagnostics import printable

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def usage_error(message: str) -> int:
    print(printable(f"mcigen: error: {message}"), file=sys.stderr)
    return EXIT_USAGE
