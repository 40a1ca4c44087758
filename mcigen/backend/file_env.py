"""The environment variables a file's template may read: the ones the schema names.

A file read by a file tool may be written by someone else (a user, an agent); its
template sees only the variables some template of the package names, in any field
of any tool or MCP server (:mod:`.tool_env`), plus those the build allows with
``--file-env``. The schema's own templates see the whole environment, as before.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import ir
from .tool_env import server_env, tool_env


def file_env_names(package: ir.Package, allowed: Iterable[str]) -> tuple[str, ...]:
    """Every name ``env.NAME`` the package's templates read, and ``allowed``, sorted."""
    read = [*tool_env(package).values(), *server_env(package).values()]
    return tuple(sorted({*allowed, *(use.name for uses in read for use in uses)}))
