"""``Client``: mci-py's ``MCIClient`` methods and return shapes over a compiled package.

A script written for ``MCIClient(schema_file_path=..., env_vars=...)`` keeps working
with ``pkg.Client(env_vars=...)``: the same tool lists, the same ``execute`` result
(``.result`` is the ``ToolResult``), the same exceptions with the same messages
where mci-py raises them (an unknown tool, a missing required property). The tools
see only ``env_vars``, as in mci-py, and so do the commands they run, unless
``pass_env`` lets the process's environment through (``True``: all of it, as
mci-py's commands get it; or the names to pass); ``base_dir`` replaces the schema's directory
for relative paths of file and cli tools; ``limits`` replaces the package's call
limits by name (see :mod:`mcigen_runtime.limits`). OAuth2 tokens a client fetches serve its own
calls only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .deferred import DeferredModel
from .errors import ToolInputError
from .limits import check_sizes, limited
from .manifest import ToolEntry
from .passed_env import CLIENT_PASS_ENV, pass_env_of
from .path_policy import BASE_DIR_OVERRIDE
from .registry import Registry, UnknownToolError
from .results import ToolResult
from .tokens import TokenCache, tokens_of

if TYPE_CHECKING:
    from .tool_models import Annotations as Annotations
    from .tool_models import Execution as Execution
    from .tool_models import Tool as Tool

_TOOL_MODELS = frozenset({"Annotations", "Execution", "Tool"})


def __getattr__(name: str) -> Any:
    """``Tool`` and the models it holds, from the module that makes them."""
    if name in _TOOL_MODELS:
        from . import tool_models

        return getattr(tool_models, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class MCIClientError(ValueError):
    """What mci-py's ``MCIClient`` raises under this name (an unknown tool, bad
    input), so that ``except MCIClientError`` and tracebacks read the same."""


class ClientInputError(MCIClientError, ToolInputError):
    """Input the tool's schema refuses: both an ``MCIClientError`` (as mci-py's scripts
    catch it) and a ``ToolInputError`` (naming the field)."""


class ExecutionResult(DeferredModel):
    """What ``MCIClient.execute`` returns: the tool's result under ``.result``."""

    result: ToolResult
    jsonrpc: str | None = None
    id: int | None = None


class BaseClient:
    """The methods of ``MCIClient``; a generated ``Client`` supplies ``_registry``
    (``mcigen.MCIClient`` sets its own before calling ``__init__``)."""

    _registry: Registry

    def __init__(
        self,
        env_vars: Mapping[str, Any] | None = None,
        base_dir: str | None = None,
        limits: Mapping[str, int] | None = None,
        pass_env: bool | Iterable[str] = False,
    ) -> None:
        self._env: dict[str, Any] = dict(env_vars or {})
        self._pass_env = pass_env_of(pass_env)
        self._base_dir = base_dir
        self._limits = dict(limits or {})
        check_sizes(self._limits)
        self._tokens = TokenCache()  # this client's OAuth2 tokens, no other's

    @cached_property
    def _tools(self) -> list[Tool]:
        """The tools as ``tools()`` lists them, made when first asked for: a
        client that only executes never needs them."""
        return [_tool(entry) for entry in self._registry.tools]

    def tools(self) -> list[Tool]:
        return list(self._tools)

    def list_tools(self) -> list[str]:
        return [tool.name for tool in self._tools]

    def only(self, tool_names: Iterable[str]) -> list[Tool]:
        wanted = set(tool_names)
        return [tool for tool in self._tools if tool.name in wanted]

    def without(self, tool_names: Iterable[str]) -> list[Tool]:
        unwanted = set(tool_names)
        return [tool for tool in self._tools if tool.name not in unwanted]

    def tags(self, tags: Iterable[str]) -> list[Tool]:
        wanted = set(tags)
        return [tool for tool in self._tools if wanted.intersection(tool.tags)]

    def withoutTags(
        self, tags: Iterable[str]
    ) -> list[Tool]:  # noqa: N802 (mci-py's name)
        unwanted = set(tags)
        return [tool for tool in self._tools if not unwanted.intersection(tool.tags)]

    def toolsets(self, toolset_names: Iterable[str]) -> list[Tool]:
        wanted = set(toolset_names)
        return [tool for tool in self._tools if tool.toolset_source in wanted]

    def get_tool_schema(self, tool_name: str) -> dict[str, Any]:
        return dict(self._entry(tool_name).input_schema or {})

    def execute(
        self, tool_name: str, properties: Mapping[str, Any] | None = None
    ) -> ExecutionResult:
        entry = self._entry(tool_name)
        if properties is not None and not isinstance(properties, Mapping):
            problem = "the properties must be a mapping of names to values"
            raise ClientInputError(
                entry.name, [("", f"{problem}, got {type(properties).__name__}")]
            )
        props = dict(properties or {})
        _check_required(entry, props)
        token = BASE_DIR_OVERRIDE.set(self._base_dir)
        passing = CLIENT_PASS_ENV.set(self._pass_env)
        try:
            with limited(**self._limits), tokens_of(self._tokens):
                result = self._registry.invoker(entry)(props, self._env)
        except ToolInputError as error:
            raise ClientInputError(error.tool, error.problems) from None
        finally:
            CLIENT_PASS_ENV.reset(passing)
            BASE_DIR_OVERRIDE.reset(token)
        # the tool's result is a ToolResult already: nothing to validate
        return ExecutionResult.model_construct(result=result)

    def _entry(self, tool_name: str) -> ToolEntry:
        """The tool by its MCI name only, as mci-py looks tools up."""
        try:
            entry = self._registry.find(tool_name)
        except UnknownToolError:
            raise MCIClientError(f"Tool not found: {tool_name}") from None
        if entry.name != tool_name:
            raise MCIClientError(f"Tool not found: {tool_name}")
        return entry


def _check_required(entry: ToolEntry, props: Mapping[str, Any]) -> None:
    """mci-py's first check, with its message."""
    required = list((entry.input_schema or {}).get("required") or ())
    missing = [name for name in required if name not in props]
    if missing:
        raise MCIClientError(
            f"Tool '{entry.name}' requires properties: {', '.join(required)}. "
            f"Missing: {', '.join(missing)}"
        )


def _tool(entry: ToolEntry) -> Tool:
    from .tool_models import Annotations, Execution, Tool

    return Tool(
        name=entry.name,
        annotations=Annotations(**entry.annotations) if entry.annotations else None,
        description=entry.description,
        inputSchema=entry.input_schema,
        execution=Execution(type=entry.type),
        tags=list(entry.tags),
        toolset_source=entry.toolset,
    )
