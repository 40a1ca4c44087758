"""The reference MCP servers from npm, installed once under ``.cache/npm-servers`` (see
``npm_packages``) and started with ``node`` over stdio."""

from __future__ import annotations

from pathlib import Path

from .npm_packages import CACHE_DIR, node, package_entry

NPM_SERVERS_DIR = CACHE_DIR / "npm-servers"

EVERYTHING = "@modelcontextprotocol/server-everything"
FILESYSTEM = "@modelcontextprotocol/server-filesystem"
PACKAGES: dict[str, str] = {
    EVERYTHING: "2026.8.31",
    FILESYSTEM: "2026.8.31",
}


def everything_server_command() -> list[str]:
    """argv that starts server-everything over stdio."""
    entry = package_entry(EVERYTHING, NPM_SERVERS_DIR, PACKAGES)
    return [node(), str(entry), "stdio"]


def filesystem_server_command(root: Path, *more_roots: Path) -> list[str]:
    """argv that starts server-filesystem over stdio, allowed to touch ``root`` (and
    ``more_roots``) only. The directories must exist."""
    roots = [str(path) for path in (root, *more_roots)]
    return [node(), str(package_entry(FILESYSTEM, NPM_SERVERS_DIR, PACKAGES)), *roots]
