"""What the MTDF tests share: stub programs that print the command line they were
given, and calls of built packages' tools by their Ahma names."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from mcigen_runtime.registry import registry
from mcigen_runtime.results import ToolResult

AHMA = Path(__file__).resolve().parents[1] / "fixtures" / "mtdf" / "ahma"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ahma"
TEMP_FILE_PREFIX = "mcigen-arg-"

_STUB = f"""#!{sys.executable}
import json, os, sys
files = {{
    arg: open(arg, encoding="utf-8").read()
    for arg in sys.argv[1:]
    if os.path.basename(arg).startswith({TEMP_FILE_PREFIX!r}) and os.path.isfile(arg)
}}
name = os.path.basename(sys.argv[0])
shown = [
    os.path.realpath(arg) if arg.startswith("/proc/self/fd/") else arg
    for arg in sys.argv[1:]
]
print(json.dumps({{
    "argv": [name, *shown], "given": sys.argv[1:], "cwd": os.getcwd(), "files": files
}}))
"""


def write_stubs(folder: Path, *names: str) -> None:
    """Programs named ``names`` in ``folder`` that print their argv (the program
    by its basename; a path given by descriptor, ``/proc/self/fd/N``, as the path
    it designates), the arguments as given, their working directory and the
    content of the temporary files they were given, as JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        stub = folder / name
        stub.write_text(_STUB)
        stub.chmod(0o755)


def call(package: str, tool: str, **arguments: Any) -> ToolResult:
    """The tool called as the MCP server calls it: by name, with a JSON object."""
    return registry(package).call(tool, arguments, os.environ)


def printed(result: ToolResult) -> dict[str, Any]:
    """What a stub printed."""
    assert not result.isError, result.content
    printed: dict[str, Any] = json.loads(result.text)
    return printed
