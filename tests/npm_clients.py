"""MCP clients nobody here wrote, from npm, installed once under ``.cache/npm-clients``
(see ``npm_packages``): the MCP Inspector's command line and the official conformance
suite (whose client is the TypeScript SDK's); and, for scripts that drive them,
the TypeScript SDK 1.x (:func:`typescript_sdk_dir`) and the official Tasks client
over the TypeScript SDK 2.x (:func:`ext_tasks_modules`).

Pinned to versions that run on Node 20: conformance 0.1.14 and later import
``fs.globSync`` (Node 22). The Inspector declares Node 22 but its command line runs
on 20.
"""

from __future__ import annotations

from pathlib import Path

from .npm_packages import CACHE_DIR, library_dir, node, package_entry

NPM_CLIENTS_DIR = CACHE_DIR / "npm-clients"

INSPECTOR = "@modelcontextprotocol/inspector"
CONFORMANCE = "@modelcontextprotocol/conformance"
PACKAGES: dict[str, str] = {
    INSPECTOR: "2.12.0",
    CONFORMANCE: "0.1.13",
}


def inspector_cli_command() -> list[str]:
    """argv of the Inspector's command line (``--cli``); append its options."""
    entry = package_entry(INSPECTOR, NPM_CLIENTS_DIR, PACKAGES)
    return [node(), str(entry), "--cli"]


def conformance_command() -> list[str]:
    """argv of the conformance suite; append ``server --url ...``."""
    return [node(), str(package_entry(CONFORMANCE, NPM_CLIENTS_DIR, PACKAGES))]


TS_SDK_DIR = CACHE_DIR / "npm-sdk"
TS_SDK = "@modelcontextprotocol/sdk"
TS_SDK_PACKAGES: dict[str, str] = {TS_SDK: "1.32.2"}
"""The TypeScript SDK, 1.32.2: its client speaks the 2025-11-25 Tasks
(``client.experimental.tasks``)."""


def typescript_sdk_dir() -> Path:
    """The installed TypeScript SDK's directory (scripts import its ``dist/esm``)."""
    return library_dir(TS_SDK, TS_SDK_DIR, TS_SDK_PACKAGES)


EXT_TASKS_DIR = CACHE_DIR / "npm-ext-tasks"
EXT_TASKS = "@modelcontextprotocol/ext-tasks"
EXT_TASKS_PACKAGES: dict[str, str] = {
    EXT_TASKS: "0.2.2",
    "@modelcontextprotocol/client": "2.3.1",
}
"""The official Tasks client (both generations: the 2025-11-25 utility and the
2026-07-28 extension) and the SDK 2.x client it drives."""


def ext_tasks_modules() -> Path:
    """The ``node_modules`` directory holding ext-tasks and its SDK client."""
    return library_dir(EXT_TASKS, EXT_TASKS_DIR, EXT_TASKS_PACKAGES).parent.parent
