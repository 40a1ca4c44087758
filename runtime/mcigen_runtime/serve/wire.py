"""The answers to ``initialize`` and ``tools/list`` as the MCP SDK puts them on the
wire, made without the SDK: the stdio server gives them before the SDK is loaded
(see ``stdio_start``), and the SDK's server answers ``tools/list`` with the pages
made here instead of validating every tool again for each request.

What the SDK sends of a result is its protocol version's model of it, dumped
(``mcp_types._v2025_11_25`` for every version the ``initialize`` handshake reaches):
fields in the model's order, ``None`` left out, extra fields of a JSON Schema
object after the declared ones, and a value the model would convert refused. So a
tool is given here in that shape (:func:`wire_tool`), or not at all when it holds
something the model would convert or refuse: its listing then goes through the SDK.
``tests/test_stdio_start.py`` compares these answers with the SDK's, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..edge.json_text import unicode_text

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the ``initialize`` handshake negotiates (the SDK's
``HANDSHAKE_PROTOCOL_VERSIONS``; a test keeps the two equal)."""

LATEST_HANDSHAKE_VERSION = HANDSHAKE_VERSIONS[-1]
"""What a client asking for another version is answered with."""

TASKS_VERSION = "2025-11-25"
"""The protocol version whose Tasks utility is served (see ``tasks``)."""

TASKS_CAPABILITY: dict[str, Any] = {
    "list": {},
    "cancel": {},
    "requests": {"tools": {"call": {}}},
}
"""``capabilities.tasks`` of the ``initialize`` answer (``tasks`` adds it)."""

TOOLS_PAGE_BYTES = 1 << 20
"""The most JSON one ``tools/list`` answer holds of tools (at least one tool):
every tool of a package in one answer, unless they are that large."""

_TASK_SUPPORT = ("forbidden", "optional", "required")
_HINTS = ("destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint")
_SCHEMA_FIELDS = ("$schema", "properties", "required", "type")
_TOOL_FIELDS = frozenset(
    {
        "annotations",
        "description",
        "execution",
        "inputSchema",
        "name",
        "outputSchema",
        "title",
    }
)


def negotiated(requested: object) -> str:
    """The version the server answers an ``initialize`` asking for ``requested``."""
    return (
        requested
        if isinstance(requested, str) and requested in HANDSHAKE_VERSIONS
        else LATEST_HANDSHAKE_VERSION
    )


def server_info(name: str, version: str, description: str | None) -> dict[str, Any]:
    """``serverInfo`` of the ``initialize`` answer."""
    info: dict[str, Any] = {}
    if description is not None:
        info["description"] = description
    info["name"] = name
    info["version"] = version
    return info


def initialize_result(
    requested: object, info: Mapping[str, Any], list_changed: bool, tasks: bool
) -> dict[str, Any]:
    """The ``initialize`` answer of a server of tools (``list_changed``: whether
    it says when its listing changes; ``tasks``: whether it serves MCP Tasks)."""
    version = negotiated(requested)
    capabilities: dict[str, Any] = {"tools": {"listChanged": list_changed}}
    if tasks and version == TASKS_VERSION:
        capabilities["tasks"] = TASKS_CAPABILITY
    return {
        "capabilities": capabilities,
        "protocolVersion": version,
        "serverInfo": dict(info),
    }


