"""The package's tools as its manifest describes them (:mod:`.manifest`), and each
tool's entry point, imported on first use.

Every surface that reaches tools by name (the package's command line, ``Client``,
the MCP server, the broker's meta-tools) goes through one :class:`Registry`.
"""

from __future__ import annotations

import importlib
import sys
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .manifest import (
    MANIFEST,
    ServerEntry,
    ToolEntries,
    ToolEntry,
    read_manifest,
    tool_names,
)
from .tree import Tree

if TYPE_CHECKING:  # listing the tools loads no pydantic
    from .results import ToolResult

Invoker = Callable[[Mapping[str, Any], Mapping[str, str]], "ToolResult"]
AsyncInvoker = Callable[[Mapping[str, Any], Mapping[str, str]], Awaitable["ToolResult"]]


class UnknownToolError(LookupError):
    """No tool of the package has this name."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Tool not found: {name}")


class Registry:
    """The tools of the package ``package`` (its import name). A plain class, not
    a dataclass: making one compiles its methods at import (~2.5 M instructions,
    on every cached client's start), and nothing compares or prints a registry."""

    def __init__(
        self,
        package: str,
        metadata: dict[str, Any],
        tools: Sequence[ToolEntry],
        tree: Tree,
        servers: tuple[ServerEntry, ...] = (),
        build: dict[str, Any] | None = None,
    ) -> None:
        self.package = package
        self.metadata = metadata
        self.tools = tools
        """Read from the manifest, each made when first read (``ToolEntries``:
        :meth:`find` makes only the one it finds)."""
        self.tree = tree
        """What the broker's meta-tools serve."""
        self.servers = servers
        self.build: dict[str, Any] = {} if build is None else build
        """How the package was built (``mcigen build`` input, format, name, flags)."""
        self._by_name: dict[str, int] = {}
        """Where in :attr:`tools` each name is, once a name is not found in the
        manifest's text (:meth:`ToolEntries.find`)."""
        self._found: dict[str, ToolEntry] = {}
        """Each name found so far: a call finds its tool with one lookup."""

    def find(self, name: str) -> ToolEntry:
        """The tool called ``name`` (its MCI name, or its Python name)."""
        entry = self._found.get(name)
        if entry is None:
            entry = self._found[name] = self._lookup(name)
        return entry

    def _lookup(self, name: str) -> ToolEntry:
        if isinstance(self.tools, ToolEntries):
            found = self.tools.find(name)
            if found is not None:
                return found
        if not self._by_name:
            names = tool_names(self.tools)
            for index, (_, python_name) in enumerate(names):
                self._by_name.setdefault(python_name, index)
            for index, (tool, _) in enumerate(names):
                self._by_name[tool] = index
        at = self._by_name.get(name)
        if at is None:
            raise UnknownToolError(name)
        return self.tools[at]

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
        name = f"{self.package}.tools.{group}"
        # once imported, taken as import_module would (twice a call, it showed)
        return sys.modules.get(name) or importlib.import_module(name)


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
    path = Path(str(package.__file__)).parent / MANIFEST
    manifest = read_manifest(path.read_bytes())
    return Registry(
        package.__name__,
        manifest.metadata,
        manifest.tools,
        manifest.tree,
        servers=manifest.servers,
        build=manifest.build,
    )
