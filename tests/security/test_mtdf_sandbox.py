"""The sandbox of a served MTDF package (issue 30): scopes from the client's roots
or ``--sandbox-scope``, working directories refused outside them, and in strict
mode (the default) the kernel (Landlock) refusing a command any write outside
them; ``--no-sandbox`` and ``AHMA_DISABLE_SANDBOX`` turn it all off. Real servers
over stdio, real commands (touch, pwd), a real MCP client answering roots/list."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcigen_runtime.landlock import LandlockUnavailable, abi_version
from mcigen_runtime.serve.sandbox import ROOTS_TIMEOUT_S
from mcp import ClientSession, StdioServerParameters, stdio_client

from ..conftest import package_env, run_mcigen
from ..mcp_servers import free_port
from ..test_mcp_server import http_server, http_session, run
from ..test_serve_edge import read_lines

try:
    LANDLOCK: str | None = f"ABI {abi_version()}"
except LandlockUnavailable as unavailable:
    LANDLOCK = None
    WHY_NOT = str(unavailable)

needs_landlock = pytest.mark.skipif(
    LANDLOCK is None, reason="no Landlock here: a strict server does not start"
)

TOOLS: dict[str, dict[str, Any]] = {
    "touch": {
        "name": "touch",
        "description": "Create a file (its path is not a format:path value: nothing "
        "but the kernel stops a write elsewhere)",
        "command": "touch",
        "synchronous": True,
        "subcommand": [
            {
                "name": "default",
                "description": "Create the file",
                "positional_args": [{"name": "target", "type": "string"}],
            }
        ],
    },
    "touch_later": {
        "name": "touch_later",
        "description": "touch, as a call that may go on in the background",
        "command": "touch",
        "subcommand": [
            {
                "name": "default",
                "description": "Create the file",
                "positional_args": [{"name": "target", "type": "string"}],
            }
        ],
    },
    "where": {
        "name": "where",
        "description": "Print the working directory",
        "command": "pwd",
        "synchronous": True,
        "subcommand": [{"name": "default", "description": "Print it"}],
    },
}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding the package ``sbx`` built from :data:`TOOLS`."""
    folder = tmp_path_factory.mktemp("tools")
    for name, tool in TOOLS.items():
        (folder / f"{name}.json").write_text(json.dumps(tool), encoding="utf-8")
    built = tmp_path_factory.mktemp("built")
    result = run_mcigen("build", folder, "-o", built / "sbx")
    assert result.returncode == 0, result.stderr
    return built


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """A scope, a folder outside it, the server's temporary directory (outside
    both: the sandbox lets commands write there) and its current directory."""
    made = {name: tmp_path / name for name in ("scope", "outside", "tmp", "cwd")}
    for path in made.values():
        path.mkdir()
    return made


