"""The tools an agent sees, under the names its framework accepts, and how a
model's tool call runs through the package: what every adapter shares.

Names: Anthropic's and OpenAI's tool names are ``^[a-zA-Z0-9_-]{1,64}$``; every
adapter names tools by that rule (a model of either may drive any framework). A
name that fits is used as is, any other is mapped as ``serve`` maps names (see
``edge/settings.py``), over all tools of the package, so a tool keeps its name
whatever the filters.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypedDict

from typing_extensions import Unpack

from ..edge.settings import (
    ServeOptions,
    select_tools,
    unknown_names,
    unknown_said,
    valid_tool_names,
)
from ..errors import ToolInputError
from ..manifest import ToolEntry
from ..registry import AsyncInvoker, Invoker, Registry, UnknownToolError, registry
from ..results import (
    AudioContent,
    Content,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolResult,
)

FRAMEWORK_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_INVALID_RUN = re.compile(r"[^A-Za-z0-9_-]+")


class Invokers(dict[str, tuple[Invoker, AsyncInvoker | None]]):
    """A toolbox's invokers by framework name: a tool's sync invoker and its
    awaitable twin (None for a tool that runs inline), looked up on its first call
    (its group is imported then, not before). A call is one subscript: the adapters
    read it in their own frame, since a method's frame was a fifth of what they
    added to a call."""

    def __init__(self, registry: Registry, by_name: dict[str, ToolEntry]) -> None:
        super().__init__()
        self._registry = registry
        self._by_name = by_name

    def __missing__(self, name: str) -> tuple[Invoker, AsyncInvoker | None]:
        entry = self._by_name.get(name)
        if entry is None:
            raise UnknownToolError(name)
        found = self._registry.invoker(entry), self._registry.async_invoker(entry)
        self[name] = found
        return found


@dataclass(frozen=True)
class Toolbox:
    """The selected tools of one package, by the name the framework sees."""

    registry: Registry
    by_name: dict[str, ToolEntry]
    """Framework name -> tool, in the package's order."""
    env: Mapping[str, str]
    """The variables the tools read (``os.environ`` unless given)."""
    invokers: Invokers = field(init=False, repr=False)
    """What runs each tool: ``invokers[name]`` raises :class:`UnknownToolError`."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "invokers", Invokers(self.registry, self.by_name))

    def call(self, name: str, arguments: object) -> ToolResult:
        """Run the tool the framework calls ``name`` with the model's
        ``arguments``. Raises :class:`UnknownToolError` and ``ToolInputError``
        (naming the field)."""
        invoker, _ = self.invokers[name]
        if type(arguments) is not dict:  # a dict, as models' arguments are, goes as is
            arguments = self.object_arguments(name, arguments)
        return invoker(arguments, self.env)

    async def call_async(self, name: str, arguments: object) -> ToolResult:
        """:meth:`call`, awaiting the tools that do I/O."""
        invoker, awaitable = self.invokers[name]
        if type(arguments) is not dict:
            arguments = self.object_arguments(name, arguments)
        if awaitable is None:
            return invoker(arguments, self.env)
        return await awaitable(arguments, self.env)

    def object_arguments(self, name: str, arguments: object) -> Mapping[str, Any]:
        """``arguments`` that are not a dict, as the mapping they are; raises
        ``ToolInputError`` for anything else (a model's list or string)."""
        if isinstance(arguments, Mapping):
            return arguments
        problem = f"expected an object, not {type(arguments).__name__}"
        raise ToolInputError(self.by_name[name].name, [("", problem)])


def plain_text(result: ToolResult) -> str | None:
    """The text of a result of text alone (what most tools answer, and most
    frameworks take as a string); None when it holds an image or audio."""
    content = result.content
    if len(content) == 1 and type(content[0]) is TextContent:
        return content[0].text  # the common case, kept cheap: it is every call
    if all(isinstance(item, TextContent) for item in content):
        return result.text
    return None


class Filters(TypedDict, total=False):
    """What an agent sees, as ``serve``'s filters choose it (combined by
    intersection; a filter not given selects everything)."""

    only: Iterable[str]
    """These tools only (MCI names)."""
    exclude: Iterable[str]
    """Not these tools (MCI names): ``serve``'s ``--except``."""
    tags: Iterable[str]
    """The tools with at least one of these tags."""
    without_tags: Iterable[str]
    """Not the tools with any of these tags."""
    toolsets: Iterable[str]
    """The tools of these toolsets and MCP servers."""
    env: Mapping[str, str]
    """The variables the tools read (default: ``os.environ``)."""


def toolbox(package: str | ModuleType, **filters: Unpack[Filters]) -> Toolbox:
    """The tools of ``package`` (its import name or module) that ``filters``
    select. Raises ``ValueError`` for a name in ``only`` or ``exclude`` that no
    tool has, or in ``toolsets`` that no tool comes from: an agent left without a tool by a typo would fail later and less
    clearly."""
    found = registry(package if isinstance(package, str) else package.__name__)
    options = ServeOptions(
        only=_names(filters.get("only")),
        exclude=_names(filters.get("exclude")),
        tags=_names(filters.get("tags")),
        without_tags=_names(filters.get("without_tags")),
        toolsets=_names(filters.get("toolsets")),
    )
    unknown = unknown_names(found.tools, options)
    if unknown:
        listed = "; ".join(
            f"{option.lower()}: {unknown_said(option, name)}"
            for option, name in unknown
        )
        raise ValueError(f"{found.package}: {listed}")
    names = valid_tool_names(
        (tool.name for tool in found.tools), FRAMEWORK_TOOL_NAME, _INVALID_RUN
    )
    return Toolbox(
        found,
        {names[tool.name]: tool for tool in select_tools(found.tools, options)},
        filters.get("env", os.environ),
    )


def _names(given: Iterable[str] | None) -> frozenset[str] | None:
    if given is None:
        return None
    if isinstance(given, str):  # one name, not its characters
        return frozenset({given})
    return frozenset(given)


def stand_in_text(item: Content) -> str:
    """The text a framework that cannot take ``item`` as it is gets instead: its
    text, an embedded text resource's text, else a line naming what it is."""
    if isinstance(item, TextContent):
        return item.text
    if isinstance(item, ImageContent | AudioContent):
        return f"[{item.type}, {item.mimeType}]"
    if isinstance(item, EmbeddedResource):
        if isinstance(item.resource, TextResourceContents):
            return item.resource.text
        return f"[resource {item.resource.uri}]"
    assert isinstance(item, ResourceLink)
    return f"[resource link {item.name}: {item.uri}]"
