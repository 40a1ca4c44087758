"""``sandboxed_shell``, the tool Ahma lists whatever its tool files hold
(AHMA-SEMANTICS §1, §3.2): a shell command line run with ``bash -c`` in the
working directory, Ahma's `` 2>&1`` after it. It is also what a sequence step
naming ``sandboxed_shell`` runs.

Ahma describes it as a tool file of its own (one ``default`` subcommand whose
required positional ``command`` is the script); it is flattened here as any tool
file is, so its schema, timeout and working directory are every MTDF tool's.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...diagnostics import Location
from .flatten import MtdfTool, flatten_tool

SHELL_TOOL = "sandboxed_shell"
_COMMAND = "command"
_TOOL_FILE: Mapping[str, object] = {
    "name": SHELL_TOOL,
    "description": (
        "Run a command line with bash in the working directory: pipes, "
        "redirects, variables, globs and the rest of shell syntax work, and "
        "2>&1 is added at its end. Served by a server, it runs in the "
        "background unless execution_mode is Synchronous."
    ),
    "command": "bash -c",
    "subcommand": [
        {
            "name": "default",
            "description": "Run a shell command line",
            "positional_args": [
                {
                    "name": _COMMAND,
                    "type": "string",
                    "description": (
                        "The command line bash runs, shell syntax and all "
                        "(pipes, redirects, variables)"
                    ),
                    "required": True,
                }
            ],
        }
    ],
}


def shell_tool(where: Location) -> MtdfTool:
    """``sandboxed_shell``, reported at ``where`` (the tool files it is listed with)."""
    (tool,) = flatten_tool(_TOOL_FILE, {}, lambda _pointer: where)
    return tool
