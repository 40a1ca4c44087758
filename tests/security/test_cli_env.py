"""What the children of a call see of the environment (issue 14, group 3), with a
real secret in ``os.environ`` and real commands and MCP servers.

A command started through ``Client(env_vars=...)`` gets those variables over a
minimal base (PATH, HOME, LANG, LC_*, TZ, TMPDIR); a plain function follows the
build's ``--cli-env`` (inherit, as mci-py, or minimal); a stdio MCP server gets its
configured ``env`` over the base. Before, every child had all of ``os.environ``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..conftest import built_package, schema_of, write_schema
from ..mcp_servers import TOY_SERVER
from ..oracle import oracle_python, run_oracle
from .support import built_from_tools

SECRET = "MCIGEN_TEST_HOST_SECRET"
BASE = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")

SHOW_ENV = {"name": "showEnv", "execution": {"type": "cli", "command": "env"}}
"""Prints the command's whole environment, one NAME=value a line."""


@pytest.fixture(autouse=True)
def host_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A secret the host holds, and a base with a locale and a time zone."""
    monkeypatch.setenv(SECRET, "hunter2")
    monkeypatch.setenv("LC_CTYPE", "C.UTF-8")
    monkeypatch.setenv("TZ", "UTC")


@pytest.fixture(scope="module")
def inheriting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    yield from built_from_tools(tmp_path_factory, "clienv_inherit", [SHOW_ENV])


@pytest.fixture(scope="module")
def minimal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    yield from built_from_tools(
        tmp_path_factory, "clienv_minimal", [SHOW_ENV], "--cli-env", "minimal"
    )


def _seen(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines())


def _base() -> dict[str, str]:
    return {name: os.environ[name] for name in BASE if name in os.environ}


def test_a_plain_function_inherits_by_default(inheriting: ModuleType) -> None:
    seen = _seen(inheriting.show_env().text)
    assert seen[SECRET] == "hunter2"
    assert dict(os.environ).items() <= seen.items()


def test_minimal_gives_a_plain_function_the_base_only(minimal: ModuleType) -> None:
    assert _seen(minimal.show_env().text) == _base()


@pytest.mark.parametrize("mode", ["inherit", "minimal"])
def test_the_client_gives_its_env_vars_over_the_base(
    inheriting: ModuleType, minimal: ModuleType, mode: str
) -> None:
    package = inheriting if mode == "inherit" else minimal
    client = package.Client(env_vars={"API_TOKEN": "t0k", "RETRIES": 3, "TZ": "CET"})
    result = client.execute("showEnv").result
    assert _seen(result.text) == {
        **_base(),
        "API_TOKEN": "t0k",
        "RETRIES": "3",  # as a template prints it
        "TZ": "CET",  # the Client's own wins over the base
    }


def test_the_client_without_env_vars_gives_the_base(inheriting: ModuleType) -> None:
    assert _seen(inheriting.Client().execute("showEnv").result.text) == _base()


def test_async_twins_and_the_manifest_agree(minimal: ModuleType) -> None:
    assert _seen(asyncio.run(minimal.show_env_async()).text) == _base()
    manifest = json.loads(Path(minimal.__path__[0], "manifest.json").read_text())
    assert manifest["runtime"]["cli_env"] == "minimal"


def test_row57_a_stdio_mcp_server_gets_its_env_over_the_base_and_network_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mci-py gives the server all of ``os.environ`` under its ``env``."""
    document = {
        "schemaVersion": "1.0",
        "tools": [],
        "mcp_servers": {
            "toy": {
                "command": sys.executable,
                "args": [str(TOY_SERVER), "stdio"],
                "env": {"TOY_TOKEN": "{{env.TOY_TOKEN}}"},
            }
        },
    }
    network = {
        "HTTPS_PROXY": "http://proxy.internal:3128",
        "no_proxy": "localhost",
        "NODE_EXTRA_CA_CERTS": "/etc/ssl/corp.pem",
        "npm_config_offline": "true",
    }
    # The oracle installed first, if it is not yet: its install would go through
    # the proxy below, which is not there.
    oracle_python()
    # restored after the test: the worker's later npm installs need the real CAs
    for name, value in {"TOY_TOKEN": "configured", **network}.items():
        monkeypatch.setenv(name, value)
    schema = write_schema(tmp_path, document, "mcpenv.mci.json")
    (theirs,) = run_oracle(
        schema,
        [
            {
                "tool": "get-env",
                "props": {"name": SECRET},
                "env": {"TOY_TOKEN": "configured"},
            }
        ],
    )
    assert theirs["result"]["content"][0]["text"] == "hunter2"
    with built_package(schema, tmp_path / "clienv_mcp") as package:
        assert package.get_env(name="TOY_TOKEN").text == "configured"
        assert package.get_env(name=SECRET).text == "<unset>"
        assert package.get_env(name="PATH").text == os.environ["PATH"]
        assert package.get_env(name="TZ").text == "UTC"
        # how the server reaches the network: proxies, CAs, npm's settings
        for name, value in network.items():
            assert package.get_env(name=name).text == value


