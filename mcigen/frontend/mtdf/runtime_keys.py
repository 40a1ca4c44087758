"""What Ahma gives a meaning of its own on a command line: the input keys it reads
itself, and the program whose words it joins into one script."""

from __future__ import annotations

EXTRA_ARGS, WORKING_DIRECTORY, TIMEOUT = "args", "working_directory", "timeout_seconds"
RESERVED = frozenset({EXTRA_ARGS, WORKING_DIRECTORY, TIMEOUT, "execution_mode"})
"""Input keys Ahma reads itself: never on the command line, even when declared."""
JOINING_SHELL = "/bin/sh"
"""The program Ahma runs as ``/bin/sh -c "<argv joined with spaces>"``."""
