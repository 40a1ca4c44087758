"""MCP clients nobody here wrote, from npm, installed once under ``.cache/npm-clients``
(see ``npm_packages``): the MCP Inspector's command line and the official conformance
suite (whose client is the TypeScript SDK's).

Pinned to versions that run on Node 20: conformance 0.1.14 and later import
``fs.globSync`` (Node 22). The Inspector declares Node 22 but its command line runs
on 20.
"""

from __future__ import annotations

from .npm_packages import CACHE_DIR, node, package_entry

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