def test_row56_mci_py_gives_the_clients_command_every_secret(
    tmp_path: Path, inheriting: ModuleType
) -> None:
    schema = write_schema(tmp_path, schema_of(SHOW_ENV), "row56.mci.json")
    (theirs,) = run_oracle(schema, [{"tool": "showEnv", "props": {}, "env": {}}])
    assert _seen(theirs["result"]["content"][0]["text"])[SECRET] == "hunter2"
    ours = inheriting.Client(env_vars={}).execute("showEnv").result.text
    assert SECRET not in _seen(ours)


PASSING: dict[str, Any] = {
    "name": "showPassed",
    "execution": {
        "type": "cli",
        "command": "env",
        "passEnv": ["KUBECONFIG", "VIRTUAL_ENV"],
    },
}


@pytest.fixture(scope="module")
def passing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    yield from built_from_tools(
        tmp_path_factory, "clienv_pass", [SHOW_ENV, PASSING], "--cli-env", "minimal"
    )


@pytest.fixture
def kube(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """What a switching user's commands read from the environment."""
    values = {"KUBECONFIG": "/home/u/.kube/config", "VIRTUAL_ENV": "/srv/venv"}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


def test_pass_env_in_the_schema_lets_those_variables_through(
    passing: ModuleType, kube: dict[str, str]
) -> None:
    through_client = passing.Client(env_vars={"API_TOKEN": "t"}).execute("showPassed")
    assert _seen(through_client.result.text) == {**_base(), **kube, "API_TOKEN": "t"}
    # a plain function of a --cli-env minimal build, too
    assert _seen(passing.show_passed().text) == {**_base(), **kube}
    # and only that tool's command
    assert _seen(passing.Client().execute("showEnv").result.text) == _base()


def test_pass_env_of_the_client_gives_its_commands_the_process_environment(
    passing: ModuleType, kube: dict[str, str]
) -> None:
    everything = passing.Client(env_vars={"TZ": "CET"}, pass_env=True)
    seen = _seen(everything.execute("showEnv").result.text)
    assert seen == {**os.environ, "TZ": "CET"}  # as mci-py's commands, env_vars over
    named = passing.Client(pass_env=["KUBECONFIG"]).execute("showEnv").result.text
    assert _seen(named) == {**_base(), "KUBECONFIG": kube["KUBECONFIG"]}
    # the setting is the client's: a plain call afterwards passes nothing
    assert _seen(passing.Client().execute("showEnv").result.text) == _base()


def test_mci_client_takes_pass_env_as_a_switching_user_writes_it(
    tmp_path: Path, kube: dict[str, str]
) -> None:
    from mcigen import MCIClient

    schema = write_schema(tmp_path, schema_of(SHOW_ENV), "switching.mci.json")
    client = MCIClient(schema_file_path=str(schema), env_vars={}, pass_env=True)
    seen = _seen(client.execute("showEnv").result.text)
    assert seen[SECRET] == "hunter2" and seen["KUBECONFIG"] == kube["KUBECONFIG"]


def test_pass_env_that_is_not_a_list_of_names_is_a_build_error(
    tmp_path: Path,
) -> None:
    from ..conftest import run_mcigen

    bad = {**PASSING, "execution": {**PASSING["execution"], "passEnv": "KUBECONFIG"}}
    schema = write_schema(tmp_path, schema_of(bad), "bad.mci.json")
    checked = run_mcigen("check", schema)
    assert checked.returncode == 1
    assert "passEnv" in checked.stderr
    assert "true, false or a list of variable names" in checked.stderr
