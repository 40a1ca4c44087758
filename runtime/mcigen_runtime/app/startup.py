"""Why a server of the package cannot start."""

from __future__ import annotations


class StartupError(Exception):
    """Why the server cannot start: one line per problem."""
