"""The package's tools as data: what ``manifest.json`` says about each, and each
tool's entry point, imported on first use.

Every surface that reaches tools by name (the package's command line, ``Client``,
the MCP server, the broker's meta-tools) goes through one :class:`Registry`.
"""

from __future__ import annotations

import importlib
import json
import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .tree import Tree, first_line, tree_from_json

if TYPE_CHECKING:  # listing the tools loads no pydantic
    from .results import ToolResult

Invoker = Callable[[Mapping[str, Any], Mapping[str, str]], "ToolResult"]
AsyncInvoker = Callable[[Mapping[str, Any], Mapping[str, str]], Awaitable["ToolResult"]]


class UnknownToolError(LookupError):
    """No tool of the package has this name."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Tool not found: {name}")


@dataclass(frozen=True)
class Probe:
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


@dataclass(frozen=True)
class ToolEntry:
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

    @property
    def summary(self) -> str:
        """The first line of the description."""
        return first_line(self.description)


@dataclass(frozen=True)
class ServerEntry:
    """One MCP server the package's tools call, as the manifest describes it."""

    name: str
    group: str
    """The group module whose ``SERVERS`` says how to reach it."""
    variables: tuple[str, ...]
    """The environment variables its settings read."""


@dataclass
class Registry:
    """The tools of the package ``package`` (its import name)."""

    package: str
    metadata: dict[str, Any]
    tools: tuple[ToolEntry, ...]
    tree: Tree
    """What the broker's meta-tools serve."""
    _by_name: dict[str, ToolEntry] = field(default_factory=dict, repr=False)
    servers: tuple[ServerEntry, ...] = ()

    def __post_init__(self) -> None:
        for entry in self.tools:
            self._by_name.setdefault(entry.python_name, entry)
        for entry in self.tools:
            self._by_name[entry.name] = entry

    def find(self, name: str) -> ToolEntry:
        """The tool called ``name`` (its MCI name, or its Python name)."""
        entry = self._by_name.get(name)
        if entry is None:
            raise UnknownToolError(name)
        return entry

    def invoker(self, entry: ToolEntry) -> Invoker:
        """``(props, env) -> ToolResult``: validates ``props``, then runs the tool."""
        invoker: Invoker = self._group(entry).INVOKERS[entry.name]
        return invoker

    def async_invoker(self, entry: ToolEntry) -> AsyncInvoker | None:
        """The awaitable twin of a tool that does I/O (None: the tool only computes,
        so :meth:`invoker` does not block)."""
        invoker: AsyncInvoker | None = self._group(entry).ASYNC_INVOKERS.get(entry.name)
        return invoker

    def call(
        self, name: str, props: Mapping[str, Any], env: Mapping[str, str]
    ) -> ToolResult:
        """Run a tool by name. Raises :class:`UnknownToolError` and ``ToolInputError``."""
        return self.invoker(self.find(name))(props, env)

    async def call_async(
        self, name: str, props: Mapping[str, Any], env: Mapping[str, str]
    ) -> ToolResult:
        entry = self.find(name)
        awaitable = self.async_invoker(entry)
        if awaitable is None:
            return self.invoker(entry)(props, env)
        return await awaitable(props, env)

    def server_params(self, name: str, env: Mapping[str, str]) -> Any:
        """How to reach the MCP server ``name`` (one of :attr:`servers`) with the
        variables of ``env``: its ``mcp_exec.McpServerParams`` (not named here, so
        that a vendored runtime carries ``mcp_exec`` only for MCP tools). Raises
        the runtime's ``TemplateRuntimeError`` when a variable it needs is
        missing."""
        group = next(server.group for server in self.servers if server.name == name)
        return self._module(group).SERVERS[name](env)

    def _group(self, entry: ToolEntry) -> Any:
        return self._module(entry.group)

    def _module(self, group: str) -> Any:
        return importlib.import_module(f"{self.package}.tools.{group}")


_loaded: weakref.WeakKeyDictionary[ModuleType, Registry] = weakref.WeakKeyDictionary()
"""By the package's module: packages of one name built apart (or one built again
and imported anew) each read their own manifest."""


def registry(package: str) -> Registry:
    """The registry of ``package``, read from its manifest once per import of it."""
    module = importlib.import_module(package)
    found = _loaded.get(module)
    if found is None:
        found = _loaded[module] = _read(module)
    return found


def _read(package: ModuleType) -> Registry:
    manifest = Path(str(package.__file__)).parent / "manifest.json"
    document = json.loads(manifest.read_text(encoding="utf-8"))
    tools = tuple(
        ToolEntry(
            name=tool["name"],
            python_name=tool["python_name"],
            type=tool["type"],
            group=tool["group"],
            origin=tool["origin"],
            toolset=tool.get("toolset"),
            description=tool.get("description"),
            annotations=tool.get("annotations") or {},
            tags=tuple(tool.get("tags") or ()),
            input_schema=tool.get("inputSchema"),
            output_schema=tool.get("outputSchema"),
            server=tool.get("server"),
            background=tool.get("background", "never"),
            probes=tuple(_probe(probe) for probe in tool.get("probes") or ()),
        )
        for tool in document["tools"]
    )
    servers = tuple(
        ServerEntry(server["name"], server["group"], tuple(server["variables"]))
        for server in document.get("servers") or ()
    )
    return Registry(
        package.__name__,
        document.get("metadata") or {},
        tools,
        tree_from_json(document["tree"]),
        servers=servers,
    )


def _probe(fields: dict[str, Any]) -> Probe:
    return Probe(
        subject=fields["subject"],
        argv=tuple(fields["argv"]),
        success_exit_codes=tuple(fields["success_exit_codes"]),
        working_directory=fields.get("working_directory"),
        timeout_ms=fields["timeout_ms"],
        install_instructions=fields.get("install_instructions"),
    )