@asynccontextmanager
async def session(
    package: Path,
    places: dict[str, Path],
    *args: str,
    roots: list[Path] | None = None,
    **env: str,
) -> AsyncIterator[ClientSession]:
    """``python -m sbx serve ARGS`` over stdio, run in ``places["cwd"]``; a client
    that names ``roots`` as its roots (when given)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sbx", "serve", *args],
        cwd=str(places["cwd"]),
        env=package_env(
            package,
            **{"AHMA_DISABLE_SANDBOX": None, "TMPDIR": str(places["tmp"]), **env},
        ),
    )
    callback = None
    if roots is not None:
        named = roots

        async def callback(context: Any) -> types.ListRootsResult:
            uris = [path.as_uri() for path in named]  # as they are when asked
            return types.ListRootsResult.model_validate(
                {"roots": [{"uri": uri} for uri in uris]}
            )

    with anyio.fail_after(30):
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, list_roots_callback=callback) as client,
        ):
            await client.initialize()
            yield client


def text(result: types.CallToolResult) -> str:
    return "".join(item.text for item in result.content if item.type == "text")


async def touch(client: ClientSession, target: Path) -> types.CallToolResult:
    return await client.call_tool("touch", {"target": str(target)})


@needs_landlock
def test_a_command_cannot_write_outside_the_scope_in_strict_mode(
    package: Path, places: dict[str, Path]
) -> None:
    inside, outside = places["scope"] / "made", places["outside"] / "made"

    async def main() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with session(
            package, places, "--sandbox-scope", str(places["scope"])
        ) as client:
            return await touch(client, outside), await touch(client, inside)

    refused, allowed = anyio.run(main)
    assert refused.is_error, text(refused)
    assert "Permission denied" in text(refused)
    assert not outside.exists()
    assert not allowed.is_error, text(allowed)
    assert inside.exists()


@needs_landlock
def test_a_call_in_the_background_is_confined_too(
    package: Path, places: dict[str, Path]
) -> None:
    outside = places["outside"] / "made"

    async def main() -> types.CallToolResult:
        async with session(
            package, places, "--sandbox-scope", str(places["scope"])
        ) as client:
            return await client.call_tool("touch_later", {"target": str(outside)})

    refused = anyio.run(main)
    assert refused.is_error and "Permission denied" in text(refused), text(refused)
    assert not outside.exists()


@pytest.mark.parametrize(
    ("args", "env"),
    [(("--no-sandbox",), {}), ((), {"AHMA_DISABLE_SANDBOX": "1"})],
    ids=["--no-sandbox", "AHMA_DISABLE_SANDBOX"],
)
def test_without_the_sandbox_a_command_writes_anywhere(
    package: Path, places: dict[str, Path], args: tuple[str, ...], env: dict[str, str]
) -> None:
    outside = places["outside"] / "made"

    async def main() -> types.CallToolResult:
        scope = ("--sandbox-scope", str(places["scope"]))
        async with session(package, places, *args, *scope, roots=None, **env) as c:
            return await touch(c, outside)

    result = anyio.run(main)
    assert not result.is_error, text(result)
    assert outside.exists()


@needs_landlock
def test_the_client_roots_are_the_scopes(
    package: Path, places: dict[str, Path]
) -> None:
    root = places["scope"]

    async def main() -> list[types.CallToolResult]:
        async with session(package, places, roots=[root]) as client:
            return [
                await client.call_tool("where", {}),
                await client.call_tool(
                    "where", {"working_directory": str(places["outside"])}
                ),
                await client.call_tool("where", {"working_directory": "../outside"}),
                await touch(client, places["cwd"] / "made"),
                await touch(client, root / "made"),
            ]

    default, absolute, relative, in_cwd, in_root = anyio.run(main)
    assert text(default).strip() == str(root)
    for refused in (absolute, relative):
        assert refused.is_error
        assert "is outside the sandbox root" in text(refused), text(refused)
        assert str(root) in text(refused)
    assert in_cwd.is_error and not (places["cwd"] / "made").exists()
    assert not in_root.is_error and (root / "made").exists()


@needs_landlock
def test_a_directory_outside_every_root_names_them_all(
    package: Path, places: dict[str, Path]
) -> None:
    roots = [places["scope"], places["tmp"]]

    async def main() -> list[types.CallToolResult]:
        async with session(package, places, roots=roots) as client:
            return [
                await client.call_tool(
                    "where", {"working_directory": str(places["outside"])}
                ),
                await client.call_tool("where", {"working_directory": "../tmp"}),
            ]

    refused, second_root = anyio.run(main)
    assert refused.is_error
    assert (
        f'Path "{places["outside"]}" is outside the sandbox roots '
        f'"{places["scope"]}", "{places["tmp"]}"'
    ) in text(refused)
    assert text(second_root).strip() == str(places["tmp"])


@needs_landlock
@pytest.mark.parametrize("given_by", ["--sandbox-scope", "MCIGEN_SANDBOX_SCOPES"])
def test_a_fixed_scope_replaces_the_client_roots(
    package: Path, places: dict[str, Path], given_by: str
) -> None:
    fixed = places["scope"]
    args = ("--sandbox-scope", str(fixed)) if given_by.startswith("--") else ()
    env = {} if args else {given_by: str(fixed)}

    async def main() -> list[types.CallToolResult]:
        roots = [places["cwd"]]
        async with session(package, places, *args, roots=roots, **env) as client:
            return [
                await client.call_tool("where", {}),
                await client.call_tool(
                    "where", {"working_directory": str(places["cwd"])}
                ),
            ]

    default, in_root = anyio.run(main)
    assert text(default).strip() == str(fixed)
    assert in_root.is_error and "is outside the sandbox root" in text(in_root)


@needs_landlock
def test_uvicorn_takes_its_scopes_from_the_environment(
    package: Path, places: dict[str, Path]
) -> None:
    """``uvicorn PKG.server:app`` has no options: ``MCIGEN_SANDBOX_SCOPES`` gives its
    scopes, the first the default working directory."""
    port = free_port()
    argv = [sys.executable, "-m", "uvicorn", "sbx.server:app", "--port", str(port)]
    scopes = os.pathsep.join([str(places["scope"]), str(places["outside"])])

    async def main(url: str) -> list[types.CallToolResult]:
        async with http_session(url, None) as client:
            elsewhere = {"working_directory": str(places["cwd"])}
            return [
                await client.call_tool("where", {}),
                await client.call_tool("where", elsewhere),
            ]

    with http_server(package, argv, port, MCIGEN_SANDBOX_SCOPES=scopes) as url:
        default, elsewhere = run(lambda: main(url))
    assert text(default).strip() == str(places["scope"])
    assert elsewhere.is_error
    assert text(elsewhere).endswith(
        f'Path "{places["cwd"]}" is outside the sandbox roots '
        f'"{places["scope"]}", "{places["outside"]}"'
    )


@needs_landlock
@pytest.mark.parametrize("strict", [True, False], ids=["strict", "no-sandbox"])
def test_the_broker_runs_commands_in_the_sandbox(
    package: Path, places: dict[str, Path], strict: bool
) -> None:
    """``python -m PKG broker``: its API's calls work in the fixed scope, a working
    directory outside it is refused, and in strict mode a command cannot write
    outside it; ``--no-sandbox`` lets it."""
    port = free_port()
    argv = [sys.executable, "-m", "sbx", "broker", f"127.0.0.1:{port}"]
    argv += ["--sandbox-scope", str(places["scope"])] if strict else ["--no-sandbox"]
    outside = places["outside"] / "made"
    with http_server(package, argv, port, TMPDIR=str(places["tmp"])) as url:
        api = url.removesuffix("/mcp")

        def call(path: str, args: dict[str, str]) -> Any:
            answer = httpx.post(f"{api}/meta_call", json={"path": path, "args": args})
            return answer.json()

        wrote = call("/touch", {"target": str(outside)})
        elsewhere = call(
            "/touch", {"target": "x", "working_directory": str(places["cwd"])}
        )
    if strict:
        assert wrote["isError"] and "Permission denied" in str(wrote)
        assert not outside.exists()
        assert elsewhere["error"] == "invalid_args"
        assert "is outside the sandbox root" in elsewhere["error_description"]
    else:
        assert not wrote["isError"] and outside.exists()
        assert not elsewhere["isError"]


@needs_landlock
def test_changed_roots_are_asked_again(package: Path, places: dict[str, Path]) -> None:
    roots = [places["scope"]]

    async def main() -> tuple[str, str]:
        async with session(package, places, roots=roots) as client:
            before = text(await client.call_tool("where", {}))
            roots[0] = places["outside"]  # the client's answer changes
            with warnings.catch_warnings():  # the SDK deprecates roots
                warnings.simplefilter("ignore")
                await client.send_roots_list_changed()
            after = text(await client.call_tool("where", {}))
            return before.strip(), after.strip()

    assert anyio.run(main) == (str(places["scope"]), str(places["outside"]))


@needs_landlock
def test_without_roots_or_scopes_the_current_directory_is_the_scope(
    package: Path, places: dict[str, Path]
) -> None:
    async def main() -> types.CallToolResult:
        async with session(package, places) as client:
            return await client.call_tool("where", {})

    assert text(anyio.run(main)).strip() == str(places["cwd"])


def serve_without_client(
    package: Path, *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m sbx serve ARGS`` on stdio with no input (it stops at once)."""
    env = {**os.environ, "PYTHONPATH": str(package)}
    env.pop("AHMA_DISABLE_SANDBOX", None)
    env.pop("MCIGEN_BASE_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "sbx", "serve", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "sandbox: commands may write only beneath the client's roots"),
        (("--sandbox-scope", "/srv"), "sandbox: commands may write only beneath /srv"),
        (("--no-sandbox",), "warning: sandbox disabled (--no-sandbox"),
        (("--sandbox-scope", "/nowhere/at/all"), "not a directory"),
    ],
    ids=["roots", "scope", "off", "bad scope"],
)
def test_the_server_says_what_its_sandbox_is_as_it_starts(
    package: Path, args: tuple[str, ...], said: str
) -> None:
    if args == ("--sandbox-scope", "/srv") and not os.path.isdir("/srv"):
        pytest.skip("no /srv here")
    if LANDLOCK is None and "--no-sandbox" not in args:
        pytest.skip("no Landlock here: strict mode is refused")
    served = serve_without_client(package, *args)
    assert said in served.stderr.splitlines()[0], served.stderr