def wire_tool(definition: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``tools/list`` entry ``definition`` (see ``tool_definition``) as the SDK
    sends it; None when the SDK's model would convert or refuse part of it."""
    if not _TOOL_FIELDS.issuperset(definition) or not isinstance(
        definition.get("name"), str
    ):
        return None
    tool: dict[str, Any] = {}
    annotations = definition.get("annotations")
    if annotations is not None:
        hints = _wire_annotations(annotations)
        if hints is None:
            return None
        tool["annotations"] = hints
    for key in ("description", "execution", "inputSchema"):
        value = definition.get(key)
        if key == "inputSchema" or value is not None:
            shaped = _SHAPES[key](value)
            if shaped is None:
                return None
            tool[key] = shaped
    tool["name"] = definition["name"]
    for key in ("outputSchema", "title"):
        value = definition.get(key)
        if value is not None:
            shaped = _SHAPES[key](value)
            if shaped is None:
                return None
            tool[key] = shaped
    return tool


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _wire_execution(value: object) -> dict[str, Any] | None:
    if not isinstance(value, dict) or set(value) - {"taskSupport"}:
        return None
    support = value.get("taskSupport")
    if support is None:
        return {}
    return {"taskSupport": support} if support in _TASK_SUPPORT else None


def _wire_annotations(value: object) -> dict[str, Any] | None:
    if not isinstance(value, dict) or set(value) - {*_HINTS, "title"}:
        return None
    hints: dict[str, Any] = {}
    for key in _HINTS:
        hint = value.get(key)
        if hint is not None:
            if not isinstance(hint, bool):
                return None
            hints[key] = hint
    title = value.get("title")
    if title is not None:
        if not isinstance(title, str):
            return None
        hints["title"] = title
    return hints


def _wire_schema(value: object) -> dict[str, Any] | None:
    """An input or output schema: an object of ``"type": "object"``."""
    if not isinstance(value, dict) or value.get("type") != "object":
        return None
    schema = value.get("$schema")
    properties = value.get("properties")
    required = value.get("required")
    if (
        (schema is not None and not isinstance(schema, str))
        or (
            properties is not None
            and not (
                isinstance(properties, dict)
                and all(isinstance(p, dict | bool) for p in properties.values())
            )
        )
        or (
            required is not None
            and not (
                isinstance(required, list) and all(isinstance(r, str) for r in required)
            )
        )
    ):
        return None
    shaped = {key: value[key] for key in _SCHEMA_FIELDS if value.get(key) is not None}
    for key, item in value.items():
        if key not in _SCHEMA_FIELDS and item is not None:
            shaped[key] = item
    return shaped


_SHAPES: dict[str, Any] = {
    "description": _text,
    "title": _text,
    "execution": _wire_execution,
    "inputSchema": _wire_schema,
    "outputSchema": _wire_schema,
}


@dataclass
class Listing:
    """Every ``tools/list`` answer of one set of tools, by the cursor that asks
    for it (None: the first page). A cursor is the position of its page's first
    tool, as text."""

    pages: dict[str | None, dict[str, Any]]
    """Each answer: ``{"nextCursor"?, "tools"}``."""
    exact: bool
    """Whether the tools are as the SDK sends them (see :func:`wire_tool`); if
    not, the pages hold the definitions, for the SDK's models to read."""
    _texts: dict[str | None, str | None] = field(default_factory=dict, repr=False)

    def page_for(self, params: object) -> dict[str, Any] | None:
        """The answer to ``tools/list`` with ``params`` as the SDK sends it; None
        unless the params are plain (none, ``{}`` or a ``cursor`` alone, no
        ``_meta``), the cursor names a page, and the listing is exact."""
        cursor = self._cursor(params)
        return None if cursor is _NO_PAGE else self.pages[cursor]

    def json_for(self, params: object) -> str | None:
        """:meth:`page_for` as the SDK writes it (each page made once); None also
        when only the SDK can write it (see :func:`sdk_json`)."""
        cursor = self._cursor(params)
        if cursor is _NO_PAGE:
            return None
        if cursor not in self._texts:
            self._texts[cursor] = sdk_json(self.pages[cursor])
        return self._texts[cursor]

    def _cursor(self, params: object) -> Any:
        if params is None:
            params = {}
        if not self.exact or not isinstance(params, dict) or set(params) - {"cursor"}:
            return _NO_PAGE
        cursor = params.get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            return _NO_PAGE
        return cursor if cursor in self.pages else _NO_PAGE


_NO_PAGE = object()


def listing(
    definitions: Sequence[Mapping[str, Any]], page_bytes: int = TOOLS_PAGE_BYTES
) -> Listing:
    """The pages of ``definitions``: as many tools in each as fit in
    ``page_bytes`` of JSON."""
    shaped = [wire_tool(definition) for definition in definitions]
    exact = all(tool is not None for tool in shaped)
    tools: list[Any] = shaped if exact else list(definitions)
    starts = [0]
    size = 0
    for position, tool in enumerate(tools):
        length = len(json.dumps(tool, ensure_ascii=False, default=str))
        if size and size + length > page_bytes:
            starts.append(position)
            size = 0
        size += length + 1
    pages: dict[str | None, dict[str, Any]] = {}
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(tools)
        page: dict[str, Any] = {}
        if end < len(tools):
            page["nextCursor"] = str(end)
        page["tools"] = tools[start:end]
        pages[str(start) if start else None] = page
    return Listing(pages, exact)


MESSAGE_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
"""The keys of a JSON-RPC request or notification."""

_LARGEST_ID = 1 << 53


def plain_id(value: object) -> bool:
    """A request id written back the same by ``json`` and the SDK."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -_LARGEST_ID < value < _LARGEST_ID
    return isinstance(value, str) and value.isascii() and value.isprintable()


def response(request_id: int | str, result: str) -> str:
    """The JSON-RPC answer to the request ``request_id`` whose result's JSON is
    ``result``, as the SDK writes it (for an id :func:`plain_id` allows)."""
    return f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"result":{result}}}'


def sdk_json(value: Any) -> str | None:
    """``value`` (JSON data) as the SDK's pydantic writes it; None when this module
    cannot tell it would (a float written with an exponent, a string that is no
    Unicode text, nesting deeper than :data:`_DEEPEST`)."""
    if not writes_alike(value, 0):
        return None
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_DEEPEST = 100


def writes_alike(value: object, depth: int = 0) -> bool:
    """Whether ``value`` (JSON data) is written, and read, by ``json`` as by the
    SDK's pydantic (see :func:`sdk_json`)."""
    if depth > _DEEPEST:
        return False
    if isinstance(value, dict):  # a loop: no generator's frame, no call per string
        for key, item in value.items():
            if not (isinstance(key, str) and (key.isascii() or unicode_text(key))):
                return False
            if type(item) is str and depth < _DEEPEST:
                if not (item.isascii() or unicode_text(item)):
                    return False
            elif not writes_alike(item, depth + 1):
                return False
        return True
    if isinstance(value, str):
        return unicode_text(value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return True
    if isinstance(value, float):
        text = repr(value)
        return "e" not in text and "n" not in text  # inf, nan
    if isinstance(value, list):
        return all(writes_alike(item, depth + 1) for item in value)
    return False
