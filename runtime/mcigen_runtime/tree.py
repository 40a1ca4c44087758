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
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar, overload

from .json_reading import parsed
from .records import Record

RENDER_MODES = ("json", "text")
"""How ``meta_call`` answers with a tool's result: ``json``, its MCP content items
as they are; ``text``, its text items joined (newline-separated) into one text
item in place of the first, the other items kept after it."""


class TreeNode(Record):
    """A node of the broker's tree."""

    path: str
    summary: str
    description: str | None = None

    def __init__(self, path: str, summary: str, description: str | None = None) -> None:
        self._set(path=path, summary=summary, description=description)


class TreeLeaf(Record):
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

    def __init__(
        self,
        path: str,
        tool: str,
        summary: str | None = None,
        max_output_chars: int | None = None,
        example_args: dict[str, Any] | None = None,
        render_mode: str = "json",
    ) -> None:
        self._set(
            path=path,
            tool=tool,
            summary=summary,
            max_output_chars=max_output_chars,
            example_args=example_args,
            render_mode=render_mode,
        )


class Tree(Record):
    """Every node (the root ``/`` first, each node's parent before it) and every
    leaf, each under a node."""

    nodes: Sequence[TreeNode]
    leaves: Sequence[TreeLeaf]
    """Tuples where the compiler makes them; read from a manifest's text,
    :class:`TreeItems`."""

    def __init__(self, nodes: Sequence[TreeNode], leaves: Sequence[TreeLeaf]) -> None:
        self._set(nodes=nodes, leaves=leaves)


ROOT = "/"

_Item = TypeVar("_Item", TreeNode, TreeLeaf)


class TreeItems(Sequence[_Item]):
    """A tree's nodes or leaves, read from the manifest's text when the tree is
    first asked for (a client that calls a tool never is). Equal to a tuple of the
    same items, and hashed as one."""

    __slots__ = ("_text", "_leaves")

    def __init__(self, text: _TreeText, leaves: bool) -> None:
        self._text = text
        self._leaves = leaves

    def _items(self) -> tuple[_Item, ...]:
        tree = self._text.read()
        items: tuple[_Item, ...] = tree.leaves if self._leaves else tree.nodes  # type: ignore[assignment]
        return items

    def __len__(self) -> int:
        return len(self._items())

    @overload
    def __getitem__(self, index: int) -> _Item: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[_Item, ...]: ...

    def __getitem__(self, index: int | slice) -> _Item | tuple[_Item, ...]:
        return self._items()[index]

    def __iter__(self) -> Iterator[_Item]:
        return iter(self._items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TreeItems | tuple):
            return self._items() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._items())

    def __repr__(self) -> str:
        return repr(self._items())


class _TreeText:
    """The manifest's ``"tree"``, ``text[start:end]`` of its bytes as read (not
    copied: 0.17 MB at 1000 tools), parsed once when read."""

    __slots__ = ("_text", "_start", "_end", "_tree")

    def __init__(self, text: bytes, start: int, end: int) -> None:
        self._text = text
        self._start = start
        self._end = end
        self._tree: Tree | None = None

    def read(self) -> Tree:
        if self._tree is None:
            json_text = self._text[self._start : self._end]
            self._tree = tree_from_json(parsed(json_text))
        return self._tree


def tree_in_text(text: bytes, start: int, end: int) -> Tree:
    """The tree whose JSON is ``text[start:end]``, parsed when its nodes or
    leaves are first read."""
    source = _TreeText(text, start, end)
    nodes: TreeItems[TreeNode] = TreeItems(source, False)
    leaves: TreeItems[TreeLeaf] = TreeItems(source, True)
    return Tree(nodes, leaves)


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
