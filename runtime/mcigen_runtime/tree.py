"""The broker's tree as data: its nodes and leaves, what ``manifest.json`` holds
under ``"tree"``, and the rule that turns names into path segments.

The compiler lays the tree out (from an MCI schema's tools and toolsets, or from a
broker config's nodes and sources); the runtime's :class:`~.broker.Broker` only
serves it. In the manifest::

    "tree": {
      "nodes": [{"path": "/", "summary": "...", "description": "..."}, ...],
      "leaves": [{"path": "/repo/get_file", "tool": "repo.get_file",
                  "summary": "...", "max_output_chars": 2000,
                  "example_args": {...}, "render_mode": "text"}, ...]
    }

A node's ``description`` and a leaf's ``summary``, ``max_output_chars``,
``example_args`` and ``render_mode`` are written only when set. Nodes come root
first, each after its parent; a leaf's parent is a node.

Path segments: a ``/`` in a name is written ``%2F`` and a ``%`` is written
``%25``; paths are read back with exactly that rule (only ``%2F`` and ``%25`` are
decoded, in either case), so every name has one segment and no two names share
one. A missing leading ``/``, a trailing ``/`` and empty segments are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

RENDER_MODES = ("json", "text")
"""How ``meta_call`` answers with a tool's result: ``json``, its MCP content items
as they are; ``text``, its text items joined (newline-separated) into one text
item in place of the first, the other items kept after it."""


@dataclass(frozen=True)
class TreeNode:
    """A node of the broker's tree."""

    path: str
    summary: str
    description: str | None = None


@dataclass(frozen=True)
class TreeLeaf:
    """A tool of the broker's tree, with what the broker shows and does for it."""

    path: str
    tool: str
    """The package tool's (MCI) name."""
    summary: str | None = None
    """None: the first line of the tool's description."""
    max_output_chars: int | None = None
    """Wins over the broker's own limit."""
    example_args: dict[str, Any] | None = None
    """What ``meta_desc`` shows to start from (None: nothing), settled at build
    time."""
    render_mode: str = "json"


@dataclass(frozen=True)
class Tree:
    """Every node (the root ``/`` first, each node's parent before it) and every
    leaf, each under a node."""

    nodes: tuple[TreeNode, ...]
    leaves: tuple[TreeLeaf, ...]


ROOT = "/"


def first_line(description: str | None) -> str:
    """A summary made of a description: its first line ("" for none)."""
    lines = (description or "").strip().splitlines()
    return lines[0] if lines else ""


def segment(name: str) -> str:
    """``name`` as one path segment."""
    return name.replace("%", "%25").replace("/", "%2F")


_ESCAPE = re.compile(r"%(25|2[Ff])")


def path_segments(path: str) -> list[str]:
    """The segments of ``path``, each in its canonical spelling."""
    return [
        segment(_ESCAPE.sub(lambda m: "%" if m[1] == "25" else "/", part))
        for part in path.split("/")
        if part
    ]


def normalize(path: str) -> str:
    """``path`` in its one spelling: ``util/ping/`` is ``/util/ping``."""
    return "/" + "/".join(path_segments(path))


def join(parent: str, child: str) -> str:
    """The path of segment ``child`` under ``parent``."""
    return f"{parent.rstrip('/')}/{child}"


def parent_of(path: str) -> str:
    return path.rsplit("/", 1)[0] or ROOT


def tree_to_json(tree: Tree) -> dict[str, Any]:
    """The manifest's ``"tree"``."""
    nodes = []
    for node in tree.nodes:
        written: dict[str, Any] = {"path": node.path, "summary": node.summary}
        if node.description is not None:
            written["description"] = node.description
        nodes.append(written)
    leaves = []
    for leaf in tree.leaves:
        entry: dict[str, Any] = {"path": leaf.path, "tool": leaf.tool}
        if leaf.summary is not None:
            entry["summary"] = leaf.summary
        if leaf.max_output_chars is not None:
            entry["max_output_chars"] = leaf.max_output_chars
        if leaf.example_args is not None:
            entry["example_args"] = leaf.example_args
        if leaf.render_mode != "json":
            entry["render_mode"] = leaf.render_mode
        leaves.append(entry)
    return {"nodes": nodes, "leaves": leaves}


def tree_from_json(document: dict[str, Any]) -> Tree:
    """What :func:`tree_to_json` wrote."""
    return Tree(
        tuple(
            TreeNode(node["path"], node["summary"], node.get("description"))
            for node in document["nodes"]
        ),
        tuple(
            TreeLeaf(
                leaf["path"],
                leaf["tool"],
                leaf.get("summary"),
                leaf.get("max_output_chars"),
                leaf.get("example_args"),
                leaf.get("render_mode", "json"),
            )
            for leaf in document["leaves"]
        ),
    )
