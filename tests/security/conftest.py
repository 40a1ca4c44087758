"""The hostile HTTP servers and the package of http tools the attacks call, made
once for every security test that asks for them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from ..conftest import built_package, schema_of, write_schema
from .hostile_http import HostileServer
from .http_attacks import ENV, attack_tools


@pytest.fixture(scope="session")
def here() -> Iterator[HostileServer]:
    server = HostileServer("127.0.0.1")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def elsewhere() -> Iterator[HostileServer]:
    """Another host: a second loopback address."""
    server = HostileServer("127.0.0.2")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def attacks(
    here: HostileServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ModuleType]:
    """The package ``httpattacks`` of :func:`.http_attacks.attack_tools`."""
    directory = tmp_path_factory.mktemp("attacks")
    schema = write_schema(
        directory, schema_of(*attack_tools(here.base)), "attacks.mci.json"
    )
    with built_package(schema, directory / "httpattacks") as package:
        yield package


Invoke = Callable[..., Any]


@pytest.fixture(scope="session")
def invoke(attacks: ModuleType) -> Invoke:
    """``invoke(tool, props, env=ENV)``: the tool's dict-level entry point."""
    invokers = importlib.import_module("httpattacks.tools.main").INVOKERS

    def call(tool: str, props: dict[str, Any], env: dict[str, str] = ENV) -> Any:
        return invokers[tool](props, env)

    return call
