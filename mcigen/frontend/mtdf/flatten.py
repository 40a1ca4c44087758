"""The tools Ahma lists for checked MTDF tool files (AHMA-SEMANTICS §3 and §4):
one per enabled leaf subcommand, with its name, description and inputSchema, and
what a call needs to build its command line."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ... import ir
from ...diagnostics import Location
from .probes import tool_probes
from .rules import synchronous_of

CARGO = "cargo"
"""Ahma hard-codes this tool name: its schemas have no ``working_directory``."""
WORKING_DIRECTORY = "working_directory"
_WORKING_DIRECTORY_PROPERTY = {
    "type": "string",
    "description": "Working directory for command execution",
    "format": "path",
}
SEED_GUIDE_KEYWORDS = ("enum", "default", "minItems", "maxItems", "pattern")
"""Option fields of the older MTDF guide that are JSON Schema keywords as they stand."""

Fields = Mapping[str, object]
Locate = Callable[[str], Location]
"""Where the node at a JSON pointer of the tool file was written."""


@dataclass(frozen=True)
class MtdfParameter:
    """An option or positional argument, as the command line needs it."""

    name: str
    type: str
    """``string``, ``boolean``, ``integer`` or ``array`` (the check admits no other)."""
    required: bool
    alias: str | None
    format: str | None
    file_arg: bool
    file_flag: str | None
    items_format: str | None = None
    """The ``format`` of an array's ``items``."""


@dataclass(frozen=True)
class MtdfTool:
    """One listed tool: a leaf subcommand, or the whole tool when it has no
    leaves or a single ``default`` one."""

    name: str
    description: str
    input_schema: Mapping[str, object]
    command_words: tuple[str, ...]
    """The tool's command, then every subcommand name on the path but ``default``."""
    options: tuple[MtdfParameter, ...]
    positionals: tuple[MtdfParameter, ...]
    positional_args_first: bool
    synchronous: bool | None
    """The leaf's own, else the tool's (Ahma inherits nothing in between)."""
    timeout_seconds: int | None
    """The leaf's own, else the tool's."""
    pointer: str = ""
    """Where its node is in the tool file: ``""`` for the whole tool."""
    sequence: ir.SequenceExecution | None = None
    """The steps it runs, when its node is a sequence."""
    probes: tuple[ir.Probe, ...] = ()
    """What tells whether the tool's program is installed (see :mod:`.probes`)."""
    location: Location = Location("", 1, 1)
    """Where the leaf (the tool, when it has none) was written."""
    allow_raw_args: bool = False
    """The tool file's ``allow_raw_args``: a call's ``args`` reach the command as
    given, as in Ahma."""
    paths_by_name: bool = False
    """The tool file's ``paths_by_name``: ``format: path`` values reach the
    command as absolute names, as in Ahma, not as descriptor paths."""
    config: str = ""
    """The tool file's ``name`` (several tools share it when it has subcommands)."""

    @property
    def title(self) -> str:
        return self.name


@dataclass(frozen=True)
class _Leaf:
    path: str
    fields: Fields
    words: tuple[str, ...]
    pointer: str


def flatten_tool(
    tool: Fields, guidance_blocks: Mapping[str, str], locate: Locate
) -> list[MtdfTool]:
    """The tools Ahma lists for one checked tool file; none for a disabled or
    livelog tool (builds leave those out). ``locate`` tells where the tool file's
    nodes are."""
    if tool.get("enabled") is False or tool.get("tool_type") == "livelog":
        return []
    name = str(tool["name"])
    leaves = _leaves(tool, prefix="", words=(), pointer="")
    if not leaves or (len(leaves) == 1 and leaves[0].path == "default"):
        leaf = leaves[0] if leaves else None
        key = _guidance_key(tool, name)
        base = str(tool["description"])
        return [_tool(tool, leaf, name, base, key, guidance_blocks, locate)]
    tools = []
    for leaf in leaves:
        tool_name = f"{name}_{leaf.path}"
        # Ahma falls back to the tool's description for an empty one; the check rejects it
        base = str(leaf.fields["description"])
        key = _guidance_key(tool, tool_name)
        tools.append(_tool(tool, leaf, tool_name, base, key, guidance_blocks, locate))
    return tools


def _leaves(
    parent: Fields, prefix: str, words: tuple[str, ...], pointer: str
) -> list[_Leaf]:
    """The leaves under ``parent`` (at ``pointer``), depth first in array order;
    disabled entries and their subtrees skipped, a namespace (an entry with
    ``subcommand``) never a leaf itself."""
    leaves: list[_Leaf] = []
    entries = parent.get("subcommand")
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        if not isinstance(entry, dict) or entry.get("enabled") is False:
            continue
        name = str(entry["name"])
        path = _path(prefix, name)
        entry_words = words if name == "default" else (*words, name)
        entry_pointer = f"{pointer}/subcommand/{index}"
        if isinstance(entry.get("subcommand"), list):
            leaves += _leaves(entry, path, entry_words, entry_pointer)
        else:
            leaves.append(_Leaf(path, entry, entry_words, entry_pointer))
    return leaves


