"""A package with slow and quick cli tools that go on in the background, built
through the real pipeline with each tool's ``background`` set in the IR (what the
MTDF frontend sets from ``synchronous``; MCI schemas have no such field).

``slow`` writes its shell's pid (its process group) to ``pidfile`` and sleeps
``seconds``, then prints ``slept``; ``quick`` prints ``quick``; ``maybe`` is
``slow`` that runs synchronously when asked (``execution_mode``).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from mcigen import ir
from mcigen.backend import emit
from mcigen.output import write_package
from mcigen.pipeline import plan_schema

WINDOW = "0.5"
"""``MCIGEN_BACKGROUND_AFTER`` for the servers of these tests: a call still running
after half a second goes on in the background (5 s otherwise)."""

SLEEP_SCRIPT = 'echo $$ > "$0"; sleep "$1" && echo slept'

SLOW_INPUT = {
    "type": "object",
    "properties": {
        "pidfile": {"type": "string"},
        "seconds": {"type": "string", "pattern": "^[0-9.]+$"},
        "execution_mode": {"type": "string"},
    },
    "required": ["pidfile", "seconds"],
}


def _sleeper(name: str) -> dict[str, object]:
    return {
        "name": name,
        "inputSchema": SLOW_INPUT,
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": ["-c", SLEEP_SCRIPT, "{{props.pidfile}}", "{{props.seconds}}"],
            "timeout_ms": 60_000,
        },
    }


SCHEMA = {
    "schemaVersion": "1.0",
    "tools": [
        _sleeper("slow"),
        _sleeper("maybe"),
        {
            "name": "quick",
            "execution": {"type": "cli", "command": "echo", "args": ["quick"]},
        },
        {"name": "plain", "execution": {"type": "text", "text": "plain"}},
    ],
}

BACKGROUND = {"slow": "always", "quick": "always", "maybe": "unless_asked"}


def build_background_package(directory: Path, name: str = "pkg") -> Path:
    """Build :data:`SCHEMA` as ``directory/name`` with :data:`BACKGROUND`; the
    package's directory."""
    schema = directory / "background.mci.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    package, diagnostics = plan_schema(schema)
    assert package is not None, diagnostics.items
    tools = tuple(
        dataclasses.replace(
            planned,
            tool=dataclasses.replace(
                planned.tool, background=BACKGROUND.get(planned.tool.name, "never")
            ),
        )
        for planned in package.tools
    )
    package = dataclasses.replace(package, tools=tools)
    options = ir.BuildOptions(name, schema_dir="..")
    files, emitting = emit(package, options)
    assert not emitting.has_errors, emitting.items
    write_package(files, directory / name, name)
    return directory / name