@needs_landlock
def test_the_server_names_the_scope_a_client_without_roots_gets(
    package: Path, tmp_path: Path
) -> None:
    """Its current directory; when that is / (where an MCP client may start its
    servers: Claude Desktop does), a warning that the sandbox confines nothing."""
    here = serve_without_client(package, cwd=tmp_path).stderr.splitlines()[0]
    assert here == (
        "sandbox: commands may write only beneath the client's roots (else "
        f"{tmp_path}, the base or current directory) (Landlock)"
    )
    root = serve_without_client(package, cwd=Path("/")).stderr.splitlines()[0]
    assert root == (
        "warning: sandbox: a call without the client's roots has the scope /, the "
        "base or current directory: its commands may write anywhere; give "
        "--sandbox-scope DIR"
    )


@pytest.mark.skipif(LANDLOCK is not None, reason=f"Landlock is here ({LANDLOCK})")
def test_without_landlock_strict_mode_is_refused_at_start(package: Path) -> None:
    served = serve_without_client(package)
    assert served.returncode == 2
    assert WHY_NOT in served.stderr and "--no-sandbox" in served.stderr


@needs_landlock
def test_roots_the_client_can_no_longer_give_do_not_hold_a_call_at_eof(
    package: Path, places: dict[str, Path]
) -> None:
    """A client that has roots writes a call and closes stdin before it answers
    the ``roots/list`` the call asks: no answer can come, so the call goes on at
    once, in the current directory (the scope without roots), rather than after
    ``ROOTS_TIMEOUT_S``, is answered, and the server exits."""
    process = subprocess.Popen(
        [sys.executable, "-m", "sbx", "serve"],
        cwd=places["cwd"],
        env=package_env(package, AHMA_DISABLE_SANDBOX=None, TMPDIR=str(places["tmp"])),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    client = {"name": "client", "version": "1"}
    lines = [
        request(
            1,
            "initialize",
            protocolVersion="2025-06-18",
            clientInfo=client,
            capabilities={"roots": {}},
        ),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        request(2, "tools/call", name="where", arguments={}),
    ]
    try:
        process.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
        process.stdin.flush()
        said: list[dict[str, Any]] = []
        while not any(message.get("method") == "roots/list" for message in said):
            said += map(json.loads, read_lines(process.stdout, 1, timeout=60))
        process.stdin.close()
        closed = time.monotonic()
        while not any(message.get("id") == 2 for message in said):
            said += map(json.loads, read_lines(process.stdout, 1, timeout=60))
        waited = time.monotonic() - closed
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()
    answer = next(message for message in said if message.get("id") == 2)
    assert text(types.CallToolResult.model_validate(answer["result"])).strip() == str(
        places["cwd"]
    )
    assert waited < ROOTS_TIMEOUT_S / 2


def request(number: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
