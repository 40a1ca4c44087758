"""``python -m PKG broker`` start-up: what it checks and starts before it listens,
``--dump-tree``, ``--check-start``, ``--ignore-broken-tool`` and ``--log-level``."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ..mcp_servers import free_port
from .conftest import broker_env, serving


def broker_command(
    package: ModuleType, *args: str, **env: str | None
) -> subprocess.CompletedProcess[str]:
    """``python -m PKG broker ARGS`` run to its end."""
    return subprocess.run(
        [sys.executable, "-m", package.__name__, "broker", *args],
        cwd=Path(str(package.__file__)).parent.parent,
        env=broker_env(package, **env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def test_dump_tree_prints_every_path_with_its_type_and_summary(
    package: ModuleType,
) -> None:
    """Without starting a server or checking a variable: neither is set here."""
    done = broker_command(package, "--dump-tree", TOY_TOKEN=None, GHOST_PYTHON=None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "/  (node)  demo: Tools to try the broker's HTTP API.",
        "  /mcp  (node)  MCP servers",
        "    /mcp/ghost  (node)  MCP server 'ghost'",
        "      /mcp/ghost/hang  (tool)  Never answers; notes its cancellation.",
        "      /mcp/ghost/quick  (tool)  Answers at once.",
        "    /mcp/toy  (node)  MCP server 'toy'",
        "      /mcp/toy/add  (tool)  Add two integers.",
        "      /mcp/toy/crash  (tool)  Exit the server process without answering.",
        "      /mcp/toy/echo  (tool)  Return the text unchanged.",
        "      /mcp/toy/fail  (tool)  Always fails with the given message.",
        "      /mcp/toy/forecast  (tool)  Today's weather in a city (made up: the "
        "same everywhere).",
        "      /mcp/toy/get-env  (tool)  The value of one of the server process's "
        "environment variables.",
        "      /mcp/toy/inspect_args  (tool)  Report every argument with its JSON "
        "type, to check what arrives.",
        "      /mcp/toy/pid  (tool)  The server's process id: equal across calls "
        "while a session stays open.",
        "      /mcp/toy/pixel  (tool)  A one-pixel PNG image.",
        "  /hello  (tool)  Say hello.",
    ]


def test_a_missing_variable_stops_start_up_naming_it_and_never_listens(
    package: ModuleType,
) -> None:
    port = free_port()
    done = broker_command(package, f"127.0.0.1:{port}", TOY_TOKEN=None)
    assert done.returncode == 2
    assert "TOY_TOKEN is not set; MCP server 'toy' needs it" in done.stderr
    assert "Traceback" not in done.stderr
    assert not listening(port)


def test_check_start_goes_through_start_up_and_exits_without_listening(
    package: ModuleType,
) -> None:
    """What ``mcigen serve --reload`` asks of a rebuilt broker before it replaces
    the running one: 0 when it would start, 2 (and why) when it would not."""
    port = free_port()
    done = broker_command(package, f"127.0.0.1:{port}", "--check-start")
    assert done.returncode == 0, done.stderr
    assert "the broker would start (tools: 12)" in done.stderr
    assert "serving" not in done.stderr and not listening(port)
    refused = broker_command(package, "--check-start", TOY_TOKEN=None)
    assert refused.returncode == 2
    assert "TOY_TOKEN is not set; MCP server 'toy' needs it" in refused.stderr


def test_a_server_that_cannot_start_stops_start_up(package: ModuleType) -> None:
    port = free_port()
    done = broker_command(
        package, f"127.0.0.1:{port}", GHOST_PYTHON="/nonexistent/python"
    )
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if "error:" in line]
    assert any("'ghost'" in line for line in errors), done.stderr
    assert any("--ignore-broken-tool" in line for line in errors)
    assert not listening(port)


def test_ignore_broken_tool_leaves_the_broken_servers_tools_out(
    package: ModuleType, tmp_path: Path
) -> None:
    with serving(
        package, tmp_path, "--ignore-broken-tool", GHOST_PYTHON="/nonexistent/python"
    ) as server:
        servers = server.post("meta_tree", {"path": "/mcp"}).json()["children"]
        assert [child["path"] for child in servers] == ["/mcp/toy"]
        echo = {"path": "/mcp/toy/echo", "args": {"text": "still here"}}
        assert server.post("meta_call", echo).json()["content"][0]["text"] == (
            "still here"
        )
        quick = server.post("meta_call", {"path": "/mcp/ghost/quick", "args": {}})
        assert quick.status_code == 404
        log = server.stop()
    warnings = [line for line in log.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1
    assert "'ghost'" in warnings[0]


def test_the_log_has_a_line_per_request_at_info_and_none_at_warning(
    package: ModuleType, tmp_path: Path
) -> None:
    logs = {}
    for level in ("info", "Warning"):
        with serving(package, tmp_path, "--log-level", level) as server:
            server.post("meta_tree", {"path": "/"})
            server.post("meta_desc", {"path": "/nowhere"})
            logs[level] = server.stop()
    assert "request method=POST path=/meta_tree status=200" in logs["info"]
    assert "request method=POST path=/meta_desc status=404" in logs["info"]
    assert "meta_tree" not in logs["Warning"]
    assert "Uvicorn running" not in logs["Warning"]


def test_an_unknown_log_level_is_a_usage_error(package: ModuleType) -> None:
    done = broker_command(package, "--log-level", "chatty")
    assert done.returncode == 2
    assert "'chatty' is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL" in (
        done.stderr
    )


def test_reload_is_not_the_packages_but_the_compilers(package: ModuleType) -> None:
    done = broker_command(package, "--reload")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(
        "error: --reload is the compiler's: mcigen broker ADDR CONFIG [SECRET] "
        "--reload (or mcigen serve SCHEMA -o DIR --reload -- broker [ADDR] ...)"
    )
    assert "--reload" not in broker_command(package, "--help").stdout


def test_the_manifest_says_what_to_rebuild_from_without_absolute_paths(
    package: ModuleType,
) -> None:
    directory = Path(str(package.__file__)).parent
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["build"] == {
        "input": "../demo.mci.json",
        "format": "mci",
        "name": package.__name__,
        "flags": [],
    }
    assert manifest["servers"] == [
        {"name": "ghost", "group": "mcp_ghost", "variables": ["GHOST_PYTHON"]},
        {"name": "toy", "group": "mcp_toy", "variables": ["TOY_TOKEN"]},
    ]


def test_a_broken_server_takes_out_its_tools_wherever_they_were_defined(
    tmp_path: Path,
) -> None:
    """An MCP tool of a toolset file calls a server of the main schema: when that
    server cannot start, ``--ignore-broken-tool`` leaves that tool out too."""
    from mcigen_runtime.app.broker_command import start_servers
    from mcigen_runtime.registry import registry

    from ..conftest import built_package, text_tool, write_schema

    toolset = {
        "schemaVersion": "1.0",
        "tools": [
            text_tool("kept", "still here"),
            {
                "name": "remote",
                "inputSchema": {"type": "object", "properties": {}},
                "execution": {
                    "type": "mcp",
                    "serverName": "gone",
                    "toolName": "remote",
                },
            },
        ],
    }
    (tmp_path / "mci").mkdir()
    (tmp_path / "mci" / "kit.mci.json").write_text(json.dumps(toolset))
    cache = {"schemaVersion": "1.0", "tools": [], "expiresAt": "2999-01-01"}
    (tmp_path / "mci" / "mcp").mkdir()
    (tmp_path / "mci" / "mcp" / "gone.mci.json").write_text(json.dumps(cache))
    schema = write_schema(
        tmp_path,
        {
            "schemaVersion": "1.0",
            "toolsets": ["kit"],
            "mcp_servers": {"gone": {"command": str(tmp_path / "no-such-server")}},
        },
        "split.mci.json",
    )
    with built_package(schema, tmp_path / "splitpkg") as package:
        tools = registry(package.__name__)
        assert tools.find("remote").server == "gone"
        kept = start_servers(tools, ignore_broken=True)
    assert [entry.name for entry in kept] == ["kept"]


@pytest.mark.parametrize("secret", ["config.json", "EXISTING", "Broker.JSON"])
def test_a_config_in_the_place_of_the_secret_is_refused_with_the_right_command(
    package: ModuleType, tmp_path: Path, secret: str
) -> None:
    """pyMCPBroker's order, ``ADDR CONFIG``: the path would silently be the secret."""
    if secret == "EXISTING":
        secret = str(tmp_path / "broker-config")
        Path(secret).write_text("{}")
    port = free_port()
    done = broker_command(package, f"127.0.0.1:{port}", secret)
    assert done.returncode == 2
    errors = done.stderr.splitlines()
    assert f"the secret {secret!r} is a file or a config's name" in errors[0]
    assert errors[1].endswith(f"python -m {package.__name__} broker ADDR [SECRET]")
    assert errors[2].endswith(f"mcigen broker ADDR {secret} [SECRET]")
    assert not listening(port)
