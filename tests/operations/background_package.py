"""A package with slow and quick cli tools that go on in the background, built
with the real command from MTDF tool files (whose ``synchronous`` sets each tool's
background mode).

``slow`` (``synchronous: false``: always in the background) writes its shell's pid
(its process group) to ``pidfile`` and sleeps ``seconds``, then prints ``slept``;
``maybe`` is ``slow`` without ``synchronous`` (in the background unless
``execution_mode`` asks otherwise); ``quick`` prints ``quick`` in the background,
``plain`` prints ``plain`` synchronously; ``flaky`` (in the background) sleeps
``seconds``, prints ``out`` and ``err ü`` (on stderr) and exits with code 3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..conftest import run_mcigen

WINDOW = "0.5"
"""``MCIGEN_BACKGROUND_AFTER`` for the servers of these tests: a call still running
after half a second goes on in the background (5 s otherwise)."""

SLEEPER = '#!/bin/sh\necho $$ > "$1"\nsleep "$2" && echo slept\n'
FAILER = '#!/bin/sh\nsleep "$1"\necho out\necho "err \u00fc" >&2\nexit 3\n'


def _tool(name: str, command: str, **fields: Any) -> dict[str, Any]:
    default = {"name": "default", "description": f"{name} itself"}
    return {
        "name": name,
        "description": f"The {name} tool",
        "command": command,
        "subcommand": [default | fields.pop("leaf", {})],
        **fields,
    }


def _sleeper(name: str, program: Path, **fields: Any) -> dict[str, Any]:
    operands = [
        {"name": "pidfile", "type": "string", "required": True},
        {"name": "seconds", "type": "string", "required": True},
    ]
    leaf = {"positional_args": operands, "timeout_seconds": 60}
    return _tool(name, str(program), leaf=leaf, **fields)


def build_background_package(directory: Path, name: str = "pkg") -> Path:
    """Write the tool files and the sleeper under ``directory`` and build them as
    ``directory/name``; the package's directory."""
    sleeper = directory / "sleeper"
    sleeper.write_text(SLEEPER, encoding="utf-8")
    sleeper.chmod(0o755)
    failer = directory / "failer"
    failer.write_text(FAILER, encoding="utf-8")
    failer.chmod(0o755)
    seconds = {"name": "seconds", "type": "string", "required": True}
    tools = directory / "tools"
    tools.mkdir()
    for document in (
        _sleeper("slow", sleeper, synchronous=False),
        _sleeper("maybe", sleeper),
        _tool("quick", "echo quick", synchronous=False),
        _tool("plain", "echo plain", synchronous=True),
        _tool(
            "flaky",
            str(failer),
            leaf={"positional_args": [seconds]},
            synchronous=False,
        ),
    ):
        path = tools / f"{document['name']}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
    result = run_mcigen("build", tools, "-o", directory / name)
    assert result.returncode == 0, result.stderr
    return directory / name