def _path(prefix: str, name: str) -> str:
    if not prefix:
        return name
    return prefix if name == "default" else f"{prefix}_{name}"


def _guidance_key(tool: Fields, default: str) -> str:
    key = tool.get("guidance_key")
    return key if isinstance(key, str) else default


def _tool(
    tool: Fields,
    leaf: _Leaf | None,
    name: str,
    base: str,
    guidance_key: str,
    guidance_blocks: Mapping[str, str],
    locate: Locate,
) -> MtdfTool:
    block = guidance_blocks.get(guidance_key)
    leaf_fields: Fields = leaf.fields if leaf else {}
    options = _objects(leaf_fields, "options")
    positionals = _objects(leaf_fields, "positional_args")
    timeout = leaf_fields.get("timeout_seconds")
    if timeout is None:
        timeout = tool.get("timeout_seconds")
    return MtdfTool(
        name=name,
        description=f"{block}\n\n{base}" if block is not None else base,
        input_schema=_input_schema(str(tool["name"]), leaf_fields),
        command_words=(str(tool["command"]), *(leaf.words if leaf else ())),
        options=tuple(_parameter(o) for o in options),
        positionals=tuple(_parameter(p) for p in positionals),
        positional_args_first=leaf_fields.get("positional_args_first") is True,
        synchronous=synchronous_of(leaf_fields, synchronous_of(tool, None)),
        timeout_seconds=timeout if isinstance(timeout, int) else None,
        pointer=leaf.pointer if leaf else "",
        probes=tool_probes(
            tool, leaf.fields if leaf else None, leaf.path if leaf else None
        ),
        location=locate(leaf.pointer if leaf else ""),
        allow_raw_args=tool.get("allow_raw_args") is True,
        paths_by_name=tool.get("paths_by_name") is True,
        config=str(tool["name"]),
    )


def _input_schema(tool_name: str, leaf: Fields) -> dict[str, object]:
    """§4: options, then positionals (overwriting a same-named option), then
    ``working_directory`` unless the tool is ``cargo``; ``required`` in that
    order, duplicates kept, left out when empty."""
    properties: dict[str, object] = {}
    required: list[str] = []
    for option in _objects(leaf, "options"):
        properties[str(option["name"])] = _property(option, description_default="")
        if option.get("required") is True:
            required.append(str(option["name"]))
    for positional in _objects(leaf, "positional_args"):
        properties[str(positional["name"])] = _property(positional)
        if positional.get("required") is True:
            required.append(str(positional["name"]))
    if tool_name != CARGO:
        properties[WORKING_DIRECTORY] = dict(_WORKING_DIRECTORY_PROPERTY)
    schema: dict[str, object] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _property(
    parameter: Fields, description_default: str | None = None
) -> dict[str, object]:
    schema_type = str(parameter["type"])
    prop: dict[str, object] = {"type": schema_type}
    description = parameter.get("description")
    if description is None:
        description = description_default
    if description is not None:
        prop["description"] = description
    if parameter.get("format") is not None:
        prop["format"] = parameter["format"]
    if schema_type == "array":
        prop["items"] = _items(parameter)
    for keyword in SEED_GUIDE_KEYWORDS:
        if parameter.get(keyword) is not None:
            prop[keyword] = parameter[keyword]
    return prop


def _items(parameter: Fields) -> dict[str, object]:
    items = parameter.get("items")
    if isinstance(items, dict):
        return {
            key: items[key]
            for key in ("type", "format", "description")
            if items.get(key) is not None
        }
    fallback: dict[str, object] = {"type": "string"}
    if parameter.get("format") is not None:
        fallback["format"] = parameter["format"]
    return fallback


def _objects(fields: Fields, key: str) -> list[Fields]:
    """The objects in the array ``fields[key]`` (none when it is absent or null)."""
    entries = fields.get(key)
    if not isinstance(entries, list):
        return []
    return [entry for entry in entries if isinstance(entry, dict)]


def _parameter(fields: Fields) -> MtdfParameter:
    def text(key: str) -> str | None:
        value = fields.get(key)
        return value if isinstance(value, str) else None

    return MtdfParameter(
        name=str(fields["name"]),
        type=str(fields["type"]),
        required=fields.get("required") is True,
        alias=text("alias"),
        format=text("format"),
        file_arg=fields.get("file_arg") is True,
        file_flag=text("file_flag"),
        items_format=_items_format(fields.get("items")),
    )


def _items_format(items: object) -> str | None:
    if not isinstance(items, dict):
        return None
    value = items.get("format")
    return value if isinstance(value, str) else None
