"""A schema with a tool of its own and a toolset's, and a client of it run in a
new process (so that nothing it imported is taken from this one's modules)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from ..conftest import text_tool, write_schema

CLIENT_SCRIPT = textwrap.dedent("""
    import json, sys, time
    started = time.perf_counter()
    from mcigen import MCIClient
    client = MCIClient(schema_file_path=sys.argv[1], env_vars={"WHO": "Ada"})
    result = client.execute("greet", {"name": "Bob"})
    print(json.dumps({
        "text": result.result.content[0].text,
        "tools": client.list_tools(),
        "seconds": time.perf_counter() - started,
        "compiled": "mcigen.pipeline" in sys.modules,
        "loaded": [
            m for m in ("mcigen.ir", "yaml", "compileall", "logging")
            if m in sys.modules
        ],
    }))
    """)


def greetings(directory: Path) -> Path:
    """A schema with a tool of its own and a toolset's."""
    library = directory / "mci"
    library.mkdir()
    write_schema(
        library,
        {"schemaVersion": "1.0", "tools": [text_tool("bye", "Bye {{env.WHO}}")]},
        "farewells.mci.json",
    )
    greet = text_tool(
        "greet",
        "Hello {{props.name}}, from {{env.WHO}}",
        inputSchema={"type": "object", "properties": {"name": {"type": "string"}}},
    )
    document = {"schemaVersion": "1.0", "tools": [greet], "toolsets": ["farewells"]}
    return write_schema(directory, document, "greetings.mci.json")


def run_client(schema: Path, cache: Path) -> dict[str, Any]:
    """What a client of ``schema`` with ``cache`` answers in a new process."""
    done = subprocess.run(
        [sys.executable, "-c", CLIENT_SCRIPT, str(schema)],
        env={
            **os.environ,
            "MCIGEN_CACHE_DIR": str(cache),
            "PYTHONDONTWRITEBYTECODE": "1",
        },
        capture_output=True,
        text=True,
        check=True,
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer
