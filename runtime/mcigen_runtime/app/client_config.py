"""``python -m PKG config``: the ``mcpServers`` entry an MCP client (Claude Desktop,
Claude Code, Cursor, ...) starts this installation's server from.

The command is this interpreter (``sys.executable``), so the entry works where
``python`` is not on ``PATH`` or is another Python; a package not installed in
that interpreter's site-packages (built with ``mcigen build -o DIR``) is found
through ``PYTHONPATH``, whatever directory the client starts it in. The entry is
keyed by the name the package was installed by, as the project's README keys it.
``env`` holds each variable a tool needs as a ``${NAME}`` placeholder for the
user to fill in (or for a client that expands them, such as Claude Code), never
its value here. With ``--http URL`` the entry reaches a server already running at
URL instead.
"""

from __future__ import annotations

import importlib
import re
import site
import sys
from collections.abc import Iterable
from importlib.metadata import packages_distributions
from pathlib import Path
from urllib.parse import urlsplit

from ..edge.settings import HTTP_PATH
from ..printable import printable_indented_json
from .environment import Variable


def client_config(package: str, variables: Iterable[Variable], url: str | None) -> str:
    entry: dict[str, object]
    if url is not None:
        entry = {"type": "http", "url": _endpoint(url)}
    else:
        entry = {"command": sys.executable, "args": ["-m", package, "serve"]}
        env = {v.name: f"${{{v.name}}}" for v in variables if v.required}
        found_in = _outside_site_packages(package)
        if found_in is not None:
            env = {"PYTHONPATH": found_in, **env}
        if env:
            entry["env"] = env
    return printable_indented_json({"mcpServers": {server_name(package): entry}})


def server_name(package: str) -> str:
    """The name of the distribution that installed ``package``, normalised as the
    project's README writes it (``weather-api``): the name its user installed it
    by, and the README's key of the entry. ``package`` itself when no one
    distribution did (a ``mcigen build -o DIR`` package found through
    ``PYTHONPATH``)."""
    names = set(packages_distributions().get(package, ()))
    if len(names) != 1:
        return package
    return re.sub(r"[-_.]+", "-", names.pop()).lower()


def _endpoint(url: str) -> str:
    """``url`` with the server's path when it names none."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.path in ("", "/"):
        return parts._replace(path=HTTP_PATH).geturl()
    return parts.geturl()


def _outside_site_packages(package: str) -> str | None:
    """The directory ``package`` is imported from, unless the interpreter finds it
    on its own (its site-packages)."""
    module = importlib.import_module(package)
    parent = Path(module.__file__ or ".").resolve().parent.parent
    own = [*site.getsitepackages(), site.getusersitepackages()]
    if any(parent == Path(path).resolve() for path in own):
        return None
    return str(parent)
