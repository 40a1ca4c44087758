"""``mcigen build --confine-cli`` (issue 30): an MCI cli tool's command may write
only beneath the base directory and its ``directoryAllowList``, as the kernel
(Landlock) enforces it, not only where its file paths open. Real builds, real
``touch`` run through ``python -m PKG call``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcigen_runtime.landlock import LandlockUnavailable, abi_version

from ..conftest import run_mcigen, schema_of, write_schema


def _landlock() -> bool:
    try:
        abi_version()
    except LandlockUnavailable:
        return False
    return True


pytestmark = pytest.mark.skipif(not _landlock(), reason="no Landlock here")


def touch_tool(name: str, **fields: object) -> dict[str, object]:
    return {
        "name": name,
        "inputSchema": {
            "type": "object",
            "properties": {"target": {"type": "string"}},
            "required": ["target"],
        },
        "execution": {"type": "cli", "command": "touch", "args": ["{{props.target}}"]},
        **fields,
    }


SCHEMA = schema_of(
    touch_tool("make", directoryAllowList=["../allowed"]),
    touch_tool("makeAnywhere", enableAnyPaths=True),
)


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """``project`` (the schema's directory), ``allowed`` beside it (its allow
    list), ``outside`` (neither), and ``tmp``, the temporary directory."""
    made = {n: tmp_path / n for n in ("project", "allowed", "outside", "tmp")}
    for path in made.values():
        path.mkdir()
    write_schema(made["project"], SCHEMA)
    return made


def build(places: dict[str, Path], *options: str) -> Path:
    out = places["project"] / "out" / "pkg"
    result = run_mcigen(
        "build", places["project"] / "tools.mci.json", "-o", out, *options
    )
    assert result.returncode == 0, result.stderr
    return out.parent


def call(package: Path, tool: str, target: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCIGEN_")}
    env |= {"PYTHONPATH": str(package), "TMPDIR": str(target.parent.parent / "tmp")}
    arguments = json.dumps({"target": str(target)})
    return subprocess.run(
        [sys.executable, "-m", "pkg", "call", tool, "--json", arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_confined_command_writes_only_in_the_base_directory_and_allow_list(
    places: dict[str, Path],
) -> None:
    package = build(places, "--confine-cli")
    for folder in ("project", "allowed"):
        done = call(package, "make", places[folder] / "made")
        assert done.returncode == 0, done.stdout + done.stderr
        assert (places[folder] / "made").exists()
    refused = call(package, "make", places["outside"] / "made")
    assert refused.returncode != 0
    assert "Permission denied" in refused.stdout + refused.stderr
    assert not (places["outside"] / "made").exists()


def test_a_tool_that_enables_any_path_is_not_confined(
    places: dict[str, Path],
) -> None:
    package = build(places, "--confine-cli")
    done = call(package, "makeAnywhere", places["outside"] / "made")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (places["outside"] / "made").exists()


def test_without_the_flag_a_command_writes_anywhere(places: dict[str, Path]) -> None:
    package = build(places)
    done = call(package, "make", places["outside"] / "made")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (places["outside"] / "made").exists()


@pytest.mark.parametrize("args", [(), ("--no-sandbox",)], ids=["strict", "off"])
def test_a_server_started_with_no_sandbox_does_not_confine(
    places: dict[str, Path], args: tuple[str, ...]
) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    package = build(places, "--confine-cli")
    target = places["outside"] / "made"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCIGEN_")}
    env |= {"PYTHONPATH": str(package), "TMPDIR": str(places["tmp"])}
    env.pop("AHMA_DISABLE_SANDBOX", None)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pkg", "serve", *args], env=env
    )

    async def main() -> bool:
        with anyio.fail_after(30):
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                result = await client.call_tool("make", {"target": str(target)})
                return bool(result.is_error)

    refused = anyio.run(main)
    assert refused == (not args)
    assert target.exists() == bool(args)
