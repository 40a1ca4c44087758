"""Every name ``from mcipy import ...`` offers, so that a program switching to
``from mcigen import ...`` imports unchanged.

The client, its errors and what its methods return are mcigen's own (the
runtime's ``Tool``, ``ExecutionResult`` and content models). mci-py's parser,
tool manager, MCP client and schema models have no counterpart: mcigen compiles
the schema instead. Their names import, so type hints and ``isinstance`` checks
keep working, but making one raises ``MCIClientError`` naming what to use.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, NoReturn

# the names below are re-exported for ``mcigen.__getattr__``
from mcigen_runtime.client import Annotations as Annotations
from mcigen_runtime.client import ExecutionResult as ExecutionResult
from mcigen_runtime.client import MCIClientError
from mcigen_runtime.client import Tool as Tool
from mcigen_runtime.results import AudioContent as AudioContent
from mcigen_runtime.results import ImageContent as ImageContent
from mcigen_runtime.results import TextContent as TextContent
from mcigen_runtime.results import ToolResult

from .mci_client import MCIClient as MCIClient


class ExecutionType(str, Enum):  # noqa: UP042 (mci-py's str() of a member)
    """The ``type`` of a tool's execution; ``Tool.execution.type`` compares equal
    to its member (``tool.execution.type == ExecutionType.HTTP``)."""

    HTTP = "http"
    CLI = "cli"
    FILE = "file"
    TEXT = "text"
    MCP = "mcp"


ExecutionResultContent = ToolResult
"""mci-py's name for what ``ExecutionResult.result`` holds."""


class SchemaParserError(MCIClientError):
    """mci-py's parser's exception. mcigen reports a schema it cannot load as
    ``MCIClientError`` (this is one), with mci-py's words first."""


class ToolManagerError(MCIClientError):
    """mci-py's tool manager's exception; ``MCIClient`` raises ``MCIClientError``."""


class _NotInMcigen:
    """A name of mci-py's internals: importable, refused when made."""

    instead = ""

    def __init__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise MCIClientError(
            f"mcigen has no {type(self).__name__} (mci-py's internals): "
            f"{self.instead}"
        )


def _not_in_mcigen(name: str, instead: str) -> type[_NotInMcigen]:
    return type(name, (_NotInMcigen,), {"instead": instead, "__module__": __name__})


_COMPILED = (
    "the schema is compiled: load it with MCIClient, or check it with "
    "'mcigen check SCHEMA'"
)
_MCP = (
    "MCP servers are declared under the schema's 'mcp_servers' and their tools "
    "called through MCIClient.execute"
)
_TOOLS = "filter with MCIClient.only, without, tags, withoutTags or toolsets"

SchemaParser = _not_in_mcigen("SchemaParser", _COMPILED)
ToolManager = _not_in_mcigen("ToolManager", _TOOLS)
LiteMcpClient = _not_in_mcigen("LiteMcpClient", _MCP)
ClientCfg = _not_in_mcigen("ClientCfg", _MCP)
StdioCfg = _not_in_mcigen("StdioCfg", _MCP)
SseCfg = _not_in_mcigen("SseCfg", _MCP)
ServerCfg = StdioCfg | SseCfg
MCISchema = _not_in_mcigen("MCISchema", _COMPILED)
Metadata = _not_in_mcigen("Metadata", _COMPILED)
HTTPExecutionConfig = _not_in_mcigen("HTTPExecutionConfig", _COMPILED)
CLIExecutionConfig = _not_in_mcigen("CLIExecutionConfig", _COMPILED)
FileExecutionConfig = _not_in_mcigen("FileExecutionConfig", _COMPILED)
TextExecutionConfig = _not_in_mcigen("TextExecutionConfig", _COMPILED)
FlagConfig = _not_in_mcigen("FlagConfig", _COMPILED)
HTTPBodyConfig = _not_in_mcigen("HTTPBodyConfig", _COMPILED)
RetryConfig = _not_in_mcigen("RetryConfig", _COMPILED)
ApiKeyAuth = _not_in_mcigen("ApiKeyAuth", _COMPILED)
BasicAuth = _not_in_mcigen("BasicAuth", _COMPILED)
BearerAuth = _not_in_mcigen("BearerAuth", _COMPILED)
OAuth2Auth = _not_in_mcigen("OAuth2Auth", _COMPILED)
