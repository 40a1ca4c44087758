"""The environment variables a package's tools read, as its user meets them:
``describe`` and ``doctor`` list them, ``serve`` warns about the unset required
ones, ``.env.mci`` / ``.env`` fill in what the environment does not set, and
``config`` prints a client configuration that starts the server as a desktop
client does (its own PATH, another directory)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from .conftest import (
    imported_package,
    run_mcigen,
    schema_of,
    text_tool,
    write_schema,
)
from .test_mcp_server import text_of

SCHEMA = schema_of(
    text_tool(
        "greet",
        "{{env.ENVTEST_GREETING}}, {{props.who}} from {{env.ENVTEST_PLACE | 'here'}}",
        inputSchema={"type": "object", "properties": {"who": {"type": "string"}}},
    ),
    {
        "name": "fetchItem",
        "execution": {
            "type": "http",
            "method": "GET",
            "url": "{{env.ENVTEST_URL}}/items",
            "auth": {
                "type": "apiKey",
                "in": "header",
                "name": "X-Key",
                "value": "{{env.ENVTEST_KEY}}",
            },
        },
    },
    text_tool("plain", "no variables"),
)
PACKAGE = "envpkg"
OURS = ("ENVTEST_GREETING", "ENVTEST_PLACE", "ENVTEST_URL", "ENVTEST_KEY")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("envs")
    schema = write_schema(folder, SCHEMA)
    assert run_mcigen("build", schema, "-o", folder / PACKAGE).returncode == 0
    return folder


def run(
    built: Path, cwd: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """``python -m envpkg ARGS`` in ``cwd`` with none of the tests' variables but ``env``."""
    environ = {k: v for k, v in os.environ.items() if k not in OURS}
    return subprocess.run(
        [sys.executable, "-m", PACKAGE, *args],
        cwd=cwd,
        env={**environ, "PYTHONPATH": str(built), **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_describe_names_each_variable_and_whether_a_call_needs_it(
    built: Path, tmp_path: Path
) -> None:
    described = run(built, tmp_path, "describe", "greet", ENVTEST_PLACE="x")
    assert described.returncode == 0, described.stderr
    section = described.stdout.split("Environment variables:\n")[1].splitlines()
    assert section == [
        "  ENVTEST_GREETING  required, in text (unset here)",
        "  ENVTEST_PLACE  optional, in text",
    ]
    plain = run(built, tmp_path, "describe", "plain")
    assert "Environment variables" not in plain.stdout


def test_doctor_reports_required_variables_unset_and_fails(
    built: Path, tmp_path: Path
) -> None:
    doctor = run(built, tmp_path, "doctor", ENVTEST_URL="http://127.0.0.1:9")
    assert doctor.returncode == 1, doctor.stdout
    lines = doctor.stdout.splitlines()
    assert "ok       $ENVTEST_URL (required)" in lines
    assert "MISSING  $ENVTEST_KEY (required)" in lines
    assert lines[lines.index("MISSING  $ENVTEST_KEY (required)") + 1] == (
        "  read by: fetchItem (auth)"
    )
    assert "unset    $ENVTEST_PLACE (optional)" in lines
    assert lines[-1] == "4 variable(s): 2 required unset."


def test_env_files_fill_in_under_the_process_environment(
    built: Path, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text("ENVTEST_GREETING=from dotenv\n")
    (tmp_path / "mci").mkdir()
    (tmp_path / "mci" / ".env.mci").write_text(
        "# the library's defaults\nexport ENVTEST_GREETING='Hello'\n"
        'ENVTEST_PLACE="the file" # where\n'
    )
    (tmp_path / ".env.mci").write_text("ENVTEST_PLACE=the project\n")
    called = run(built, tmp_path, "call", "greet", "--arg", "who=Ann")
    # .env.mci files exist, so .env is not read; the project's wins over mci/'s
    assert called.stdout.strip() == "Hello, Ann from the project", called.stderr
    over = run(
        built, tmp_path, "call", "greet", "--arg", "who=Ann", ENVTEST_PLACE="env"
    )
    assert over.stdout.strip() == "Hello, Ann from env"
    off = run(built, tmp_path, "call", "greet", "--no-env-file", "--arg", "who=Ann")
    assert off.returncode == 1
    assert "env.ENVTEST_GREETING" in off.stdout


@pytest.mark.parametrize(
    "command", [["serve"], ["broker", "127.0.0.1:8799", "--check-start"]]
)
def test_serve_and_broker_warn_at_start_about_each_required_variable_unset(
    built: Path, tmp_path: Path, command: list[str]
) -> None:
    (tmp_path / ".env").write_text("ENVTEST_KEY=k\n")
    served = subprocess.run(
        [sys.executable, "-m", PACKAGE, *command],
        cwd=tmp_path,
        env={
            **{k: v for k, v in os.environ.items() if k not in OURS},
            "PYTHONPATH": str(built),
        },
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert served.returncode == 0, served.stderr
    warnings = [line for line in served.stderr.splitlines() if "warning" in line]
    assert warnings == [
        f"python -m {PACKAGE}: warning: $ENVTEST_GREETING is not set; "
        "these calls will fail: greet (text)",
        f"python -m {PACKAGE}: warning: $ENVTEST_URL is not set; "
        "these calls will fail: fetchItem (url)",
    ]


@pytest.mark.parametrize(
    "filters", [["--only", "greet,plain"], ["--filter", "except:fetchItem"]]
)
def test_serve_warns_only_about_the_variables_of_the_tools_it_serves(
    built: Path, tmp_path: Path, filters: list[str]
) -> None:
    served = run(built, tmp_path, "serve", *filters)
    assert served.returncode == 0, served.stderr
    warnings = [line for line in served.stderr.splitlines() if "warning" in line]
    assert warnings == [
        f"python -m {PACKAGE}: warning: $ENVTEST_GREETING is not set; "
        "these calls will fail: greet (text)"
    ]


def test_config_block_starts_the_server_as_a_desktop_client_does(
    built: Path, tmp_path: Path
) -> None:
    printed = run(built, tmp_path, "config")
    assert printed.returncode == 0, printed.stderr
    entry = json.loads(printed.stdout)["mcpServers"][PACKAGE]
    assert entry["command"] == sys.executable
    assert entry["args"] == ["-m", PACKAGE, "serve"]
    assert entry["env"] == {
        "PYTHONPATH": str(built),
        "ENVTEST_GREETING": "${ENVTEST_GREETING}",
        "ENVTEST_URL": "${ENVTEST_URL}",
        "ENVTEST_KEY": "${ENVTEST_KEY}",
    }
    assert "ENVTEST_PLACE" in printed.stderr  # optional: named, not in the block
    filled = {
        name: "Hi" if value == "${ENVTEST_GREETING}" else value
        for name, value in entry["env"].items()
    }
    elsewhere = tmp_path / "client"
    elsewhere.mkdir()
    assert _called_through(entry, filled, elsewhere) == "Hi, Bo from here"
    # pasted but not filled in: the server says so at start
    pasted = run(built, elsewhere, "serve", **entry["env"])
    assert (
        f"python -m {PACKAGE}: warning: $ENVTEST_KEY still holds the placeholder "
        "'${ENVTEST_KEY}' of the client configuration; these calls will fail: "
        "fetchItem (auth)"
    ) in pasted.stderr.splitlines()


def _called_through(entry: dict[str, Any], env: dict[str, str], cwd: Path) -> str:
    """Start ``entry`` as a desktop client does (its own small PATH, in a directory
    of its own, the block's env over the SDK's default) and call ``greet``."""
    params = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        env={**env, "PATH": "/nonexistent"},
        cwd=cwd,
    )

    async def call() -> str:
        with anyio.fail_after(60), open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result = await session.call_tool("greet", {"who": "Bo"})
                return text_of(result)

    return anyio.run(call)


def test_mcigen_envs_lists_the_variables_and_writes_a_file_to_fill_in(
    built: Path, tmp_path: Path
) -> None:
    schema = built / "tools.mci.json"
    listed = run_mcigen("envs", schema)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "VARIABLE          NEEDED    READ BY",
        "ENVTEST_GREETING  required  greet (text)",
        "ENVTEST_KEY       required  fetchItem (auth)",
        "ENVTEST_PLACE     optional  greet (text)",
        "ENVTEST_URL       required  fetchItem (url)",
    ]
    written = run_mcigen("envs", schema, "--format", "env", cwd=tmp_path)
    assert written.stdout == "wrote .env.example.mci: 4 variables\n", written.stderr
    example = (tmp_path / ".env.example.mci").read_text()
    assert "# required; read by: greet (text)\nENVTEST_GREETING=\n" in example
    assert "# optional; read by: greet (text)\n# ENVTEST_PLACE=\n" in example
    # filled in and copied as the file says: the optional one keeps its fallback
    filled = example.replace("ENVTEST_GREETING=", "ENVTEST_GREETING=Howdy")
    (tmp_path / ".env.mci").write_text(filled)
    called = run(built, tmp_path, "call", "greet", "--arg", "who=Cy")
    assert called.stdout.strip() == "Howdy, Cy from here", called.stderr


def test_mcigen_serve_reads_the_env_files_beside_the_schema(
    built: Path, tmp_path: Path
) -> None:
    """As ``mcix run`` does: an MCP client config names the schema, the client
    starts it in a directory of its own."""
    project = tmp_path / "project"
    project.mkdir()
    schema = write_schema(project, SCHEMA)
    (project / ".env.mci").write_text("ENVTEST_GREETING=Servus\n")
    elsewhere = tmp_path / "client"
    elsewhere.mkdir()
    entry = {"command": sys.executable, "args": ["-m", "mcigen", "serve", str(schema)]}
    environ = {k: v for k, v in os.environ.items() if k not in OURS}
    assert _called_through(entry, environ, elsewhere) == "Servus, Bo from here"


def test_an_env_file_someone_else_wrote_never_stops_a_command(
    built: Path, tmp_path: Path
) -> None:
    """Lines that are not settings are skipped; a file past 1 MiB is not read."""
    (tmp_path / ".env").write_bytes(
        b"\xff\xfe garbage\nNOEQUALS\nBAD NAME=x\n"
        b'ENVTEST_PLACE="unterminated\nENVTEST_GREETING=Yo # a comment\n'
    )
    called = run(built, tmp_path, "call", "greet", "--arg", "who=Di")
    assert called.stdout.strip() == "Yo, Di from here", called.stderr
    (tmp_path / ".env.mci").write_text("ENVTEST_GREETING=big\n" + "#" * 2**21)
    skipped = run(built, tmp_path, "call", "greet", "--arg", "who=Di")
    assert (skipped.returncode, skipped.stderr) == (1, "")
    assert "env.ENVTEST_GREETING" in skipped.stdout


def test_a_client_given_with_env_files_sees_what_mcix_clients_see(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files under the process's environment under the client's own ``env_vars``."""
    from mcigen_runtime.env_files import with_env_files

    (tmp_path / ".env.mci").write_text(
        "ENVTEST_GREETING=Moin\nENVTEST_PLACE=the file\n"
    )
    monkeypatch.setenv("ENVTEST_PLACE", "the process")
    with imported_package(built / PACKAGE) as package:
        client = package.Client(env_vars=with_env_files(tmp_path))
        greeted = client.execute("greet", {"who": "Ed"}).result.text
        assert greeted == "Moin, Ed from the process"
        own = with_env_files(tmp_path, {"ENVTEST_PLACE": "mine"})
        greeted = package.Client(env_vars=own).execute("greet", {"who": "Ed"})
        assert greeted.result.text == "Moin, Ed from mine"
