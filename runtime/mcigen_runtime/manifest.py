"""``manifest.json``: what a package says about itself as data, written by the
compiler and read by the runtime through this one module, so that both agree on
every field.

The JSON keeps the MCI spellings a reader of the file expects (``inputSchema``);
each field is written only where it says something (a tool's ``background`` when
it is not ``never``, its ``probes`` when it has some, its ``bundle`` when it has one,
its ``env`` when it reads some).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, overload

from .json_reading import parsed
from .records import Record
from .tree import Tree, first_line, tree_from_json, tree_in_text, tree_to_json

MANIFEST = "manifest.json"
"""Its name in the package directory."""

# bytes: a manifest is searched as read, and only what is parsed is decoded
_TOOLS_OPEN = b'\n  "tools": [\n    {\n'
_TOOLS_CLOSE = b"\n    }\n  ]"
_TOOL_CLOSE = b"\n    }"
_TREE_OPEN = b',\n  "tree": '
_KEY = b'\n  "'
_BETWEEN_TOOLS = b"\n    },\n    {\n"
_NAME = b'      "name": '
_PYTHON_NAME = b'      "python_name": '
"""How :func:`manifest_json` lays out the document (each key on a line of its own
at two spaces) and the tools: one object a line at four spaces,
its name and Python name the first two lines inside at six (a JSON string holds no
raw newline, so these lines are the layout's alone)."""


class Probe(Record):
    """A command whose exit code tells whether a tool's program is installed
    (what ``python -m pkg doctor`` runs)."""

    subject: str
    """What it probes, as the report names it (``git``, ``cargo::nextest``)."""
    argv: tuple[str, ...]
    success_exit_codes: tuple[int, ...]
    working_directory: str | None
    """None: the directory the doctor runs in."""
    timeout_ms: int
    install_instructions: str | None

    def __init__(
        self,
        subject: str,
        argv: tuple[str, ...],
        success_exit_codes: tuple[int, ...],
        working_directory: str | None,
        timeout_ms: int,
        install_instructions: str | None,
    ) -> None:
        self._set(
            subject=subject,
            argv=argv,
            success_exit_codes=success_exit_codes,
            working_directory=working_directory,
            timeout_ms=timeout_ms,
            install_instructions=install_instructions,
        )


class EnvUse(Record):
    """An environment variable a tool reads."""

    name: str
    required: bool
    """Whether a call fails without it (some placeholder reads it with nothing to
    fall back on)."""
    fields: tuple[str, ...]
    """Where the tool reads it (``url``, ``auth``, ``args``, ``mcp server NAME``)."""

    def __init__(self, name: str, required: bool, fields: tuple[str, ...]) -> None:
        self._set(name=name, required=required, fields=fields)


class ToolEntry(Record):
    """One tool as the manifest describes it."""

    name: str
    python_name: str
    type: str
    group: str
    origin: str
    """Where the tool was defined: "schema", "toolset" or "mcp"."""
    toolset: str | None
    """The toolset or MCP server it came from; None for the schema's own tools."""
    description: str | None
    annotations: dict[str, Any]
    tags: tuple[str, ...]
    input_schema: dict[str, Any] | None
    output_schema: dict[str, Any] | None = None
    """An MCP tool's ``outputSchema``, when its server declares one."""
    server: str | None = None
    """The MCP server an MCP tool calls (wherever the tool was defined)."""
    background: str = "never"
    """Served over MCP, whether a call may go on as an operation: ``never``,
    ``always``, or ``unless_asked`` (unless ``execution_mode`` is ``Synchronous``)."""
    probes: tuple[Probe, ...] = ()
    bundle: str | None = None
    """Served over MCP, the Ahma bundle that lists the tool once revealed (see
    ``serve/bundles.py``); None: always listed."""
    env: tuple[EnvUse, ...] = ()
    """The environment variables its templates read, by name."""

    def __init__(
        self,
        name: str,
        python_name: str,
        type: str,
        group: str,
        origin: str,
        toolset: str | None,
        description: str | None,
        annotations: dict[str, Any],
        tags: tuple[str, ...],
        input_schema: dict[str, Any] | None,
        output_schema: dict[str, Any] | None = None,
        server: str | None = None,
        background: str = "never",
        probes: tuple[Probe, ...] = (),
        bundle: str | None = None,
        env: tuple[EnvUse, ...] = (),
    ) -> None:
        self._set(
            name=name,
            python_name=python_name,
            type=type,
            group=group,
            origin=origin,
            toolset=toolset,
            description=description,
            annotations=annotations,
            tags=tags,
            input_schema=input_schema,
            output_schema=output_schema,
            server=server,
            background=background,
            probes=probes,
            bundle=bundle,
            env=env,
        )

    @property
    def summary(self) -> str:
        """The first line of the description."""
        return first_line(self.description)


def object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """``schema`` as MCP and the agent frameworks take a tool's input or output
    schema: ``"type": "object"`` in front when it lacks a type, and an object of no
    properties for a tool without one."""
    if schema is None:
        return {"type": "object", "properties": {}}
    return schema if "type" in schema else {"type": "object", **schema}


class ToolEntries(Sequence[ToolEntry]):
    """A manifest's tools in order, each made from its JSON when first read: a
    client that calls one tool of a thousand makes one entry, not a thousand
    (a few percent of its start). Read from a manifest's text, a tool's JSON is
    parsed then too (:meth:`in_text`), and :meth:`find` looks for a tool's name
    line in the text without reading the others': such a client parses one tool's
    JSON, not 1 MB, and reads no other name. Equal to a tuple of the same entries."""

    __slots__ = ("_fields", "_made", "_names", "_text", "_region")

    def __init__(self, fields: Iterable[dict[str, Any]]) -> None:
        self._fields: list[dict[str, Any] | slice] = list(fields)
        self._made: dict[int, ToolEntry] = {}
        self._names: list[tuple[str, str]] | None = [
            (tool["name"], tool["python_name"]) for tool in fields
        ]
        self._text = b""
        self._region = (0, 0)

    @classmethod
    def in_text(cls, text: bytes, start: int, end: int) -> ToolEntries:
        """The tools whose JSON objects are laid out (as :func:`manifest_json`
        writes them) in ``text[start:end]``, from the first one's ``{`` to the
        last one's ``}``."""
        entries = cls(())
        entries._names = None  # read when first asked for (:meth:`_laid_out`)
        entries._text = text
        entries._region = (start, end)
        return entries

    def __len__(self) -> int:
        return len(self._laid_out())

    @overload
    def __getitem__(self, index: int) -> ToolEntry: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[ToolEntry, ...]: ...

    def __getitem__(self, index: int | slice) -> ToolEntry | tuple[ToolEntry, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        index = range(len(self))[index]  # an IndexError as a tuple's
        made = self._made.get(index)
        if made is None:
            made = self._made[index] = self._make(self._fields[index], index)
        return made

    def _make(self, fields: dict[str, Any] | slice, index: int) -> ToolEntry:
        if not isinstance(fields, slice):
            return _tool(fields)
        entry = _tool(parsed(self._text[fields]))
        if self._laid_out()[index] != (entry.name, entry.python_name):
            raise ValueError(f"{MANIFEST}: tool {index} is not laid out as written")
        return entry

    def find(self, name: str) -> ToolEntry | None:
        """In a manifest's text, the tool called ``name``, as :class:`~.registry.
        Registry` finds one (its MCI name, else the first with that Python name),
        looked for by its name line; None when no line has it (the names then tell)."""
        if not self._text:
            return None
        start, end = self._region
        literal = _literal(name)
        line = self._text.find(b"{\n" + _NAME + literal + b",\n", start, end)
        if line < 0:
            line = self._text.find(b"\n" + _PYTHON_NAME + literal + b",\n", start, end)
            if line < 0:
                return None
            line = self._text.rfind(b"{\n" + _NAME, start, line)
        index = self._text.count(_BETWEEN_TOOLS, start, line + len(b"{\n"))
        made = self._made.get(index)
        if made is None:
            close = self._text.find(_TOOL_CLOSE, line) + len(_TOOL_CLOSE)
            made = _tool(parsed(self._text[line:close]))
            if name not in (made.name, made.python_name):
                raise ValueError(f"{MANIFEST}: tool {index} is not laid out as written")
            self._made[index] = made
        return made

    def names(self) -> list[tuple[str, str]]:
        """Each tool's name and Python name, in order, without making an entry."""
        return list(self._laid_out())

    def _laid_out(self) -> list[tuple[str, str]]:
        """The tools' names, each tool's span of the text read with them."""
        if self._names is None:
            self._fields, self._names = _spans_and_names(self._text, *self._region)
        return self._names

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ToolEntries | tuple):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ToolEntries({list(self)!r})"


def tool_names(tools: Sequence[ToolEntry]) -> list[tuple[str, str]]:
    """Each tool's name and Python name, in order; of :class:`ToolEntries`, read
    from their JSON without making an entry."""
    if isinstance(tools, ToolEntries):
        return tools.names()
    return [(tool.name, tool.python_name) for tool in tools]


class ServerEntry(Record):
    """One MCP server the package's tools call, as the manifest describes it."""

    name: str
    group: str
    """The group module whose ``SERVERS`` says how to reach it."""
    variables: tuple[str, ...]
    """The environment variables its settings read."""

    def __init__(self, name: str, group: str, variables: tuple[str, ...]) -> None:
        self._set(name=name, group=group, variables=variables)


class RuntimeSettings(Record):
    """What the build set of the runtime's bounds and environments."""

    limits: dict[str, int]
    file_env: tuple[str, ...]
    """The environment variables file templates may read beyond those named."""
    cli_env: str
    """What a command called with ``os.environ`` sees: ``inherit`` or ``minimal``."""

    def __init__(
        self, limits: dict[str, int], file_env: tuple[str, ...], cli_env: str
    ) -> None:
        self._set(limits=limits, file_env=file_env, cli_env=cli_env)


class Manifest(Record):
    """What a package's ``manifest.json`` holds."""

    package: str
    build: dict[str, Any]
    """What the package was built from and how (``input``, ``format``, ``name``,
    ``flags``), so that it can be built again the same way."""
    source: str
    """The input's name without extensions."""
    metadata: dict[str, Any]
    runtime: RuntimeSettings
    tools: Sequence[ToolEntry]
    """A tuple where the compiler makes it; read from a file, :class:`ToolEntries`."""
    tree: Tree
    """What the broker's meta-tools serve."""
    servers: tuple[ServerEntry, ...] = ()

    def __init__(
        self,
        package: str,
        build: dict[str, Any],
        source: str,
        metadata: dict[str, Any],
        runtime: RuntimeSettings,
        tools: Sequence[ToolEntry],
        tree: Tree,
        servers: tuple[ServerEntry, ...] = (),
    ) -> None:
        self._set(
            package=package,
            build=build,
            source=source,
            metadata=metadata,
            runtime=runtime,
            tools=tools,
            tree=tree,
            servers=servers,
        )


def manifest_json(manifest: Manifest) -> bytes:
    """The manifest as its file holds it: indented, keys in a fixed order."""
    document = {
        "package": manifest.package,
        "build": manifest.build,
        "source": manifest.source,
        "metadata": manifest.metadata,
        **(
            {"servers": [_server_json(s) for s in manifest.servers]}
            if manifest.servers
            else {}
        ),
        "runtime": {
            "limits": manifest.runtime.limits,
            "file_env": list(manifest.runtime.file_env),
            "cli_env": manifest.runtime.cli_env,
        },
        "tools": [_tool_json(tool) for tool in manifest.tools],
        "tree": tree_to_json(manifest.tree),
    }
    import json

    return _utf8(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _utf8(json_text: str) -> bytes:
    """``json_text`` in UTF-8, as the manifest holds it. A lone surrogate (a path's
    undecodable byte, as os.fsdecode gives it) can only be in a string: it is
    written as its JSON escape, which reads back as the same string."""
    return json_text.encode("utf-8", "backslashreplace")


def read_manifest(text: bytes) -> Manifest:
    """The manifest a package's ``manifest.json`` holds, its bytes as read."""
    split = _tools_apart(text)
    if split is None:
        document = parsed(text)
        tools = ToolEntries(document["tools"])
        tree = tree_from_json(document["tree"])
    else:
        document, tools, tree = split
    runtime = document.get("runtime") or {}
    return Manifest(
        package=document["package"],
        build=document.get("build") or {},
        source=document.get("source", ""),
        metadata=document.get("metadata") or {},
        runtime=RuntimeSettings(
            limits=runtime.get("limits") or {},
            file_env=tuple(runtime.get("file_env") or ()),
            cli_env=runtime.get("cli_env", "inherit"),
        ),
        tools=tools,
        tree=tree,
        servers=tuple(
            ServerEntry(server["name"], server["group"], tuple(server["variables"]))
            for server in document.get("servers") or ()
        ),
    )


def _tools_apart(text: bytes) -> tuple[dict[str, Any], ToolEntries, Tree] | None:
    """The manifest without its tools and tree, parsed; the tools and the tree,
    each read from ``text`` when first asked for; None when ``text`` is not laid
    out as :func:`manifest_json` writes it (it is then parsed whole)."""
    start = text.find(_TOOLS_OPEN)
    if start < 0:
        return None
    first = start + len(_TOOLS_OPEN) - len(b"{\n")
    # manifest_json writes the tree last, right after the tools, and nothing in
    # either at two spaces: the last key at two spaces, found from the end, must
    # be the tree's, the tools' close just before it. A key after the tree (a
    # manifest edited by hand, or written by a later mcigen) has the text parsed
    # whole. (Searched for from the first tool on, the pattern's spaces made it
    # ~1 ns a byte: 0.85 ms at 1000 tools.)
    end = text.rfind(_KEY, first) - len(_TOOLS_CLOSE) - len(b",")
    if end < first or not text.startswith(_TOOLS_CLOSE + _TREE_OPEN, end):
        return None
    tree_start = end + len(_TOOLS_CLOSE) + len(_TREE_OPEN)
    tree_end = len(text)
    while tree_end > tree_start and text[tree_end - 1] in b" \t\n\r\x0b\x0c":
        tree_end -= 1
    if not text.endswith(b"\n}", tree_start, tree_end):
        return None
    try:
        rest = parsed(text[:start] + b'\n  "tools": []\n}')
    except ValueError:
        return None
    tools = ToolEntries.in_text(text, first, end + len(_TOOL_CLOSE))
    return rest, tools, tree_in_text(text, tree_start, tree_end - len(b"\n}"))


def _spans_and_names(
    text: bytes, start: int, end: int
) -> tuple[list[dict[str, Any] | slice], list[tuple[str, str]]]:
    """Each tool's span of ``text[start:end]`` and its name and Python name."""
    spans: list[dict[str, Any] | slice] = []
    names = []
    opening = start
    while (between := text.find(_BETWEEN_TOOLS, opening, end)) >= 0:
        names.append(_names_at(text, opening + len(b"{\n")))
        spans.append(slice(opening, between + len(_TOOL_CLOSE)))
        opening = between + len(_BETWEEN_TOOLS) - len(b"{\n")
    names.append(_names_at(text, opening + len(b"{\n")))
    spans.append(slice(opening, end))
    return spans, names


def _names_at(text: bytes, line: int) -> tuple[str, str]:
    """The name and Python name on the two lines from ``line`` on, as
    :func:`manifest_json` writes a tool's first two; ValueError when they are
    not."""
    name_end = text.find(b"\n", line)
    python_name_end = text.find(b"\n", name_end + 1)
    name = text[line:name_end]
    python_name = text[name_end + 1 : python_name_end]
    if not (name.startswith(_NAME) and python_name.startswith(_PYTHON_NAME)):
        raise ValueError("not a manifest's layout")
    return (
        _string(name[len(_NAME) : -1].decode()),
        _string(python_name[len(_PYTHON_NAME) : -1].decode()),
    )


def _literal(name: str) -> bytes:
    """``name`` as :func:`manifest_json` writes it, a JSON string in UTF-8."""
    if name.isprintable() and '"' not in name and "\\" not in name:
        return b'"' + name.encode() + b'"'
    import json

    return _utf8(json.dumps(name, ensure_ascii=False))


def _string(literal: str) -> str:
    """The string a JSON string literal spells; ValueError when it is none."""
    if "\\" in literal or len(literal) < 2 or literal[0] != '"' or literal[-1] != '"':
        spelled = parsed(literal)
        if not isinstance(spelled, str):
            raise ValueError("not a string")
        return spelled
    return literal[1:-1]


def _tool_json(tool: ToolEntry) -> dict[str, Any]:
    written: dict[str, Any] = {
        "name": tool.name,
        "python_name": tool.python_name,
        "type": tool.type,
        "group": tool.group,
        "origin": tool.origin,
        "toolset": tool.toolset,
        "description": tool.description,
        "annotations": tool.annotations,
        "tags": list(tool.tags),
        "inputSchema": tool.input_schema,
    }
    if tool.output_schema:
        written["outputSchema"] = tool.output_schema
    if tool.server is not None:
        written["server"] = tool.server
    if tool.background != "never":
        written["background"] = tool.background
    if tool.probes:
        written["probes"] = [probe.as_dict() for probe in tool.probes]
    if tool.bundle is not None:
        written["bundle"] = tool.bundle
    if tool.env:
        written["env"] = [use.as_dict() for use in tool.env]
    return written


def _tool(fields: dict[str, Any]) -> ToolEntry:
    return ToolEntry(
        name=fields["name"],
        python_name=fields["python_name"],
        type=fields["type"],
        group=fields["group"],
        origin=fields["origin"],
        toolset=fields.get("toolset"),
        description=fields.get("description"),
        annotations=fields.get("annotations") or {},
        tags=tuple(fields.get("tags") or ()),
        input_schema=fields.get("inputSchema"),
        output_schema=fields.get("outputSchema"),
        server=fields.get("server"),
        background=fields.get("background", "never"),
        probes=tuple(_probe(probe) for probe in fields.get("probes") or ()),
        bundle=fields.get("bundle"),
        env=tuple(
            EnvUse(use["name"], use["required"], tuple(use["fields"]))
            for use in fields.get("env") or ()
        ),
    )


def _server_json(server: ServerEntry) -> dict[str, Any]:
    return {
        "name": server.name,
        "group": server.group,
        "variables": list(server.variables),
    }


def _probe(fields: dict[str, Any]) -> Probe:
    return Probe(
        subject=fields["subject"],
        argv=tuple(fields["argv"]),
        success_exit_codes=tuple(fields["success_exit_codes"]),
        working_directory=fields.get("working_directory"),
        timeout_ms=fields["timeout_ms"],
        install_instructions=fields.get("install_instructions"),
    )
