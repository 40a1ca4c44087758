"""The config's tree walked into nodes: both shapes (a list under an implicit root,
or the root node), paths normalized and kept under their parent's, missing
intermediate nodes made, duplicates refused."""

from __future__ import annotations

from dataclasses import dataclass

from mcigen_runtime.tree import (
    ROOT,
    TreeNode,
    first_line,
    normalize,
    parent_of,
)

from ...diagnostics import Location, quoted
from ..context import At, Context
from .fields import NODE


@dataclass(frozen=True)
class WalkedNode:
    node: TreeNode
    at: At
    """Where the node was written."""
    source: dict[str, object] | None


def walk_tree(ctx: Context, tree: object) -> list[WalkedNode]:
    """Every node of ``tree`` (already known to be a list or an object), the root
    first, each after its parent."""
    walker = _Walker(ctx)
    at = At("/tree", "tree")
    if isinstance(tree, list):
        walker.children(at, tree, ROOT)
    else:
        walker.node(at, tree, None)
    return walker.ordered()


class _Walker:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.written: dict[str, WalkedNode] = {}

    def children(self, at: At, items: list[object], parent: str) -> None:
        for index, item in enumerate(items):
            self.node(at.item(index), item, parent)

    def node(self, at: At, item: object, parent: str | None) -> None:
        NODE.check(self.ctx, at, item)
        if not isinstance(item, dict):
            return
        path = self._path(at, item.get("path"), parent)
        if path is None:
            return
        first = self.written.get(path)
        if first is not None:
            self.ctx.error(
                at.field("path"),
                f"node {quoted(path)} is also defined at {self._where(first.at)}",
            )
        else:
            source = item.get("source")
            self.written[path] = WalkedNode(
                TreeNode(path, _summary(item), _text(item.get("description"))),
                at,
                source if isinstance(source, dict) else None,
            )
        children = item.get("children")
        if isinstance(children, list):
            self.children(at.field("children"), children, path)

    def _path(self, at: At, written: object, parent: str | None) -> str | None:
        if not isinstance(written, str) or not written.startswith("/"):
            return None  # NODE reported it
        path = normalize(written)
        if parent is None and path != ROOT:
            self.ctx.error(
                at.field("path"),
                f"the root node's path must be '/', got {quoted(written)} (or make "
                "'tree' a list of nodes under an implicit root)",
            )
            return None
        if parent is not None and not path.startswith(parent.rstrip("/") + "/"):
            self.ctx.error(
                at.field("path"),
                f"node {quoted(path)} does not lie under its parent {quoted(parent)}",
            )
            return None
        return path

    def _where(self, at: At) -> Location:
        return self.ctx.doc.location(at.field("path").pointer)

    def ordered(self) -> list[WalkedNode]:
        """Written nodes in document order, each after its ancestors; an ancestor
        nobody wrote is made with an empty summary."""
        placed: dict[str, WalkedNode] = {}

        def place(path: str) -> None:
            if path in placed:
                return
            if path != ROOT:
                place(parent_of(path))
            placed[path] = self.written.get(path) or WalkedNode(
                TreeNode(path, ""), At("/tree", "tree"), None
            )

        place(ROOT)
        for path in self.written:
            place(path)
        return list(placed.values())


def _summary(item: dict[str, object]) -> str:
    summary = item.get("summary")
    if isinstance(summary, str):
        return summary
    return first_line(_text(item.get("description")))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
