"""One package for the adapter tests: a greeting (text), a tool whose name no
framework accepts as it is, a tool that fails (a command exiting 3), and a tool of
the toolset ``notes``.

The tests import the frameworks (and the adapters, which import them) where they
use them, not at the top of their files: every xdist worker collects every file,
and the frameworks take ~7 s of CPU to import, which only the worker running
their tests should pay."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

from ..conftest import built_package, schema_of, text_tool, write_schema

GREET_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "Who to greet"}},
    "required": ["name"],
}


@pytest.fixture(scope="package")
def agentpkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("adapters")
    (directory / "mci").mkdir()
    write_schema(
        directory / "mci",
        schema_of(text_tool("note", "A note on {{props.topic}}")),
        "notes.mci.json",
    )
    schema = schema_of(
        text_tool(
            "greet",
            "Hello {{props.name}}",
            description="Greet someone by name",
            inputSchema=GREET_SCHEMA,
            tags=["social"],
        ),
        text_tool(
            "weather.now/today",
            "Sunny in {{props.city}}",
            inputSchema={
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
            tags=["weather"],
        ),
        {
            "name": "fail",
            "description": "Always fails",
            "execution": {
                "type": "cli",
                "command": "sh",
                "args": ["-c", "echo broken >&2; exit 3"],
            },
            "tags": ["social"],
        },
    )
    schema["toolsets"] = ["notes"]
    path = write_schema(directory, schema, "agentpkg.mci.json")
    with built_package(path, directory / "agentpkg") as package:
        yield package
