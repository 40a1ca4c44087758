"""A fresh process that imports a package and calls a tool loads only what that
tool's kind needs: a text call starts no asyncio, template compiler or HTTP client,
however many kinds of tools share its module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import run_mcigen, schema_of, text_tool, write_schema

HEAVY = (
    "asyncio",
    "httpx",
    "mcigen_runtime.templating.compiler",
    # the frameworks of mcigen_runtime.adapters
    "anthropic",
    "pydantic_ai",
    "langchain_core",
    "agents",
)


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("lazy")
    (directory / "note.txt").write_text("Note for {{props.who}}", "utf-8")
    schema = schema_of(
        text_tool("hello", "Hello {{props.who}}"),
        {"name": "note", "execution": {"type": "file", "path": "./note.txt"}},
        {"name": "echo", "execution": {"type": "cli", "command": "echo"}},
        {"name": "ping", "execution": {"type": "http", "url": "http://127.0.0.1:9"}},
    )
    path = write_schema(directory, schema, "lazy.mci.json")
    result = run_mcigen("build", path, "-o", directory / "lazypkg")
    assert result.returncode == 0, result.stderr
    return directory


def _loaded_after(directory: Path, call: str) -> tuple[str, list[str]]:
    """What ``call`` returns in a fresh process, and the heavy modules then loaded."""
    probe = (
        "import json, sys\n"
        "import lazypkg\n"
        f"print(json.dumps({call}))\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m in {HEAVY!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=directory,
        capture_output=True,
        text=True,
        check=True,
    )
    result, loaded = done.stdout.strip().splitlines()
    return json.loads(result), json.loads(loaded)


def test_a_text_call_loads_no_executor_machinery(directory: Path) -> None:
    assert _loaded_after(directory, "lazypkg.hello(who='Ann').text") == (
        "Hello Ann",
        [],
    )


def test_a_file_call_compiles_its_template_without_asyncio(directory: Path) -> None:
    assert _loaded_after(directory, "lazypkg.note(who='Ann').text") == (
        "Note for Ann",
        ["mcigen_runtime.templating.compiler"],
    )


def test_an_http_call_loads_httpx_on_its_first_request(directory: Path) -> None:
    text, loaded = _loaded_after(directory, "lazypkg.ping().isError")
    assert (text, loaded) == (True, ["httpx"])


@pytest.mark.parametrize(
    ("variables", "imported"),
    [
        ({}, False),
        ({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"}, False),
        ({"OTEL_TRACES_EXPORTER": "console"}, True),
    ],
)
def test_the_asgi_app_imports_the_opentelemetry_sdk_only_when_asked(
    directory: Path, variables: dict[str, str], imported: bool
) -> None:
    """The ``otel`` extra costs nothing until ``OTEL_*`` variables ask for it."""
    probe = "import sys, lazypkg.server; print('opentelemetry.sdk' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=directory,
        env={**env, **variables},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == str(imported)
