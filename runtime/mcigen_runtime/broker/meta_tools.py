"""A broker over the package's tools: three stable meta-tools instead of many.

A model that would drown in a thousand tool definitions sees only ``meta_tree``,
``meta_desc`` and ``meta_call`` (:data:`META_TOOLS`). It navigates a tree of paths,
reads the exact input schema of one tool, and calls it::

    broker = Broker(registry("pkg"))
    broker.tree("/")                       # the direct children of a node
    broker.desc("/util/ping")              # a tool's schema and example args
    broker.call("/util/ping", {"n": 1})    # validate, call, (truncate)

The tree
--------
The compiler lays the tree out and writes it into the manifest
(:mod:`mcigen_runtime.tree`): for an MCI schema, its own tools under ``/``, a node per
toolset and ``/mcp/<server>`` per MCP server; for a broker config, the config's
nodes with each source's tools under its node. Paths are read with the rule of
:func:`.broker_tree.normalize`: ``util/ping/`` is ``/util/ping``. A broker
restricted to some tools (``tools=``) leaves out the nodes whose tools are all left
out; a node that has no tool below it in the tree itself (a broker config may
declare one) is served as it is, empty.

Ordering. The children of a node are its nodes, then its tools, each kind sorted
by segment (case-insensitively, ties by code point): independent of the order in
the input, and the same on every run.

Answers
-------
``tree`` -> ``{"path", "children": [{"path", "type": "node"|"tool", "summary"}]}``.
``desc`` of a node -> ``{"path", "type": "node", "summary", "children"}``, with
``description`` when the node has one; a root without a summary is ``the tools of
'pkg'``.
``desc`` of a tool -> ``{"path", "type": "tool", "name", "summary", "description",
"args_schema", "example_args"}`` plus ``annotations`` and ``tags`` when the tool has
any. ``args_schema`` is the manifest's inputSchema as is (``{"type": "object",
"properties": {}}`` for none). ``example_args`` are the leaf's in the tree, as the
compiler settled them: a broker config's own, else arguments made from the tool's
schema that the schema accepts; a leaf without any has no ``example_args``.
``call`` -> ``{"path", "isError", "content": [content dicts], "metadata"}``; a
metadata entry that repeats the content (a failed command's stderr, the stdout kept
of a stopped one, an MCP tool's structuredContent when a text item is its JSON) is
left out, so nothing is carried, or counted against ``max_output_chars``, twice.
An MCP server sets images and sounds apart as content blocks of their own (see
:meth:`Broker.call`).
Every mistake of the caller (unknown path, a node where a tool is expected or the
reverse, args that do not match the schema) raises :class:`BrokerError`.

A leaf whose ``render_mode`` is ``text`` answers with its text items joined into
one (see :data:`.broker_tree.RENDER_MODES`). Long ``call`` answers are cut as
:mod:`mcigen_runtime.broker.truncation` describes, at the leaf's ``max_output_chars`` or else the
broker's.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from ..errors import ToolInputError
from ..manifest import ToolEntry
from ..plain_json import plain_json
from ..registry import Invoker, Registry
from ..results import STRUCTURED_CONTENT, TextContent, ToolResult
from ..tree import ROOT, TreeLeaf, normalize, parent_of
from .truncation import json_text, truncate_answer

__all__ = ["META_TOOLS", "Broker", "BrokerError"]

_PATH_PROPERTY: dict[str, Any] = {
    "type": "string",
    "description": "An absolute path in the broker's tree, such as '/' or "
    "'/toolset/tool', as meta_tree lists it.",
}

META_TOOLS: list[dict[str, Any]] = [
    {
        "name": "meta_tree",
        "description": (
            "List the direct children of a node of the tool tree: each child's path, "
            "its type ('node' to browse further with meta_tree, 'tool' to read with "
            "meta_desc and run with meta_call) and a one-line summary. Start at '/'."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {"path": {**_PATH_PROPERTY, "default": "/"}},
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "meta_desc",
        "description": (
            "Describe a path. For a tool: its full description, the exact JSON "
            "Schema its arguments must match (args_schema) and example_args to start "
            "from. For a node: its summary and children."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {"path": _PATH_PROPERTY},
            "required": ["path"],
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "meta_call",
        "description": (
            "Run the tool at a path with arguments matching the args_schema that "
            "meta_desc returned. Returns the tool's content, isError and metadata; "
            "a very large result comes back truncated, with a note saying what was "
            "cut."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": _PATH_PROPERTY,
                "args": {
                    "type": "object",
                    "description": "The tool's arguments, as an object.",
                    "default": {},
                },
            },
            "required": ["path"],
        },
    },
]
"""The three meta-tools as MCP tool definitions (``name``, ``description``,
``inputSchema``, and ``annotations`` for the two that only read)."""

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


class BrokerError(ValueError):
    """A meta-tool was called with a path or arguments it cannot use.

    ``reason`` says which mistake it is: ``unknown_path``, ``not_a_node`` (a tool
    where a node is needed), ``not_a_tool`` (the reverse), ``invalid_args``, or
    ``invalid_request`` (anything else: a path that is not a string, args that are
    not an object, an unknown meta-tool). ``path`` is the path concerned,
    normalized (None if it was not a string); for invalid arguments ``field`` is
    the first offending property and ``problems`` every (field, message) pair.
    """

    def __init__(
        self,
        message: str,
        *,
        reason: str = "invalid_request",
        path: str | None = None,
        problems: Sequence[tuple[str, str]] = (),
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.path = path
        self.problems = list(problems)
        self.field = self.problems[0][0] if self.problems else ""


@dataclass
class _Node:
    path: str
    summary: str
    description: str | None = None
    nodes: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Leaf:
    entry: ToolEntry
    settings: TreeLeaf

    @property
    def summary(self) -> str:
        given = self.settings.summary
        return self.entry.summary if given is None else given


def _normalize(path: object) -> str:
    if not isinstance(path, str):
        raise BrokerError(
            f"path must be a string such as '/', got {type(path).__name__}"
        )
    return normalize(path)


def _above(paths: Iterable[str]) -> set[str]:
    """The nodes with one of ``paths`` below them (the root always)."""
    found = {ROOT}
    for path in paths:
        parent = parent_of(path)
        while parent not in found:
            found.add(parent)
            parent = parent_of(parent)
    return found


def _sort_key(path: str) -> tuple[str, str]:
    segment = path.rsplit("/", 1)[-1]
    return segment.casefold(), segment


class Broker:
    """``tree``, ``desc`` and ``call`` over the tree of ``registry``.

    ``env`` is the environment the tools see (default: ``os.environ`` as it is at
    call time); ``tools`` restricts the broker to some of the registry's tools;
    ``max_output_chars`` turns on truncation of large ``call`` answers (a leaf's
    own limit wins).
    """

    def __init__(
        self,
        registry: Registry,
        *,
        env: Mapping[str, str] | None = None,
        max_output_chars: int | None = None,
        tools: Sequence[ToolEntry] | None = None,
    ) -> None:
        if max_output_chars is not None and (
            isinstance(max_output_chars, bool)
            or not isinstance(max_output_chars, int)
            or max_output_chars < 1
        ):
            raise ValueError(
                f"max_output_chars must be a positive integer, got {max_output_chars!r}"
            )
        self.registry = registry
        self.env = env
        self.max_output_chars = max_output_chars
        known = {entry.name for entry in registry.tools}
        if tools is None:
            visible = known
        else:
            visible = {entry.name for entry in tools}
            stray = sorted(visible - known)
            if stray:
                raise ValueError(
                    f"not tools of package '{registry.package}': {', '.join(stray)}"
                )
        self._nodes: dict[str, _Node] = {}
        self._tools: dict[str, _Leaf] = {}
        self._awaits: dict[str, bool] = {}
        """By a tool's path, whether calling it awaits I/O (see :meth:`awaits`)."""
        self._invokers: dict[str, Invoker] = {}
        """By a tool's path, its invoker, once called (the registry finds it
        through three calls)."""
        self._layout(visible, pruned=tools is not None)

    # -- the tree ---------------------------------------------------------------

    def _layout(self, visible: set[str], pruned: bool) -> None:
        """The registry's tree with the visible tools; with ``pruned``, without
        the nodes whose every tool below is left out (a node with no tool below
        in the tree itself, as a broker config may declare, stays)."""
        tree = self.registry.tree
        leaves = [leaf for leaf in tree.leaves if leaf.tool in visible]
        filled = _above(leaf.path for leaf in tree.leaves)
        empty = [node.path for node in tree.nodes if node.path not in filled]
        kept = _above([*(leaf.path for leaf in leaves), *empty]) | set(empty)
        for node in tree.nodes:
            if pruned and node.path not in kept:
                continue
            summary = node.summary
            if node.path == ROOT and not summary:
                summary = f"the tools of '{self.registry.package}'"
            self._nodes[node.path] = _Node(node.path, summary, node.description)
            if node.path != ROOT:
                self._nodes[parent_of(node.path)].nodes.append(node.path)
        for leaf in leaves:
            self._tools[leaf.path] = _Leaf(self.registry.find(leaf.tool), leaf)
            self._nodes[parent_of(leaf.path)].tools.append(leaf.path)
        for laid in self._nodes.values():
            laid.nodes.sort(key=_sort_key)
            laid.tools.sort(key=_sort_key)

    def _children(self, node: _Node) -> list[dict[str, Any]]:
        nodes = [
            {"path": p, "type": "node", "summary": self._nodes[p].summary}
            for p in node.nodes
        ]
        tools = [
            {"path": p, "type": "tool", "summary": self._tools[p].summary}
            for p in node.tools
        ]
        return nodes + tools

    def _unknown(self, path: str) -> BrokerError:
        parent = parent_of(path)
        while parent not in self._nodes:
            parent = parent_of(parent)
        message = f"no node or tool at '{path}'"
        close = difflib.get_close_matches(path, [*self._nodes, *self._tools], n=1)
        if close:
            message += f"; did you mean '{close[0]}'?"
        else:
            message += f"; meta_tree('{parent}') lists what is there"
        return BrokerError(message, reason="unknown_path", path=path)

    def _find_node(self, given: object) -> _Node:
        path = _normalize(given)
        node = self._nodes.get(path)
        if node is not None:
            return node
        if path in self._tools:
            raise BrokerError(
                f"'{path}' is a tool, not a node: meta_desc describes it and "
                "meta_call runs it",
                reason="not_a_node",
                path=path,
            )
        raise self._unknown(path)

    def _find_tool(self, given: object) -> tuple[str, _Leaf]:
        if isinstance(given, str) and given in self._tools:
            return given, self._tools[given]  # as the tree spells it: normal already
        path = _normalize(given)
        leaf = self._tools.get(path)
        if leaf is not None:
            return path, leaf
        if path in self._nodes:
            raise BrokerError(
                f"'{path}' is a node, not a tool: meta_tree('{path}') lists its "
                "children",
                reason="not_a_tool",
                path=path,
            )
        raise self._unknown(path)

    def tree(self, path: str = "/") -> dict[str, Any]:
        """The direct children of the node at ``path``."""
        node = self._find_node(path)
        return {"path": node.path, "children": self._children(node)}

    def desc(self, path: str) -> dict[str, Any]:
        """A node's summary and children, or a tool's description, exact args schema
        and example args."""
        normalized = _normalize(path)
        leaf = self._tools.get(normalized)
        if leaf is None:
            node = self._find_node(path)
            answer: dict[str, Any] = {
                "path": node.path,
                "type": "node",
                "summary": node.summary,
            }
            if node.description is not None:
                answer["description"] = node.description
            answer["children"] = self._children(node)
            return answer
        entry, given = leaf.entry, leaf.entry.input_schema
        schema = copy.deepcopy(_EMPTY_SCHEMA if given is None else given)
        answer = {
            "path": normalized,
            "type": "tool",
            "name": entry.name,
            "summary": leaf.summary,
            "description": entry.description or "",
            "args_schema": schema,
        }
        if leaf.settings.example_args is not None:
            answer["example_args"] = copy.deepcopy(leaf.settings.example_args)
        if entry.annotations:
            answer["annotations"] = copy.deepcopy(entry.annotations)
        if entry.tags:
            answer["tags"] = list(entry.tags)
        return answer

    def paths(self) -> dict[str, str]:
        """Every tool's MCI name -> its path in this broker's tree."""
        return {leaf.entry.name: path for path, leaf in sorted(self._tools.items())}

    # -- calls ------------------------------------------------------------------

    def _prepare(self, path: str, args: object) -> tuple[str, _Leaf, dict[str, Any]]:
        normalized, leaf = self._find_tool(path)
        if args is None:
            args = {}
        if type(args) is not dict and not isinstance(args, Mapping):
            raise BrokerError(
                f"args for '{normalized}' must be an object, got {type(args).__name__}",
                path=normalized,
            )
        return normalized, leaf, dict(args)

    def _environment(self) -> Mapping[str, str]:
        return os.environ if self.env is None else self.env

    def _input_error(self, path: str, error: ToolInputError) -> BrokerError:
        details = "; ".join(
            f"'{name}': {message}" if name else message
            for name, message in error.problems
        )
        return BrokerError(
            f"invalid args for '{path}': {details} (meta_desc('{path}') gives the "
            "args schema)",
            reason="invalid_args",
            path=path,
            problems=error.problems,
        )

    def call(
        self,
        path: str,
        args: Mapping[str, Any] | None = None,
        *,
        media: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Validate ``args`` against the tool's schema, then run the tool at ``path``.

        With a list ``media``, the result's image and audio items are moved into it
        and stand in the answer as ``{"type", "mimeType", "content_block": N}``: an
        MCP server sends them as content blocks of their own (block N; block 0 is
        the answer), which ``max_output_chars`` does not count."""
        normalized, leaf, props = self._prepare(path, args)
        invoker = self._invokers.get(normalized)
        if invoker is None:
            invoker = self._invokers[normalized] = self.registry.invoker(leaf.entry)
        try:
            result = invoker(props, self._environment())
        except ToolInputError as error:
            raise self._input_error(normalized, error) from None
        return self._answer(normalized, leaf.settings, result, media)

    async def call_async(
        self,
        path: str,
        args: Mapping[str, Any] | None = None,
        *,
        media: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """:meth:`call`, awaiting tools that do I/O."""
        normalized, leaf, props = self._prepare(path, args)
        awaitable = self.registry.async_invoker(leaf.entry)
        try:
            if awaitable is None:
                invoker = self.registry.invoker(leaf.entry)
                result = invoker(props, self._environment())
            else:
                result = await awaitable(props, self._environment())
        except ToolInputError as error:
            raise self._input_error(normalized, error) from None
        return self._answer(normalized, leaf.settings, result, media)

    def _answer(
        self,
        path: str,
        leaf: TreeLeaf,
        result: ToolResult,
        media: list[dict[str, Any]] | None,
    ) -> dict[str, Any]:
        # A plain text item (nearly every tool's) is written out here, the same
        # dict as pydantic's dump in a tenth of its time, in a loop: a Python
        # call an item costs as much as the dict.
        content: list[dict[str, Any]] = []
        others = False
        for item in result.content:
            if (
                type(item) is TextContent
                and item.annotations is None
                and item.meta is None
            ):
                content.append({"type": "text", "text": item.text})
            else:
                content.append(item.model_dump(mode="json"))
                others = True
        if leaf.render_mode == "text":
            content = _texts_joined(content)
        if media is not None and others:
            content = [_set_apart(item, media) for item in content]
        answer = {
            "path": path,
            "isError": bool(result.isError),
            "content": content,
            "metadata": (
                None
                if result.metadata is None
                else _not_in(content, plain_json(result.metadata))
            ),
        }
        limit = leaf.max_output_chars or self.max_output_chars
        return answer if limit is None else truncate_answer(answer, limit)

    # -- the meta-tools by name ---------------------------------------------------

    def _request(self, name: str, arguments: object) -> tuple[str, Any, Any]:
        """``(name, path, args)`` of a meta-tool call, checked."""
        if name not in ("meta_tree", "meta_desc", "meta_call"):
            known = ", ".join(tool["name"] for tool in META_TOOLS)
            raise BrokerError(f"no meta-tool '{name}' (there are {known})")
        arguments = {} if arguments is None else arguments
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
            raise BrokerError(
                f"the arguments of {name} must be an object, "
                f"got {type(arguments).__name__}"
            )
        if name != "meta_tree" and "path" not in arguments:
            raise BrokerError(f"{name} needs a 'path'")
        return name, arguments.get("path", "/"), arguments.get("args")

    def call_meta(
        self,
        name: str,
        arguments: object = None,
        *,
        media: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Answer the meta-tool ``name`` (one of :data:`META_TOOLS`) with ``arguments``
        as an MCP client sends them (``media``: see :meth:`call`)."""
        name, path, args = self._request(name, arguments)
        if name == "meta_tree":
            return self.tree(path)
        if name == "meta_desc":
            return self.desc(path)
        return self.call(path, args, media=media)

    def awaits(self, name: str, arguments: object = None) -> bool:
        """Whether :meth:`call_meta_async` of ``arguments`` awaits anything: a
        ``meta_call`` of a tool that does I/O. A call it refuses awaits nothing."""
        try:
            name, path, _ = self._request(name, arguments)
            if name != "meta_call":
                return False
            path, leaf = self._find_tool(path)
        except BrokerError:
            return False
        awaits = self._awaits.get(path)
        if awaits is None:
            awaits = self.registry.async_invoker(leaf.entry) is not None
            self._awaits[path] = awaits
        return awaits

    async def call_meta_async(
        self,
        name: str,
        arguments: object = None,
        *,
        media: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """:meth:`call_meta`, with ``meta_call`` awaiting the tool (and setting its
        media apart into ``media``, as :meth:`call` does)."""
        name, path, args = self._request(name, arguments)
        if name == "meta_call":
            return await self.call_async(path, args, media=media)
        return self.call_meta(name, {"path": path})


def _texts_joined(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The content with its text items joined, newline-separated, into one in
    place of the first; the other items as they were."""
    texts = [item["text"] for item in content if item.get("type") == "text"]
    joined: list[dict[str, Any]] = []
    for item in content:
        if item.get("type") != "text":
            joined.append(item)
        elif texts:
            joined.append({"type": "text", "text": "\n".join(texts)})
            texts = []
    return joined


def _set_apart(item: dict[str, Any], media: list[dict[str, Any]]) -> dict[str, Any]:
    """A content item, or, for an image or audio item, its stand-in: the item
    itself goes to ``media``."""
    if item.get("type") not in ("image", "audio"):
        return item
    media.append(item)
    return {
        "type": item["type"],
        "mimeType": item["mimeType"],
        "content_block": len(media),
    }


_REPEATS = ("stdout", "stderr", STRUCTURED_CONTENT)
"""The metadata entries that may repeat the content: a command's output, an MCP
tool's structured result."""


def _not_in(content: list[dict[str, Any]], metadata: Any) -> Any:
    """``metadata`` without the entries of :data:`_REPEATS` whose value the content
    already holds: a string found in a text item (a failed command's stderr, the
    stdout kept of a stopped one), or a value that a text item is the JSON of (an
    MCP tool's structuredContent)."""
    if not isinstance(metadata, dict):
        return metadata
    texts = [item["text"] for item in content if item.get("type") == "text"]

    def carried(value: Any) -> bool:
        if isinstance(value, str):
            return bool(value) and any(value in text for text in texts)
        return isinstance(value, (dict, list)) and any(
            json_text(text) == value for text in texts
        )

    return {
        key: value
        for key, value in metadata.items()
        if key not in _REPEATS or not carried(value)
    }


_ENCODER = json.JSONEncoder(ensure_ascii=False)
_encoded = (
    None
    if c_make_encoder is None
    else c_make_encoder(
        None,  # no circular check: an answer is made of fresh dicts and lists
        _ENCODER.default,
        encode_basestring,
        None,
        _ENCODER.key_separator,
        _ENCODER.item_separator,
        False,
        False,
        True,
    )
)


def answer_text(answer: Mapping[str, Any]) -> str:
    """A meta-tool's answer as the text an MCP server sends (``json.dumps(answer,
    ensure_ascii=False)``), by json's C encoder made once: ``JSONEncoder.encode``
    makes one on every call."""
    if _encoded is None:
        return _ENCODER.encode(answer)
    return "".join(_encoded(answer, 0))


def answer_is_error(answer: Mapping[str, Any]) -> bool:
    """Whether a ``meta_call`` answer reports a failed tool (also when truncated)."""
    inner = answer.get("result") if answer.get("truncated") else answer
    return isinstance(inner, Mapping) and inner.get("isError") is True
