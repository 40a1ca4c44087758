"""What a project's ``README.md`` says, as Markdown made from the planned package:
what the package is, how to install it, its tools with their Python signatures, how
to serve it and the MCP client configuration that starts it."""

from __future__ import annotations

import json
from typing import Any

from mcigen_runtime.app.environment import variables_of

from .. import ir
from .distribution import SERVE_EXTRA, Distribution
from .markdown import Markdown, cell, code, fenced, paragraphs, text
from .project_data import DATA_DIR
from .runtime_link import VENDORED
from .tool_env import tool_env
from .tools import parameter_list


def readme_context(
    package: ir.Package, dist: Distribution, import_name: str, vendored: bool
) -> dict[str, Any]:
    """The values ``templates/project/README.md.jinja`` writes; ``vendored``: the
    package carries its runtime."""
    meta = package.schema.metadata
    title = meta.get("name")
    description = meta.get("description")
    serve = f"python -m {import_name} serve"
    variables = _variables(package)
    return {
        "title": (text(title) if isinstance(title, str) else None) or text(dist.name),
        "description": (
            paragraphs(description) if isinstance(description, str) else None
        ),
        "package": code(import_name),
        "distribution": code(dist.name),
        "install": fenced(f"pip install '.[{SERVE_EXTRA}]'", "sh"),
        "install_wheel": fenced(
            f"pip wheel --no-deps -w dist .\npip install '{_wheel(dist)}[{SERVE_EXTRA}]'",
            "sh",
        ),
        "install_published": code(f"pip install '{dist.name}[{SERVE_EXTRA}]'"),
        "vendored": vendored,
        "runtime": code(f"{import_name}.{VENDORED}"),
        "data": code(f"{import_name}/{DATA_DIR}/"),
        "install_plain": code("pip install ."),
        "dependencies": [code(need) for need in dist.dependencies],
        "serve_needs": [code(need) for need in dist.serve],
        "tools": [_row(planned) for planned in package.tools],
        "takes_paths": any(
            ir.execution_kind(p.tool.execution) in _PATH_KINDS for p in package.tools
        ),
        "serve_stdio": fenced(serve, "sh"),
        "serve_http": fenced(f"{serve} --http 127.0.0.1:8000", "sh"),
        "serve_command": code(serve),
        "client_config": fenced(
            _client_config(dist.name, import_name, variables), "json"
        ),
        "config_command": code(f"python -m {import_name} config"),
        "variables": [
            (cell(code(name)), cell(text(need)), cell(text(", ".join(tools))))
            for name, (need, tools) in variables.items()
        ],
        "doctor_command": code(f"python -m {import_name} doctor"),
        "cli_list": code(f"python -m {import_name} list"),
        "cli_describe": code(f"python -m {import_name} describe TOOL"),
        "cli_call": code(f"python -m {import_name} call TOOL --json '{{...}}'"),
    }


def _wheel(dist: Distribution) -> str:
    """The wheel ``pip wheel`` makes of the project (hatchling's name for it)."""
    return f"dist/{dist.name.replace('-', '_')}-{dist.version}-py3-none-any.whl"


_PATH_KINDS = frozenset({"file", "cli"})
"""The tools that take relative paths against the schema's directory."""


def _row(planned: ir.PlannedTool) -> tuple[Markdown, Markdown, Markdown]:
    """A tool's row: its MCI name, its Python signature, its description's first
    line."""
    lines = (planned.tool.description or "").strip().splitlines()
    return (
        cell(code(planned.tool.name)),
        cell(code(signature(planned))),
        cell(text(lines[0]) if lines else text("")),
    )


def signature(planned: ir.PlannedTool) -> str:
    """The generated function's signature, its parameters as written there."""
    return f"{planned.python_name}({parameter_list(planned.parameters)})"


def _variables(package: ir.Package) -> dict[str, tuple[str, list[str]]]:
    """Each variable the tools read: ``required`` or ``optional``, and the tools
    that read it; sorted by name."""
    return {
        variable.name: (
            "required" if variable.required else "optional",
            [reader for reader, _ in variable.readers],
        )
        for variable in variables_of(tool_env(package).items())
    }


def _client_config(
    server: str, import_name: str, variables: dict[str, tuple[str, list[str]]]
) -> str:
    """The ``mcpServers`` entry an MCP client (Claude Desktop, Cursor, ...) starts
    the package's server from, as ``config`` prints it for an installation (the
    Python's path is the reader's own)."""
    entry: dict[str, Any] = {
        "command": "/path/to/venv/bin/python",
        "args": ["-m", import_name, "serve"],
    }
    env = {
        name: f"${{{name}}}"
        for name, (need, _) in variables.items()
        if need == "required"
    }
    if env:
        entry["env"] = env
    return json.dumps({"mcpServers": {server: entry}}, indent=2, ensure_ascii=False)
